"""PPO pieces (CleanRL-style): one batch of fixed-length episodes, GAE, and the clipped update."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from iclr25.guided_strategy.networks import GaussianPolicy


@dataclass
class Batch:
    """One episode per env copy. Observations are normalised; actions u in [-1, 1]-scaled policy units.
    Shapes: (T, N, ·) per step, (N, dz) per episode."""

    obs: torch.Tensor  # (T, N, ds) s_t
    next_obs: torch.Tensor  # (T, N, ds) s_{t+1}
    u: torch.Tensor  # (T, N, da) sampled policy output
    u_applied: torch.Tensor  # (T, N, da) clipped to the action box: what the env executed
    logp: torch.Tensor  # (T, N)
    task_reward: torch.Tensor  # (T, N) the env's reward (never used for learning)
    z: torch.Tensor  # (N, dz)

    def flat(self) -> dict[str, torch.Tensor]:
        """Per-sample tensors (T·N, ·), z broadcast over steps."""
        T, N = self.logp.shape
        return {"obs": self.obs.reshape(T * N, -1), "next_obs": self.next_obs.reshape(T * N, -1),
                "u": self.u.reshape(T * N, -1), "u_applied": self.u_applied.reshape(T * N, -1),
                "logp": self.logp.reshape(-1), "z": self.z.expand(T, N, -1).reshape(T * N, -1)}


def gae(rewards: torch.Tensor, values: torch.Tensor, last_value: torch.Tensor, gamma: float,
        lam: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Generalised advantage estimation over (T, N); episodes are cut by the time limit, so the last
    step bootstraps from V(s_T). Returns (advantages, returns)."""
    T = rewards.shape[0]
    adv = torch.zeros_like(rewards)
    running = torch.zeros_like(last_value)
    for t in reversed(range(T)):
        next_v = last_value if t == T - 1 else values[t + 1]
        delta = rewards[t] + gamma * next_v - values[t]
        running = delta + gamma * lam * running
        adv[t] = running
    return adv, adv + values


class ReturnScaler:
    """Divides rewards by the running std of discounted returns (as gym's NormalizeReward), so value
    targets stay O(1) whatever the reward's scale."""

    def __init__(self, gamma: float) -> None:
        self.gamma = gamma
        self.count, self.mean, self.var = 1e-4, 0.0, 1.0

    def __call__(self, rewards: torch.Tensor) -> torch.Tensor:
        ret = torch.zeros_like(rewards[0])
        rets = []
        for r in rewards:
            ret = self.gamma * ret + r
            rets.append(ret)
        x = torch.stack(rets).reshape(-1).double()
        n, m, v = x.numel(), float(x.mean()), float(x.var(unbiased=False))
        tot = self.count + n
        delta = m - self.mean
        self.mean += delta * n / tot
        self.var = (self.var * self.count + v * n + delta**2 * self.count * n / tot) / tot
        self.count = tot
        return rewards / (self.var**0.5 + 1e-8)


def ppo_update(policy: GaussianPolicy, value: nn.Module, optimizer: torch.optim.Optimizer,
               sz: torch.Tensor, u: torch.Tensor, logp_old: torch.Tensor, adv: torch.Tensor,
               returns: torch.Tensor, epochs: int, minibatches: int, clip: float,
               generator: torch.Generator, max_grad_norm: float = 0.5) -> dict[str, float]:
    """Clipped-surrogate PPO on flat samples: L = −min(ρA, clip(ρ, 1±ε)A) + ½(V − R)²."""
    n = len(sz)
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    size = max(1, n // minibatches)
    stats = {"pg_loss": 0.0, "v_loss": 0.0, "approx_kl": 0.0}
    steps = 0
    for _ in range(epochs):
        perm = torch.randperm(n, generator=generator)
        for i in range(0, n - size + 1, size):
            idx = perm[i:i + size]
            logp = policy.log_prob(sz[idx], u[idx])
            ratio = (logp - logp_old[idx]).exp()
            pg_loss1 = -adv[idx] * ratio
            pg_loss2 = -adv[idx] * ratio.clamp(1 - clip, 1 + clip)
            pg_loss = torch.max(pg_loss1, pg_loss2).mean()
            v_loss = 0.5 * ((value(sz[idx])[:, 0] - returns[idx]) ** 2).mean()
            optimizer.zero_grad()
            (pg_loss + v_loss).backward()
            nn.utils.clip_grad_norm_([*policy.parameters(), *value.parameters()], max_grad_norm, foreach=True)
            optimizer.step()
            with torch.no_grad():
                stats["approx_kl"] += float((logp_old[idx] - logp).mean())
            stats["pg_loss"] += float(pg_loss.detach())
            stats["v_loss"] += float(v_loss.detach())
            steps += 1
    return {k: v / max(steps, 1) for k, v in stats.items()}
