"""Validation at the door: every public function checks its masks and probabilities here, so bad input
fails with one line that names the bad value (a UserError), never deep inside scipy or torch."""

from __future__ import annotations

import numpy as np

from iclr25.core.errors import UserError


def as_binary_mask(x, name: str) -> np.ndarray:
    """A 2-D array whose values are all 0/1 (or bool), returned as bool.

    >>> as_binary_mask([[0, 1], [1, 0]], "pred").dtype
    dtype('bool')
    """
    a = np.asarray(x)
    if a.ndim != 2:
        raise UserError(f"{name} must be a 2-D mask, got shape {a.shape}")
    if a.size == 0:
        raise UserError(f"{name} is empty (shape {a.shape})")
    if a.dtype != bool:
        if not np.issubdtype(a.dtype, np.number):
            raise UserError(f"{name} must be numeric or bool, got dtype {a.dtype}")
        bad = ~np.isin(a, (0, 1))
        if bad.any():
            v = a[bad].flat[0]
            raise UserError(f"{name} must be binary (0/1), found value {v!r}")
    return a.astype(bool)


def check_pair(pred, gt) -> tuple[np.ndarray, np.ndarray]:
    """Two binary masks of the same shape."""
    p = as_binary_mask(pred, "pred")
    g = as_binary_mask(gt, "gt")
    if p.shape != g.shape:
        raise UserError(f"shape mismatch: pred {p.shape} vs gt {g.shape}")
    return p, g


def check_probabilities(p, name: str = "probabilities") -> None:
    """Probabilities must lie in [0, 1] and be finite (works for numpy arrays and torch tensors)."""
    lo, hi = float(p.min()), float(p.max())
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise UserError(f"{name} contain NaN or inf")
    if lo < 0.0 or hi > 1.0:
        raise UserError(f"{name} must lie in [0, 1], found range [{lo:.4g}, {hi:.4g}]")
