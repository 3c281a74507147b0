"""The predictor φθ (§2(a)) at CPU scale: GAP-TV iterations followed by learned residual stages. The paper
uses a pretrained MST-L or DAUHST; ours starts at the classical level by construction: x₀ is GAP-TV's
reconstruction, and each stage adds a correction D_k(x, Φᵀ((y − Φx)/Φ_s), M) whose last layer starts at
zero, so the untrained predictor *is* GAP-TV and training keeps the checkpoint that does best on held-out
crops (never worse there than GAP-TV)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from iclr25.psr_sci.classic import gap_tv_batch
from iclr25.psr_sci.nets import ResBlock, n_params
from iclr25.psr_sci.operators import cassi_adjoint, cassi_forward, check_problem, phi_phit_diag


@dataclass(frozen=True)
class PredictorConfig:
    bands: int = 28
    step: int = 2
    stages: int = 3
    width: int = 48  # channels of each stage's denoiser (runs at half resolution)
    gap_iters: int = 60  # the classical start: GAP-TV with these iterations ...
    tv_weight: float = 0.05
    tv_iters: int = 20  # ... and these Chambolle iterations per TV step
    lr: float = 5e-4
    batch: int = 8
    steps: int = 1000
    val_every: int = 50  # checkpoint selection on held-out crops every this many steps


class StageDenoiser(nn.Module):
    """(x, GAP residual Φᵀ((y − Φx)/Φ_s), mask) -> correction: full-res in/out convs around half-resolution
    residual blocks. The output conv starts at zero (the stage starts as the identity)."""

    def __init__(self, bands: int, width: int):
        super().__init__()
        self.inc = nn.Conv2d(2 * bands + 1, width // 2, 3, padding=1)
        self.down = nn.Conv2d(width // 2, width, 2, stride=2)
        self.mid = nn.ModuleList([ResBlock(width, width), ResBlock(width, width)])
        self.up = nn.ConvTranspose2d(width, width // 2, 2, stride=2)
        self.outc = nn.Conv2d(width // 2, bands, 3, padding=1)
        nn.init.zeros_(self.outc.weight)
        nn.init.zeros_(self.outc.bias)

    def forward(self, x: torch.Tensor, r: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        h0 = nn.functional.silu(self.inc(torch.cat([x, r, mask], 1)))  # (N, w/2, H, W)
        h = self.down(h0)  # (N, w, ⌊H/2⌋, ⌊W/2⌋)
        for blk in self.mid:
            h = blk(h)
        h = nn.functional.silu(self.up(h, output_size=h0.shape[-2:]) + h0)
        return self.outc(h)


class Predictor(nn.Module):
    """x₀ = GAP-TV(y); for each stage k: x ← x + D_k(x, Φᵀ((y − Φx)/Φ_s), M). About 0.4 M parameters."""

    def __init__(self, config: PredictorConfig = PredictorConfig()):
        super().__init__()
        self.config = config
        self.stages = nn.ModuleList([StageDenoiser(config.bands, config.width) for _ in range(config.stages)])

    @property
    def n_params(self) -> int:
        return n_params(self)

    def classic(self, y: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The classical start x₀ = GAP-TV(y) (no gradient): (N, H, W'), (N, H, W) -> (N, B, H, W)."""
        c = self.config
        with torch.no_grad():
            return gap_tv_batch(y, mask, c.bands, c.step, c.gap_iters, c.tv_weight, True, c.tv_iters)

    def forward(self, y: torch.Tensor, mask: torch.Tensor, x0: torch.Tensor | None = None) -> torch.Tensor:
        """y (N, H, W'), mask (N, H, W), optional precomputed x₀ = GAP-TV(y) -> cube (N, B, H, W)."""
        c = self.config
        x = self.classic(y, mask) if x0 is None else x0
        phis = phi_phit_diag(mask, c.bands, c.step).clamp_min(1e-6)  # (N, H, W')
        m = mask.unsqueeze(1)
        for stage in self.stages:
            r = cassi_adjoint((y - cassi_forward(x, mask, c.step)) / phis, mask, c.bands, c.step)
            x = x + stage(x, r, m)
        return x

    def predict_with_classic(self, y: Any, mask: Any) -> tuple[np.ndarray, np.ndarray]:
        """(predictor cube, GAP-TV cube), each (B, H, W) float32, for one measurement (H, W') and its
        mask (H, W): the classical baseline comes free with every prediction."""
        check_problem(y, mask, self.config.bands, self.config.step)
        self.eval()
        with torch.no_grad():
            yt = torch.as_tensor(np.asarray(y, np.float32))[None]
            mt = torch.as_tensor(np.asarray(mask, np.float32))[None]
            x0 = self.classic(yt, mt)
            return self(yt, mt, x0)[0].clamp_min(0).numpy(), x0[0].numpy()

    def predict(self, y: Any, mask: Any) -> np.ndarray:
        """Reconstruct one measurement (H, W') with its mask (H, W): a (B, H, W) float32 cube."""
        return self.predict_with_classic(y, mask)[0]


