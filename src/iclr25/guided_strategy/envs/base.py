"""What GSD needs from a simulator: a batch of fixed-length episodes driven by torch tensors.

An environment resets `n` copies, steps them all with one action batch and returns the task reward.
Episodes never terminate early (as in the authors' custom MuJoCo tasks): every episode has `horizon`
steps, so one training iteration is one episode per copy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import torch


@dataclass(frozen=True)
class ActionBounds:
    """Box of valid actions; the policy acts in [-1, 1] units mapped onto it."""

    low: tuple[float, ...]
    high: tuple[float, ...]

    @property
    def center(self) -> torch.Tensor:
        return (torch.tensor(self.high) + torch.tensor(self.low)) / 2

    @property
    def half_range(self) -> torch.Tensor:
        return (torch.tensor(self.high) - torch.tensor(self.low)) / 2


@runtime_checkable
class VecEnv(Protocol):
    """A batched, fixed-horizon simulator (PointLane, InvertedPendulum, or the user's own)."""

    name: str
    obs_dim: int
    act_dim: int
    horizon: int
    bounds: ActionBounds

    def reset(self, n: int, generator: torch.Generator) -> torch.Tensor:
        """Start `n` episodes; observations (n, obs_dim)."""
        ...

    def step(self, action: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Apply actions (n, act_dim); returns next observations (n, obs_dim) and task rewards (n,)."""
        ...
