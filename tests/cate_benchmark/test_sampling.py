"""Observational sampling: hits the target treated share, selects on X only, reports the right propensity."""

from __future__ import annotations

import numpy as np
import pytest

from iclr25.cate_benchmark import NONLINEARITY, observational_sample
from iclr25.cate_benchmark.sampling import assignment_score
from iclr25.core.errors import UserError


def _rct(n=20_000, e=0.5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    w = (rng.random(n) < e).astype(int)
    return X, w


@pytest.mark.parametrize("nonlinearity", NONLINEARITY)
@pytest.mark.parametrize("share", [0.2, 0.5, 0.8])
def test_treated_share_hits_target(nonlinearity, share):
    X, w = _rct()
    s = observational_sample(X, w, 0.5, share, nonlinearity, None, np.random.default_rng(1))
    assert w[s.idx].mean() == pytest.approx(share, abs=0.02)


def test_implied_propensity_is_calibrated_and_matches_formula():
    X, w = _rct(e=0.3)
    s = observational_sample(X, w, 0.3, 0.5, "mild", None, np.random.default_rng(2))
    p, e = s.selection, 0.3
    np.testing.assert_allclose(s.propensity, p * e / (p * e + (1 - p) * (1 - e)))
    assert np.all((s.propensity > 0) & (s.propensity < 1))
    # calibration: treated share among kept units tracks the implied propensity, bin by bin
    bins = np.quantile(s.propensity, np.linspace(0, 1, 6))
    which = np.clip(np.searchsorted(bins, s.propensity, side="right") - 1, 0, 4)
    for b in range(5):
        sel = which == b
        assert w[s.idx][sel].mean() == pytest.approx(s.propensity[sel].mean(), abs=0.04)


def test_selection_confounds_the_training_sample():
    X, w = _rct()
    s = observational_sample(X, w, 0.5, 0.5, "linear", None, np.random.default_rng(3))
    # in the RCT, W is independent of X; after selection the treated share follows p(x)
    hi = s.propensity > np.median(s.propensity)
    assert w[s.idx][hi].mean() - w[s.idx][~hi].mean() > 0.2


def test_subsampling_size_and_disjoint_sorted_indices():
    X, w = _rct(5000)
    s = observational_sample(X, w, 0.5, 0.5, "strong", 700, np.random.default_rng(4))
    assert len(s.idx) == 700 and len(np.unique(s.idx)) == 700 and np.all(np.diff(s.idx) > 0)


def test_same_seed_same_sample():
    X, w = _rct(3000)
    a = observational_sample(X, w, 0.5, 0.3, "mild", 500, np.random.default_rng(7))
    b = observational_sample(X, w, 0.5, 0.3, "mild", 500, np.random.default_rng(7))
    np.testing.assert_array_equal(a.idx, b.idx)


def test_nonlinearity_levels_increase_departure_from_linear():
    X, _ = _rct(5000)
    r2 = []
    for nl in NONLINEARITY:
        g = assignment_score(X, nl, np.random.default_rng(5))
        beta, *_ = np.linalg.lstsq(np.c_[np.ones(len(X)), X], g, rcond=None)
        r2.append(1 - np.var(g - np.c_[np.ones(len(X)), X] @ beta) / np.var(g))
    assert r2[0] == pytest.approx(1.0) and r2[0] > r2[1] > r2[2]


@pytest.mark.parametrize("kwargs,match", [
    ({"treat_share": 0.0}, "treat_share"),
    ({"treat_share": 1.2}, "treat_share"),
    ({"nonlinearity": "cubic"}, "nonlinearity"),
    ({"e_rct": 1.0}, "propensity"),
])
def test_bad_input(kwargs, match):
    X, w = _rct(200)
    args = {"X": X, "w": w, "e_rct": 0.5, "treat_share": 0.5, "nonlinearity": "linear", "n": None,
            "rng": np.random.default_rng(0), **kwargs}
    with pytest.raises(UserError, match=match):
        observational_sample(**args)
