"""A high-dimensional synthetic latent with a known concept direction and distractors:
a = h t + sum_k g_k u_k + sigma eps. Half of the distractor directions u_k are correlated with h, which is
exactly when a separating filter must rotate away from h (the paper's "directional divergence")."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LatentConfig:
    dim: int = 32
    n: int = 500
    n_distractors: int = 4
    distractor_strength: float = 2.0  # std of g_k, relative to the signal's amplitude |h| = 1
    correlation: float = 0.5  # cos(u_k, h) for every other distractor (the rest are orthogonal to h)
    noise: float = 0.5  # sigma of the isotropic noise
    p_concept: float = 0.5


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def latent_directions(cfg: LatentConfig, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(h (D,), unit concept direction; u (K, D), unit distractor directions)."""
    h = _unit(rng.normal(size=cfg.dim))
    us = []
    for k in range(cfg.n_distractors):
        r = rng.normal(size=cfg.dim)
        r = _unit(r - (r @ h) * h)  # orthogonal to h
        rho = cfg.correlation if k % 2 == 0 else 0.0
        us.append(rho * h + np.sqrt(1 - rho ** 2) * r)
    return h, np.array(us).reshape(cfg.n_distractors, cfg.dim)


def sample_latent(cfg: LatentConfig, h: np.ndarray, u: np.ndarray, n: int,
                  rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(acts (n, D), labels (n,)) from a = h t + g @ u + noise * eps."""
    t = (rng.random(n) < cfg.p_concept).astype(np.float64)
    t[:2] = [0.0, 1.0]  # both classes present even at tiny n
    g = rng.normal(0.0, cfg.distractor_strength, size=(n, u.shape[0]))
    return t[:, None] * h + g @ u + cfg.noise * rng.normal(size=(n, h.size)), t


def latent_data(cfg: LatentConfig, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(acts (n, D), labels (n,), true direction h (D,)) of a freshly drawn latent model.

    >>> a, t, h = latent_data(LatentConfig(dim=8, n=20), np.random.default_rng(0))
    >>> a.shape, t.shape, round(float(np.linalg.norm(h)), 6)
    ((20, 8), (20,), 1.0)
    """
    h, u = latent_directions(cfg, rng)
    a, t = sample_latent(cfg, h, u, cfg.n, rng)
    return a, t, h
