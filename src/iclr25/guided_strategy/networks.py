"""The four networks of GSD: a z-conditioned Gaussian policy π(a|s,z) and its value function, the GAIL
discriminator h_ψ(s,a) (optionally bounded, "+M") and the Gaussian decoder q_φ(z|s,a) (optionally
spectral-normalised, "+SN"). Inputs are already normalised; shapes are (B, dim)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn
from torch.nn.utils.parametrizations import spectral_norm

LOG_STD_MIN, LOG_STD_MAX = -20.0, 2.0  # the authors' clamp of the decoder's log σ
HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def mlp(in_dim: int, hidden: Sequence[int], out_dim: int, sn: bool = False) -> nn.Sequential:
    """ReLU MLP; `sn` wraps every linear layer in spectral normalisation (a 1-Lipschitz network)."""
    wrap = spectral_norm if sn else (lambda m: m)
    layers: list[nn.Module] = []
    d = in_dim
    for h in hidden:
        layers += [wrap(nn.Linear(d, h)), nn.ReLU()]
        d = h
    layers.append(wrap(nn.Linear(d, out_dim)))
    return nn.Sequential(*layers)


class GaussianPolicy(nn.Module):
    """π(u | s, z) = N(μ(s, z), diag σ²), σ state-independent; u in [-1, 1] action units."""

    def __init__(self, obs_dim: int, latent_dim: int, act_dim: int, hidden: Sequence[int],
                 log_std_init: float = 0.0) -> None:
        super().__init__()
        self.mean = mlp(obs_dim + latent_dim, hidden, act_dim)
        self.mean[-1].weight.data.mul_(0.1)  # start near the centre of the action box
        self.mean[-1].bias.data.zero_()
        self.log_std = nn.Parameter(torch.full((act_dim,), log_std_init))

    def log_prob(self, sz: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
        """log π(u | s, z) summed over action dimensions (B,)."""
        mu = self.mean(sz)  # (B, da)
        return (-0.5 * ((u - mu) / self.log_std.exp()) ** 2 - self.log_std - HALF_LOG_2PI).sum(-1)

    def sample(self, sz: torch.Tensor, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """u ~ π(· | s, z) and its log-probability."""
        mu = self.mean(sz)
        eps = torch.randn(mu.shape, generator=generator)
        u = mu + self.log_std.exp() * eps
        return u, (-0.5 * eps**2 - self.log_std - HALF_LOG_2PI).sum(-1)

    def greedy(self, sz: torch.Tensor) -> torch.Tensor:
        return self.mean(sz)


class Discriminator(nn.Module):
    """GAIL discriminator. Logit ℓ = h(s, a), or with "+M" (bounded) ℓ = clip·σ(h) − clip/2 ∈ (−clip/2,
    clip/2). Task relevance ρ(s, a) = σ(h) ∈ (0, 1) is the bounded discriminator's expert-likeness."""

    def __init__(self, in_dim: int, hidden: Sequence[int], clip: float | None) -> None:
        super().__init__()
        self.h = mlp(in_dim, hidden, 1)
        self.clip = clip

    def logit(self, sa: torch.Tensor) -> torch.Tensor:
        h = self.h(sa)[:, 0]  # (B,)
        if self.clip is None:
            return h
        return self.clip * torch.sigmoid(h) - self.clip / 2

    def relevance(self, sa: torch.Tensor) -> torch.Tensor:
        """ρ(s, a) = σ(h(s, a)) (B,)."""
        return torch.sigmoid(self.h(sa)[:, 0])


class Decoder(nn.Module):
    """q_φ(z | s, a) = N(μ_φ(s, a), diag σ_φ²(s, a)). With `sn`, every layer is spectral-normalised and
    the input is scaled by `sn_scale` (λ_C): a global Lipschitz bound λ_C on μ_φ, blind to the task."""

    def __init__(self, in_dim: int, latent_dim: int, hidden: Sequence[int], sn: bool = False,
                 sn_scale: float = 1.0) -> None:
        super().__init__()
        self.body = mlp(in_dim, hidden[:-1], hidden[-1], sn=sn)
        wrap = spectral_norm if sn else (lambda m: m)
        self.mean_head = wrap(nn.Linear(hidden[-1], latent_dim))
        self.log_std_head = wrap(nn.Linear(hidden[-1], latent_dim))
        self.sn_scale = sn_scale if sn else 1.0

    def forward(self, sa: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = torch.relu(self.body(sa * self.sn_scale))  # (B, hidden[-1])
        return self.mean_head(x), self.log_std_head(x).clamp(LOG_STD_MIN, LOG_STD_MAX)

    def mean(self, sa: torch.Tensor) -> torch.Tensor:
        return self.forward(sa)[0]
