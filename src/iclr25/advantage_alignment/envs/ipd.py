"""Iterated prisoner's dilemma, vectorised over episodes (payoffs and observation of the LOQA code)."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from iclr25.advantage_alignment.envs.base import Obs, Step
from iclr25.core.errors import UserError

C, D = 0, 1
# PAYOFF[a_own, a_opp] = own reward: CC -1, CD -3, DC 0, DD -2
PAYOFF = torch.tensor([[-1.0, -3.0], [0.0, -2.0]])
STATES = ("start", "CC", "CD", "DC", "DD")  # (own, opp) last joint action from one seat's view
_STATE_WEIGHTS = torch.tensor([1.0, 3.0, 0.0, 1.0])  # one-hot [own C, own D, opp C, opp D] -> index


def state_index(obs: torch.Tensor) -> torch.Tensor:
    """(..., 4) one-hot [own C, own D, opp C, opp D] (zeros at the start) -> (...) index into STATES.

    >>> state_index(torch.tensor([[0., 0, 0, 0], [1, 0, 0, 1]])).tolist()
    [0, 2]
    """
    return (obs @ _STATE_WEIGHTS).long()  # start 0; else 1 + 2 [own D] + [opp D]



@dataclass
class IPD:
    """Iterated prisoner's dilemma. Actions 0 = cooperate, 1 = defect.

    >>> env = IPD(T=2); g = torch.Generator().manual_seed(0); o1, o2 = env.reset(3, g)
    >>> env.step(torch.tensor([0, 0, 1]), torch.tensor([0, 1, 1]), g).rewards[0].tolist()
    [-1.0, -3.0, -2.0]
    """

    T: int = 16
    gamma: float = 0.96
    name: str = "ipd"
    obs_dim: int = 4
    action_dims: tuple[int, ...] = (2,)

    def __post_init__(self) -> None:
        if self.T < 1:
            raise UserError(f"episode length T must be positive, got {self.T}")

    def reset(self, batch: int, gen: torch.Generator) -> Obs:
        z = torch.zeros(batch, 4)
        return z, z.clone()

    def step(self, a1: torch.Tensor, a2: torch.Tensor, gen: torch.Generator) -> Step:
        r1, r2 = PAYOFF[a1, a2], PAYOFF[a2, a1]
        oh1 = torch.nn.functional.one_hot(a1, 2).float()
        oh2 = torch.nn.functional.one_hot(a2, 2).float()
        obs = (torch.cat([oh1, oh2], -1), torch.cat([oh2, oh1], -1))
        info = {"cooperate": (a1 == C).float() + (a2 == C).float()}
        return Step(obs, (r1, r2), info)

    def fixed_action(self, kind: str, obs: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
        b = obs.shape[0]
        if kind == "cooperate":
            return torch.full((b,), C)
        if kind == "defect":
            return torch.full((b,), D)
        if kind == "tit_for_tat":  # copy the opponent's last move, cooperate first
            return torch.where(obs[:, 3] > 0, torch.full((b,), D), torch.full((b,), C))
        if kind == "random":
            return torch.randint(0, 2, (b,), generator=gen)
        raise UserError(f"unknown fixed strategy {kind!r} for ipd; choose from "
                        "cooperate, defect, tit_for_tat, random")
