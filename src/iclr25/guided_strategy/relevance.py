"""Is GSD's decoder task-aware? On one pool of consecutive (s, a) -> (s', a') pairs from held-out
demonstrations (expert-like) and random-action rollouts (not), measure

* how well the task relevance ρ = σ(h(s, a)) separates the two sources (ROC AUC), and
* the decoder's sensitivity ‖μ(s', a') − μ(s, a)‖ / ‖(s', a') − (s, a)‖, averaged where ρ < 0.5 and
  where ρ ≥ 0.5: GSD's constraint should make it small where ρ is low, relative to where ρ is high."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from iclr25.guided_strategy.envs.base import VecEnv


@dataclass(frozen=True)
class PairPool:
    """Trajectories whose consecutive steps form the pairs; `expert` marks demo trajectories."""

    observations: np.ndarray  # (N, T, ds)
    actions: np.ndarray  # (N, T, da)
    expert: np.ndarray  # (N,) bool


def auc(scores_pos: np.ndarray, scores_neg: np.ndarray) -> float:
    """P(score of a positive > score of a negative) + ½ P(tie) (Mann-Whitney).

    >>> auc(np.array([0.9, 0.8]), np.array([0.1, 0.85]))
    0.75
    """
    pos, neg = np.asarray(scores_pos, float), np.asarray(scores_neg, float)
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    from scipy.stats import rankdata
    ranks = rankdata(np.concatenate([pos, neg]))
    return float((ranks[:len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def random_rollouts(env: VecEnv, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """n episodes of uniformly random actions in the env's box: observations, actions (N, T, ·)."""
    g = torch.Generator().manual_seed(seed)
    obs = env.reset(n, g)
    low, half = torch.tensor(env.bounds.low), env.bounds.half_range
    os_, as_ = [], []
    for _ in range(env.horizon):
        a = low + 2 * half * torch.rand(n, env.act_dim, generator=g)
        os_.append(obs.numpy())
        as_.append(a.numpy())
        obs, _ = env.step(a)
    return np.stack(os_, 1), np.stack(as_, 1)


def pair_steps(model, pool: PairPool) -> tuple[np.ndarray, np.ndarray]:  # noqa: ANN001 - a GSD
    """Per consecutive pair (N, T−1): ‖Δ(s, a)‖ in the model's normalised inputs and ‖Δμ_φ‖ of its decoder."""
    sa = model.normalized_inputs(pool.observations, pool.actions)  # (N, T, ds + da)
    mu = model.decoder_mean(pool.observations, pool.actions)  # (N, T, dz)
    return (np.linalg.norm(sa[:, 1:] - sa[:, :-1], axis=-1), np.linalg.norm(mu[:, 1:] - mu[:, :-1], axis=-1))


def sensitivity_ratio(rho: np.ndarray, step: np.ndarray, moved: np.ndarray) -> float:
    """Mean ‖Δμ‖/‖Δ(s,a)‖ over pairs whose first step has ρ < 0.5, over the mean where ρ >= 0.5 (pairs
    that do not move are skipped); NaN when a band is empty.

    >>> rho = np.array([[0.9, 0.9, 0.1, 0.1]])
    >>> sensitivity_ratio(rho, np.ones((1, 3)), np.array([[2.0, 2.0, 0.5]]))
    0.25
    """
    r = rho[:, :-1]
    ok = step > 1e-6
    sens = np.where(ok, moved / np.where(ok, step, 1.0), np.nan)
    low, high = sens[(r < 0.5) & ok], sens[(r >= 0.5) & ok]
    if not len(low) or not len(high) or np.mean(high) <= 0:
        return float("nan")
    return float(np.mean(low) / np.mean(high))


def relevance_report(model, pool: PairPool) -> dict[str, float]:  # noqa: ANN001 - a GSD
    """AUC of the model's ρ(s, a) (expert vs random steps) and its decoder's sensitivity ratio."""
    rho = model.relevance(pool.observations, pool.actions)  # (N, T)
    step, moved = pair_steps(model, pool)
    return {"auc": auc(rho[pool.expert].ravel(), rho[~pool.expert].ravel()),
            "sensitivity_ratio": sensitivity_ratio(rho, step, moved)}
