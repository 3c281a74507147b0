"""`iclr25 guided_strategy ...`: train GSD (or an InfoGAIL baseline) on your demonstrations, discover
behaviours at new style levels, and infer your demonstrations' codes.

    iclr25 guided_strategy make-demos --env point-lane --styles -0.6,0,0.6 -o d.npz
    iclr25 guided_strategy train --demos d.npz --env point-lane --method gsd --train-levels 1,3 -o m.pt
    iclr25 guided_strategy discover --model m.pt --targets 0.2,0.6 --budget 10,50
    iclr25 guided_strategy infer --model m.pt --demos my.npz
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from iclr25.core.errors import UserError
from iclr25.core.io import output_path
from iclr25.core.options import Seed, count, finite

app = typer.Typer(help="Guided Strategy Discovery (GSD): diverse, performant behaviours from heterogeneous "
                       "demonstrations.", no_args_is_help=True, add_completion=False)

ENV_HELP = ("simulator: pendulum (InvertedPendulum port, T=200) | point-lane (T=25) | hazard-lane "
            "(point-lane with a crash band beyond |y| = 0.95) | longmaze (the authors' LongMaze point, T=25)")
FACTOR_HELP = ("the style factor each behaviour is measured by: pendulum = mean cart position x over steps "
               "100-199 (m); point-lane, hazard-lane, longmaze = mean lateral position y over the last 12 "
               "steps")
MAX_ITERATIONS = 100_000
MAX_ENVS = 4096
MAX_CODES = 100_000
MAX_LEVEL = 2**31 - 1


def _ints(raw: str, option: str) -> list[int]:
    try:
        vals = [int(x) for x in raw.split(",") if x.strip()]
    except ValueError:
        raise UserError(f"{option}: expected comma-separated integers, got {raw!r}") from None
    if not vals:
        raise UserError(f"{option}: no values in {raw!r}")
    big = [v for v in vals if abs(v) > MAX_LEVEL]
    if big:
        raise UserError(f"{option}: {big[0]} is out of range (|value| <= {MAX_LEVEL})")
    return vals


def _floats(raw: str, option: str) -> list[float]:
    import math
    try:
        vals = [float(x) for x in raw.split(",") if x.strip()]
    except ValueError:
        raise UserError(f"{option}: expected comma-separated numbers, got {raw!r}") from None
    if not vals or not all(math.isfinite(v) for v in vals):
        raise UserError(f"{option}: need finite numbers, got {raw!r}")
    return vals


def _env(name: str):  # noqa: ANN202 - a VecEnv
    from iclr25.guided_strategy.envs import make_env
    return make_env(name)


def _factor(env_name: str):  # noqa: ANN202 - a factor function
    from iclr25.guided_strategy.envs import cart_factor, lane_factor
    return cart_factor if env_name == "pendulum" else lane_factor


def _out(help_: str, *aliases: str):  # noqa: ANN202 - a typer option
    return typer.Option("-o", "--out", *aliases, help=help_)


@app.command()
def train(
    demos: Annotated[Path, typer.Option(
        help="demonstrations: the authors' .h5 or an .npz with observations (N,T,ds), actions (N,T,da), "
             "optional rewards (N,T), levels (N,)")],
    env: Annotated[str, typer.Option(help=ENV_HELP)] = "point-lane",
    method: Annotated[str, typer.Option(help="gsd | infogail | infogail_m | infogail_m_sn")] = "gsd",
    train_levels: Annotated[str | None, typer.Option(help="comma-separated levels to train on (default: all "
                                                          "demos)")] = None,
    test_levels: Annotated[str | None, typer.Option(help="held-out levels: after training, report how well "
                                                         "1500 sampled behaviours recover them (VL10, VL50)")]
    = None,
    steps: Annotated[int, count("training iterations (one episode per env copy, then the discriminator, "
                                "decoder and PPO updates)", MAX_ITERATIONS)] = 100,
    iterations: Annotated[int | None, typer.Option("--iterations", hidden=True, min=1, max=MAX_ITERATIONS)]
    = None,
    envs: Annotated[int, count("parallel env copies per iteration", MAX_ENVS, low=2)] = 64,
    lambda_c: Annotated[float | None, typer.Option(help="λ_C in (0, 1e6] (default: 5 for gsd, 1 for "
                                                        "infogail_m_sn)")] = None,
    lambda_info: Annotated[float, typer.Option(help="λ_I in [0, 100], the weight of the information reward "
                                                    "log q(z|s,a) beside the imitation reward (the "
                                                    "authors': 0.1 pendulum and Fetch, 0.3 HalfCheetah)")]
    = 0.1,
    seed: Seed = 0,
    out: Annotated[Path, _out("where to write the trained model (.pt)")] = Path("gsd_model.pt"),
) -> None:
    """Train a latent-conditioned policy on DEMOS in the simulator ENV; writes the model to OUT."""
    import numpy as np

    from iclr25.core.runtime import pin_threads
    from iclr25.guided_strategy.demos import check_splits, load_demos
    from iclr25.guided_strategy.discovery import discover
    from iclr25.guided_strategy.gsd import GSD, METHODS

    pin_threads()
    if method not in METHODS:
        raise UserError(f"--method: unknown method {method!r}; choose from {', '.join(METHODS)}")
    finite(lambda_c, "--lambda-c", 0.0, 1e6, low_open=True)
    finite(lambda_info, "--lambda-info", 0.0, 100.0)
    output_path(out, "--out model", (".pt",))
    sim = _env(env)
    data = load_demos(demos)
    if env == "longmaze" and data.obs_dim == 25:  # the authors' LongMazeCustom_v1.h5 layout
        from iclr25.guided_strategy.demos import Demos
        from iclr25.guided_strategy.envs import authors_xy
        data = Demos(authors_xy(data.observations), data.actions, data.rewards, data.levels)
    if data.obs_dim != sim.obs_dim:
        raise UserError(f"{demos.name}: observations have {data.obs_dim} dims, env {env!r} has {sim.obs_dim}")
    if data.act_dim != sim.act_dim:
        raise UserError(f"{demos.name}: actions have {data.act_dim} dims, env {env!r} has {sim.act_dim}")
    if data.horizon > sim.horizon:
        data = data.truncate(sim.horizon)
    train_lv = _ints(train_levels, "--train-levels") if train_levels else None
    test_lv = _ints(test_levels, "--test-levels") if test_levels else []
    if test_lv:
        if data.levels is None:
            raise UserError(f"--test-levels: {demos.name} carries no levels")
        data.select(test_lv)  # the test levels must exist
        train_lv = train_lv or sorted(set(data.levels.tolist()) - set(test_lv))
        check_splits(train_lv, test_lv)
    train_data = data.select(train_lv) if train_lv else data
    steps = iterations or steps  # --iterations: the old spelling
    model = GSD(sim.obs_dim, sim.act_dim, method, lambda_c=lambda_c, seed=seed, lambda_info=lambda_info)
    model.fit(train_data, sim, iterations=steps, n_envs=envs)
    model.save(out)
    h = model.history_
    typer.echo(f"method={method} env={env} demos={train_data.n} steps={steps} λ_I={lambda_info:g} "
               f"time_per_iteration_s={np.mean(h.seconds):.3f}")
    ret = float(np.mean(h.task_return[-5:]))
    rand = _random_return(sim, envs, seed)
    demo_ret = f"{train_data.returns().mean():.3f}" if train_data.rewards is not None else "unknown"
    typer.echo(f"task return per episode, mean of the last 5 iterations: {ret:.3f} (higher is better; the "
               f"demonstrations {demo_ret}, uniformly random actions {rand:.3f}); discriminator accuracy "
               f"{h.disc_acc[-1]:.2f}, log q(z|s,a) {h.log_q[-1]:.2f}")
    if not ret > rand:
        typer.echo("warning: the policy does not beat random actions at the task: train longer (--steps) or "
                   "check that the demonstrations fit the simulator", err=True)
    if test_lv:
        f = _factor(env)(data.observations)
        targets = [float(f[data.levels == lv].mean()) for lv in test_lv]
        d = discover(model, sim, _factor(env), targets, n=1500, budgets=(10, 50), seed=seed + 1)
        for lv, g, v10, v50 in zip(test_lv, targets, d.vl[10], d.vl[50], strict=True):
            typer.echo(f"test level {lv} (factor {g:.3f}): VL10 {v10:.4f}  VL50 {v50:.4f}")
    typer.echo(f"wrote {out}")


def _random_return(sim, n: int, seed: int) -> float:  # noqa: ANN001 - a VecEnv
    """Mean task return of uniformly random actions in the env's box: the trivial baseline."""
    import torch
    g = torch.Generator().manual_seed(seed + 99)
    sim.reset(n, g)
    low, half = torch.tensor(sim.bounds.low), sim.bounds.half_range
    total = torch.zeros(n)
    for _ in range(sim.horizon):
        _, r = sim.step(low + 2 * half * torch.rand(n, sim.act_dim, generator=g))
        total += r.float()
    return float(total.mean())


