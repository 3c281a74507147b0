"""The refiner's denoiser: a small U-Net ε_θ(z_t, t), the prior over ground-truth latents (our stand-in for
Stable Diffusion's U-Net, which is trained on images alone); `cond_channels` > 0 adds a condition
concatenated to the input (unused by the reproduction, kept for users who train on pairs)."""

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
    in: z_t (and a condition: cat(z_t, c)), out: ε̂ with `channels`."""

    def __init__(self, channels: int, widths: tuple[int, ...] = (16, 32, 64, 128), t_dim: int = 64,
                 cond_channels: int = 0):
        super().__init__()
        self.t_dim = t_dim
        self.cond_channels = cond_channels
        self.t_mlp = nn.Sequential(nn.Linear(t_dim, t_dim), nn.SiLU(), nn.Linear(t_dim, t_dim))
        self.inc = nn.Conv2d(channels + cond_channels, widths[0], 3, padding=1)
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

    def forward(self, z: torch.Tensor, t: torch.Tensor, cond: torch.Tensor | None = None) -> torch.Tensor:
        """z (N, C, h, w), t (N,), cond (N, cond_channels, h, w) when the net has one -> ε̂ (N, C, h, w)."""
        temb = self.t_mlp(timestep_embedding(t, self.t_dim))
        h = self.inc(z if cond is None else torch.cat([z, cond], 1))
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
