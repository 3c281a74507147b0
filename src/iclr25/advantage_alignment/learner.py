"""A learning agent: actor + time-aware critic, updated by AdAlign, AdAP, naive PG or PPO.

algo      actor objective                                        advantage
naive     REINFORCE  -E[sum_t gamma^t A_t log pi]                 A1 (GAE)
adalign   REINFORCE  -E[sum_t gamma^t A*_t log pi]                A* (AA term, beta)
ppo       clipped    -E[min(rho A, clip(rho, 1 +- eps) A)]        A1
adap      clipped    -E[min(rho A*, clip(rho, 1 +- eps) A*)]      A*
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import torch
from torch import nn

from iclr25.advantage_alignment.advantage import PAST_MODES, advantage_alignment_term, discounted_returns, gae
from iclr25.advantage_alignment.agents import entropy, log_prob, sample
from iclr25.advantage_alignment.losses import adalign_loss, adap_loss
from iclr25.advantage_alignment.rollout import Batch
from iclr25.core.errors import UserError

ALGOS = ("adalign", "adap", "naive", "ppo")


@dataclass(frozen=True)
class LearnerConfig:
    algo: str = "adalign"  # adalign | adap | naive | ppo
    beta: float = 1.0  # AA shaping weight (ignored, i.e. 0, for naive and ppo)
    gamma: float = 0.96  # discount (paper: 0.96 for IPD, Coin and Negotiation)
    lam: float = 0.95  # GAE lambda
    actor_lr: float = 0.05  # Adam
    critic_lr: float = 0.5  # Adam
    critic_warmup: int = 100  # updates that train only the critic before the actor moves
    entropy: float = 0.0  # entropy bonus
    clip: float = 0.1  # PPO / AdAP ratio clip (official code: 0.1)
    ppo_epochs: int = 4  # PPO / AdAP passes over each batch
    past: str = "discounted"  # the paper's discounted past sum, or the official code's running mean
    normalize_adv: bool = False  # divide A1, A2 by their batch std (official Melting Pot code)
    max_grad_norm: float = 10.0  # official code: 10

    def __post_init__(self) -> None:
        if self.algo not in ALGOS:
            raise UserError(f"unknown algo {self.algo!r}; choose from {', '.join(ALGOS)}")
        if self.past not in PAST_MODES:
            raise UserError(f"unknown past mode {self.past!r}; choose from {', '.join(PAST_MODES)}")
        if not 0.0 < self.gamma <= 1.0:
            raise UserError(f"gamma must be in (0, 1], got {self.gamma}")

    @property
    def shaping(self) -> float:
        """The beta actually used: 0 for the naive baselines."""
        return self.beta if self.algo in ("adalign", "adap") else 0.0

    @property
    def proximal(self) -> bool:
        return self.algo in ("adap", "ppo")


class Learner:
    """Holds policy, critic and optimisers; `update(batch)` does one AdAlign/AdAP/naive/PPO step
    from seat 0's point of view (pass `batch.seat(1)` for the second player)."""

    def __init__(self, policy: nn.Module, critic: nn.Module, config: LearnerConfig) -> None:
        self.policy, self.critic, self.config = policy, critic, config
        self.actor_opt = torch.optim.Adam(policy.parameters(), lr=config.actor_lr)
        self.critic_opt = torch.optim.Adam(critic.parameters(), lr=config.critic_lr)
        self.updates_ = 0

    def act(self, obs: torch.Tensor, t: int, gen: torch.Generator) -> torch.Tensor:
        with torch.no_grad():
            return sample(self.policy.logits(obs), gen)

    def advantages(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        """(A1, A2), each (B, T): GAE of own and opponent rewards under the time-aware critic."""
        c = self.config
        with torch.no_grad():
            v = self.critic(batch.obs[0])  # (B, T, 2)
            a1 = gae(batch.rewards[0], v[..., 0], c.gamma, c.lam)
            a2 = gae(batch.rewards[1], v[..., 1], c.gamma, c.lam)
        if c.normalize_adv:
            a1, a2 = a1 / (a1.std() + 1e-8), a2 / (a2.std() + 1e-8)
        return a1, a2

    def update_critic(self, batch: Batch) -> float:
        """Monte-Carlo regression of (V1, V2)(s_t, t) on both players' discounted returns."""
        target = torch.stack([discounted_returns(batch.rewards[0], self.config.gamma),
                              discounted_returns(batch.rewards[1], self.config.gamma)], -1)
        loss = ((self.critic(batch.obs[0]) - target) ** 2).mean()
        self.critic_opt.zero_grad()
        loss.backward()
        self.critic_opt.step()
        return loss.item()

    def update(self, batch: Batch) -> dict[str, float]:
        c = self.config
        critic_loss = self.update_critic(batch)
        self.updates_ += 1
        if self.updates_ <= c.critic_warmup:
            return {"critic_loss": critic_loss}
        a1, a2 = self.advantages(batch)
        a_star = advantage_alignment_term(a1, a2, c.gamma, c.shaping, c.past)  # the AA equation
        obs, act = batch.obs[0], batch.actions[0]
        old_logp = log_prob(self.policy.logits(obs), act).detach() if c.proximal else None
        for _ in range(c.ppo_epochs if c.proximal else 1):
            logits = self.policy.logits(obs)
            logp = log_prob(logits, act)  # (B, T)
            if c.proximal:
                pg = adap_loss(logp, old_logp, a_star, c.clip)
            else:
                pg = adalign_loss(logp, a_star, c.gamma)
            loss = pg - c.entropy * entropy(logits).mean()
            self.actor_opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(self.policy.parameters(), c.max_grad_norm)
            self.actor_opt.step()
        return {"critic_loss": critic_loss, "actor_loss": pg.item(), "a_star_mean": float(a_star.mean())}


def with_algo(config: LearnerConfig, algo: str) -> LearnerConfig:
    return replace(config, algo=algo)
