"""The 16 CATE learners: scikit-learn shape, recovery of a linear effect, constant models, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from iclr25.cate_benchmark import LEARNERS, make_learner
from iclr25.cate_benchmark.learners import learner_names
from iclr25.core.errors import UserError


@pytest.fixture(scope="module")
def rct():
    rng = np.random.default_rng(0)
    n = 600
    X = rng.normal(size=(n, 4))
    w = rng.integers(0, 2, n)
    tau = 1.0 + X[:, 1]
    y = X[:, 0] + w * tau + 0.5 * rng.normal(size=n)
    return X, w, y, tau


def test_roster_has_16_learners_with_all_families():
    assert len(LEARNERS) == 16
    assert {s.family for s in LEARNERS.values()} == {"s", "t", "x", "r", "dr", "dml", "const", "zero"}
    assert LEARNERS["dml.lasso"].constant and LEARNERS["dml.lasso"].orthogonal


def test_every_learner_fits_and_predicts(rct):
    X, w, y, tau = rct
    for name in LEARNERS:
        est = make_learner(name).fit(X, w, y).effect(X[:50])
        assert est.shape == (50,) and np.isfinite(est).all(), name
        if LEARNERS[name].constant:
            assert np.ptp(est) == 0.0, name


@pytest.mark.parametrize("name", ["s.lasso", "t.lasso", "x.lasso", "r.lasso", "dr.lasso", "dml.linear"])
def test_linear_learners_recover_a_linear_effect(rct, name):
    X, w, y, tau = rct
    est = make_learner(name).fit(X, w, y).effect(X)
    assert np.mean((est - tau) ** 2) < 0.1 * np.var(tau) + 0.05


def test_constant_models_estimate_the_ate(rct):
    X, w, y, tau = rct
    for name in ("dml.lasso", "const.ipw"):
        assert make_learner(name).fit(X, w, y).effect(X[:1])[0] == pytest.approx(tau.mean(), abs=0.15)
    assert np.all(make_learner("zero").fit(X, w, y).effect(X) == 0.0)


def test_learner_selection_names():
    assert learner_names("all") == list(LEARNERS)
    assert set(learner_names("fast")) < set(LEARNERS)
    assert learner_names("t.lasso, zero") == ["t.lasso", "zero"]
    with pytest.raises(UserError, match="nope"):
        learner_names("t.lasso,nope")


@pytest.mark.parametrize("bad,match", [
    ({"w": "two"}, "binary"),
    ({"w": "one_arm"}, "single arm"),
    ({"y": "nan"}, "missing"),
    ({"X": "short"}, "lengths"),
])
def test_bad_fit_input(rct, bad, match):
    X, w, y, _ = rct
    if bad.get("w") == "two":
        w = np.where(w == 1, 2, 0)
    if bad.get("w") == "one_arm":
        w = np.ones_like(w)
    if bad.get("y") == "nan":
        y = y.copy()
        y[3] = np.nan
    if bad.get("X") == "short":
        X = X[:-1]
    with pytest.raises(UserError, match=match):
        make_learner("t.lasso").fit(X, w, y)


def test_effect_checks_columns_and_fit(rct):
    X, w, y, _ = rct
    with pytest.raises(RuntimeError):
        make_learner("t.lasso").effect(X)
    with pytest.raises(UserError, match="columns"):
        make_learner("t.lasso").fit(X, w, y).effect(X[:, :2])
    with pytest.raises(UserError, match="unknown learner"):
        make_learner("causal.magic")
