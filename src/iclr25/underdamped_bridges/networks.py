"""PISGRADNet, the control network of PIS/DIS/DBS and of the paper's code: Fourier time features, a time
MLP, and a state MLP on concat(state, time embedding) whose last layer starts at ~0, so every control
starts at zero and the untrained sampler is the uncontrolled (ULA-like) process.

Weights carry a leading replica axis R (independent networks evaluated as one batched matmul)."""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn


class ReplicaLinear(nn.Module):
    """R independent affine maps (R, N, in) -> (R, N, out), initialised like nn.Linear."""

    def __init__(self, replicas: int, in_dim: int, out_dim: int) -> None:
        super().__init__()
        bound = 1 / math.sqrt(in_dim)
        self.weight = nn.Parameter(torch.empty(replicas, in_dim, out_dim).uniform_(-bound, bound))
        self.bias = nn.Parameter(torch.empty(replicas, 1, out_dim).uniform_(-bound, bound))

    def forward(self, x: Tensor) -> Tensor:
        return torch.baddbmm(self.bias, x, self.weight)


class PISGRADNet(nn.Module):
    """u(z, t): z (R, B, in_dim) = x or concat(x, v), t in [0, 1] -> (R, B, out_dim).

    time: [sin(c t + φ), cos(c t + φ)], c = linspace(0.1, 100, hidden), φ learned -> Linear-GELU-Linear;
    state: [Linear-GELU] × layers on concat(z, time embedding) -> Linear (weights 1e-8, bias 0); output
    clipped to ±1e4. GELU is the tanh approximation, as flax's default in the paper's code.

    The first state layer W [z; e] + b is evaluated as W_z z + (W_e e + b): the time part is computed once
    per path for all time labels (`time_features`), which saves the concatenation at every step."""

    def __init__(self, in_dim: int, out_dim: int, hidden: int = 128, layers: int = 2, replicas: int = 1,
                 outer_clip: float = 1e4) -> None:
        super().__init__()
        self.in_dim = in_dim
        self.register_buffer("coeff", torch.linspace(0.1, 100.0, hidden))
        self.phase = nn.Parameter(torch.zeros(replicas, 1, hidden))
        self.time_mlp = nn.Sequential(ReplicaLinear(replicas, 2 * hidden, hidden), nn.GELU("tanh"),
                                      ReplicaLinear(replicas, hidden, hidden))
        self.first = ReplicaLinear(replicas, in_dim + hidden, hidden)
        blocks: list[nn.Module] = [nn.GELU("tanh")]
        for _ in range(layers - 1):
            blocks += [ReplicaLinear(replicas, hidden, hidden), nn.GELU("tanh")]
        last = ReplicaLinear(replicas, hidden, out_dim)
        nn.init.constant_(last.weight, 1e-8)
        nn.init.zeros_(last.bias)
        self.state_mlp = nn.Sequential(*blocks, last)
        self.outer_clip = outer_clip

    def time_embedding(self, times: Tensor) -> Tensor:
        """(T,) times -> (R, T, hidden) embeddings."""
        arg = times[:, None].to(self.phase.dtype) * self.coeff + self.phase  # (R, T, hidden)
        return self.time_mlp(torch.cat([torch.sin(arg), torch.cos(arg)], -1))

    def time_features(self, times: Tensor) -> Tensor:
        """(T,) times -> (R, T, hidden): the time embedding's share of the first layer, W_e e + b."""
        w_e = self.first.weight[:, self.in_dim:]
        return torch.baddbmm(self.first.bias, self.time_embedding(times), w_e)

    def forward(self, z: Tensor, features: Tensor) -> Tensor:
        """z (R, B, in_dim) and one time's features (R, 1, hidden) -> (R, B, out_dim)."""
        h = torch.baddbmm(features, z, self.first.weight[:, :self.in_dim])
        return self.state_mlp(h).clamp(-self.outer_clip, self.outer_clip)
