"""The predictor φθ (§2(a)) at CPU scale: a mask-aware unfolded GAP network (DAUHST-like). Each of its
stages takes the GAP projection x + Φᵀ((y − Φx)/Φ_s) and then a learned residual denoiser that sees the
coded aperture, so one network serves any mask."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from iclr25.psr_sci.nets import ResBlock, n_params
from iclr25.psr_sci.operators import (
    cassi_adjoint,
    cassi_forward,
    check_problem,
    gap_projection,
    phi_phit_diag,
)


@dataclass(frozen=True)
class PredictorConfig:
    bands: int = 28
    step: int = 2
    stages: int = 3
    width: int = 48  # channels of the denoiser (runs at half resolution)
    lr: float = 1e-3
    batch: int = 8
    steps: int = 1000


class StageDenoiser(nn.Module):
    """(x, mask) -> residual: full-res in/out convs around half-resolution residual blocks."""

    def __init__(self, bands: int, width: int):
        super().__init__()
        self.inc = nn.Conv2d(bands + 1, width // 2, 3, padding=1)
        self.down = nn.Conv2d(width // 2, width, 2, stride=2)
        self.mid = nn.ModuleList([ResBlock(width, width), ResBlock(width, width)])
        self.up = nn.ConvTranspose2d(width, width // 2, 2, stride=2)
        self.outc = nn.Conv2d(width // 2, bands, 3, padding=1)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        h0 = nn.functional.silu(self.inc(torch.cat([x, mask], 1)))  # (N, w/2, H, W)
        h = self.down(h0)  # (N, w, H/2, W/2)
        for blk in self.mid:
            h = blk(h)
        h = nn.functional.silu(self.up(h, output_size=h0.shape[-2:]) + h0)
        return self.outc(h)


class Predictor(nn.Module):
    """x₀ = Φᵀ(y/Φ_s); for each stage k: x ← GAP(x), x ← x + D_k(x, M). About 0.3M parameters."""

    def __init__(self, config: PredictorConfig = PredictorConfig()):
        super().__init__()
        self.config = config
        self.stages = nn.ModuleList([StageDenoiser(config.bands, config.width) for _ in range(config.stages)])

    @property
    def n_params(self) -> int:
        return n_params(self)

    def forward(self, y: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """y (N, H, W'), mask (N, H, W) -> cube (N, B, H, W)."""
        c = self.config
        phis = phi_phit_diag(mask, c.bands, c.step).clamp_min(1e-6)  # (N, H, W')
        x = cassi_adjoint(y / phis, mask, c.bands, c.step)
        for stage in self.stages:
            x = gap_projection(x, y, mask, phis, c.step)
            x = x + stage(x, mask.unsqueeze(1))
        return x

    def predict(self, y: Any, mask: Any) -> np.ndarray:
        """Reconstruct one measurement (H, W') with its mask (H, W): a (B, H, W) float32 cube."""
        check_problem(y, mask, self.config.bands, self.config.step)
        self.eval()
        with torch.no_grad():
            yt = torch.as_tensor(np.asarray(y, np.float32))[None]
            mt = torch.as_tensor(np.asarray(mask, np.float32))[None]
            return self(yt, mt)[0].clamp_min(0).numpy()


def simulate(x: torch.Tensor, mask: torch.Tensor, step: int = 2, noise: float = 0.0,
             generator: torch.Generator | None = None) -> torch.Tensor:
    """y = Φx (+ Gaussian noise of std `noise`·mean(y)), clamped at 0."""
    y = cassi_forward(x, mask, step)
    if noise > 0:
        y = y + noise * y.mean() * torch.randn(y.shape, generator=generator)
    return y.clamp_min(0)


def fit_predictor(model: Predictor, cubes: torch.Tensor, mask: torch.Tensor, generator: torch.Generator,
                  noise: float = 0.0) -> list[float]:
    """Train on random (cube, mask-crop) pairs: cubes (N, B, h, w), mask (H₀, W₀) ≥ (h, w). MSE loss,
    Adam with a cosine schedule. Returns the loss per step."""
    from iclr25.core.runtime import progress

    c = model.config
    opt = torch.optim.Adam(model.parameters(), lr=c.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, max(c.steps, 1))
    n, _, h, w = cubes.shape
    losses = []
    model.train()
    for _ in progress(range(c.steps), "predictor", total=c.steps):
        idx = torch.randint(0, n, (c.batch,), generator=generator)
        x = cubes[idx]
        if torch.rand((), generator=generator) < 0.5:
            x = x.flip(-1)
        masks = torch.stack([random_crop(mask, h, w, generator) for _ in range(c.batch)])
        y = simulate(x, masks, c.step, noise, generator)
        loss = ((model(y, masks) - x) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
    model.eval()
    return losses


def random_crop(mask: torch.Tensor, h: int, w: int, generator: torch.Generator) -> torch.Tensor:
    i = int(torch.randint(0, mask.shape[0] - h + 1, (1,), generator=generator))
    j = int(torch.randint(0, mask.shape[1] - w + 1, (1,), generator=generator))
    return mask[i:i + h, j:j + w]
