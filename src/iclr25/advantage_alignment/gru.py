"""The paper's IPD setting with full-history GRU policies (spec: hidden 32), used to time one update of
AdAlign against one update of LOLA-DiCE where the second-order term runs through a recurrent network.

LOLA-DiCE (Foerster et al. 2018b) per player i, with the other player j:
    theta_j' = theta_j + eta grad_j E[DiCE_j(theta_i, theta_j)]       (inner rollout, create_graph)
    theta_i <- theta_i + lr grad_i E[DiCE_i(theta_i, theta_j'(theta_i))] (outer rollout, 2nd order)
"""

from __future__ import annotations

import torch
from torch import nn
from torch.func import functional_call

from iclr25.advantage_alignment.agents import log_prob, sample
from iclr25.advantage_alignment.critic import MLPTimeCritic
from iclr25.advantage_alignment.envs.base import MarkovGame
from iclr25.advantage_alignment.learner import Learner, LearnerConfig
from iclr25.advantage_alignment.lola import dice_objective
from iclr25.advantage_alignment.rollout import rollout


class GRUPolicy(nn.Module):
    """pi(a_t | o_<=t): a GRU over the observation history, one softmax head per action factor.

    `logits(obs)` takes a whole episode (B, T, obs_dim) -> [(B, T, d)]; `step(obs, h)` one step (B, obs_dim).

    >>> p = GRUPolicy(4, (2,)); p.logits(torch.zeros(3, 5, 4))[0].shape
    torch.Size([3, 5, 2])
    """

    def __init__(self, obs_dim: int, action_dims: tuple[int, ...], hidden: int = 32) -> None:
        super().__init__()
        self.action_dims = tuple(action_dims)
        self.gru = nn.GRU(obs_dim, hidden, batch_first=True)
        self.head = nn.Linear(hidden, sum(action_dims))

    def logits(self, obs: torch.Tensor) -> list[torch.Tensor]:
        out, _ = self.gru(obs)  # (B, T, hidden)
        return list(self.head(out).split(self.action_dims, -1))

    def step(self, obs: torch.Tensor, h: torch.Tensor | None) -> tuple[list[torch.Tensor], torch.Tensor]:
        out, h = self.gru(obs.unsqueeze(1), h)  # (B, 1, hidden), h: (1, B, hidden)
        return list(self.head(out[:, 0]).split(self.action_dims, -1)), h


class RecurrentLearner(Learner):
    """A Learner whose policy carries a hidden state through the episode (reset at t = 0)."""

    _h: torch.Tensor | None = None

    def act(self, obs: torch.Tensor, t: int, gen: torch.Generator) -> torch.Tensor:
        if t == 0:
            self._h = None
        with torch.no_grad():
            logits, self._h = self.policy.step(obs, self._h)
            return sample(logits, gen)


def gru_learner(env: MarkovGame, config: LearnerConfig, seed: int, hidden: int = 32) -> RecurrentLearner:
    torch.manual_seed(seed)
    return RecurrentLearner(GRUPolicy(env.obs_dim, env.action_dims, hidden),
                            MLPTimeCritic(env.obs_dim, env.T, hidden), config)


