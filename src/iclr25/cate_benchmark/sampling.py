"""Observational sampling: a confounded training set carved out of an RCT by selection on X (Sec. 4.1).

A biased assignment p(x) = σ(g(x) + c) is drawn, T' ~ Bern(p(x)), and a unit is kept iff its real W equals
T'. Selection is on X only, so unconfoundedness holds, with implied propensity p·e / (p·e + (1−p)(1−e)).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iclr25.core.errors import UserError

NONLINEARITY = ("linear", "mild", "strong")  # the 3 levels of assignment-mechanism nonlinearity


@dataclass(frozen=True)
class ObservationalSample:
    """Kept row indices (into the RCT pool) and the propensity that holds on the kept sample."""

    idx: np.ndarray  # (n,) int indices into the pool
    propensity: np.ndarray  # (n,) implied P(W=1 | x) on the kept sample
    selection: np.ndarray  # (n,) biased assignment p(x)
    offset: float  # the c that hits the target treated share


def _standardize(X: np.ndarray) -> np.ndarray:
    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def assignment_score(X: np.ndarray, nonlinearity: str, rng: np.random.Generator,
                     strength: float = 1.0) -> np.ndarray:
    """g(x), rescaled to standard deviation `strength`: linear in x, mildly nonlinear (adds squares and
    pairwise products) or strongly nonlinear (adds sines and thresholds). Coefficients are random."""
    if nonlinearity not in NONLINEARITY:
        raise UserError(f"unknown nonlinearity {nonlinearity!r}; choose from {', '.join(NONLINEARITY)}")
    Z = _standardize(np.asarray(X, dtype=float))
    n, d = Z.shape
    g = Z @ rng.normal(size=d) / np.sqrt(max(d, 1))
    if nonlinearity in ("mild", "strong"):
        j, k = rng.integers(0, d, size=(2, max(2, d // 2)))
        g = g + 0.5 * (Z[:, j] * Z[:, k]) @ rng.normal(size=j.shape[0]) / np.sqrt(j.shape[0])
    if nonlinearity == "strong":
        j = rng.integers(0, d, size=max(2, d // 2))
        steps = np.sin(2.0 * Z[:, j]) + 2.0 * (Z[:, j] > 0.5)
        g = g + steps @ rng.normal(size=j.shape[0]) / np.sqrt(j.shape[0])
    sd = g.std()
    return strength * (g - g.mean()) / (sd if sd > 0 else 1.0)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


def _kept_treated_share(g: np.ndarray, c: float, w: np.ndarray) -> float:
    p = _sigmoid(g + c)
    keep = np.where(w == 1, p, 1 - p)  # P(kept | x, W)
    return float((keep * w).sum() / keep.sum())


def observational_sample(X, w, e_rct, treat_share: float, nonlinearity: str, n: int | None,
                         rng: np.random.Generator, strength: float = 1.0) -> ObservationalSample:
    """Biased selection from an RCT: keep unit i iff W_i = T'_i with T' ~ Bern(σ(g(x_i) + c)).

    c is solved by bisection so that the expected treated share of the kept sample is `treat_share`;
    the kept sample is then subsampled to `n` rows (all kept rows if n is None or larger).

    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2000, 3)); w = rng.integers(0, 2, 2000)
    >>> s = observational_sample(X, w, 0.5, treat_share=0.3, nonlinearity="linear", n=500, rng=rng)
    >>> len(s.idx), bool(0.2 < w[s.idx].mean() < 0.4)
    (500, True)
    """
    X = np.asarray(X, dtype=float)
    w = np.asarray(w)
    if X.ndim != 2 or X.shape[0] != w.shape[0]:
        raise UserError(f"X must be (n, d) with n = len(w) = {w.shape[0]}, got shape {X.shape}")
    if not 0 < treat_share < 1:
        raise UserError(f"treat_share must lie in (0, 1), got {treat_share!r}")
    e_rct = np.broadcast_to(np.asarray(e_rct, dtype=float), w.shape)
    if np.any((e_rct <= 0) | (e_rct >= 1)):
        raise UserError("the RCT propensity must lie strictly inside (0, 1)")
    g = assignment_score(X, nonlinearity, rng, strength)
    lo, hi = -20.0, 20.0  # the kept treated share is increasing in c
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _kept_treated_share(g, mid, w) < treat_share else (lo, mid)
    c = 0.5 * (lo + hi)
    p = _sigmoid(g + c)
    t_prime = rng.random(p.shape[0]) < p
    kept = np.flatnonzero(t_prime == (w == 1))
    if n is not None and n < kept.shape[0]:
        kept = np.sort(rng.choice(kept, size=n, replace=False))
    pk, ek = p[kept], e_rct[kept]
    implied = pk * ek / (pk * ek + (1 - pk) * (1 - ek))
    return ObservationalSample(kept, implied, pk, c)
