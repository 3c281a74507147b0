"""Small building blocks shared by the predictor, URSe and the refiner U-Net."""

from __future__ import annotations

import torch
from torch import nn


class DoubleConv(nn.Module):
    """conv3-SiLU-conv3-SiLU plus a conv3 residual of the input (URSe's block, §2(c))."""

    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1), nn.SiLU(),
                                  nn.Conv2d(c_out, c_out, 3, padding=1), nn.SiLU())
        self.skip = nn.Conv2d(c_in, c_out, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x) + self.skip(x)


class ChannelAttention(nn.Module):
    """Avg- and max-pool to 2×2 → shared [1×1 conv (C → C/2) → SiLU → 2×2 conv (→ C)] → sum → sigmoid:
    one weight per channel, (N, C, 1, 1)."""

    def __init__(self, c: int):
        super().__init__()
        mid = max(c // 2, 1)
        self.mlp = nn.Sequential(nn.Conv2d(c, mid, 1), nn.SiLU(), nn.Conv2d(mid, c, 2))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        avg = nn.functional.adaptive_avg_pool2d(x, 2)
        mx = nn.functional.adaptive_max_pool2d(x, 2)
        return torch.sigmoid(self.mlp(avg) + self.mlp(mx))


class ResBlock(nn.Module):
    """GroupNorm-SiLU-conv ×2 with a residual; `temb` (N, T) is added after the first conv when given."""

    def __init__(self, c_in: int, c_out: int, t_dim: int = 0):
        super().__init__()
        self.n1 = nn.GroupNorm(min(8, c_in), c_in)
        self.c1 = nn.Conv2d(c_in, c_out, 3, padding=1)
        self.t = nn.Linear(t_dim, c_out) if t_dim else None
        self.n2 = nn.GroupNorm(min(8, c_out), c_out)
        self.c2 = nn.Conv2d(c_out, c_out, 3, padding=1)
        self.skip = nn.Conv2d(c_in, c_out, 1) if c_in != c_out else nn.Identity()

    def forward(self, x: torch.Tensor, temb: torch.Tensor | None = None) -> torch.Tensor:
        h = self.c1(nn.functional.silu(self.n1(x)))
        if self.t is not None and temb is not None:
            h = h + self.t(temb)[:, :, None, None]
        h = self.c2(nn.functional.silu(self.n2(h)))
        return h + self.skip(x)


def n_params(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())
