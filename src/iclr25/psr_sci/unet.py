"""The refiner's denoiser: a small conditional U-Net ε_θ(z_t, t | c). The condition c (the predictor's
embedding A_init) is concatenated to the input: our stand-in for the ControlNet of §2(d)."""

from __future__ import annotations

import math

import torch
from torch import nn

from iclr25.psr_sci.nets import ResBlock, n_params


def timestep_embedding(t: torch.Tensor, dim: int) -> torch.Tensor:
    """Sinusoidal embedding of integer timesteps (N,) -> (N, dim)."""
    half = dim // 2
    freqs = torch.exp(-math.log(10_000) * torch.arange(half, dtype=torch.float32) / half)
    args = t.float()[:, None] * freqs[None]
    return torch.cat([torch.sin(args), torch.cos(args)], dim=1)


class UNet(nn.Module):
    """Levels of width `widths` (one ResBlock each way, stride-2 down, nearest-up), a middle block;
    in: cat(z_t, c) with 2·channels, out: ε̂ with `channels`."""

    def __init__(self, channels: int, widths: tuple[int, ...] = (16, 32, 64, 128), t_dim: int = 64):
        super().__init__()
        self.t_dim = t_dim
        self.t_mlp = nn.Sequential(nn.Linear(t_dim, t_dim), nn.SiLU(), nn.Linear(t_dim, t_dim))
        self.inc = nn.Conv2d(2 * channels, widths[0], 3, padding=1)
        self.downs = nn.ModuleList()
        self.pools = nn.ModuleList()
        c = widths[0]
        for w in widths:
            self.downs.append(ResBlock(c, w, t_dim))
            self.pools.append(nn.Conv2d(w, w, 3, stride=2, padding=1))
            c = w
        self.mid = ResBlock(c, c, t_dim)
        self.ups = nn.ModuleList()
        for w in reversed(widths):
            self.ups.append(ResBlock(c + w, w, t_dim))
            c = w
        self.outc = nn.Sequential(nn.GroupNorm(min(8, c), c), nn.SiLU(), nn.Conv2d(c, channels, 3, padding=1))

    @property
    def n_params(self) -> int:
        return n_params(self)

    def forward(self, z: torch.Tensor, t: torch.Tensor, cond: torch.Tensor) -> torch.Tensor:
        """z, cond (N, C, h, w) with h, w divisible by 2^len(widths); t (N,) -> ε̂ (N, C, h, w)."""
        temb = self.t_mlp(timestep_embedding(t, self.t_dim))
        h = self.inc(torch.cat([z, cond], 1))
        skips = []
        for blk, pool in zip(self.downs, self.pools, strict=True):
            h = blk(h, temb)
            skips.append(h)
            h = pool(h)  # (N, w, h/2, w/2)
        h = self.mid(h, temb)
        for blk in self.ups:
            s = skips.pop()
            h = nn.functional.interpolate(h, size=s.shape[-2:], mode="nearest")
            h = blk(torch.cat([h, s], 1), temb)
        return self.outc(h)
