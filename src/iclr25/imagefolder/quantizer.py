"""Multi-scale residual quantisation (MSRQ, VAR-style) of one branch's K x K latent map (spec §2).

Start with r_0 = f and f_hat = 0. For each scale i (side s_i, the last equal to K):
    z_i = argmax_v cos(AreaDown_{s_i}(r_{i-1}), e_v)           # cosine lookup
    h_i = phi_i(BicubicUp_K(e[z_i]))                           # the last scale is not resampled
    f_hat += h_i ;  r_i = r_{i-1} - h_i
phi(x) = (1 - r) x + r Conv3x3(x), r = 0.5, with `shared` convs picked by the relative depth i/(S-1).
VQ loss per scale, averaged: beta ||sg(f_hat) - f||^2 + ||f_hat - sg(f)||^2 (beta = 0.25); decoder input
by straight-through: f + sg(f_hat - f). Quantizer dropout keeps only the first n scales of f_hat for a
chosen set of samples (the residual still runs over all scales)."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


@functools.lru_cache(maxsize=64)
def resize_matrix(src: int, dst: int, mode: str) -> torch.Tensor:
    """The linear map of F.interpolate(mode) from src x src to dst x dst maps, as a (src^2, dst^2)
    matrix: resizing many tiny maps is one matrix product instead of a chain of small kernels."""
    basis = torch.eye(src * src, dtype=torch.float64).view(src * src, 1, src, src)
    return F.interpolate(basis, size=(dst, dst), mode=mode).view(src * src, dst * dst).float()


def _resize(x: torch.Tensor, side: int, mode: str) -> torch.Tensor:
    b, d, s, _ = x.shape
    if s == side:
        return x
    return (x.reshape(b, d, s * s) @ resize_matrix(s, side, mode)).view(b, d, side, side)


def area_down(x: torch.Tensor, s: int) -> torch.Tensor:
    """(B, d, K, K) -> (B, d, s, s) by area averaging; identity when s == K."""
    return _resize(x, s, "area")


def bicubic_up(x: torch.Tensor, k: int) -> torch.Tensor:
    """(B, d, s, s) -> (B, d, K, K) by bicubic interpolation; identity when s == K."""
    return _resize(x, k, "bicubic")


def cosine_lookup(r: torch.Tensor, codebook: torch.Tensor) -> torch.Tensor:
    """Index of the codeword with the largest cosine to each position of r: (B, d, s, s) -> (B, s*s)."""
    b, d = r.shape[:2]
    q = F.normalize(r.permute(0, 2, 3, 1).reshape(-1, d), dim=-1)  # (B s s, d)
    return (q @ F.normalize(codebook, dim=-1).T).argmax(-1).view(b, -1)


class Phi(nn.Module):
    """phi(x) = (1 - ratio) x + ratio Conv3x3(x); the identity when ratio == 0."""

    def __init__(self, dim: int, ratio: float = 0.5):
        super().__init__()
        self.ratio = float(ratio)
        self.conv = nn.Conv2d(dim, dim, 3, padding=1) if self.ratio else None

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        if self.conv is None:
            return h
        return h * (1.0 - self.ratio) + self.conv(h) * self.ratio


def phi_ticks(n: int) -> np.ndarray:
    """Relative depths at which the `n` shared phi convs sit (VAR's partially shared layout)."""
    edge = 1 / 3 / n if n == 4 else 1 / 2 / n
    return np.linspace(edge, 1 - edge, n)


class MultiScaleResidualQuantizer(nn.Module):
    """One branch: a codebook of `codebook` unit vectors in R^dim, scales (1, ..., K), shared phi."""

    def __init__(self, scales: Sequence[int], codebook: int = 256, dim: int = 16, beta: float = 0.25,
                 phi_ratio: float = 0.5, phi_shared: int = 4):
        super().__init__()
        self.scales = tuple(int(s) for s in scales)
        self.K = self.scales[-1]
        self.beta = float(beta)
        self.embedding = nn.Embedding(codebook, dim)
        with torch.no_grad():  # VAR's init: small uniform, then L2-normalised
            self.embedding.weight.uniform_(-1.0 / codebook, 1.0 / codebook)
            self.embedding.weight.copy_(F.normalize(self.embedding.weight, dim=-1))
        n_phi = max(1, min(phi_shared, len(self.scales)))
        self.phis = nn.ModuleList(Phi(dim, phi_ratio) for _ in range(n_phi))
        self._ticks = phi_ticks(n_phi)

    @property
    def vocab_size(self) -> int:
        return self.embedding.num_embeddings

    def phi(self, i: int) -> Phi:
        """The shared phi nearest to scale i's relative depth i / (S - 1)."""
        at = i / (len(self.scales) - 1) if len(self.scales) > 1 else 0.0
        return self.phis[int(np.argmin(np.abs(self._ticks - at)))]

    def h(self, i: int, z: torch.Tensor) -> torch.Tensor:
        """h_i = phi_i(BicubicUp_K(e[z_i])): (B, s_i*s_i) codes -> (B, d, K, K)."""
        s = self.scales[i]
        e = self.embedding(z).transpose(1, 2).reshape(z.shape[0], -1, s, s)  # (B, d, s, s)
        return self.phi(i)(bicubic_up(e, self.K))

    def forward(self, f: torch.Tensor, n_keep: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, torch.Tensor, list[torch.Tensor]]:
        """f (B, d, K, K) -> (straight-through f_hat, VQ loss, codes [(B, s*s)] per scale).

        n_keep (B,) int: scales with index >= n_keep[b] are masked out of sample b's f_hat (quantizer
        dropout); the VQ loss of each scale is renormalised by the share of samples it kept."""
        b = f.shape[0]
        f_ng = f.detach()
        rest = f_ng.clone()
        f_hat = torch.zeros_like(f)
        loss = f.new_zeros(())
        codes = []
        for i, s in enumerate(self.scales):
            z = cosine_lookup(area_down(rest, s), self.embedding.weight.detach())  # (B, s*s)
            h = self.h(i, z)  # (B, d, K, K)
            if n_keep is None:
                f_hat = f_hat + h
                loss = loss + self.beta * F.mse_loss(f_hat.detach(), f) + F.mse_loss(f_hat, f_ng)
            else:
                keep = (i < n_keep).to(f.dtype).view(b, 1, 1, 1)
                ratio = keep.mean().clamp_min(1.0 / b)
                f_hat = f_hat + h * keep
                per = (self.beta * (f_hat.detach() - f) ** 2 + (f_hat - f_ng) ** 2) * keep
                loss = loss + per.mean() / ratio
            rest = rest - h.detach()
            codes.append(z)
        f_hat_st = f + (f_hat - f).detach()  # straight-through to the encoder
        return f_hat_st, loss / len(self.scales), codes

    @torch.no_grad()
    def encode(self, f: torch.Tensor) -> list[torch.Tensor]:
        """Codes per scale, [(B, s_i*s_i)]."""
        rest, codes = f.clone(), []
        for i, s in enumerate(self.scales):
            z = cosine_lookup(area_down(rest, s), self.embedding.weight)
            rest = rest - self.h(i, z)
            codes.append(z)
        return codes

    def fhat(self, codes: Sequence[torch.Tensor], n_scales: int | None = None) -> torch.Tensor:
        """f_hat from the first n_scales scales' codes (all given scales by default): (B, d, K, K)."""
        n = len(codes) if n_scales is None else n_scales
        out = 0.0
        for i in range(n):
            out = out + self.h(i, codes[i])
        return out

    def next_inputs(self, codes: Sequence[torch.Tensor]) -> list[torch.Tensor]:
        """Teacher-forcing inputs of the next-scale AR model: for i = 1..S-1 the map
        AreaDown_{s_i}(f_hat_{<i}) as (B, s_i*s_i, d)."""
        f_hat, out = 0.0, []
        for i in range(len(self.scales) - 1):
            f_hat = f_hat + self.h(i, codes[i])
            nxt = area_down(f_hat, self.scales[i + 1])
            out.append(nxt.flatten(2).transpose(1, 2))
        return out
