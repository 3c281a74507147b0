"""The refiners: `SubspaceRefiner` (PSR-SCI: diffusion on URSe's 3-channel embedding, or DiffSCI-style
on 3-band groups with prior="band_group") and `FullCubeRefiner` (the same DDPM on all 28 HF bands).
Each learns a prior over ground-truth high bands in its latent space and refines X^h_init with it:
DDIM from the noised A_init under SCI-consistency guidance."""

from __future__ import annotations

import time

import torch

from iclr25.core.errors import UserError
from iclr25.psr_sci.diffusion import (
    LatentDDPM,
    Normaliser,
    RefinerConfig,
    group_bands,
    guidance_grad,
    ungroup_bands,
)
from iclr25.psr_sci.urse import URSe

PRIORS = ("subspace", "band_group", "full_cube")


class _Refiner:
    prior: str

    def __init__(self, channels: int, bands: int, config: RefinerConfig):
        self.bands = bands
        self.config = config
        self.ddpm = LatentDDPM(channels, config)

    def encode(self, hf: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def decode(self, a: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    @property
    def n_params(self) -> int:
        return self.ddpm.net.n_params

    def fit(self, hf_gt: torch.Tensor, generator: torch.Generator, chunk: int = 16):
        """Train the prior on ground-truth high bands (N, B, h, w): each crop's latent is normalised by its
        own range (at refinement the range comes from A_init, an estimate of the same image)."""
        with torch.no_grad():
            a = torch.cat([self.encode(hf_gt[i:i + chunk]) for i in range(0, len(hf_gt), chunk)])
        z = Normaliser.fit(a, self.config.lo, self.config.hi).forward(a)
        self.ddpm.fit(z, generator, f"prior ({self.prior})")
        return self

    def refine(self, hf_init: torch.Tensor, lf_init: torch.Tensor, y: torch.Tensor, mask: torch.Tensor,
               generator: torch.Generator, guidance: bool = True, steps: int | None = None,
               g_scale: float | None = None, step: int = 2, start_t: int | None = None,
               ) -> tuple[torch.Tensor, dict]:
        """X^h_init, X^l_init (1, B, H, W), y (1, H, W'), mask (H, W) -> refined X^h (1, B, H, W)."""
        t0, c0 = time.perf_counter(), time.process_time()
        with torch.no_grad():
            a_init = self.encode(hf_init)
        norm = Normaliser.fit(a_init, self.config.lo, self.config.hi)
        z_init = norm.forward(a_init)

        def guide(z0: torch.Tensor) -> tuple[torch.Tensor, float]:
            return guidance_grad(z0, z_init, norm, self.decode, lf_init, y, mask, self.config, step)

        z0, info = self.ddpm.sample(z_init, generator, steps, guide if guidance else None, g_scale, start_t)
        with torch.no_grad():
            hf = self.decode(norm.inverse(z0))
        info["refine_s"] = time.perf_counter() - t0
        info["refine_cpu_s"] = time.process_time() - c0
        return hf, info

    def state(self) -> dict:
        return self.ddpm.state()

    def load(self, state: dict) -> None:
        self.ddpm.load(state)


class SubspaceRefiner(_Refiner):
    """prior="subspace": DDPM on A^h = ψ(X^h) (3 × 2H × 2W), decoded by ψ⁻¹ (PSR-SCI §2(d)).
    prior="band_group": one 3-channel DDPM applied to the HF bands in groups of 3 (DiffSCI-style)."""

    def __init__(self, urse: URSe | None = None, prior: str = "subspace", bands: int = 28,
                 config: RefinerConfig | None = None):
        if prior not in ("subspace", "band_group"):
            raise UserError(f"prior must be 'subspace' or 'band_group', got {prior!r}")
        if prior == "subspace" and urse is None:
            raise UserError("the subspace prior needs a trained URSe")
        self.prior = prior
        self.urse = urse
        super().__init__(urse.config.sub_ch if prior == "subspace" else 3, bands, config or RefinerConfig())

    def encode(self, hf: torch.Tensor) -> torch.Tensor:
        if self.prior == "subspace":
            return self.urse.encode(hf)[0]  # (N, 3, 2H, 2W)
        return torch.cat([group_bands(h[None]) for h in hf])  # (N·10, 3, H, W)

    def decode(self, a: torch.Tensor) -> torch.Tensor:
        if self.prior == "subspace":
            return self.urse.decode(a)
        return ungroup_bands(a, self.bands)


class FullCubeRefiner(_Refiner):
    """The same DDPM directly on the 28-band HF cube (no subspace): the paper's 'impractical' baseline."""

    prior = "full_cube"

    def __init__(self, bands: int = 28, config: RefinerConfig | None = None):
        super().__init__(bands, bands, config or RefinerConfig())

    def encode(self, hf: torch.Tensor) -> torch.Tensor:
        return hf

    def decode(self, a: torch.Tensor) -> torch.Tensor:
        return a
