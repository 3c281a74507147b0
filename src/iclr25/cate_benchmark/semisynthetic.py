"""Semi-synthetic validation (Fig. 1): real covariates, simulated outcomes with a known τ(x), so the
oracle MSE ranking of the models is known and Q̂'s ranking can be scored by mean reciprocal rank.

Baselines scored the same way: the plug-in τ-risk (a T-learner fit on the evaluation set stands in for τ)
and Q̂ with the DR control variate.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from iclr25.cate_benchmark.learners import BaseConfig, eval_outcome_models, make_learner
from iclr25.cate_benchmark.q_hat import q_hat
from iclr25.cate_benchmark.sampling import observational_sample

MRR_LEARNERS = ("s.lasso", "t.lasso", "x.lasso", "r.lasso", "dr.lasso", "dml.linear", "dml.lasso",
                "const.ipw", "s.gbm.cv", "t.gbm.cv", "zero")


@dataclass(frozen=True)
class SemiSyntheticConfig:
    """Our simulation design, fixed before measuring: a nonlinear baseline, a heterogeneous τ with a
    linear and a step part (sd of order 1), unit noise, RCT e = 0.5 on the evaluation set."""

    n_train: int = 1000
    n_eval: int = 5000
    ate: float = 0.5
    noise_sd: float = 1.0
    e_eval: float = 0.5
    learners: tuple[str, ...] = MRR_LEARNERS
    base: BaseConfig = field(default_factory=BaseConfig)


def simulate(Xreal: np.ndarray, n: int, rng: np.random.Generator, cfg: SemiSyntheticConfig, e: float,
             coefs: dict[str, np.ndarray] | None = None):
    """Draw n units: covariates resampled from the real rows, W ~ Bern(e), Y = μ0(x) + W·τ(x) + ε.
    Returns X, w, y, τ(X) and the (reusable) coefficients."""
    Z = (Xreal - Xreal.mean(0)) / np.where(Xreal.std(0) > 0, Xreal.std(0), 1.0)
    d = Z.shape[1]
    if coefs is None:
        coefs = {"b": rng.normal(size=d) / np.sqrt(d), "t": rng.normal(size=d) / np.sqrt(d),
                 "j": rng.integers(0, d, size=2)}
    idx = rng.integers(0, Z.shape[0], size=n)
    X, Zs = Xreal[idx], Z[idx]
    mu0 = Zs @ coefs["b"] + 0.5 * np.tanh(Zs[:, coefs["j"][0]])  # baseline: linear + saturating
    tau = cfg.ate + 0.7 * (Zs @ coefs["t"]) + 0.7 * np.where(Zs[:, coefs["j"][1]] > 0, 1.0, -1.0)  # τ(x)
    w = (rng.random(n) < e).astype(int)
    y = mu0 + w * tau + cfg.noise_sd * rng.normal(size=n)
    return X, w, y, tau, coefs


@dataclass(frozen=True)
class RankingRep:
    """One repetition: per-model oracle MSE and each evaluator's score (lower is better)."""

    learners: tuple[str, ...]
    oracle_mse: np.ndarray
    q_ht: np.ndarray
    q_dr: np.ndarray
    plugin: np.ndarray


def ranking_rep(args: tuple[np.ndarray, int, SemiSyntheticConfig]) -> RankingRep:
    """Fit the models on a confounded training sample, then score them on a fresh RCT evaluation set."""
    Xreal, seed, cfg = args
    rng = np.random.default_rng(seed)
    X, w, y, _, coefs = simulate(Xreal, 2 * cfg.n_train, rng, cfg, e=0.5)
    obs = observational_sample(X, w, 0.5, 0.5, "mild", cfg.n_train, rng)
    Xtr, wtr, ytr = X[obs.idx], w[obs.idx], y[obs.idx]
    Xev, wev, yev, tau_ev, _ = simulate(Xreal, cfg.n_eval, rng, cfg, e=cfg.e_eval, coefs=coefs)
    # outcome models on the evaluation set, cross-fitted, for Q̂-DR
    mu0, mu1 = eval_outcome_models(Xev, wev, yev, 2, seed)
    # plug-in τ-risk: a T-learner (boosting) fit on the whole evaluation set stands in for τ
    tau_plugin = make_learner("t.gbm.cv", cfg.base).fit(Xev, wev, yev).effect(Xev)
    mse, qh, qd, pl = [], [], [], []
    for name in cfg.learners:
        tau_hat = make_learner(name, cfg.base).fit(Xtr, wtr, ytr).effect(Xev)
        mse.append(np.mean((tau_hat - tau_ev) ** 2))
        qh.append(q_hat(tau_hat, yev, wev, cfg.e_eval, "ht").value)
        qd.append(q_hat(tau_hat, yev, wev, cfg.e_eval, "dr", mu0=mu0, mu1=mu1).value)
        pl.append(np.mean((tau_hat - tau_plugin) ** 2))
    return RankingRep(tuple(cfg.learners), *(np.array(v) for v in (mse, qh, qd, pl)))