def simulate(x: torch.Tensor, mask: torch.Tensor, step: int = 2, noise: float = 0.0,
             generator: torch.Generator | None = None) -> torch.Tensor:
    """y = Φx (+ Gaussian noise of std `noise`·mean(y)), clamped at 0."""
    y = cassi_forward(x, mask, step)
    if noise > 0:
        y = y + noise * y.mean() * torch.randn(y.shape, generator=generator)
    return y.clamp_min(0)


@dataclass
class Pool:
    """Training triples: cubes (N, B, h, w), their masks (N, h, w), measurements (N, h, w') and GAP-TV
    starts (N, B, h, w), computed once (GAP-TV is the costly part)."""

    cubes: torch.Tensor
    masks: torch.Tensor
    y: torch.Tensor
    x0: torch.Tensor

    def __len__(self) -> int:
        return len(self.cubes)

    def take(self, idx: Any) -> Pool:
        return Pool(self.cubes[idx], self.masks[idx], self.y[idx], self.x0[idx])

    @staticmethod
    def cat(pools: list[Pool]) -> Pool:
        return Pool(*(torch.cat([getattr(p, f) for p in pools]) for f in ("cubes", "masks", "y", "x0")))


def make_pool(cubes: torch.Tensor, masks: torch.Tensor, config: PredictorConfig, noise: float = 0.0,
              generator: torch.Generator | None = None, chunk: int = 8) -> Pool:
    """Simulate each cube's measurement under its mask and run GAP-TV on it (in batches of `chunk`:
    larger batches run slower per crop, out of cache)."""
    from iclr25.core.runtime import progress

    y = simulate(cubes, masks, config.step, noise, generator)
    x0 = torch.cat([gap_tv_batch(y[i:i + chunk], masks[i:i + chunk], config.bands, config.step,
                                 config.gap_iters, config.tv_weight, True, config.tv_iters)
                    for i in progress(range(0, len(cubes), chunk), "GAP-TV starts")])
    return Pool(cubes, masks, y, x0)


def _mse(model: Predictor, pool: Pool, batch: int = 16) -> float:
    with torch.no_grad():
        err = [((model(p.y, p.masks, p.x0) - p.cubes) ** 2).mean().item() * len(p)
               for p in (pool.take(slice(i, i + batch)) for i in range(0, len(pool), batch))]
    return float(sum(err) / len(pool))


def fit_predictor(model: Predictor, train: Pool, val: Pool, generator: torch.Generator,
                  description: str = "predictor") -> dict[str, list[float]]:
    """Train the stages on the pool's triples (MSE to the cube; rows flipped at random, which commutes
    with the width-wise shear of CASSI and with TV). Every `val_every` steps the held-out MSE is measured;
    the model ends at the best checkpoint, step 0 (= GAP-TV) included. Returns the loss history."""
    from iclr25.core.runtime import progress

    c = model.config
    opt = torch.optim.Adam(model.parameters(), lr=c.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, max(c.steps, 1))
    best = (_mse(model, val), 0, copy.deepcopy(model.state_dict()))
    hist: dict[str, list[float]] = {"loss": [], "val_mse": [best[0]], "val_step": [0]}
    model.train()
    for s in progress(range(1, c.steps + 1), description, total=c.steps):
        p = train.take(torch.randint(0, len(train), (c.batch,), generator=generator))
        if torch.rand((), generator=generator) < 0.5:
            p = Pool(p.cubes.flip(-2), p.masks.flip(-2), p.y.flip(-2), p.x0.flip(-2))
        loss = ((model(p.y, p.masks, p.x0) - p.cubes) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        hist["loss"].append(loss.item())
        if s % c.val_every == 0 or s == c.steps:
            model.eval()
            v = _mse(model, val)
            model.train()
            hist["val_mse"].append(v)
            hist["val_step"].append(s)
            if v < best[0]:
                best = (v, s, copy.deepcopy(model.state_dict()))
    model.load_state_dict(best[2])
    model.eval()
    hist["best_step"] = [best[1]]
    return hist


def random_crop(mask: torch.Tensor, h: int, w: int, generator: torch.Generator) -> torch.Tensor:
    i = int(torch.randint(0, mask.shape[0] - h + 1, (1,), generator=generator))
    j = int(torch.randint(0, mask.shape[1] - w + 1, (1,), generator=generator))
    return mask[i:i + h, j:j + w]