@app.command("discover")
def discover_cmd(
    targets: Annotated[str, typer.Option(help="comma-separated target values of the style factor, e.g. "
                                              "0.2,0.6; " + FACTOR_HELP)],
    model: Annotated[Path, typer.Option(help="a model written by `train`")] = Path("gsd_model.pt"),
    env: Annotated[str | None, typer.Option(help=ENV_HELP + " (default: the model's)")] = None,
    budget: Annotated[str, typer.Option(help="comma-separated budgets K; each must divide --n")] = "10,50",
    n: Annotated[int, count("codes sampled from the prior, one episode each", MAX_CODES)] = 1500,
    seed: Seed = 0,
    out: Annotated[Path | None, _out("write every code, factor and return to this CSV")] = None,
    csv: Annotated[Path | None, typer.Option("--csv", hidden=True)] = None,
) -> None:
    """Sample codes, roll each out once, and report VL_K (mean over chunks of K behaviours of the error of
    the best one) for every target, with the returns of the chosen behaviours."""
    import numpy as np

    from iclr25.core.runtime import pin_threads
    from iclr25.guided_strategy.discovery import discover, recovery_error
    from iclr25.guided_strategy.gsd import GSD

    pin_threads()
    csv = out or csv  # --csv: the old spelling
    ks = _ints(budget, "--budget")
    tg = _floats(targets, "--targets")
    for k in ks:
        if k < 1 or n % k:
            raise UserError(f"--budget {k} must divide --n {n} (n mod K = {n % k if k > 0 else '-'})")
    if csv is not None:
        output_path(csv, "--out", (".csv",))
    if env is not None:
        _env(env)  # an unknown name fails before the model is read
    m = GSD.load(model)
    env_name = env or m.env_name_
    if env_name is None:
        raise UserError("--env: the model does not name its simulator; pass --env pendulum|point-lane|"
                        "hazard-lane|longmaze")
    sim = _env(env_name)
    if sim.obs_dim != m.obs_dim or sim.act_dim != m.act_dim:
        raise UserError(f"env {env_name!r} does not match the model's (obs, act) dims "
                        f"({m.obs_dim}, {m.act_dim})")
    d = discover(m, sim, _factor(env_name), tg, n=n, budgets=ks, seed=seed)
    lo, hi = np.percentile(d.factors, [5, 95])
    typer.echo(f"{n} behaviours: factor {lo:.3f}..{hi:.3f} "
               f"(5-95%), mean return {d.returns.mean():.3f}")
    vl1 = recovery_error(d.factors, tg, 1)  # one behaviour drawn at random: the reference
    typer.echo("VL_K: mean over chunks of K behaviours of |factor − target| of the best one (lower is "
               "better; K = 1, one behaviour at random, is the reference)")
    for k in ks:
        sel = d.selected_returns(k)
        for g, v, r, ref in zip(tg, d.vl[k], sel, vl1, strict=True):
            typer.echo(f"target {g:g}  K={k}: VL {v:.4f} (K=1: {ref:.4f}), chosen behaviours' mean return "
                       f"{r:.3f}")
    if csv is not None:
        import pandas as pd
        cols = {f"z{i}": d.codes[:, i] for i in range(d.codes.shape[1])}
        pd.DataFrame({**cols, "factor": d.factors, "return": d.returns}).to_csv(csv, index=False)
        typer.echo(f"wrote {csv}")


