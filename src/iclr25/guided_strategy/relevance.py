"""Is GSD's decoder task-aware?

The reproduction (`style_vs_task_variation`, issue #44) stays on the demonstrations' distribution: from
held-out demonstration steps it varies either the style (the same step of a neighbouring level) or another
feature as far, and asks whether σ(h) tells the two apart and whether the decoder reads the code from the
first more than from the second.

For a user's own pool (`relevance_report`): consecutive (s, a) -> (s', a') pairs from demonstrations and
any other trajectories (e.g. random-action rollouts), the AUC of ρ = σ(h(s, a)) between the two sources,
and the decoder's sensitivity ‖Δμ‖ / ‖Δ(s, a)‖ where ρ < 0.5 over where ρ ≥ 0.5."""

from __future__ import annotations

from collections.abc import Sequence
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


# ---- on-distribution variation (issue #44): the style varied vs the task varied ----------------------

def style_partners(levels: np.ndarray, base_levels: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (base, partner): every trajectory whose level is in `base_levels`, with the trajectory
    of the same rank within the nearest other level (the lower neighbour when both are as near), so that
    a pair differs in its style level and in nothing the demonstrators chose on purpose.

    >>> style_partners(np.array([1, 1, 2, 2, 3, 3]), [2])
    (array([2, 3]), array([0, 1]))
    """
    lv = np.asarray(levels)
    others = sorted(set(lv.tolist()))
    base, partner = [], []
    for level in base_levels:
        near = min((o for o in others if o != level), key=lambda o: (abs(o - level), o))
        mine, theirs = np.flatnonzero(lv == level), np.flatnonzero(lv == near)
        k = min(len(mine), len(theirs))
        base += mine[:k].tolist()
        partner += theirs[:k].tolist()
    return np.asarray(base, dtype=int), np.asarray(partner, dtype=int)


@torch.no_grad()
def style_vs_task_variation(model, demos, base_levels: Sequence[int], coordinate: int,  # noqa: ANN001
                            sign: float) -> dict[str, np.ndarray | float]:
    """Task relevance on on-distribution inputs only. Each step of a demonstration at `base_levels` is
    paired (i) with the same step of its style partner (`style_partners`: the style varied, still
    expert-like) and (ii) with itself, input `coordinate` of the normalised (s, a) row moved by `sign`
    times the distance of (i) (another feature varied as far; an action coordinate stays in its box).
    Returns σ(h) of both partners, the decoder sensitivities ‖Δμ‖/‖Δ(s,a)‖ of both, the AUC of σ(h) between
    (i) and (ii) and the ratio mean sensitivity (ii) / mean sensitivity (i)."""
    base_i, part_i = style_partners(demos.levels, base_levels)
    x = torch.as_tensor(model.normalized_inputs(demos.observations, demos.actions))  # (N, T, D)
    xb, xs = x[base_i].reshape(-1, x.shape[-1]), x[part_i].reshape(-1, x.shape[-1])
    dist = (xs - xb).norm(dim=-1)
    xo = xb.clone()
    xo[:, coordinate] += sign * dist
    if coordinate >= model.obs_dim:  # an action: the policy's box is [-1, 1]
        xo[:, coordinate] = xo[:, coordinate].clamp(-1.0, 1.0)
    model.decoder.eval()
    mu_b, mu_s, mu_o = (model.decoder.mean(v) for v in (xb, xs, xo))
    d_s, d_o = dist, (xo - xb).norm(dim=-1)
    ok = (d_s > 1e-6) & (d_o > 1e-6)
    sens_s = ((mu_s - mu_b).norm(dim=-1) / d_s.clamp_min(1e-6))[ok].numpy()
    sens_o = ((mu_o - mu_b).norm(dim=-1) / d_o.clamp_min(1e-6))[ok].numpy()
    rho_s, rho_o = model.disc.relevance(xs).numpy(), model.disc.relevance(xo).numpy()
    ratio = float(sens_o.mean() / sens_s.mean()) if len(sens_s) and sens_s.mean() > 0 else float("nan")
    return {"rho_style": rho_s, "rho_task": rho_o, "sens_style": sens_s, "sens_task": sens_o,
            "auc": auc(rho_s, rho_o), "ratio": ratio}
