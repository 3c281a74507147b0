"""Subspace diffusion refinement (§2(d)) and SCI-consistency guidance (§2(e)) at CPU scale: a DDPM prior
trained here on ground-truth latents (no Stable Diffusion), sampled with DDIM from the noised initial
embedding ("better_start"); for t < t_start each step pulls x̂₀ toward ‖Φ(ψ⁻¹(A) + X^l) − y‖₁ with
momentum and toward A_init by the anchor term (the prior itself is unconditional, as SD's U-Net is; the
paper adds a ControlNet on A_init, which we do not train).

Three priors share this code: "subspace" (3 channels at 2H × 2W through URSe, PSR-SCI), "band_group"
(one 3-channel model over the 28 HF bands in 10 groups, DiffSCI-style) and "full_cube" (28 channels)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from iclr25.core.runtime import progress
from iclr25.psr_sci.operators import cassi_forward
from iclr25.psr_sci.unet import UNet


@dataclass(frozen=True)
class RefinerConfig:
    widths: tuple[int, ...] = (16, 32, 64, 96)
    timesteps: int = 1000
    beta_start: float = 1e-4
    beta_end: float = 0.02
    lr: float = 1e-3
    batch: int = 8
    steps: int = 5000
    patch: int = 64  # training patch of the latent image, px
    ddim_steps: int = 30
    start_t: int = 399  # better_start: sampling starts from A_init noised to this step (ours: = t_start)
    g_scale: float = 800.0  # s
    t_start: int = 400  # guidance is active for t < t_start
    momentum: float = 0.8
    lo: float = 0.15  # per-sample min-max normalisation into [lo, hi] (§2(d))
    hi: float = 0.85
    w_range: float = 0.005  # penalty weight for A outside [0, 1] and MSI < 0
    w_anchor: float = 0.02  # weight of ‖A − A_init‖² (central crop)
    crop: float = 0.25  # measurement columns dropped at each side, as a share of W (64 of 256)


GUIDANCE_NORM = 256.0 * (310 - 2 * 64)  # central measurement entries of a 256² KAIST scene


def alphas_cumprod(config: RefinerConfig) -> torch.Tensor:
    betas = torch.linspace(config.beta_start, config.beta_end, config.timesteps, dtype=torch.float64)
    return torch.cumprod(1 - betas, 0)


@dataclass
class Normaliser:
    """Per-sample affine map of a latent into [lo, hi] (from the condition's min and max), then to [−1, 1]."""

    vmin: torch.Tensor  # (N, 1, 1, 1)
    vmax: torch.Tensor
    lo: float = 0.15
    hi: float = 0.85

    @classmethod
    def fit(cls, a: torch.Tensor, lo: float, hi: float) -> Normaliser:
        flat = a.flatten(1)
        return cls(flat.min(1).values[:, None, None, None], flat.max(1).values[:, None, None, None], lo, hi)

    def forward(self, a: torch.Tensor) -> torch.Tensor:
        n = self.lo + (self.hi - self.lo) * (a - self.vmin) / (self.vmax - self.vmin).clamp_min(1e-8)
        return 2 * n - 1

    def inverse(self, z: torch.Tensor) -> torch.Tensor:
        n = (z + 1) / 2
        return (n - self.lo) / (self.hi - self.lo) * (self.vmax - self.vmin).clamp_min(1e-8) + self.vmin


def guidance_loss(z0: torch.Tensor, z_init: torch.Tensor, norm: Normaliser,
                  decode: Callable[[torch.Tensor], torch.Tensor], lf: torch.Tensor, y: torch.Tensor,
                  mask: torch.Tensor, config: RefinerConfig, step: int = 2) -> torch.Tensor:
    """§2(e): ‖Φ·max(MSI, 0) − y‖₁ on the central columns + w_range·(A∉[0,1], MSI<0 penalties)
    + w_anchor·‖A − A_init‖² on the central crop, with MSI = ψ⁻¹(A) + X^l. The norms are sums divided by
    one constant (the central measurement size of a 256² scene), so the gradient per latent element, and
    with it the meaning of s, does not change with the image size."""
    a = norm.inverse(z0)
    msi = decode(a) + lf  # (1, B, H, W)
    c = int(round(config.crop * mask.shape[-1]))
    resid = cassi_forward(msi.clamp_min(0), mask, step) - y
    data = resid[..., c: resid.shape[-1] - c].abs().sum()
    n01 = (z0 + 1) / 2
    penalty = (torch.relu(-n01) + torch.relu(n01 - 1)).sum() + torch.relu(-msi).sum()
    ch, cw = z0.shape[-2] // 4, z0.shape[-1] // 4
    anchor = ((z0 - z_init)[..., ch: z0.shape[-2] - ch, cw: z0.shape[-1] - cw] ** 2).sum()
    return (data + config.w_range * penalty + config.w_anchor * anchor) / GUIDANCE_NORM


def guidance_grad(z0: torch.Tensor, *args, **kwargs) -> tuple[torch.Tensor, float]:
    """∂ guidance_loss / ∂x̂₀ by autograd, and the loss."""
    with torch.enable_grad():
        z = z0.detach().requires_grad_(True)
        loss = guidance_loss(z, *args, **kwargs)
        (g,) = torch.autograd.grad(loss, z)
    return g, loss.item()


class LatentDDPM:
    """ε-prediction DDPM prior on latent images; DDIM sampling from a noised start with guidance."""

    def __init__(self, channels: int, config: RefinerConfig):
        self.config = config
        self.channels = channels
        self.net = UNet(channels, config.widths)
        self.abar = alphas_cumprod(config).float()
        self.losses_: list[float] = []

    def fit(self, z_gt: torch.Tensor, generator: torch.Generator, description: str = "prior") -> LatentDDPM:
        """Train on random patches of normalised ground-truth latents (N, C, h, w), flipped at random."""
        c = self.config
        opt = torch.optim.Adam(self.net.parameters(), lr=c.lr)
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 1 - 0.9 * s / max(c.steps, 1))
        n, _, h, w = z_gt.shape
        p = min(c.patch, h, w)
        self.net.train()
        for _ in progress(range(c.steps), description, total=c.steps):
            idx = torch.randint(0, n, (c.batch,), generator=generator)
            i0 = int(torch.randint(0, h - p + 1, (1,), generator=generator))
            j0 = int(torch.randint(0, w - p + 1, (1,), generator=generator))
            x0 = z_gt[idx, :, i0:i0 + p, j0:j0 + p]
            for dim in (-1, -2):
                if torch.rand((), generator=generator) < 0.5:
                    x0 = x0.flip(dim)
            t = torch.randint(0, c.timesteps, (c.batch,), generator=generator)
            eps = torch.randn(x0.shape, generator=generator)
            ab = self.abar[t][:, None, None, None]
            xt = ab.sqrt() * x0 + (1 - ab).sqrt() * eps  # forward process q(x_t | x_0)
            loss = ((self.net(xt, t) - eps) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            self.losses_.append(loss.item())
        self.net.eval()
        return self

    def timesteps(self, steps: int | None = None, start_t: int | None = None) -> list[int]:
        c = self.config
        k = steps or c.ddim_steps
        return [int(round(v)) for v in np.linspace(c.start_t if start_t is None else start_t, 0, k)]

    @torch.no_grad()
    def sample(self, start: torch.Tensor, generator: torch.Generator, steps: int | None = None,
               guide: Callable[[torch.Tensor], tuple[torch.Tensor, float]] | None = None,
               g_scale: float | None = None, start_t: int | None = None) -> tuple[torch.Tensor, dict]:
        """DDIM (η = 0) from `start` (A_init) noised to `start_t` (default: the config's);
        `guide(x̂₀) -> (∂loss/∂x̂₀, loss)`
        applies §2(e) for t < t_start: m ← μm + (1−μ)·(−s·∇)·max(1/c₁(t), 4); x̂₀ ← x̂₀ + m."""
        c = self.config
        s = c.g_scale if g_scale is None else g_scale
        ts = self.timesteps(steps, start_t)
        ab0 = self.abar[ts[0]]
        z = ab0.sqrt() * start + (1 - ab0).sqrt() * torch.randn(start.shape, generator=generator)
        m = torch.zeros_like(start)
        losses = []
        z0 = start
        for i, t in enumerate(ts):
            ab = self.abar[t]
            ab_prev = self.abar[ts[i + 1]] if i + 1 < len(ts) else torch.tensor(1.0)
            eps = self.net(z, torch.full((z.shape[0],), t))
            z0 = ((z - (1 - ab).sqrt() * eps) / ab.sqrt()).clamp(-1, 1)
            eps = (z - ab.sqrt() * z0) / (1 - ab).sqrt()
            if guide is not None and t < c.t_start:
                g, loss = guide(z0)
                losses.append(loss)
                c1 = float(ab_prev.sqrt() * (1 - ab / ab_prev) / (1 - ab))  # posterior coefficient of x₀
                factor = max(1 / c1, 4.0) if c1 > 0 else 4.0
                m = c.momentum * m + (1 - c.momentum) * (-s * g) * factor
                z0 = z0 + m
            z = ab_prev.sqrt() * z0 + (1 - ab_prev).sqrt() * eps
        return z0, {"guidance_loss": losses}

    def state(self) -> dict:
        return {"net": self.net.state_dict(), "losses": self.losses_}

    def load(self, state: dict) -> None:
        self.net.load_state_dict(state["net"])
        self.losses_ = list(state["losses"])
        self.net.eval()


def group_bands(hf: torch.Tensor, group: int = 3) -> torch.Tensor:
    """(1, B, H, W) -> (ceil(B/g), g, H, W); the last group is padded by repeating the last band."""
    b = hf.shape[1]
    n = math.ceil(b / group)
    pad = n * group - b
    x = torch.cat([hf, hf[:, -1:].expand(-1, pad, -1, -1)], 1) if pad else hf
    return x.reshape(n, group, *hf.shape[-2:])


def ungroup_bands(z: torch.Tensor, bands: int) -> torch.Tensor:
    """Inverse of group_bands: (n, g, H, W) -> (1, B, H, W)."""
    return z.reshape(1, -1, *z.shape[-2:])[:, :bands]
