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
    linear and a step part (sd of order `tau_scale`), noise sd `noise_sd`, RCT e = 0.5 on the evaluation
    set. Ranking is scored at each evaluation size in `eval_sizes` (nested prefixes of one draw)."""

    n_train: int = 1000
    eval_sizes: tuple[int, ...] = (1000, 4000, 16000, 64000)
    ate: float = 0.5
    tau_scale: float = 0.7
    noise_sd: float = 1.0
    e_eval: float = 0.5
    n_oracle: int = 64000  # fresh covariates on which the oracle MSE of each model is computed
    learners: tuple[str, ...] = MRR_LEARNERS
    base: BaseConfig = field(default_factory=BaseConfig)


# the paper-like design (heterogeneity of the order of the noise) and a low-signal one, closer to the
# real RCTs where most estimates are degenerate: Var(τ(x)) about 1/100 of the noise variance
DESIGNS = {"default": SemiSyntheticConfig(),
           "low_signal": SemiSyntheticConfig(tau_scale=0.15, noise_sd=2.0)}


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
    step = np.where(Zs[:, coefs["j"][1]] > 0, 1.0, -1.0)
    tau = cfg.ate + cfg.tau_scale * (Zs @ coefs["t"] + step)  # τ(x): linear + step
    w = (rng.random(n) < e).astype(int)
    y = mu0 + w * tau + cfg.noise_sd * rng.normal(size=n)
    return X, w, y, tau, coefs


@dataclass(frozen=True)
class RankingRep:
    """One repetition: per-model oracle MSE (M,) and each evaluator's score per evaluation size (S, M)
    (lower is better)."""

    learners: tuple[str, ...]
    eval_sizes: tuple[int, ...]
    oracle_mse: np.ndarray
    q_ht: np.ndarray
    q_dr: np.ndarray
    plugin: np.ndarray


def ranking_rep(args: tuple[np.ndarray, int, SemiSyntheticConfig]) -> RankingRep:
    """Fit the models once on a confounded training sample, then score them on nested RCT evaluation
    sets of each size; the oracle is each model's MSE on fresh covariates."""
    Xreal, seed, cfg = args
    rng = np.random.default_rng(seed)
    X, w, y, _, coefs = simulate(Xreal, 2 * cfg.n_train, rng, cfg, e=0.5)
    obs = observational_sample(X, w, 0.5, 0.5, "mild", cfg.n_train, rng)
    Xtr, wtr, ytr = X[obs.idx], w[obs.idx], y[obs.idx]
    models = [make_learner(name, cfg.base).fit(Xtr, wtr, ytr) for name in cfg.learners]
    Xor, _, _, tau_or, _ = simulate(Xreal, cfg.n_oracle, rng, cfg, e=0.5, coefs=coefs)
    oracle = np.array([np.mean((m.effect(Xor) - tau_or) ** 2) for m in models])
    Xall, wall, yall, _, _ = simulate(Xreal, max(cfg.eval_sizes), rng, cfg, e=cfg.e_eval, coefs=coefs)
    qh, qd, pl = [], [], []
    for n in cfg.eval_sizes:
        Xev, wev, yev = Xall[:n], wall[:n], yall[:n]
        # outcome models on the evaluation set, cross-fitted, for Q̂-DR
        mu0, mu1 = eval_outcome_models(Xev, wev, yev, 2, seed)
        # plug-in τ-risk: a T-learner (boosting) fit on the whole evaluation set stands in for τ
        tau_plugin = make_learner("t.gbm.cv", cfg.base).fit(Xev, wev, yev).effect(Xev)
        taus = [m.effect(Xev) for m in models]
        qh.append([q_hat(t, yev, wev, cfg.e_eval, "ht").value for t in taus])
        qd.append([q_hat(t, yev, wev, cfg.e_eval, "dr", mu0=mu0, mu1=mu1).value for t in taus])
        pl.append([np.mean((t - tau_plugin) ** 2) for t in taus])
    return RankingRep(tuple(cfg.learners), tuple(cfg.eval_sizes), oracle,
                      *(np.array(v) for v in (qh, qd, pl)))