class _Functional:
    """A GRU policy evaluated with explicit parameters, so a looked-ahead copy stays in the graph."""

    def __init__(self, policy: GRUPolicy, params: dict[str, torch.Tensor]) -> None:
        self.policy, self.params = policy, params
        self._h: torch.Tensor | None = None

    def logp(self, obs: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        return log_prob(self._logits(obs), actions)

    def _logits(self, obs: torch.Tensor) -> list[torch.Tensor]:
        out, _ = functional_call(self.policy.gru, _sub(self.params, "gru."), (obs,))
        return list(functional_call(self.policy.head, _sub(self.params, "head."), (out,))
                    .split(self.policy.action_dims, -1))

    def act(self, obs: torch.Tensor, t: int, gen: torch.Generator) -> torch.Tensor:
        if t == 0:
            self._h = None
        with torch.no_grad():
            params = {k: v.detach() for k, v in self.params.items()}
            out, self._h = functional_call(self.policy.gru, _sub(params, "gru."), (obs.unsqueeze(1), self._h))
            logits = functional_call(self.policy.head, _sub(params, "head."), (out[:, 0],))
            return sample(list(logits.split(self.policy.action_dims, -1)), gen)


def _sub(params: dict[str, torch.Tensor], prefix: str) -> dict[str, torch.Tensor]:
    return {k[len(prefix):]: v for k, v in params.items() if k.startswith(prefix)}


def lola_dice_update_gru(env: MarkovGame, policies: tuple[GRUPolicy, GRUPolicy],
                         opts: tuple[torch.optim.Optimizer, torch.optim.Optimizer], batch: int,
                         gen: torch.Generator, eta: float = 0.3) -> None:
    """One LOLA-DiCE update of both GRU players: one inner rollout, then per player a second-order
    DiCE gradient through the other's looked-ahead GRU parameters on a fresh outer rollout."""
    params = [dict(p.named_parameters()) for p in policies]
    inner = rollout(env, (_Functional(policies[0], params[0]), _Functional(policies[1], params[1])), batch,
                    gen)
    for i in (0, 1):
        j = 1 - i
        me, other = inner.seat(i), inner.seat(j)
        lp_me = _Functional(policies[i], params[i]).logp(me.obs[0], me.actions[0])
        lp_other = _Functional(policies[j], params[j]).logp(other.obs[0], other.actions[0])
        obj_other = dice_objective(lp_other, lp_me, other.rewards[0], env.gamma)
        names = list(params[j])
        grads = torch.autograd.grad(obj_other, [params[j][k] for k in names], create_graph=True)
        look = {k: params[j][k] + eta * g for k, g in zip(names, grads, strict=True)}  # theta_j'(theta_i)
        me_f, look_f = _Functional(policies[i], params[i]), _Functional(policies[j], look)
        outer = rollout(env, (me_f, look_f), batch, gen)
        obj = dice_objective(me_f.logp(outer.obs[0], outer.actions[0]), look_f.logp(outer.obs[1],
                             outer.actions[1]), outer.rewards[0], env.gamma)
        opts[i].zero_grad()
        (-obj).backward()
        opts[i].step()


def time_gru_updates(batch: int, repeats: int, seed: int, hidden: int = 32, T: int = 16
                     ) -> dict[str, list[float]]:
    """CPU seconds (this process) per two-player update with GRU policies on the IPD (T steps), one value
    per repeat: AdAlign (1 rollout, critic, GAE, the AA term, actor step) and LOLA-DiCE (3 rollouts,
    second-order gradients). The two arms alternate within each repeat, so a change in the machine's load
    hits both; CPU time rather than wall time, so other processes' load does not count.

    >>> t = time_gru_updates(batch=4, repeats=2, seed=0, hidden=4, T=3); sorted(t), len(t["adalign"])
    (['adalign', 'lola_dice'], 2)
    """
    import time

    from iclr25.advantage_alignment.envs import make_env
    from iclr25.advantage_alignment.train import default_config
    env = make_env("ipd", T)
    gen = torch.Generator().manual_seed(seed)
    cfg = LearnerConfig(algo="adalign", beta=1.0, gamma=env.gamma, actor_lr=1e-3, critic_lr=1e-3,
                        critic_warmup=0, normalize_adv=default_config("ipd", "adalign").normalize_adv)
    learners = (gru_learner(env, cfg, seed, hidden), gru_learner(env, cfg, seed + 1, hidden))
    torch.manual_seed(seed + 2)
    pols = (GRUPolicy(env.obs_dim, env.action_dims, hidden), GRUPolicy(env.obs_dim, env.action_dims, hidden))
    opts = (torch.optim.Adam(pols[0].parameters(), lr=1e-3), torch.optim.Adam(pols[1].parameters(), lr=1e-3))

    def aa_update() -> None:
        b = rollout(env, learners, batch, gen)
        learners[0].update(b)
        learners[1].update(b.seat(1))

    def dice_update() -> None:
        lola_dice_update_gru(env, pols, opts, batch, gen)

    arms = (("adalign", aa_update), ("lola_dice", dice_update))
    for _, fn in arms:
        fn()  # warm-up
    out: dict[str, list[float]] = {name: [] for name, _ in arms}
    for r in range(repeats):
        for name, fn in arms if r % 2 == 0 else arms[::-1]:  # alternate which arm goes first
            t0 = time.process_time()
            fn()
            out[name].append(time.process_time() - t0)
    return out
