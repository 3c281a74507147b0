"""`iclr25 advantage_alignment train ...`: train AdAlign / AdAP / baselines on a game and summarise
the learned policy."""

from __future__ import annotations

from typing import Annotated

import typer

from iclr25.core.errors import UserError
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
