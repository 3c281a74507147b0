"""Scores a CATE user reads beside Q̂ (the alternatives of the paper's Fig. 1, spec §6): the uplift
(Qini) curve and its area, a calibration check of τ̂ against the trial's pseudo-outcomes, and the plug-in
τ-risk. Unlike Q̂ none of them is an unbiased estimate of the MSE ranking; they answer other questions
(does τ̂ order units well, is its scale right) and the paper finds them worse at ranking models.

All three use a trial with a known propensity e: η = YW/e − Y(1−W)/(1−e) has E[η | X] = τ(X)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iclr25.cate_benchmark.q_hat import _as_1d, pseudo_outcome, validate_trial
from iclr25.core.errors import UserError


@dataclass(frozen=True)
class Uplift:
    """The IPW uplift curve of a ranking by τ̂. `gain[k]` = (1/n) Σ of η over the k units with the
    largest τ̂ (the effect per unit of population from treating only them), k = 0..n; `random` the same
    for a random order, k/n · gain[n]. `auuc` = ∫ gain dφ, `qini` = ∫ (gain − random) dφ over the
    treated share φ ∈ [0, 1] (higher is better; 0 = no better than a random order), `qini_se` its
    bootstrap standard error."""

    share: np.ndarray
    gain: np.ndarray
    random: np.ndarray
    auuc: float
    qini: float
    qini_se: float


def _gain(tau: np.ndarray, eta: np.ndarray) -> np.ndarray:
    """Cumulative gain with ties averaged: units with equal τ̂ are in random order, so each gets the mean
    η of its tie group (the expected curve over tie-breaks; a constant τ̂ gives the random line)."""
    if tau.min() == tau.max():  # one tie group: exactly the random line
        return np.linspace(0.0, 1.0, len(tau) + 1) * (eta.sum() / len(tau))
    order = np.argsort(-tau, kind="stable")
    t, h = tau[order], eta[order]
    starts = np.flatnonzero(np.r_[True, t[1:] != t[:-1]])
    sums = np.add.reduceat(h, starts)
    sizes = np.diff(np.r_[starts, len(t)])
    h = np.repeat(sums / sizes, sizes)
    return np.r_[0.0, np.cumsum(h)] / len(t)


def _areas(gain: np.ndarray) -> tuple[float, float]:
    share = np.linspace(0.0, 1.0, len(gain))
    auuc = float(np.trapezoid(gain, share))
    qini = float(np.trapezoid(gain - share * gain[-1], share))  # ∫ (gain − φ·gain(1)) dφ
    return auuc, qini


def uplift_curve(tau_hat, y, w, e, n_boot: int = 200, seed: int = 0) -> Uplift:
    """The uplift (Qini) curve of τ̂ on a trial with known propensity, its area and the Qini coefficient
    with a bootstrap SE (units resampled, τ̂ re-sorted in each draw).

    >>> r = uplift_curve([2.0, 1.0, 0.0, -1.0], y=[4.0, 0.0, 0.0, 4.0], w=[1, 1, 0, 0], e=0.5, n_boot=0)
    >>> r.gain.tolist(), round(r.qini, 3)   # η = (8, 0, 0, −8): treating the top unit gains 8/4
    ([0.0, 2.0, 2.0, 2.0, 0.0], 1.5)
    """
    y, w, e = validate_trial(y, w, e)
    n = y.shape[0]
    tau = np.broadcast_to(_as_1d("predictions", tau_hat, n), (n,)).astype(float)
    if not 0 <= n_boot <= 100_000:
        raise UserError(f"n_boot must be in [0, 100000], got {n_boot}")
    eta = pseudo_outcome(y, w, e, "ht")
    gain = _gain(tau, eta)
    auuc, qini = _areas(gain)
    rng = np.random.default_rng(seed)
    boots = [_areas(_gain(tau[i], eta[i]))[1] for i in (rng.integers(0, n, n) for _ in range(n_boot))]
    se = float(np.std(boots, ddof=1)) if n_boot > 1 else float("nan")
    share = np.linspace(0.0, 1.0, n + 1)
    return Uplift(share, gain, share * gain[-1], auuc, qini, se)


@dataclass(frozen=True)
class Calibration:
    """The best linear predictor of τ given τ̂ (Chernozhukov et al.'s BLP; grf's `test_calibration`):
    η ≈ a·τ̄ + b·(τ̂ − τ̄), fit by least squares with heteroscedasticity-robust (HC1) SEs. a = 1: the
    mean effect is right; b = 1: the spread of τ̂ is right (b < 1 too spread out, b > 1 too flat); b > 0
    by its interval: τ̂ carries real heterogeneity. `b` is NaN for a constant τ̂. `groups` are the GATES:
    per quintile of τ̂, its mean τ̂ and the mean η (the estimated effect) with its SE."""

    a: float
    a_se: float
    b: float
    b_se: float
    groups: list[dict]


def calibration(tau_hat, y, w, e, eta=None, n_groups: int = 5) -> Calibration:
    """Calibration of τ̂ against the trial's pseudo-outcomes (HT η by default; pass a DR `eta` for less
    variance).

    >>> rng = np.random.default_rng(0); n = 20000; x = rng.normal(size=n); w = rng.integers(0, 2, n)
    >>> y = x + w * (1 + x) + rng.normal(size=n)
    >>> c = calibration(1 + x, y, w, 0.5)          # the true τ: a ≈ 1, b ≈ 1
    >>> round(c.a, 1), round(c.b, 1)
    (1.0, 1.0)
    """
    y, w, e = validate_trial(y, w, e)
    n = y.shape[0]
    tau = np.broadcast_to(_as_1d("predictions", tau_hat, n), (n,)).astype(float)
    eta = pseudo_outcome(y, w, e, "ht") if eta is None else _as_1d("eta", eta, n)
    if not 1 <= n_groups <= n:
        raise UserError(f"n_groups must be in [1, {n}], got {n_groups}")
    tbar = float(tau.mean())
    d = tau - tbar
    varying = float(d.std()) > 1e-12 * max(1.0, abs(tbar))
    Z = np.column_stack([np.full(n, tbar), d]) if varying else np.full((n, 1), tbar)
    if abs(tbar) < 1e-300:  # τ̂ ≡ 0: nothing to scale
        a, a_se, b, b_se = float("nan"), float("nan"), float("nan"), float("nan")
    else:
        coef, *_ = np.linalg.lstsq(Z, eta, rcond=None)
        resid = eta - Z @ coef
        bread = np.linalg.pinv(Z.T @ Z)
        meat = (Z * resid[:, None] ** 2).T @ Z * n / max(n - Z.shape[1], 1)  # HC1
        se = np.sqrt(np.diag(bread @ meat @ bread))
        a, a_se = float(coef[0]), float(se[0])
        b, b_se = (float(coef[1]), float(se[1])) if varying else (float("nan"), float("nan"))
    groups = []
    rank = np.argsort(np.argsort(tau, kind="stable"), kind="stable")
    for g in range(n_groups):
        m = (rank * n_groups // n) == g
        if m.any():
            groups.append({"group": g + 1, "n": int(m.sum()), "tau_hat": float(tau[m].mean()),
                           "effect": float(eta[m].mean()),
                           "effect_se": float(eta[m].std(ddof=1) / np.sqrt(m.sum())) if m.sum() > 1
                           else float("nan")})
    return Calibration(a, a_se, b, b_se, groups)


@dataclass(frozen=True)
class PluginRisk:
    """(1/n) Σ (τ̂ − τ̃)², τ̃ a T-learner cross-fitted on the evaluation units (lower is better; biased
    toward models that resemble the plug-in, and it cannot tell a model from τ̃'s own errors)."""

    value: float
    se: float
    base: str


def plugin_tau(X, w, y, base: str = "lasso", folds: int = 2, seed: int = 0) -> np.ndarray:
    """τ̃(X_i) = μ̂₁ − μ̂₀, each unit predicted by outcome models fit on the other folds."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from iclr25.cate_benchmark.learners import (
        BaseConfig,
        _check_fit_input,
        crossfit_nuisances,
        make_classifier,
        make_regressor,
    )
    if base not in ("lasso", "gbm", "linear", "rf"):
        raise UserError(f"plug-in base must be lasso, gbm, linear or rf, got {base!r}")
    X, w, y = _check_fit_input(X, w, y)
    cfg = BaseConfig(seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        nu = crossfit_nuisances(X, w, y, lambda: make_regressor(base, cfg),
                                lambda: make_classifier("lasso", cfg), folds, seed, arms=True)
    return nu["mu1"] - nu["mu0"]


def plugin_risk(tau_hat, tau_tilde, base: str = "lasso") -> PluginRisk:
    """The plug-in τ-risk of predictions against a plug-in τ̃ (from `plugin_tau`).

    >>> plugin_risk([1.0, 2.0], [1.0, 0.0]).value
    2.0
    """
    t = _as_1d("predictions", tau_hat)
    tt = _as_1d("plug-in effects", tau_tilde, t.shape[0])
    s = (t - tt) ** 2
    se = float(s.std(ddof=1) / np.sqrt(len(s))) if len(s) > 1 else float("nan")
    return PluginRisk(float(s.mean()), se, base)