@app.command("make-demos")
def make_demos_cmd(
    styles: Annotated[str, typer.Option(help="comma-separated style values, one demonstrator each (levels 1, "
                                             "2, ... in this order); " + FACTOR_HELP)],
    out: Annotated[Path, _out("where to write the demonstrations (.npz: observations, actions, rewards, "
                              "levels, styles)")],
    env: Annotated[str, typer.Option(help=ENV_HELP)] = "point-lane",
    per_style: Annotated[int, count("noisy demonstrations per style value", 10_000)] = 5,
    seed: Seed = 0,
) -> None:
    """Scripted demonstrators holding your own style values (a PD lane keeper for the lanes and LongMaze,
    an LQR cart-position controller for the pendulum), rolled out in ENV with the authors' action noise."""
    import numpy as np

    from iclr25.guided_strategy.envs import lane_factor, make_demos

    output_path(out, "--out", (".npz",))
    sim = _env(env)
    d = make_demos(sim, _floats(styles, "--styles"), per_style, seed)
    np.savez_compressed(out, **d)
    f = _factor(env)(d["observations"]) if env == "pendulum" else lane_factor(d["observations"])
    for lv, s in enumerate(_floats(styles, "--styles"), start=1):
        mine = d["levels"] == lv
        typer.echo(f"level {lv}: style {s:g} -> measured factor {f[mine].mean():.3f} ± {f[mine].std():.3f}, "
                   f"return {d['rewards'][mine].sum(1).mean():.3f}")
    typer.echo(f"wrote {len(d['levels'])} demonstrations of {d['observations'].shape[1]} steps to {out}")


