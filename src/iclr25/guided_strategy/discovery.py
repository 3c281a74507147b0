"""Novel-behaviour discovery: sample codes from the prior, roll each out once, measure its style factor,
and score how well a budget of K behaviours recovers each target factor value (VL_K).

VL_K(g) splits the n codes into n/K chunks of K; in each chunk the user keeps the behaviour closest to g;
VL_K(g) is the mean of those errors over chunks. VL_1 is the mean error, VL_n the best single error, and
VL_K never increases from K to a multiple of K (a larger chunk is a union of smaller ones)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from iclr25.core.errors import UserError
from iclr25.guided_strategy.envs.base import VecEnv


def _check_budget(n: int, k: int) -> None:
    if k < 1 or n % k:
        raise UserError(f"budget K={k} must divide the number of sampled behaviours n={n} (n mod K = "
                        f"{n % k if k > 0 else 'undefined'})")


def chunk_errors(factors: np.ndarray, target: float, k: int, success: np.ndarray | None = None,
                 miss: float = np.inf) -> tuple[np.ndarray, np.ndarray]:
    """Per chunk of K consecutive behaviours: the smallest |f − g| and the index of that behaviour.
    With `success`, failed behaviours cannot be chosen; a chunk without a success scores `miss` (index −1)."""
    f = np.asarray(factors, dtype=np.float64)
    _check_budget(len(f), k)
    err = np.abs(f - target)
    if success is not None:
        err = np.where(np.asarray(success, bool), err, np.inf)
    chunks = err.reshape(-1, k)  # (n/K, K)
    pick = chunks.argmin(axis=1)
    best = chunks[np.arange(len(chunks)), pick]
    idx = np.where(np.isfinite(best), pick + np.arange(len(chunks)) * k, -1)
    return np.where(np.isfinite(best), best, miss), idx


def recovery_error(factors: np.ndarray, targets: Sequence[float], k: int, success: np.ndarray | None = None,
                   miss: float = np.inf) -> np.ndarray:
    """VL_K for each target (len(targets),); see `chunk_errors` for `success` and `miss`.

    >>> recovery_error(np.array([0.0, 1.0, 2.0, 3.0]), [0.9], k=2).round(2).tolist()
    [0.6]
    """
    f = np.asarray(factors, dtype=np.float64)
    if f.ndim != 1 or len(f) == 0:
        raise UserError(f"factors must be a non-empty 1-d array, got shape {f.shape}")
    if not np.isfinite(f).all():
        raise UserError("factors hold NaN or inf")
    return np.array([chunk_errors(f, g, k, success, miss)[0].mean() for g in targets])


@dataclass
class Discovery:
    """What `discover` measured: one behaviour per code."""

    codes: np.ndarray  # (n, dz)
    factors: np.ndarray  # (n,)
    returns: np.ndarray  # (n,)
    targets: np.ndarray  # (G,)
    budgets: tuple[int, ...]
    vl: dict[int, np.ndarray]  # K -> (G,) VL_K per target

    def selected(self, k: int) -> np.ndarray:
        """Indices of the behaviours chosen per (target, chunk) at budget K: (G, n/K)."""
        return np.stack([chunk_errors(self.factors, g, k)[1] for g in self.targets])

    def selected_returns(self, k: int) -> np.ndarray:
        """Returns of the chosen behaviours, per target (G,)."""
        return np.array([self.returns[i].mean() for i in self.selected(k)])

    def success_vl(self, k: int, threshold: float, miss: float) -> np.ndarray:
        """VL_K per target when behaviours with return < threshold cannot be chosen."""
        return recovery_error(self.factors, self.targets, k, self.returns >= threshold, miss)


def discover(model, env: VecEnv, factor_fn: Callable[[np.ndarray], np.ndarray],  # noqa: ANN001 - a GSD
             targets: Sequence[float], n: int = 1500, budgets: Sequence[int] = (10, 50), seed: int = 0,
             batch: int = 500) -> Discovery:
    """Draw n codes z ~ N(0, I), roll each out once (greedy actions), measure factor_fn on the observed
    trajectories, and compute VL_K for every target and budget."""
    if n < 1:
        raise UserError(f"n must be >= 1, got {n}")
    if not len(targets):
        raise UserError("no targets given")
    if not np.isfinite(np.asarray(targets, dtype=float)).all():
        raise UserError(f"targets must be finite, got {list(targets)}")
    for k in budgets:
        _check_budget(n, k)
    rng = np.random.default_rng(seed)
    codes = rng.standard_normal((n, model.config.latent_dim)).astype(np.float32)
    factors, returns = [], []
    for i in range(0, n, batch):
        ro = model.rollout(env, codes[i:i + batch], seed=seed + i)
        factors.append(np.asarray(factor_fn(ro["observations"]), dtype=np.float64))
        returns.append(ro["rewards"].sum(axis=1))
    f, r = np.concatenate(factors), np.concatenate(returns)
    tg = np.asarray(targets, dtype=np.float64)
    return Discovery(codes, f, r, tg, tuple(budgets), {k: recovery_error(f, tg, k) for k in budgets})
