"""The frequency separator τ of PSR-SCI (§2(b)): an à-trous split with a 3×3 binomial blur
[1 2 1]ᵀ[1 2 1]/16 at dilations 1, 2, 4 and replicate padding; X = X^h + X^l exactly."""

from __future__ import annotations

import torch
import torch.nn.functional as F

_BINOMIAL = torch.tensor([1.0, 2.0, 1.0]) / 4.0


def _blur(x: torch.Tensor, dilation: int) -> torch.Tensor:
    """Separable binomial blur of (N, C, H, W) at `dilation`, replicate padding."""
    c = x.shape[1]
    k = _BINOMIAL.to(x)
    xp = F.pad(x, (dilation, dilation, 0, 0), mode="replicate")
    x = F.conv2d(xp, k.view(1, 1, 1, 3).expand(c, 1, 1, 3), groups=c, dilation=(1, dilation))
    xp = F.pad(x, (0, 0, dilation, dilation), mode="replicate")
    return F.conv2d(xp, k.view(1, 1, 3, 1).expand(c, 1, 3, 1), groups=c, dilation=(dilation, 1))


def freq_split(x: torch.Tensor, levels: int = 3) -> tuple[torch.Tensor, torch.Tensor]:
    """(X^h, X^l) with X^h = Σ_i (x_i − blur_i(x_i)), x_{i+1} = blur_i(x_i), X^l = x_levels (§2(b)).

    Works on (C, H, W) or (N, C, H, W). Linear in x; the high band vanishes farther than
    Σ_i 2^i = 2^levels − 1 px from any edge.
    """
    squeeze = x.dim() == 3
    xi = x.unsqueeze(0) if squeeze else x
    hf = torch.zeros_like(xi)
    for i in range(levels):
        low = _blur(xi, 2 ** i)
        hf = hf + (xi - low)
        xi = low
    if squeeze:
        return hf[0], xi[0]
    return hf, xi