@app.command()
def infer(
    demos: Annotated[Path, typer.Option(help="your demonstrations (.h5 or .npz); no simulator needed")],
    model: Annotated[Path, typer.Option(help="a model written by `train`")] = Path("gsd_model.pt"),
    out: Annotated[Path | None, _out("write the codes to this CSV")] = None,
) -> None:
    """Print each demonstration's code: the precision-weighted mean of its per-step posteriors."""
    from iclr25.guided_strategy.demos import load_demos
    from iclr25.guided_strategy.gsd import GSD

    if out is not None:
        output_path(out, "--out", (".csv",))
    m = GSD.load(model)
    data = load_demos(demos)
    codes = m.infer_latent(data.observations, data.actions)
    for i, c in enumerate(codes):
        lv = "" if data.levels is None else f" level {data.levels[i]}"
        typer.echo(f"demo {i}{lv}: z = ({', '.join(f'{v:.3f}' for v in c)})")
    if data.levels is not None and len(set(data.levels.tolist())) > 1:
        from iclr25.guided_strategy.experiments import code_order
        typer.echo(f"|Spearman| of level vs first principal axis of the codes: "
                   f"{code_order(codes, data.levels):.3f}")
    if out is not None:
        import pandas as pd
        df = pd.DataFrame(codes, columns=[f"z{i}" for i in range(codes.shape[1])])
        if data.levels is not None:
            df.insert(0, "level", data.levels)
        df.to_csv(out, index_label="demo")
        typer.echo(f"wrote {out}")
