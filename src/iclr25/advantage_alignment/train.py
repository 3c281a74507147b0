"""Train two agents on a game (self-play of one algorithm, or a learner against a fixed agent) and
evaluate what they learned."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import torch

from iclr25.advantage_alignment.agents import FIXED_KINDS, FixedAgent, MLPPolicy, TabularIPDPolicy
from iclr25.advantage_alignment.critic import MLPTimeCritic, TabularTimeCritic
from iclr25.advantage_alignment.envs import ENVS, MarkovGame, make_env
from iclr25.advantage_alignment.envs.ipd import STATES
from iclr25.advantage_alignment.learner import ALGOS, Learner, LearnerConfig
from iclr25.advantage_alignment.rollout import Agent, Batch, rollout
from iclr25.core.errors import UserError
from iclr25.core.runtime import progress

OPPONENTS = ("self", *FIXED_KINDS)

# Per-game defaults. IPD: the spec's CPU prototype (tabular actor Adam 0.05, tabular critic Adam 0.5,
# 100 critic warm-up updates). Negotiation: the official repo's last config (gamma 0.96, aa_weight 0.3,
# entropy 0.005, lr 5e-4), with a smaller MLP. Coin: paper gamma 0.96, MLP policy; beta 0.2 from a pilot
# (seed 0, 600 iterations x 128 episodes: beta 1 collapsed to no pickups at all, the running-mean past
# term stayed at own-coin fraction 0.50 like naive PG, beta 0.2 reached 0.72 and was still rising).
DEFAULTS: dict[str, LearnerConfig] = {
    "ipd": LearnerConfig(beta=1.0, gamma=0.96, actor_lr=0.05, critic_lr=0.5, critic_warmup=100),
    "coin": LearnerConfig(beta=0.2, gamma=0.96, actor_lr=1e-3, critic_lr=1e-3, critic_warmup=20,
                          entropy=0.01, normalize_adv=True),
    "negotiation": LearnerConfig(beta=0.3, gamma=0.96, actor_lr=5e-4, critic_lr=1e-3, critic_warmup=20,
                                 entropy=0.005, normalize_adv=True),
}
HIDDEN = {"coin": 64, "negotiation": 64}
POLICIES = ("auto", "tabular", "mlp", "gru")  # auto: tabular on the IPD, an MLP on the other games


def default_config(env: str, algo: str, **overrides: float | int | str | bool) -> LearnerConfig:
    """The per-game defaults with `algo` and any field overridden."""
    if env not in ENVS:
        raise UserError(f"unknown env {env!r}; choose from {', '.join(ENVS)}")
    return replace(DEFAULTS[env], algo=algo, **overrides)


def make_learner(env: MarkovGame, config: LearnerConfig, seed: int, policy: str = "auto",
                 hidden: int | None = None) -> Learner:
    """A learner for `env`: memory-1 tabular (IPD only), an MLP, or the paper's full-history GRU policy,
    each with a time-aware critic (tabular on the IPD with a tabular policy, else an MLP of `hidden`)."""
    from iclr25.advantage_alignment.gru import GRUPolicy, RecurrentLearner
    if policy not in POLICIES:
        raise UserError(f"unknown policy {policy!r}; choose from {', '.join(POLICIES)}")
    if policy == "tabular" and env.name != "ipd":
        raise UserError(f"the tabular policy exists for the ipd only, not {env.name}; use mlp or gru")
    torch.manual_seed(seed)
    kind = ("tabular" if env.name == "ipd" else "mlp") if policy == "auto" else policy
    if kind == "tabular":
        return Learner(TabularIPDPolicy(), TabularTimeCritic(env.T), config)
    h = hidden or HIDDEN.get(env.name, 32 if kind == "gru" else 64)
    # the policy is built first, then the critic: the order of the seeded initialisations
    pol = GRUPolicy(env.obs_dim, env.action_dims, h) if kind == "gru" else MLPPolicy(env.obs_dim,
                                                                                     env.action_dims, h)
    critic = MLPTimeCritic(env.obs_dim, env.T, h)
    return (RecurrentLearner if kind == "gru" else Learner)(pol, critic, config)


def architecture(learner: Learner) -> dict[str, int | str]:
    """The policy kind and hidden size of a learner made by `make_learner` (what a checkpoint stores)."""
    from iclr25.advantage_alignment.gru import GRUPolicy
    p = learner.policy
    if isinstance(p, TabularIPDPolicy):
        return {"policy": "tabular", "hidden": 0}
    if isinstance(p, GRUPolicy):
        return {"policy": "gru", "hidden": int(p.gru.hidden_size)}
    return {"policy": "mlp", "hidden": int(p.body[0].out_features)}  # type: ignore[union-attr,index]


@dataclass
class TrainResult:
    env: MarkovGame
    agents: tuple[Agent, Agent]
    history: dict[str, list[float]] = field(default_factory=dict)  # per iteration, seat 0 and seat 1

    @property
    def learner(self) -> Learner:
        return self.agents[0]  # type: ignore[return-value]


def train(env: str | MarkovGame = "ipd", algo: str = "adalign", opponent: str = "self", iters: int = 1000,
          batch: int = 512, seed: int = 0, config: LearnerConfig | None = None, T: int | None = None,
          show_progress: bool = False, callback: Callable[[int, Batch], None] | None = None,
          policy: str = "auto", hidden: int | None = None) -> TrainResult:
    """Train `algo` on `env` against itself ("self": two independent learners with the same algorithm)
    or against a fixed agent ("defect", "cooperate", "tit_for_tat", "random"). `policy`: "auto"
    (tabular on the IPD, else an MLP), "tabular", "mlp" or "gru" (the paper's full-history policy), with
    `hidden` units (default: the game's).

    >>> r = train("ipd", "naive", iters=3, batch=8, T=4)
    >>> sorted(r.history)
    ['cooperate', 'reward_0', 'reward_1']
    """
    if algo not in ALGOS:
        raise UserError(f"unknown algo {algo!r}; choose from {', '.join(ALGOS)} "
                        "(lola: train_lola_exact, ipd only)")
    if opponent not in OPPONENTS:
        raise UserError(f"unknown opponent {opponent!r}; choose from {', '.join(OPPONENTS)}")
    if batch < 1:
        raise UserError(f"batch size must be positive, got {batch}")
    if iters < 1:
        raise UserError(f"iters must be positive, got {iters}")
    game = make_env(env, T) if isinstance(env, str) else env
    cfg = config or default_config(game.name, algo)
    if cfg.algo != algo:
        cfg = replace(cfg, algo=algo)
    first = make_learner(game, cfg, seed, policy, hidden)
    second: Agent = (make_learner(game, cfg, seed + 10_007, policy, hidden) if opponent == "self"
                     else FixedAgent(game, opponent))
    gen = torch.Generator().manual_seed(seed)
    hist: dict[str, list[float]] = {"reward_0": [], "reward_1": []}
    label = f"{game.name} {algo} vs {opponent}"
    for it in progress(range(iters), label, total=iters, disable=not show_progress):
        b = rollout(game, (first, second), batch, gen)
        first.update(b)
        if isinstance(second, Learner):
            second.update(b.seat(1))
        r0, r1 = b.reward_per_step()
        hist["reward_0"].append(r0)
        hist["reward_1"].append(r1)
        for k, v in b.info.items():  # game metrics per step: cooperate, own_coins/coins, welfare
            hist.setdefault(k, []).append(float(v.mean()))
        if callback is not None:
            callback(it, b)
    return TrainResult(game, (first, second), hist)


@torch.no_grad()
def evaluate(env: MarkovGame, agents: tuple[Agent, Agent], batch: int = 1024,
             seed: int = 1) -> dict[str, float]:
    """Reward per step of each seat, plus game metrics (own-coin fraction, cooperation rate, welfare)."""
    b = rollout(env, agents, batch, torch.Generator().manual_seed(seed))
    r0, r1 = b.reward_per_step()
    out = {"reward_0": r0, "reward_1": r1}
    if "coins" in b.info:
        out["own_coin_fraction"] = float(b.info["own_coins"].sum() / b.info["coins"].sum().clamp_min(1))
        out["coins_per_step"] = float(b.info["coins"].mean())
    if "cooperate" in b.info:
        out["cooperation_rate"] = float(b.info["cooperate"].mean() / 2)
    if "welfare" in b.info:
        out["welfare_per_round"] = float(b.info["welfare"].mean())
    return out


def ipd_policy_table(agent: Learner) -> dict[str, float]:
    """P(C | start, CC, CD, DC, DD) of a tabular IPD learner, state written (own, opp)."""
    policy = agent.policy
    if not isinstance(policy, TabularIPDPolicy):
        raise UserError("ipd_policy_table needs a tabular IPD learner")
    return dict(zip(STATES, policy.p_cooperate().tolist(), strict=True))


@torch.no_grad()
def empirical_policy_table(env: MarkovGame, agents: tuple[Agent, Agent], seat: int = 0, batch: int = 1024,
                           seed: int = 1) -> dict[str, float]:
    """P(C | start, CC, CD, DC, DD) of one seat's *behaviour* on the IPD, read from fresh episodes (state =
    (own, opponent) last move): works for any policy, including history-dependent ones (GRU), where it is
    the average over the histories that reach each state. NaN for a state never reached.

    >>> from iclr25.advantage_alignment.envs import IPD
    >>> env = IPD(T=4); ac = FixedAgent(env, "cooperate")
    >>> empirical_policy_table(env, (ac, FixedAgent(env, "defect")), batch=8)["CD"]
    1.0
    """
    from iclr25.advantage_alignment.envs.ipd import C, state_index
    if env.name != "ipd":
        raise UserError("the P(C | state) table exists for the ipd only")
    b = rollout(env, agents, batch, torch.Generator().manual_seed(seed)).seat(seat)
    s = state_index(b.obs[0])
    coop = (b.actions[0] == C).float()
    return {name: (float(coop[s == i].mean()) if bool((s == i).any()) else float("nan"))
            for i, name in enumerate(STATES)}


def exploitability(agent: Learner, env: MarkovGame, vs: str = "defect", batch: int = 1024,
                   seed: int = 1) -> float:
    """Reward per step of a *trained, frozen* agent against a fixed strategy (default always-defect)."""
    return evaluate(env, (agent, FixedAgent(env, vs)), batch, seed)["reward_0"]
