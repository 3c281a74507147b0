"""Saved agents and the league: trained learners written to / read from a checkpoint, then every agent
played against every other and against the fixed strategies (the paper's league tables)."""

from __future__ import annotations

import io
from dataclasses import asdict, fields
from pathlib import Path

import torch

from iclr25.advantage_alignment.agents import FIXED_KINDS, FixedAgent
from iclr25.advantage_alignment.envs import ENVS, MarkovGame, make_env
from iclr25.advantage_alignment.learner import Learner, LearnerConfig
from iclr25.advantage_alignment.rollout import Agent
from iclr25.advantage_alignment.train import POLICIES, architecture, evaluate, make_learner
from iclr25.core.errors import UserError
from iclr25.core.runtime import atomic_write

FORMAT = "iclr25-advantage-alignment-agent/1"
_MAX_BYTES = 256 << 20


def save_agent(learner: Learner, env: MarkovGame, path: Path) -> Path:
    """Write one learner (policy, critic, config, game) as a weights-only torch file."""
    state = {"format": FORMAT, "env": env.name, "T": int(env.T), "config": asdict(learner.config),
             "arch": architecture(learner), "policy": learner.policy.state_dict(),
             "critic": learner.critic.state_dict()}
    buf = io.BytesIO()
    torch.save(state, buf)
    with atomic_write(Path(path)) as f:
        f.write(buf.getvalue())
    return Path(path)


def load_agent(path: Path) -> tuple[Learner, MarkovGame]:
    """A learner saved by `save_agent`, and its game; a one-line UserError for anything else."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"agent file {path} does not exist or is not a file")
    if path.stat().st_size > _MAX_BYTES:
        raise UserError(f"agent file {path} is larger than {_MAX_BYTES >> 20} MiB; not one of our agents")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)  # no code runs on load
    except Exception as exc:  # torch raises many types for corrupt or foreign files
        raise UserError(f"{path} is not a saved agent ({type(exc).__name__})") from None
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise UserError(f"{path} is not a saved agent (expected format {FORMAT})")
    env_name, T = state.get("env"), state.get("T")
    if env_name not in ENVS or not isinstance(T, int) or not 1 <= T <= 10_000:
        raise UserError(f"{path}: unknown game {env_name!r} or bad episode length {T!r}")
    known = {f.name for f in fields(LearnerConfig)}
    cfg_d = state.get("config")
    if not isinstance(cfg_d, dict) or not set(cfg_d) <= known:
        raise UserError(f"{path}: the agent's config is missing or has unknown fields")
    arch = state.get("arch", {"policy": "auto", "hidden": 0})  # files written before the GRU option
    if (not isinstance(arch, dict) or arch.get("policy") not in POLICIES
            or not isinstance(arch.get("hidden"), int) or not 0 <= arch["hidden"] <= 4096):
        raise UserError(f"{path}: unknown policy architecture {arch!r}")
    env = make_env(env_name, T)
    try:
        learner = make_learner(env, LearnerConfig(**cfg_d), 0, arch["policy"], arch["hidden"] or None)
        learner.policy.load_state_dict(state["policy"])
        learner.critic.load_state_dict(state["critic"])
    except (KeyError, RuntimeError, TypeError, ValueError) as exc:
        raise UserError(f"{path}: weights do not fit the {env_name} agent ({type(exc).__name__})") from None
    if not all(torch.isfinite(p).all() for p in learner.policy.parameters()):
        raise UserError(f"{path}: the policy has non-finite weights")
    return learner, env


def league(agents: dict[str, Agent], env: MarkovGame, fixed: tuple[str, ...] = FIXED_KINDS,
           batch: int = 1024, seed: int = 0) -> dict[str, dict[str, float]]:
    """Reward per step of each named agent (rows) against every agent and fixed strategy (columns).

    >>> from iclr25.advantage_alignment.envs import IPD
    >>> env = IPD(T=4); t = league({"ac": FixedAgent(env, "cooperate")}, env, ("defect",), batch=2)
    >>> t["ac"]
    {'ac': -1.0, 'defect': -3.0}
    """
    if not agents:
        raise UserError("the league needs at least one agent")
    opponents: dict[str, Agent] = dict(agents)
    for kind in fixed:
        if kind not in agents:
            try:
                opponents[kind] = FixedAgent(env, kind)
            except UserError:  # tit-for-tat exists for the IPD only
                continue
    table: dict[str, dict[str, float]] = {}
    for name, agent in agents.items():
        table[name] = {other: evaluate(env, (agent, opp), batch, seed)["reward_0"]
                       for other, opp in opponents.items()}
    return table


def agent_labels(paths: list[Path]) -> list[str]:
    """One label per agent file, the same kind for every row: the file name without .pt when those are
    unique, else the shortest trailing part of the path that tells them apart ("aa/agent0", "pg/agent0").

    >>> agent_labels([Path("runs/aa/agent0.pt"), Path("runs/pg/agent0.pt")])
    ['aa/agent0', 'pg/agent0']
    >>> agent_labels([Path("a.pt"), Path("b.pt")])
    ['a', 'b']
    """
    parts = [Path(p).with_suffix("").parts for p in paths]
    for k in range(1, max(len(x) for x in parts) + 1):
        labels = ["/".join(x[-k:]) for x in parts]
        if len(set(labels)) == len(labels):
            return labels
    full = ["/".join(x) for x in parts]
    raise UserError("the same agent file is given twice: " + ", ".join(sorted({f for f in full
                                                                              if full.count(f) > 1})))


def check_same_game(loaded: dict[str, tuple[Learner, MarkovGame]]) -> MarkovGame:
    """The one game every loaded agent was trained on (name and episode length), or a UserError."""
    games: dict[tuple[str, int], str] = {}
    for name, (_, env) in loaded.items():
        games.setdefault((env.name, env.T), name)
    if len(games) > 1:
        raise UserError("agents come from different games: " + ", ".join(
            f"{n} ({g[0]}, T={g[1]})" for g, n in games.items()))
    return next(iter(loaded.values()))[1]

