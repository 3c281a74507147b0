"""LOLA baselines for the IPD (Foerster et al. 2018): exact LOLA on the analytic value of memory-1
policies, and sample-based LOLA-DiCE (the opponent-shaping cost that AA avoids).

Exact LOLA (LOLA paper, Eq. 4, first-order Taylor form):
    d theta1 = alpha grad_1 V1 + alpha eta (grad_2 V1)^T grad_1 grad_2 V2
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from iclr25.advantage_alignment.agents import TabularIPDPolicy, log_prob
from iclr25.advantage_alignment.critic import TabularTimeCritic
from iclr25.advantage_alignment.envs.ipd import IPD, PAYOFF, state_index
from iclr25.advantage_alignment.learner import Learner, LearnerConfig
from iclr25.advantage_alignment.rollout import rollout
from iclr25.core.errors import UserError
from iclr25.core.runtime import progress

_SWAP = torch.tensor([0, 1, 3, 2, 4])  # state seen by the other seat: CD <-> DC
_R1 = PAYOFF.reshape(-1)  # joint actions (CC, CD, DC, DD) -> seat-1 reward
_R2 = PAYOFF.t().reshape(-1)


def ipd_exact_values(theta1: torch.Tensor, theta2: torch.Tensor, T: int, gamma: float) -> torch.Tensor:
    """(V1, V2): exact expected discounted returns over T steps for memory-1 logits theta (P(C|s) =
    sigmoid(theta_s), states start, CC, CD, DC, DD from each seat's own view). Differentiable.

    >>> big = torch.full((5,), 20.0)   # both always cooperate: -1 per step
    >>> ipd_exact_values(big, big, T=2, gamma=1.0).round().tolist()
    [-2.0, -2.0]
    """
    p = torch.sigmoid(theta1)
    q = torch.sigmoid(theta2)[_SWAP]  # seat 2's P(C) in each seat-1 state
    joint = torch.stack([p * q, p * (1 - q), (1 - p) * q, (1 - p) * (1 - q)], -1)  # (5 states, 4 joint)
    d = torch.zeros(5, dtype=theta1.dtype)
    d[0] = 1.0
    v = torch.zeros(2, dtype=theta1.dtype)
    for t in range(T):
        pj = d @ joint  # (4,) joint-action distribution at step t
        v = v + gamma**t * torch.stack([pj @ _R1, pj @ _R2])
        d = torch.cat([torch.zeros(1, dtype=theta1.dtype), pj])  # next state = 1 + joint index
    return v


@dataclass(frozen=True)
class LolaConfig:
    lr: float = 1.0  # alpha (plain gradient ascent, as in the LOLA paper)
    eta: float = 1.0  # the opponent's assumed learning rate
    T: int = 16
    gamma: float = 0.96
    init_std: float = 1.0  # theta ~ N(0, init_std)


def lola_exact_step(theta1: torch.Tensor, theta2: torch.Tensor, cfg: LolaConfig) -> tuple[torch.Tensor,
                                                                                          torch.Tensor]:
    """Both players take one simultaneous exact-LOLA step; returns the new (theta1, theta2)."""
    t1 = theta1.detach().requires_grad_(True)
    t2 = theta2.detach().requires_grad_(True)
    v1, v2 = ipd_exact_values(t1, t2, cfg.T, cfg.gamma)
    g11, g12 = torch.autograd.grad(v1, (t1, t2), create_graph=True)
    g21, g22 = torch.autograd.grad(v2, (t1, t2), create_graph=True)
    # second-order shaping terms: (grad_2 V1)^T grad_1 grad_2 V2 and (grad_1 V2)^T grad_2 grad_1 V1
    shape1 = torch.autograd.grad((g12.detach() * g22).sum(), t1, retain_graph=True)[0]
    shape2 = torch.autograd.grad((g21.detach() * g11).sum(), t2)[0]
    new1 = theta1 + cfg.lr * (g11.detach() + cfg.eta * shape1)
    new2 = theta2 + cfg.lr * (g22.detach() + cfg.eta * shape2)
    return new1.detach(), new2.detach()


def train_lola_exact(iters: int = 200, seed: int = 0, cfg: LolaConfig | None = None,
                     show_progress: bool = False) -> tuple[Learner, Learner, dict[str, list[float]]]:
    """Exact LOLA self-play on the IPD; returns two tabular learners (for evaluation) and the history
    of exact values per step.

    >>> a, b, h = train_lola_exact(iters=2)
    >>> len(h["reward_0"])
    2
    """
    cfg = cfg or LolaConfig()
    if iters < 1:
        raise UserError(f"iters must be positive, got {iters}")
    g = torch.Generator().manual_seed(seed)
    th1 = cfg.init_std * torch.randn(5, generator=g)
    th2 = cfg.init_std * torch.randn(5, generator=g)
    norm = sum(cfg.gamma**t for t in range(cfg.T))
    hist: dict[str, list[float]] = {"reward_0": [], "reward_1": []}
    for _ in progress(range(iters), "ipd lola (exact)", total=iters, disable=not show_progress):
        th1, th2 = lola_exact_step(th1, th2, cfg)
        v = ipd_exact_values(th1, th2, cfg.T, cfg.gamma) / norm
        hist["reward_0"].append(float(v[0]))
        hist["reward_1"].append(float(v[1]))
    learners = []
    for th in (th1, th2):
        pol = TabularIPDPolicy(init=th)
        learners.append(Learner(pol, TabularTimeCritic(cfg.T), LearnerConfig(algo="naive")))  # critic unused
    return learners[0], learners[1], hist


# ---- LOLA-DiCE: the sample-based second-order estimator (Foerster et al. 2018b) ----------------------

def _magic_box(x: torch.Tensor) -> torch.Tensor:
    return torch.exp(x - x.detach())


def dice_objective(logp_self: torch.Tensor, logp_other: torch.Tensor, rewards: torch.Tensor,
                   gamma: float) -> torch.Tensor:
    """DiCE: E[sum_t gamma^t r_t magic_box(sum_{k<=t} log pi1_k + log pi2_k)], differentiable to any order."""
    deps = torch.cumsum(logp_self + logp_other, dim=1)
    disc = gamma ** torch.arange(rewards.shape[1], dtype=rewards.dtype)
    return (_magic_box(deps) * disc * rewards).sum(1).mean()


class _Tab:
    """A tabular IPD policy with explicit parameters (so the lookahead parameters stay in the graph)."""

    def __init__(self, theta: torch.Tensor) -> None:
        self.theta = theta

    def logp(self, obs: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        th = self.theta[state_index(obs)]
        return log_prob([torch.stack([th, torch.zeros_like(th)], -1)], actions)

    def act(self, obs: torch.Tensor, t: int, gen: torch.Generator) -> torch.Tensor:
        p = torch.sigmoid(self.theta.detach()[state_index(obs)])
        return (torch.rand(p.shape, generator=gen) >= p).long()  # 0 = C with probability p


def lola_dice_update(env: IPD, theta: list[torch.Tensor], opts: list[torch.optim.Optimizer], batch: int,
                     gen: torch.Generator, eta: float = 0.3) -> None:
    """One LOLA-DiCE update of both players: each differentiates through one DiCE gradient step of the
    other (inner rollout), then evaluates its own DiCE objective on a fresh rollout against the
    looked-ahead opponent (outer rollout). Three rollouts and second-order gradients per update."""
    inner = rollout(env, (_Tab(theta[0]), _Tab(theta[1])), batch, gen)
    for i in (0, 1):
        j = 1 - i
        me, other = inner.seat(i), inner.seat(j)
        lp_me = _Tab(theta[i]).logp(me.obs[0], me.actions[0])
        lp_other = _Tab(theta[j]).logp(other.obs[0], other.actions[0])
        obj_other = dice_objective(lp_other, lp_me, other.rewards[0], env.gamma)
        grad_other = torch.autograd.grad(obj_other, theta[j], create_graph=True)[0]
        look = theta[j] + eta * grad_other  # depends on theta[i] through the DiCE gradient
        outer = rollout(env, (_Tab(theta[i]), _Tab(look)), batch, gen)
        obj = dice_objective(_Tab(theta[i]).logp(outer.obs[0], outer.actions[0]),
                             _Tab(look).logp(outer.obs[1], outer.actions[1]), outer.rewards[0], env.gamma)
        opts[i].zero_grad()
        (-obj).backward()
        opts[i].step()
