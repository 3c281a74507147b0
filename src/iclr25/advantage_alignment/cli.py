"""`iclr25 advantage_alignment train ...`: train AdAlign / AdAP / baselines on a game, summarise the
learned policy and optionally save the agents; `league ...`: play saved agents against each other and the
fixed strategies."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from iclr25.core.errors import UserError
from iclr25.core.io import output_dir, output_path
from iclr25.core.options import Seed, count, finite

app = typer.Typer(help="Advantage Alignment (opponent shaping) on IPD, Coin Game and Negotiation.",
                  no_args_is_help=True, add_completion=False)

ENV_NAMES = ("ipd", "coin", "negotiation")
ALGO_NAMES = ("adalign", "adap", "naive", "ppo", "lola")
OPPONENT_NAMES = ("self", "cooperate", "defect", "tit_for_tat", "random")
POLICY_NAMES = ("auto", "tabular", "mlp", "gru")


@app.callback()
def main() -> None:
    """Advantage Alignment Algorithms (Duque et al., ICLR 2025)."""


def _either(new, old, flag: str, old_flag: str):
    """The value of an option given under its name or under its old (hidden) spelling, not both."""
    if old is not None and new is not None:
        raise UserError(f"{flag} and {old_flag} are the same option; give it once")
    return old if old is not None else new


@app.command("train")
def train_cmd(
    env: Annotated[str, typer.Option(help="ipd | coin | negotiation")] = "ipd",
    algo: Annotated[str, typer.Option(help="adalign | adap | naive | ppo | lola (ipd only)")] = "adalign",
    opponent: Annotated[str, typer.Option(help="self | cooperate | defect | tit_for_tat | random")] = "self",
    steps: Annotated[int | None, count("training iterations, one batch of episodes each (default 300)",
                                       1_000_000)] = None,
    batch_size: Annotated[int | None, count("episodes per batch (default 256)", 65_536)] = None,
    horizon: Annotated[int | None, count("episode length T (default: the game's: ipd 16, coin and "
                                         "negotiation 50)", 10_000)] = None,
    beta: Annotated[float | None, typer.Option(help="AA weight beta (default: the game's; 0 for naive/ppo)")
                    ] = None,
    gamma: Annotated[float | None, typer.Option(help="discount (default 0.96, the paper's)")] = None,
    lam: Annotated[float | None, typer.Option(help="GAE lambda (default 0.95)")] = None,
    actor_lr: Annotated[float | None, typer.Option(help="Adam learning rate of the policy (default: the "
                                                        "game's; official Negotiation config 5e-4)")] = None,
    critic_lr: Annotated[float | None, typer.Option(help="Adam learning rate of the critic")] = None,
    entropy: Annotated[float | None, typer.Option(help="entropy bonus (official Negotiation 0.005)")] = None,
    critic_warmup: Annotated[int | None, count("iterations that train only the critic before the policy "
                                               "moves (default: the game's, ipd 100)", 1_000_000, low=0)
                             ] = None,
    past: Annotated[str | None, typer.Option(help="past-advantage term: discounted (the paper's equation, "
                                                  "default) | mean (the official code's running mean)")
                    ] = None,
    clip: Annotated[float | None, typer.Option(help="PPO/AdAP ratio clip (official 0.1)")] = None,
    ppo_epochs: Annotated[int | None, count("PPO/AdAP passes over each batch (default 4)", 100)] = None,
    policy: Annotated[str, typer.Option(help="auto (tabular on the ipd, else an MLP) | tabular | mlp | gru "
                                             "(the paper's full-history GRU policy)")] = "auto",
    hidden: Annotated[int | None, count("hidden units of the MLP/GRU policy and its critic (default: "
                                        "64; gru 32; official Negotiation 512)", 4096)] = None,
    seed: Seed = 0,
    out: Annotated[Path | None, typer.Option("-o", "--out", help="folder to write the trained agents to "
                                             "(agent0.pt, and agent1.pt in self-play), for `league`")] = None,
    plot: Annotated[Path | None, typer.Option(help="write the training curves (reward per step, and the "
                                                   "game's own metric) to this PNG")] = None,
    iters: Annotated[int | None, typer.Option("--iters", hidden=True)] = None,
    batch: Annotated[int | None, typer.Option("--batch", hidden=True)] = None,
    T: Annotated[int | None, typer.Option("--T", hidden=True)] = None,  # noqa: N803
    save: Annotated[Path | None, typer.Option("--save", hidden=True)] = None,
) -> None:
    """Train two agents (self-play of ALGO, or ALGO against a fixed OPPONENT) and print what they learned
    beside uniform random play. Every option of the learner is exposed, with the game's defaults."""
    steps = _either(steps, iters, "--steps", "--iters") or 300
    batch_size = _either(batch_size, batch, "--batch-size", "--batch") or 256
    horizon = _either(horizon, T, "--horizon", "--T")
    out = _either(out, save, "--out", "--save")
    for name, v in (("--steps", steps), ("--batch-size", batch_size), ("--horizon", horizon)):
        if v is not None and v < 1:
            raise UserError(f"{name} must be positive, got {v}")
    if env not in ENV_NAMES:
        raise UserError(f"unknown env {env!r}; choose from {', '.join(ENV_NAMES)}")
    if algo not in ALGO_NAMES:
        raise UserError(f"unknown algo {algo!r}; choose from {', '.join(ALGO_NAMES)}")
    if opponent not in OPPONENT_NAMES:
        raise UserError(f"unknown opponent {opponent!r}; choose from {', '.join(OPPONENT_NAMES)}")
    if policy not in POLICY_NAMES:
        raise UserError(f"unknown policy {policy!r}; choose from {', '.join(POLICY_NAMES)}")
    finite(beta, "--beta", 0.0, 1e6)
    finite(gamma, "--gamma", 0.0, 1.0, low_open=True)
    finite(lam, "--lam", 0.0, 1.0)
    finite(actor_lr, "--actor-lr", 0.0, 10.0, low_open=True)
    finite(critic_lr, "--critic-lr", 0.0, 10.0, low_open=True)
    finite(entropy, "--entropy", 0.0, 100.0)
    finite(clip, "--clip", 0.0, 1.0, low_open=True)
    if past is not None and past not in ("discounted", "mean"):
        raise UserError(f"unknown --past {past!r}; choose from discounted, mean")
    if algo == "lola" and (env != "ipd" or opponent != "self"):
        raise UserError("algo 'lola' is exact LOLA on the ipd in self-play only; "
                        "use --env ipd --opponent self")
    if algo == "lola" and policy not in ("auto", "tabular"):
        raise UserError("algo 'lola' is exact LOLA of memory-1 (tabular) policies; drop --policy")
    if policy == "tabular" and env != "ipd":
        raise UserError(f"the tabular policy exists for the ipd only; use --policy mlp or gru for {env}")
    if out is not None:
        output_dir(out, "--out")
    if plot is not None:
        output_path(plot, "--plot", (".png",))

    from rich.console import Console
    from rich.table import Table

    from iclr25.advantage_alignment.agents import FixedAgent
    from iclr25.advantage_alignment.envs import make_env
    from iclr25.advantage_alignment.learner import Learner
    from iclr25.advantage_alignment.lola import LolaConfig, train_lola_exact
    from iclr25.advantage_alignment.train import (
        default_config,
        empirical_policy_table,
        evaluate,
        ipd_policy_table,
        train,
    )
    from iclr25.core.runtime import pin_threads

    pin_threads()
    game = make_env(env, horizon)
    history: dict[str, list[float]] = {}
    overrides = {k: v for k, v in (("beta", beta), ("gamma", gamma), ("lam", lam), ("actor_lr", actor_lr),
                                   ("critic_lr", critic_lr), ("entropy", entropy),
                                   ("critic_warmup", critic_warmup), ("past", past), ("clip", clip),
                                   ("ppo_epochs", ppo_epochs)) if v is not None}
    if algo == "lola":
        a, b, history = train_lola_exact(steps, seed, LolaConfig(T=game.T, gamma=gamma or game.gamma),
                                         show_progress=True)
        agents = (a, b)
        cfg = None
    else:
        cfg = default_config(env, algo, **overrides)
        res = train(game, algo, opponent, iters=steps, batch=batch_size, seed=seed, config=cfg,
                    show_progress=True, policy=policy, hidden=hidden)
        agents, history = res.agents, res.history
    metrics = evaluate(game, agents, seed=seed + 1)
    learners = [i for i, ag in enumerate(agents) if isinstance(ag, Learner) or algo == "lola"]
    # the trivial baseline: uniform random play in the learners' seats, against the same opponent
    rand = FixedAgent(game, "random")
    base_agents = (rand, rand if opponent == "self" else agents[1])
    baseline = evaluate(game, base_agents, seed=seed + 1)
    con = Console()
    con.print(f"[bold]{env}[/bold] {algo} vs {opponent}: {steps} iterations x {batch_size} episodes, "
              f"T={game.T}" + (f", {policy} policy" if policy != "auto" else ""))
    t = Table("metric", "trained", "uniform random play (baseline)")
    for k, v in metrics.items():
        t.add_row(k, _num(v), _num(baseline[k]) if k in baseline else "")
    con.print(t)
    ours = sum(metrics[f"reward_{i}"] for i in learners) / len(learners)
    theirs = sum(baseline[f"reward_{i}"] for i in learners) / len(learners)
    if ours <= theirs:
        con.print(f"[yellow]warning:[/yellow] the trained agents' reward/step ({ours:.3f}) does not beat "
                  f"uniform random play ({theirs:.3f})" + (" (in a social dilemma, learners that defect on "
                                                           "each other end below random play)"
                                                           if opponent == "self" else ""))
    if env == "ipd":
        title = "learned policy (state = own, opponent last move)"
        exact = all(hasattr(agents[i], "policy") and type(agents[i].policy).__name__ == "TabularIPDPolicy"
                    for i in learners)
        if not exact:
            title += "; measured on 1,024 fresh episodes"
        p = Table("agent", "P(C|start)", "P(C|CC)", "P(C|CD)", "P(C|DC)", "P(C|DD)", title=title)
        tables = {i: (ipd_policy_table(agents[i]) if exact else empirical_policy_table(game, agents, i))
                  for i in learners}
        for i, row in tables.items():
            p.add_row(f"seat {i}", *(f"{v:.2f}" if v == v else "never" for v in row.values()))
        con.print(p)
    if cfg is not None:
        moved = [ag.updates_ > cfg.critic_warmup for ag in agents if isinstance(ag, Learner)]
        if not any(moved):
            con.print(f"[yellow]warning:[/yellow] the policy never moved: the first {cfg.critic_warmup} "
                      f"iterations train only the critic and this run had {steps}; so every P(C|.) is "
                      f"still its initial value. Run more than {cfg.critic_warmup} --steps, or lower "
                      "--critic-warmup.")
    if plot is not None:
        from iclr25.advantage_alignment.plots import training_curves
        con.print(f"curves  {training_curves(history, plot, f'{env} {algo} vs {opponent}')}")
    if out is not None:
        from iclr25.advantage_alignment.league import save_agent
        for i, ag in enumerate(agents):
            if isinstance(ag, Learner):
                con.print(f"saved {save_agent(ag, game, out / f'agent{i}.pt')}")
            elif algo == "lola":
                con.print("[yellow]note:[/yellow] exact LOLA agents are analytic tables; not saved")
                break


