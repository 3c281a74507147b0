"""Policies (tabular memory-1 for the IPD, MLP for the grid and negotiation games) and fixed agents.

A policy maps a seat's observation to one categorical per action factor; a fixed agent asks the game
for a scripted move (always-cooperate, always-defect, tit-for-tat, random).
"""

from __future__ import annotations

import torch
from torch import nn

from iclr25.advantage_alignment.envs.base import MarkovGame
from iclr25.advantage_alignment.envs.ipd import state_index

FIXED_KINDS = ("cooperate", "defect", "tit_for_tat", "random")


def sample(logits: list[torch.Tensor], gen: torch.Generator) -> torch.Tensor:
    """One action per factor: (B,) for a single factor, (B, F) otherwise."""
    acts = []
    for lg in logits:  # inverse-CDF sampling: cheaper than torch.multinomial on small batches
        cdf = torch.softmax(lg, -1).cumsum(-1)
        u = torch.rand(cdf.shape[:-1] + (1,), generator=gen)
        acts.append((u > cdf[..., :-1]).sum(-1))
    return acts[0] if len(acts) == 1 else torch.stack(acts, -1)


def log_prob(logits: list[torch.Tensor], actions: torch.Tensor) -> torch.Tensor:
    """Sum over factors of log pi(a_f | s): (...,) for logits (..., d) and actions (...) or (..., F)."""
    acts = [actions] if len(logits) == 1 else actions.unbind(-1)
    return sum(torch.log_softmax(lg, -1).gather(-1, a.unsqueeze(-1)).squeeze(-1)
               for lg, a in zip(logits, acts, strict=True))


def entropy(logits: list[torch.Tensor]) -> torch.Tensor:
    return sum(torch.distributions.Categorical(logits=lg).entropy() for lg in logits)


class TabularIPDPolicy(nn.Module):
    """Memory-1 IPD policy: one logit per state (start, CC, CD, DC, DD), P(C | s) = sigmoid(theta_s).

    >>> TabularIPDPolicy(init=0.0).p_cooperate().tolist()
    [0.5, 0.5, 0.5, 0.5, 0.5]
    """

    action_dims = (2,)

    def __init__(self, init: float | torch.Tensor = 0.0) -> None:
        super().__init__()
        self.theta = nn.Parameter(torch.zeros(5) + init)

    def logits(self, obs: torch.Tensor) -> list[torch.Tensor]:
        th = self.theta[state_index(obs)]
        return [torch.stack([th, torch.zeros_like(th)], -1)]  # [C, D]

    def p_cooperate(self) -> torch.Tensor:
        return torch.sigmoid(self.theta.detach())


class MLPPolicy(nn.Module):
    """An MLP over the observation with one softmax head per action factor."""

    def __init__(self, obs_dim: int, action_dims: tuple[int, ...], hidden: int = 64) -> None:
        super().__init__()
        self.action_dims = tuple(action_dims)
        self.body = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, sum(action_dims))

    def logits(self, obs: torch.Tensor) -> list[torch.Tensor]:
        return list(self.head(self.body(obs)).split(self.action_dims, -1))


class FixedAgent:
    """A scripted opponent; `kind` in FIXED_KINDS (tit-for-tat exists for the IPD only)."""

    def __init__(self, env: MarkovGame, kind: str) -> None:
        self.env, self.kind = env, kind
        env.fixed_action(kind, torch.zeros(1, env.obs_dim), torch.Generator())  # validates kind

    def act(self, obs: torch.Tensor, t: int, gen: torch.Generator) -> torch.Tensor:
        return self.env.fixed_action(self.kind, obs, gen)
