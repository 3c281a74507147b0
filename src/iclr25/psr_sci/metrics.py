"""Image-quality metrics in the MST/KAIST convention (band-wise PSNR and SSIM with peak 1, averaged over
bands), the spectral angle (SAM) and an sRGB render of a cube through the CIE 1931 observer."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F


def _t(a: Any) -> torch.Tensor:
    return a.detach().double() if isinstance(a, torch.Tensor) else torch.as_tensor(np.asarray(a, np.float64))


def psnr(x: Any, ref: Any, peak: float = 1.0) -> float:
    """Mean over bands of 10·log10(peak² / MSE_k) for (B, H, W) cubes."""
    x, ref = _t(x), _t(ref)
    mse = ((x - ref) ** 2).flatten(-2).mean(-1).clamp_min(1e-12)  # (B,)
    return float((10 * torch.log10(peak ** 2 / mse)).mean())


@functools.lru_cache(maxsize=4)
def _gauss(size: int = 11, sigma: float = 1.5) -> torch.Tensor:
    g = torch.exp(-((torch.arange(size, dtype=torch.float64) - size // 2) ** 2) / (2 * sigma ** 2))
    g = g / g.sum()
    return (g[:, None] * g[None, :])[None, None]  # (1, 1, size, size)


def ssim(x: Any, ref: Any, peak: float = 1.0) -> float:
    """Mean over bands of SSIM (11×11 Gaussian window, σ = 1.5, zero padding as in MST's evaluation)."""
    x, ref = _t(x).unsqueeze(1), _t(ref).unsqueeze(1)  # (B, 1, H, W)
    w = _gauss()
    pad = w.shape[-1] // 2
    c1, c2 = (0.01 * peak) ** 2, (0.03 * peak) ** 2
    mu_x, mu_r = F.conv2d(x, w, padding=pad), F.conv2d(ref, w, padding=pad)
    sxx = F.conv2d(x * x, w, padding=pad) - mu_x ** 2
    srr = F.conv2d(ref * ref, w, padding=pad) - mu_r ** 2
    sxr = F.conv2d(x * ref, w, padding=pad) - mu_x * mu_r
    s = ((2 * mu_x * mu_r + c1) * (2 * sxr + c2)) / ((mu_x ** 2 + mu_r ** 2 + c1) * (sxx + srr + c2))
    return float(s.mean())


def sam(x: Any, ref: Any, eps: float = 1e-8) -> float:
    """Mean spectral angle in degrees between the spectra of x and ref at each pixel."""
    x, ref = _t(x), _t(ref)
    cos = (x * ref).sum(0) / (x.norm(dim=0) * ref.norm(dim=0) + eps)
    return float(torch.rad2deg(torch.arccos(cos.clamp(-1, 1))).mean())


_XYZ_TO_SRGB = np.array([[3.2406, -1.5372, -0.4986],
                         [-0.9689, 1.8758, 0.0415],
                         [0.0557, -0.2040, 1.0570]])  # IEC 61966-2-1, D65


@functools.lru_cache(maxsize=8)
def _cmfs(wavelengths: tuple[float, ...]) -> np.ndarray:
    from iclr25.psr_sci.colour_data import cie1931_cmfs

    cwl, cmf = cie1931_cmfs()
    wl = np.asarray(wavelengths)
    return np.stack([np.interp(wl, cwl, cmf[:, i]) for i in range(3)], 1)  # (B, 3)


def to_rgb(x: Any, wavelengths: Sequence[float] | None = None, exposure: float = 1.0) -> np.ndarray:
    """An sRGB uint8 render (H, W, 3) of a (B, H, W) radiance cube: XYZ through the CIE 1931 2° observer
    at the band centres, then linear sRGB white-balanced so a flat unit spectrum renders white, then
    the sRGB gamma."""
    from iclr25.psr_sci.operators import KAIST_WAVELENGTHS

    x = np.asarray(x.detach() if isinstance(x, torch.Tensor) else x, dtype=np.float64)
    wl = tuple(float(w) for w in (wavelengths if wavelengths is not None else KAIST_WAVELENGTHS))
    if len(wl) != x.shape[0]:
        raise ValueError(f"to_rgb: {len(wl)} wavelengths for a cube of {x.shape[0]} bands")
    cmf = _cmfs(wl)
    xyz = np.tensordot(cmf.T, x, axes=1)  # (3, H, W)
    white = _XYZ_TO_SRGB @ cmf.sum(0)  # linear sRGB of a flat unit spectrum over these bands
    lin = np.clip(np.tensordot(_XYZ_TO_SRGB, xyz, axes=1) / white[:, None, None] * exposure, 0, 1)
    srgb = np.where(lin <= 0.0031308, 12.92 * lin, 1.055 * lin ** (1 / 2.4) - 0.055)
    return (np.moveaxis(srgb, 0, -1) * 255 + 0.5).astype(np.uint8)