@app.command("league")
def league_cmd(
    agents: Annotated[list[Path], typer.Argument(help="saved agents (.pt files written by `train --out`)",
                                                 show_default=False)],
    batch_size: Annotated[int | None, count("episodes per pairing (default 1024)", 16_384)] = None,
    seed: Seed = 0,
    batch: Annotated[int | None, typer.Option("--batch", hidden=True)] = None,
) -> None:
    """Play every saved agent against every other one and against the fixed strategies (always-cooperate,
    always-defect, tit-for-tat on the IPD, random); cell: reward per step of the row agent against the
    column agent. Rows and columns use the same labels: the file names (with as much of their folders as
    tells them apart)."""
    from rich.console import Console
    from rich.table import Table

    from iclr25.advantage_alignment.league import agent_labels, check_same_game, league, load_agent
    from iclr25.core.runtime import pin_threads

    batch_size = _either(batch_size, batch, "--batch-size", "--batch") or 1024
    if len(agents) > 64:
        raise UserError(f"at most 64 agents in one league, got {len(agents)}")
    pin_threads()
    labels = agent_labels(agents)
    loaded = {label: load_agent(p) for label, p in zip(labels, agents, strict=True)}
    env = check_same_game(loaded)
    table = league({k: v[0] for k, v in loaded.items()}, env, batch=batch_size, seed=seed)
    cols = list(next(iter(table.values())))
    names = {"cooperate": "always-cooperate", "defect": "always-defect", "tit_for_tat": "tit-for-tat",
             "random": "random"}
    heads = [names.get(c, c) for c in cols]
    t = Table("row agent", *heads,
              title=f"{env.name}, T={env.T}: reward per step of the row agent against the column agent")
    for name, row in table.items():
        t.add_row(name, *(_num(row[c]) for c in cols))
    width = 4 + max(map(len, labels)) + sum(max(len(h), 6) + 3 for h in heads)
    Console(width=max(80, width)).print(t)


def _num(v: float) -> str:
    """Three decimals, without a minus sign on a value that rounds to zero."""
    return f"{round(v, 3) + 0.0:.3f}"
