"""The SD-CASSI forward model Φ (KAIST convention: band k shifted by `step`·k px along width), its adjoint,
the diagonal of ΦΦᵀ and the least-norm inverse. Arrays or tensors shaped (..., B, H, W) for cubes and
(..., H, W + step·(B−1)) for measurements; numpy in, numpy out."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from iclr25.core.errors import UserError

KAIST_WAVELENGTHS = (453.3, 457.6, 462.1, 466.8, 471.6, 476.5, 481.6, 486.9, 492.4, 498.0, 503.9, 509.9,
                     516.2, 522.7, 529.5, 536.5, 543.8, 551.4, 558.6, 567.5, 575.3, 584.3, 594.4, 604.2,
                     614.4, 625.1, 636.3, 648.1)  # nm, the 28 bands of the KAIST/TSA-Net benchmark


def _tensor(a: Any) -> tuple[torch.Tensor, bool]:
    """A tensor view of `a` and whether it came from numpy. float32 and float64 keep their precision
    (float64 in, float64 out); other dtypes (uint8 masks, ints, float16) become float32."""
    if isinstance(a, torch.Tensor):
        return a, False
    arr = np.asarray(a)
    if arr.dtype not in (np.float32, np.float64):
        arr = arr.astype(np.float32)
    return torch.as_tensor(np.ascontiguousarray(arr)), True


def _out(t: torch.Tensor, was_numpy: bool):
    return t.detach().numpy() if was_numpy else t


def meas_width(width: int, bands: int, step: int = 2) -> int:
    """Width of a measurement of a (bands, ·, width) cube: W + step·(B−1)."""
    return width + step * (bands - 1)


def cassi_forward(x: Any, mask: Any, step: int = 2):
    """y(h, w) = Σ_k M(h, w−step·k)·X_k(h, w−step·k): (..., B, H, W) -> (..., H, W + step·(B−1)).

    >>> cassi_forward(np.ones((2, 1, 3)), np.ones((1, 3))).tolist()
    [[1.0, 1.0, 2.0, 1.0, 1.0]]
    """
    x, np_in = _tensor(x)
    m, _ = _tensor(mask)
    m = m.to(x.dtype)
    b, w = x.shape[-3], x.shape[-1]
    y = x.new_zeros(*x.shape[:-3], x.shape[-2], meas_width(w, b, step))
    mx = x * m.unsqueeze(-3)  # (..., B, H, W)
    for k in range(b):
        y[..., step * k: step * k + w] += mx[..., k, :, :]
    return _out(y, np_in)


def cassi_adjoint(y: Any, mask: Any, bands: int, step: int = 2):
    """(Φᵀy)_k(h, w) = M(h, w)·y(h, w + step·k): (..., H, W') -> (..., B, H, W)."""
    y, np_in = _tensor(y)
    m, _ = _tensor(mask)
    m = m.to(y.dtype)
    w = m.shape[-1]
    x = torch.stack([y[..., step * k: step * k + w] for k in range(bands)], dim=-3)
    return _out(x * m.unsqueeze(-3), np_in)


def phi_phit_diag(mask: Any, bands: int, step: int = 2):
    """ΦΦᵀ is diagonal for SD-CASSI: Φ_s(h, w) = Σ_k M(h, w−step·k)² (shape H × W')."""
    m, np_in = _tensor(mask)
    ones = torch.ones(*m.shape[:-2], bands, *m.shape[-2:], dtype=m.dtype)
    return _out(cassi_forward(ones, m * m, step), np_in)


def least_norm(y: Any, mask: Any, bands: int = 28, step: int = 2, eps: float = 1e-6):
    """The minimum-norm solution Φᵀ(ΦΦᵀ)⁻¹y, the usual starting point of GAP and of the predictor."""
    y, np_in = _tensor(y)
    m = _tensor(mask)[0].to(y.dtype)
    phis = phi_phit_diag(m, bands, step)
    return _out(cassi_adjoint(y / phis.clamp_min(eps), m, bands, step), np_in)


def gap_projection(x: torch.Tensor, y: torch.Tensor, mask: torch.Tensor, phis: torch.Tensor,
                   step: int = 2) -> torch.Tensor:
    """One GAP step x + Φᵀ((y − Φx)/Φ_s): the Euclidean projection onto {x : Φx = y}."""
    r = (y - cassi_forward(x, mask, step)) / phis.clamp_min(1e-6)
    return x + cassi_adjoint(r, mask, x.shape[-3], step)


def check_problem(y: Any, mask: Any, bands: int, step: int = 2, what: str = "measurement") -> None:
    """Validate a (y, mask, B) triple at the door; a UserError names the first bad value."""
    if not isinstance(bands, int) or bands < 2:
        raise UserError(f"bands must be an integer >= 2, got {bands!r}")
    if not isinstance(step, int) or step < 1:
        raise UserError(f"step must be a positive integer, got {step!r}")
    y, m = np.asarray(y), np.asarray(mask)
    if m.ndim != 2 or min(m.shape) < 1:
        raise UserError(f"mask must be a 2-D array (H, W), got shape {m.shape}")
    if y.ndim < 2:
        raise UserError(f"{what} must be at least 2-D (H, W'), got shape {y.shape}")
    for name, a in ((what, y), ("mask", m)):
        if not np.issubdtype(a.dtype, np.number) or np.iscomplexobj(a):
            raise UserError(f"{name} must be real numbers, got dtype {a.dtype}")
        if not np.isfinite(a).all():
            raise UserError(f"{name} contains NaN or infinite values")
        if (a < 0).any():
            raise UserError(f"{name} has negative values (min {float(a.min()):.3g}); CASSI data is "
                            "non-negative")
    h, w = m.shape
    want = meas_width(w, bands, step)
    if y.shape[-2] != h or y.shape[-1] != want:
        raise UserError(f"{what} shape {y.shape[-2:]} does not fit a {h}x{w} mask with B={bands}, "
                        f"step={step}: expected width W+{step}(B-1) = {want} and height {h}")
    if not (m > 0).any():
        raise UserError("mask is all zeros: nothing is measured")


def bands_from_width(meas_w: int, mask_w: int, step: int = 2) -> int:
    """B from W' = W + step·(B−1); a UserError if the widths do not fit."""
    b = (meas_w - mask_w) / step + 1
    if b < 2 or not math.isclose(b, round(b)):
        raise UserError(f"measurement width {meas_w} does not fit mask width {mask_w} with step {step}: "
                        f"W' = W + {step}(B-1) needs B >= 2")
    return int(round(b))
