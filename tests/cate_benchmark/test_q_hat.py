"""Q̂: exact expectations over the randomisation, the constant-model identity, and bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from iclr25.cate_benchmark import compare_to_constant, constant_q, is_degenerate, pseudo_outcome, q_hat
from iclr25.cate_benchmark.q_hat import QHat, q_hat_terms
from iclr25.core.errors import UserError

# Two units with fixed potential outcomes: enumerate the 4 assignments exactly.
Y0 = np.array([1.0, -2.0])
Y1 = np.array([4.0, 0.5])
TAU = Y1 - Y0  # (3.0, 2.5)
E = np.array([0.3, 0.6])
TAU_HAT = np.array([2.0, -1.0])


def _expected(kind: str, **nuis) -> float:
    """E over W ~ Bern(e) (independently per unit) of Q̂, computed exactly."""
    total = 0.0
    for w in itertools.product([0, 1], repeat=2):
        w = np.array(w)
        prob = np.prod(np.where(w == 1, E, 1 - E))
        y = np.where(w == 1, Y1, Y0)
        total += prob * q_hat(TAU_HAT, y, w, E, kind, **nuis).value
    return total


@pytest.mark.parametrize("kind,nuis", [
    ("ht", {}),
    ("loc", {"m": np.array([0.7, -0.3])}),
    ("dr", {"mu0": np.array([5.0, 1.0]), "mu1": np.array([-1.0, 2.0])}),  # deliberately wrong models
    ("rloss", {"m": np.array([0.7, -0.3])}),
])
def test_two_point_expectation_equals_analytic_q(kind, nuis):
    q = np.mean(TAU_HAT**2 - 2 * TAU_HAT * TAU)  # Q = E[τ̂² − 2τ̂τ]
    assert _expected(kind, **nuis) == pytest.approx(q, abs=1e-12)


def test_pseudo_outcome_is_conditionally_unbiased():
    for kind in ("ht", "dr"):
        mean_eta = 0.0
        for w in itertools.product([0, 1], repeat=2):
            w = np.array(w)
            prob = np.prod(np.where(w == 1, E, 1 - E))
            y = np.where(w == 1, Y1, Y0)
            mean_eta = mean_eta + prob * pseudo_outcome(y, w, E, kind, mu0=np.zeros(2), mu1=np.ones(2))
        np.testing.assert_allclose(mean_eta, TAU, atol=1e-12)


def test_zero_model_scores_exactly_zero():
    rng = np.random.default_rng(0)
    y, w = rng.normal(size=50), rng.integers(0, 2, 50)
    r = q_hat(np.zeros(50), y, w, 0.4)
    assert r.value == 0.0 and r.se == 0.0 and r.degenerate


def test_constant_predictor_identity():
    rng = np.random.default_rng(1)
    y, w = rng.normal(2, 1, 200), rng.integers(0, 2, 200)
    ate_hat = pseudo_outcome(y, w, 0.5).mean()
    for c in (-1.0, 0.0, 0.5, 3.0):
        assert q_hat(np.full(200, c), y, w, 0.5).value == pytest.approx(constant_q(c, ate_hat))
    assert constant_q(2.0, 2.0) == -4.0  # minimum −ATE² at c = ATE
    cs = np.linspace(-3, 5, 81)
    assert cs[np.argmin([constant_q(c, 1.0) for c in cs])] == pytest.approx(1.0)


def test_location_invariant_form_ignores_outcome_shift():
    rng = np.random.default_rng(2)
    y, w, tau = rng.normal(size=100), rng.integers(0, 2, 100), rng.normal(size=100)
    m = rng.normal(size=100)
    a = q_hat(tau, y, w, 0.5, "loc", m=m).value
    b = q_hat(tau, y + 1000.0, w, 0.5, "loc", m=m + 1000.0).value
    assert a == pytest.approx(b)


def test_ranks_like_mse_on_a_large_trial():
    rng = np.random.default_rng(3)
    n = 200_000
    x = rng.normal(size=n)
    tau = 1 + x
    w = rng.integers(0, 2, n)
    y = x + w * tau + rng.normal(size=n)
    good, bad = q_hat(1 + 0.9 * x, y, w, 0.5), q_hat(1 - x, y, w, 0.5)
    assert good.value < bad.value
    mse_gap = np.mean((1 - x - tau) ** 2) - np.mean((1 + 0.9 * x - tau) ** 2)
    assert bad.value - good.value == pytest.approx(mse_gap, abs=6 * np.hypot(good.se, bad.se))


def test_se_and_unpacking():
    r = q_hat([1.0, 2.0, 0.5], [1.0, 0.0, 2.0], [1, 0, 1], 0.5)
    q, se = r
    s = q_hat_terms([1.0, 2.0, 0.5], [1.0, 0.0, 2.0], [1, 0, 1], 0.5)
    assert q == pytest.approx(s.mean()) and se == pytest.approx(s.std(ddof=1) / np.sqrt(3))


def test_is_degenerate_and_significance():
    assert is_degenerate(0.0) and not is_degenerate(-0.1)
    assert is_degenerate(QHat(-0.1, 0.1, 100, "ht"), alpha=0.05)  # not significantly below 0
    assert not is_degenerate(QHat(-1.0, 0.1, 100, "ht"), alpha=0.05)
    with pytest.raises(UserError):
        is_degenerate(-1.0, alpha=0.05)


def test_compare_to_constant_is_paired_difference():
    rng = np.random.default_rng(4)
    y, w, tau = rng.normal(size=80), rng.integers(0, 2, 80), rng.normal(size=80)
    c = compare_to_constant(tau, y, w, 0.5, c=0.3)
    assert c.diff == pytest.approx(q_hat(tau, y, w, 0.5).value - q_hat(np.full(80, 0.3), y, w, 0.5).value)
    assert c.worse_than_constant == (c.diff > 0)
    assert compare_to_constant(tau, y, w, 0.5).constant == pytest.approx(pseudo_outcome(y, w, 0.5).mean())


@pytest.mark.parametrize("kwargs,match", [
    ({"e": 0.0}, "propensity"),
    ({"e": 1.0}, "propensity"),
    ({"e": -0.2}, "propensity"),
    ({"w": [0, 2, 1]}, "binary"),
    ({"y": [1.0, np.nan, 2.0]}, "missing"),
    ({"tau_hat": [1.0, 2.0]}, "2 values"),
    ({"kind": "qini"}, "unknown"),
    ({"kind": "dr"}, "mu0"),
])
def test_bad_input_is_one_line_user_error(kwargs, match):
    args = {"tau_hat": [1.0, 2.0, 3.0], "y": [1.0, 2.0, 3.0], "w": [0, 1, 1], "e": 0.5, **kwargs}
    with pytest.raises(UserError, match=match) as info:
        q_hat(**args)
    assert "\n" not in str(info.value)
