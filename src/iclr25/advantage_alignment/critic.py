"""Time-aware critics. Each returns two values per state: the learner's own V1 and its estimate of the
opponent's V2 (fit on the opponent's observed rewards), so A2 is available even against fixed agents.

Why time: episodes have a fixed horizon T, so V(s) depends on the steps left. A critic blind to t
averages over t; its GAE advantages then drift with t, the past-advantage sum sum_{k<t} A1_k becomes
systematically signed, and the AA term pushes one action everywhere (spec: pitfall verified).
"""

from __future__ import annotations

import torch
from torch import nn

from iclr25.advantage_alignment.envs.ipd import state_index


class TabularTimeCritic(nn.Module):
    """V[t, s] for the IPD's 5 memory-1 states: (B, T) observations -> (B, T, 2)."""

    def __init__(self, T: int) -> None:
        super().__init__()
        self.table = nn.Parameter(torch.zeros(T, 5, 2))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        b, T = obs.shape[:2]
        s = state_index(obs)
        return self.table[torch.arange(T)[None, :].expand(b, T), s]


class MLPTimeCritic(nn.Module):
    """An MLP over [observation, one-hot(t)]: (B, T, obs_dim) -> (B, T, 2)."""

    def __init__(self, obs_dim: int, T: int, hidden: int = 64) -> None:
        super().__init__()
        self.T = T
        self.net = nn.Sequential(nn.Linear(obs_dim + T, hidden), nn.ReLU(),
                                 nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 2))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        b, T = obs.shape[:2]
        t = torch.eye(self.T)[:T].expand(b, T, self.T)
        return self.net(torch.cat([obs, t], -1))
