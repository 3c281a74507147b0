"""Label-noise generators: symmetric, pair, and instance-dependent (IDN, Xia et al. 2020), used both to
simulate pre-existing label errors and for RoCA's noise injection (spec §2, step 2).

Every kind flips a label to a *different* class; a rate of 0 leaves the labels unchanged."""

from __future__ import annotations

import numpy as np

from iclr25.core.errors import UserError

KINDS = ("idn", "sym", "pair")
IDN_RATE_SD = 0.1  # Xia et al.: per-sample flip rate q_i ~ N(ρ, 0.1²)


def check_rate(rate: float, name: str = "rate") -> float:
    rate = float(rate)
    if not (np.isfinite(rate) and 0.0 <= rate < 1.0):
        raise UserError(f"{name} must be in [0, 1), got {rate}")
    return rate


def check_kind(kind: str) -> str:
    if kind not in KINDS:
        raise UserError(f"unknown noise kind {kind!r}; choose from {', '.join(KINDS)}")
    return kind


def inject_label_noise(X: np.ndarray | None, y: np.ndarray, rate: float, kind: str = "idn",
                       rng: np.random.Generator | None = None, n_classes: int | None = None) -> np.ndarray:
    """Flip integer labels `y` ∈ {0..C−1} at `rate` and return a new array.

    - ``sym``: each label flips with probability ρ to a class drawn uniformly from the other C−1.
    - ``pair``: each label flips with probability ρ to (y + 1) mod C.
    - ``idn`` (Xia et al. 2020): q_i ~ N(ρ, 0.1²) clipped to [0, 1]; a weight tensor W ~ N(0, 1) with one
      d×C slice per source class; sample i flips with probability q_i to a class drawn from
      softmax(x_i W_{y_i}) with its own class masked out. Which class a sample flips to depends on x.

    `X` (n, d) is needed only for ``idn``; pass standardised features so that no column dominates.

    >>> y = np.zeros(1000, dtype=int)
    >>> y2 = inject_label_noise(None, y, 0.3, "sym", np.random.default_rng(0), n_classes=3)
    >>> float((y2 != y).mean())          # about 0.3 of the labels moved, each to class 1 or 2
    0.277
    >>> sorted(set(y2.tolist()))
    [0, 1, 2]
    """
    kind = check_kind(kind)
    rate = check_rate(rate)
    y = np.asarray(y)
    if y.ndim != 1 or not np.issubdtype(y.dtype, np.integer):
        raise UserError(f"labels must be a 1-D integer array, got dtype {y.dtype} and shape {y.shape}")
    C = int(n_classes if n_classes is not None else (y.max() + 1 if len(y) else 0))
    if len(y) and (y.min() < 0 or y.max() >= C):
        raise UserError(f"labels must lie in 0..{C - 1}, got range {y.min()}..{y.max()}")
    if C < 2:
        raise UserError(f"label noise needs at least 2 classes, got {C}")
    rng = rng if rng is not None else np.random.default_rng()
    n = len(y)
    if rate == 0.0 or n == 0:
        return y.copy()
    if kind == "sym":
        flip = rng.random(n) < rate
        return np.where(flip, (y + rng.integers(1, C, size=n)) % C, y)
    if kind == "pair":
        flip = rng.random(n) < rate
        return np.where(flip, (y + 1) % C, y)
    return _idn(X, y, rate, C, rng)


def _idn(X: np.ndarray | None, y: np.ndarray, rate: float, C: int, rng: np.random.Generator) -> np.ndarray:
    if X is None:
        raise UserError("instance-dependent noise (kind='idn') needs the features X")
    X = np.asarray(X, dtype=float).reshape(len(y), -1)  # (n, d)
    n, d = X.shape
    q = np.clip(rng.normal(rate, IDN_RATE_SD, size=n), 0.0, 1.0)  # per-sample flip rate
    logits = np.empty((n, C))
    for c in range(C):  # one d×C projection W_c per source class, drawn in turn (memory d·C, not d·C²)
        W_c = rng.standard_normal((d, C))
        rows = y == c
        logits[rows] = X[rows] @ W_c  # (n_c, C)
    logits[np.arange(n), y] = -np.inf  # never flip to the own class
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)  # (n, C), zero on the own class
    target = (p.cumsum(axis=1) < rng.random(n)[:, None]).sum(axis=1)
    target = np.minimum(target, C - 1)
    target = np.where(target == y, (y + 1) % C, target)  # only reachable through float round-off
    flip = rng.random(n) < q
    return np.where(flip, target, y)
