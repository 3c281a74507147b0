"""What a fitted sampler is judged by: the ELBO E[log w] (≤ log Z), the importance-sampling estimate
log Ẑ = log mean w with its standard error, the reverse effective sample size, the Sinkhorn divergence
and the MMD to reference samples, and the entropic mode coverage (EMC) for targets with modes. ELBO and
ESS can look fine while modes are dropped (a sampler stuck in one well of a many-well target has a
high ESS); the MMD, Sinkhorn and EMC see the dropped modes (issue #52)."""

from __future__ import annotations

import math

import numpy as np


def clean_log_w(log_w) -> np.ndarray:
    """float64 array; a NaN weight is a failed sample and counts as log w = -inf."""
    lw = np.asarray(log_w.detach().cpu() if hasattr(log_w, "detach") else log_w, dtype=np.float64).ravel()
    if lw.size == 0:
        raise ValueError("no log-weights")
    return np.where(np.isnan(lw), -np.inf, lw)


def elbo(log_w) -> tuple[float, float]:
    """(mean log w, its standard error).

    >>> elbo([-1.0, -3.0])
    (-2.0, 1.0)
    """
    lw = clean_log_w(log_w)
    if not np.isfinite(lw).all():
        return -math.inf, math.nan
    return float(lw.mean()), float(lw.std(ddof=1) / math.sqrt(len(lw))) if len(lw) > 1 else math.nan


def log_z_hat(log_w) -> tuple[float, float]:
    """(log mean w, delta-method standard error sd(w) / (√n mean w)).

    >>> round(log_z_hat([0.0, 0.0, 0.0])[0], 6), log_z_hat([0.0, 0.0, 0.0])[1]
    (0.0, 0.0)
    """
    lw = clean_log_w(log_w)
    top = lw.max()
    if not np.isfinite(top):
        return -math.inf, math.nan
    w = np.exp(lw - top)
    mean = w.mean()
    se = float(w.std(ddof=1) / (math.sqrt(len(w)) * mean)) if len(w) > 1 else math.nan
    return float(top + math.log(mean)), se


def ess(log_w) -> float:
    """Normalised effective sample size (Σw)² / (n Σw²) in (0, 1].

    >>> ess([0.0, 0.0]), round(ess([0.0, -50.0]), 3)
    (1.0, 0.5)
    """
    lw = clean_log_w(log_w)
    top = lw.max()
    if not np.isfinite(top):
        return 0.0
    w = np.exp(lw - top)
    return float(w.sum() ** 2 / (len(w) * (w ** 2).sum()))


def sinkhorn(x: np.ndarray, y: np.ndarray, eps: float = 0.05, max_iter: int = 1000) -> float:
    """Debiased Sinkhorn divergence S(x, y) = OT_ε(x, y) - ½OT_ε(x, x) - ½OT_ε(y, y), squared Euclidean
    cost, ε = `eps` × the mean cost between the two samples (POT's `empirical_sinkhorn_divergence`)."""
    import ot

    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.ndim != 2 or y.ndim != 2 or x.shape[1] != y.shape[1]:
        raise ValueError(f"sinkhorn needs two (n, d) arrays of the same d, got {x.shape} and {y.shape}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        return math.inf
    scale = float(ot.dist(x, y).mean())
    reg = eps * max(scale, 1e-12)
    return float(ot.bregman.empirical_sinkhorn_divergence(x, y, reg, numIterMax=max_iter, stopThr=1e-6,
                                                          warn=False))


def emc(modes: np.ndarray, n_modes: int) -> float:
    """Entropic mode coverage: entropy of the histogram of sample modes / log(n_modes), in [0, 1].

    >>> emc(np.array([0, 1, 2, 3]), 4), emc(np.array([1, 1, 1]), 4)
    (1.0, 0.0)
    """
    counts = np.bincount(np.asarray(modes, dtype=np.int64), minlength=n_modes)
    p = counts[counts > 0] / counts.sum()
    return 0.0 + float(-(p * np.log(p)).sum() / math.log(n_modes))  # 0.0 + turns -0.0 into 0.0


def mmd(x: np.ndarray, y: np.ndarray, bandwidth: float | None = None, max_points: int = 2000) -> float:
    """Unbiased MMD² between samples x and y (n, d), Gaussian kernel exp(-|a - b|² / (2 h²)); h = the
    median pairwise distance of the pooled samples unless given. 0 in expectation when x and y come from
    one law; larger when modes are missing or misplaced. At most `max_points` rows of each are used.

    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.normal(size=(400, 2)), rng.normal(size=(400, 2))
    >>> abs(mmd(a, b)) < 0.01, mmd(a, b + 3) > 0.5
    (True, True)
    """
    x, y = np.asarray(x, dtype=np.float64)[:max_points], np.asarray(y, dtype=np.float64)[:max_points]
    if x.ndim != 2 or y.ndim != 2 or x.shape[1] != y.shape[1] or len(x) < 2 or len(y) < 2:
        raise ValueError(f"mmd needs two (n >= 2, d) arrays of the same d, got {x.shape} and {y.shape}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        return math.inf
    z = np.concatenate([x, y])
    sq = (z ** 2).sum(1)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2 * z @ z.T, 0.0)
    if bandwidth is None:
        off = d2[np.triu_indices(len(z), 1)]
        bandwidth = float(np.sqrt(np.median(off))) if off.size else 1.0
    k = np.exp(-d2 / (2 * max(bandwidth, 1e-12) ** 2))
    n, m = len(x), len(y)
    kxx, kyy, kxy = k[:n, :n], k[n:, n:], k[:n, n:]
    return float((kxx.sum() - np.trace(kxx)) / (n * (n - 1)) + (kyy.sum() - np.trace(kyy)) / (m * (m - 1))
                 - 2 * kxy.mean())
