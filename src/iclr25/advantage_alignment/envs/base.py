"""The interface every vectorised two-player environment here implements (batched over episodes)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import torch

Obs = tuple[torch.Tensor, torch.Tensor]  # one (B, obs_dim) tensor per seat


@dataclass
class Step:
    obs: Obs  # next observations, one per seat
    rewards: tuple[torch.Tensor, torch.Tensor]  # (B,) each
    info: dict[str, torch.Tensor] = field(default_factory=dict)  # (B,) counters for metrics


class MarkovGame(Protocol):
    """Two seats, simultaneous actions, fixed episode length `T` (every episode in a batch ends together)."""

    name: str
    T: int
    obs_dim: int
    action_dims: tuple[int, ...]  # one categorical per factor: (2,) IPD, (4,) coin, (6, 6, 6) negotiation
    gamma: float  # the paper's discount for this game

    def reset(self, batch: int, gen: torch.Generator) -> Obs: ...

    def step(self, a1: torch.Tensor, a2: torch.Tensor, gen: torch.Generator) -> Step: ...

    def fixed_action(self, kind: str, obs: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
        """The action of a fixed strategy ("cooperate", "defect", ...) from one seat's observation."""
        ...


def swap(obs: Obs) -> Obs:
    return obs[1], obs[0]
