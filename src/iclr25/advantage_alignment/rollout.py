"""Play a batch of full episodes between two agents and keep everything each learner needs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import torch

from iclr25.advantage_alignment.envs.base import MarkovGame


class Agent(Protocol):
    def act(self, obs: torch.Tensor, t: int, gen: torch.Generator) -> torch.Tensor: ...


@dataclass
class Batch:
    """Seat-indexed tensors of B episodes of length T."""

    obs: tuple[torch.Tensor, torch.Tensor]  # (B, T, obs_dim): what each seat saw before acting
    actions: tuple[torch.Tensor, torch.Tensor]  # (B, T) or (B, T, F)
    rewards: tuple[torch.Tensor, torch.Tensor]  # (B, T)
    info: dict[str, torch.Tensor]  # (B, T) per-step counters

    def seat(self, i: int) -> Batch:
        """The same batch seen from seat i (i = 1 swaps the two players)."""
        if i == 0:
            return self
        sw = lambda x: (x[1], x[0])  # noqa: E731
        return Batch(sw(self.obs), sw(self.actions), sw(self.rewards), self.info)

    def reward_per_step(self) -> tuple[float, float]:
        return float(self.rewards[0].mean()), float(self.rewards[1].mean())


@torch.no_grad()
def rollout(env: MarkovGame, agents: tuple[Agent, Agent], batch: int, gen: torch.Generator) -> Batch:
    """B episodes of env.T steps, both agents acting simultaneously from their own observations.

    >>> from iclr25.advantage_alignment.envs import IPD
    >>> from iclr25.advantage_alignment.agents import FixedAgent
    >>> env = IPD(T=3); b = rollout(env, (FixedAgent(env, "cooperate"), FixedAgent(env, "defect")), 2,
    ...                             torch.Generator())
    >>> b.reward_per_step()
    (-3.0, 0.0)
    """
    o1, o2 = env.reset(batch, gen)
    obs: list[list[torch.Tensor]] = [[], []]
    acts: list[list[torch.Tensor]] = [[], []]
    rews: list[list[torch.Tensor]] = [[], []]
    info: dict[str, list[torch.Tensor]] = {}
    for t in range(env.T):
        a1, a2 = agents[0].act(o1, t, gen), agents[1].act(o2, t, gen)
        obs[0].append(o1)
        obs[1].append(o2)
        acts[0].append(a1)
        acts[1].append(a2)
        step = env.step(a1, a2, gen)
        (o1, o2), (r1, r2) = step.obs, step.rewards
        rews[0].append(r1)
        rews[1].append(r2)
        for k, v in step.info.items():
            info.setdefault(k, []).append(v)
    st = lambda xs: torch.stack(xs, 1)  # noqa: E731
    return Batch((st(obs[0]), st(obs[1])), (st(acts[0]), st(acts[1])), (st(rews[0]), st(rews[1])),
                 {k: st(v) for k, v in info.items()})
