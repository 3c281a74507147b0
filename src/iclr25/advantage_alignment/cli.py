"""`iclr25 advantage_alignment train ...`: train AdAlign / AdAP / baselines on a game, summarise the
learned policy and optionally save the agents; `league ...`: play saved agents against each other and the
fixed strategies."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from iclr25.core.errors import UserError
from iclr25.core.io import output_dir
from iclr25.core.options import Seed, count, finite

app = typer.Typer(help="Advantage Alignment (opponent shaping) on IPD, Coin Game and Negotiation.",
                  no_args_is_help=True, add_completion=False)

ENV_NAMES = ("ipd", "coin", "negotiation")
ALGO_NAMES = ("adalign", "adap", "naive", "ppo", "lola")
OPPONENT_NAMES = ("self", "cooperate", "defect", "tit_for_tat", "random")


@app.callback()
def main() -> None:
    """Advantage Alignment Algorithms (Duque et al., ICLR 2025)."""


@app.command("train")
def train_cmd(
    env: Annotated[str, typer.Option(help="ipd | coin | negotiation")] = "ipd",
    algo: Annotated[str, typer.Option(help="adalign | adap | naive | ppo | lola (ipd only)")] = "adalign",
    opponent: Annotated[str, typer.Option(help="self | cooperate | defect | tit_for_tat | random")] = "self",
    iters: Annotated[int, count("training iterations (one batch each)", 1_000_000)] = 300,
    batch: Annotated[int, count("episodes per batch", 65_536)] = 256,
    T: Annotated[int | None, count("episode length (default: the game's)", 10_000, flag="--T")] = None,
    beta: Annotated[float | None, typer.Option(help="AA weight beta (default: the game's)")] = None,
    seed: Seed = 0,
    save: Annotated[Path | None, typer.Option(help="folder to write the trained agents to (agent0.pt, and "
                                                    "agent1.pt in self-play), for `league`")] = None,
) -> None:
    """Train two agents (self-play of ALGO, or ALGO against a fixed OPPONENT) and print a summary."""
    if env not in ENV_NAMES:
        raise UserError(f"unknown env {env!r}; choose from {', '.join(ENV_NAMES)}")
    if algo not in ALGO_NAMES:
        raise UserError(f"unknown algo {algo!r}; choose from {', '.join(ALGO_NAMES)}")
    if opponent not in OPPONENT_NAMES:
        raise UserError(f"unknown opponent {opponent!r}; choose from {', '.join(OPPONENT_NAMES)}")
    finite(beta, "--beta", 0.0, 1e6)
    if algo == "lola" and (env != "ipd" or opponent != "self"):
        raise UserError("algo 'lola' is exact LOLA on the ipd in self-play only; "
                        "use --env ipd --opponent self")
    if save is not None:
        output_dir(save, "--save")

    from rich.console import Console
    from rich.table import Table

    from iclr25.advantage_alignment.envs import make_env
    from iclr25.advantage_alignment.lola import LolaConfig, train_lola_exact
    from iclr25.advantage_alignment.train import default_config, evaluate, ipd_policy_table, train
    from iclr25.core.runtime import pin_threads

    pin_threads()
    game = make_env(env, T)
    if algo == "lola":
        a, b, _ = train_lola_exact(iters, seed, LolaConfig(T=game.T, gamma=game.gamma), show_progress=True)
        agents = (a, b)
    else:
        cfg = default_config(env, algo) if beta is None else default_config(env, algo, beta=beta)
        res = train(game, algo, opponent, iters=iters, batch=batch, seed=seed, config=cfg, show_progress=True)
        agents = res.agents
    metrics = evaluate(game, agents, seed=seed + 1)
    con = Console()
    con.print(f"[bold]{env}[/bold] {algo} vs {opponent}: {iters} iterations x {batch} episodes, T={game.T}")
    t = Table("metric", "value")
    for k, v in metrics.items():
        t.add_row(k, f"{v:.3f}")
    con.print(t)
    if env == "ipd":
        p = Table("agent", "P(C|start)", "P(C|CC)", "P(C|CD)", "P(C|DC)", "P(C|DD)",
                  title="learned policy (state = own, opponent last move)")
        for i, ag in enumerate(agents):
            if hasattr(ag, "policy"):
                p.add_row(f"seat {i}", *(f"{v:.2f}" for v in ipd_policy_table(ag).values()))
        con.print(p)
    if save is not None:
        from iclr25.advantage_alignment.league import save_agent
        from iclr25.advantage_alignment.learner import Learner
        for i, ag in enumerate(agents):
            if isinstance(ag, Learner):
                con.print(f"saved {save_agent(ag, game, save / f'agent{i}.pt')}")


@app.command("league")
def league_cmd(
    agents: Annotated[list[Path], typer.Argument(help="saved agents (.pt files written by `train --save`)",
                                                 show_default=False)],
    batch: Annotated[int, count("episodes per pairing", 16_384)] = 1024,
    seed: Seed = 0,
) -> None:
    """Play every saved agent against every other one and against the fixed strategies (always-cooperate,
    always-defect, tit-for-tat on the IPD, random); rows: reward per step of the row agent."""
    from rich.console import Console
    from rich.table import Table

    from iclr25.advantage_alignment.league import check_same_game, league, load_agent
    from iclr25.core.runtime import pin_threads

    if len(agents) > 64:
        raise UserError(f"at most 64 agents in one league, got {len(agents)}")
    pin_threads()
    loaded = {}
    for p in agents:
        name = p.stem if p.stem not in loaded else str(p)
        loaded[name] = load_agent(p)
    env = check_same_game(loaded)
    table = league({k: v[0] for k, v in loaded.items()}, env, batch=batch, seed=seed)
    cols = list(next(iter(table.values())))
    t = Table("agent \\ opponent", *cols, title=f"{env.name}, T={env.T}: reward per step of the row agent")
    for name, row in table.items():
        t.add_row(name, *(f"{row[c]:.3f}" for c in cols))
    Console().print(t)
