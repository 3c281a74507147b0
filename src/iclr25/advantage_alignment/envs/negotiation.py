"""The Negotiation game of the paper (social-dilemma version): proportional splits of 3 items."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from iclr25.advantage_alignment.envs.base import Obs, Step
from iclr25.core.errors import UserError

N_ITEMS, MAX_PROPOSAL = 3, 5
HIGH, LOW = 5.0, 1.0  # 'high contrast' utilities: u1 in {1, 5} per item, u2 = 6 - u1


@dataclass
class NegotiationGame:
    """Each round both agents propose 0..5 per item at once; agent i receives p_i / (p_1 + p_2) of
    each item (nobody gets an item both proposed 0 for) and is paid sum share * pool * u_i.
    Utilities are resampled every round; the pool is one of each item.

    Observation per seat: own utilities, the other's utilities, last own and other proposals (all /5),
    and a start flag: 13 numbers.
    Self-play benchmarks: both greedy (5 everywhere) 9 per round in sum, both cooperative
    (5 on items one values more, 0 elsewhere) 15.

    >>> env = NegotiationGame(T=1); g = torch.Generator().manual_seed(0); _ = env.reset(2, g)
    >>> full = torch.full((2, 3), 5); s = env.step(full, full, g)
    >>> bool(torch.allclose(s.rewards[0] + s.rewards[1], torch.full((2,), 9.0)))
    True
    """

    T: int = 50
    gamma: float = 0.96
    name: str = "negotiation"
    obs_dim: int = 4 * N_ITEMS + 1
    action_dims: tuple[int, ...] = (MAX_PROPOSAL + 1,) * N_ITEMS

    def __post_init__(self) -> None:
        if self.T < 1:
            raise UserError(f"episode length T must be positive, got {self.T}")

    def _sample_utilities(self, batch: int, gen: torch.Generator) -> None:
        high = torch.rand(batch, N_ITEMS, generator=gen) < 0.5
        self.u1 = torch.where(high, HIGH, LOW)
        self.u2 = (HIGH + LOW) - self.u1

    def _obs(self, p1: torch.Tensor, p2: torch.Tensor, start: float) -> Obs:
        flag = torch.full((p1.shape[0], 1), start)
        s = float(MAX_PROPOSAL)
        o1 = torch.cat([self.u1 / HIGH, self.u2 / HIGH, p1 / s, p2 / s, flag], -1)
        o2 = torch.cat([self.u2 / HIGH, self.u1 / HIGH, p2 / s, p1 / s, flag], -1)
        return o1, o2

    def reset(self, batch: int, gen: torch.Generator) -> Obs:
        self._sample_utilities(batch, gen)
        z = torch.zeros(batch, N_ITEMS)
        return self._obs(z, z, 1.0)

    def step(self, a1: torch.Tensor, a2: torch.Tensor, gen: torch.Generator) -> Step:
        p1, p2 = a1.float(), a2.float()
        total = p1 + p2
        share1 = torch.where(total > 0, p1 / total.clamp_min(1e-9), torch.zeros_like(p1))
        share2 = torch.where(total > 0, p2 / total.clamp_min(1e-9), torch.zeros_like(p2))
        r1, r2 = (share1 * self.u1).sum(-1), (share2 * self.u2).sum(-1)
        self._sample_utilities(p1.shape[0], gen)
        return Step(self._obs(p1, p2, 0.0), (r1, r2), {"welfare": r1 + r2})

    def fixed_action(self, kind: str, obs: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
        """"cooperate" (AC): 5 on items it values more, 0 elsewhere; "defect" (AD): 5 everywhere."""
        own, other = obs[:, :N_ITEMS], obs[:, N_ITEMS:2 * N_ITEMS]
        if kind == "cooperate":
            return torch.where(own > other, MAX_PROPOSAL, 0).long()
        if kind == "defect":
            return torch.full_like(own, MAX_PROPOSAL).long()
        if kind == "random":
            return torch.randint(0, MAX_PROPOSAL + 1, tuple(own.shape), generator=gen)
        raise UserError(f"unknown fixed strategy {kind!r} for negotiation; "
                        "choose from cooperate, defect, random")
