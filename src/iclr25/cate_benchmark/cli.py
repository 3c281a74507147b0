"""`iclr25 cate_benchmark ...`: score your own CATE predictions on your trial with Q̂ (`eval`), run the
observational-sampling benchmark (`run`), list the bundled RCTs (`datasets`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from iclr25.core.errors import UserError
from iclr25.core.io import output_path
from iclr25.core.options import Seed, count

app = typer.Typer(help="Q̂ scores for CATE models on real trials, and the observational-sampling benchmark.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)


def _read_csv(path: Path, what: str):
    from iclr25.core.io import read_csv
    return read_csv(path, what)


def _parse_propensity(text: str) -> float | str:
    try:
        return float(text)
    except ValueError:
        return text  # a column name


@app.command("eval")
def eval_cmd(
    rct: Annotated[Path, typer.Option(help="trial CSV: one row per unit")],
    treatment: Annotated[str, typer.Option(help="0/1 treatment column")],
    outcome: Annotated[str, typer.Option(help="outcome column")],
    pred: Annotated[Path, typer.Option(help="CSV of τ̂ predictions: one column per model, rows as in --rct")],
    propensity: Annotated[str, typer.Option(help="known P(W=1): a number, or a column of the trial")] = "0.5",
    kind: Annotated[str, typer.Option(help="ht | loc | dr | rloss (dr/loc/rloss cross-fit outcome "
                                           "models on the trial's covariates)")] = "ht",
    covariates: Annotated[str | None, typer.Option(help="comma list for dr/loc/rloss (default: all other "
                                                         "columns)")] = None,
    out: Annotated[Path | None, typer.Option(help="also write the scores to this CSV")] = None,
) -> None:
    """Score each model's predictions with Q̂ (lower is better; ≥ 0 = no better than zero effect)."""
    import numpy as np
    import pandas as pd
    from rich.console import Console
    from rich.table import Table

    from iclr25.cate_benchmark.datasets import from_frame
    from iclr25.cate_benchmark.learners import eval_outcome_models
    from iclr25.cate_benchmark.q_hat import KINDS, compare_to_constant, q_hat

    if kind not in KINDS:
        raise UserError(f"unknown --kind {kind!r}; choose from {', '.join(KINDS)}")
    if out is not None:
        output_path(out, "--out")
    trial_df = _read_csv(rct, "trial")
    preds = _read_csv(pred, "prediction")
    if len(preds) != len(trial_df):
        raise UserError(f"prediction file has {len(preds)} rows but the trial has {len(trial_df)}")
    cov = [c.strip() for c in covariates.split(",")] if covariates else None
    trial = from_frame(trial_df, treatment, outcome, _parse_propensity(propensity),
                       covariates=cov if kind != "ht" else [], name=rct.stem)
    nuis = {}
    if kind != "ht":
        if trial.X.shape[1] == 0:
            raise UserError(f"--kind {kind} needs covariates; the trial has none besides treatment/outcome")
        mu0, mu1 = eval_outcome_models(trial.X, trial.w, trial.y, 2, 0)
        nuis = {"mu0": mu0, "mu1": mu1, "m": trial.e * mu1 + (1 - trial.e) * mu0}
    rows = []
    for col in preds.columns:
        tau = pd.to_numeric(preds[col], errors="coerce").to_numpy(dtype=float)
        if not np.isfinite(tau).all():
            raise UserError(f"prediction column {col!r} has missing or non-numeric values")
        r = q_hat(tau, trial.y, trial.w, trial.e, kind, **nuis)
        c = compare_to_constant(tau, trial.y, trial.w, trial.e, kind=kind, **nuis)
        rows.append({"model": col, "q_hat": r.value, "se": r.se, "degenerate": r.degenerate,
                     "q_constant": c.q_constant, "diff_vs_constant": c.diff, "se_diff": c.se_diff})
    res = pd.DataFrame(rows).sort_values("q_hat")
    t = Table("model", f"Q̂ ({kind})", "SE", "degenerate", "Q̂ − Q̂(const)", "SE",
              title=f"{trial.n} units; constant model τ̂ ≡ {c.constant:.4g} (HT ATE) has Q̂ {c.q_constant:.4g}")
    for r in res.itertuples():
        t.add_row(str(r.model), f"{r.q_hat:.4g}", f"{r.se:.3g}", "yes" if r.degenerate else "no",
                  f"{r.diff_vs_constant:+.4g}", f"{r.se_diff:.3g}")
    Console().print(t)
    if out is not None:
        res.to_csv(out, index=False)
        typer.echo(f"wrote {out}")


@app.command("run")
def run_cmd(
    datasets: Annotated[str | None, typer.Option(
        help="bundled RCTs: comma list, 'all' or 'none' (see `datasets`; default: all, or none with --trial)")
    ] = None,
    trial: Annotated[Path | None, typer.Option(help="your own RCT as CSV (one row per unit); needs "
                                                    "--treatment and --outcome")] = None,
    treatment: Annotated[str | None, typer.Option(help="0/1 treatment column of --trial")] = None,
    outcome: Annotated[str | None, typer.Option(help="outcome column of --trial")] = None,
    propensity: Annotated[str, typer.Option(help="known P(W=1) of --trial: a number or a column")] = "0.5",
    covariates: Annotated[str | None, typer.Option(help="comma list of --trial's covariates (default: all "
                                                         "other columns)")] = None,
    learners: Annotated[str, typer.Option(help="comma list, 'all' (16) or 'fast'")] = "all",
    reps: Annotated[int, count("repetitions per grid point", 10_000)] = 1,
    grid: Annotated[str, typer.Option(help="'quick' (2 configurations) or 'paper' (36)")] = "quick",
    backend: Annotated[str, typer.Option(help="serial | process | ray")] = "process",
    ray_address: Annotated[str | None, typer.Option(help="existing Ray cluster, e.g. 'auto'")] = None,
    workers: Annotated[int | None, count("worker processes (default: all cores)", 1024)] = None,
    seed: Seed = 0,
    out: Annotated[Path, typer.Option(help="tidy table CSV")] = Path("cate_benchmark.csv"),
) -> None:
    """Run datasets × grid × reps × learners and print the paper's summaries: on the bundled RCTs and/or
    your own trial (--trial), carved into confounded training sets by observational sampling."""
    from iclr25.cate_benchmark.benchmark import Benchmark, GridPoint, paper_grid
    from iclr25.cate_benchmark.summaries import avg_rank, summarize, win_share
    from iclr25.core.executors import BACKENDS
    from iclr25.core.runtime import RunContext

    if backend not in BACKENDS:
        raise UserError(f"unknown --backend {backend!r}; choose from {', '.join(BACKENDS)}")
    grids = {"quick": [GridPoint("mild", 0.5, 500), GridPoint("strong", 0.2, 1000)], "paper": paper_grid()}
    if grid not in grids:
        raise UserError(f"unknown --grid {grid!r}; choose from quick, paper")
    output_path(out, "--out")
    trials = ()
    if trial is not None:
        trials = (_user_trial(trial, treatment, outcome, propensity, covariates),)
    elif treatment is not None or outcome is not None:
        raise UserError("--treatment/--outcome describe --trial; give the trial CSV too")
    chosen = datasets or ("none" if trials else "all")
    bench = Benchmark([] if chosen == "none" else chosen, learners, grids[grid], reps=reps, seed=seed,
                      trials=trials)
    ctx = RunContext(seed=seed, profile="quick", backend=backend, ray_address=ray_address, workers=workers)
    table = bench.run(ctx)
    table.to_csv(out, index=False)
    s = summarize(table)
    typer.echo(f"{s['variants']} variants, {s['estimates']} CATE estimates -> {out}")
    typer.echo(f"degenerate rate {s['degenerate_rate']:.0%} (paper 62%), worse than constant "
               f"{s['worse_than_constant_rate']:.0%} (paper 80%), orthogonal win share "
               f"{s['orthogonal_win_share']:.0%} (paper 30%)")
    ranks, wins = avg_rank(table), win_share(table)
    for name in ranks.index:
        typer.echo(f"  {name:12s} avg rank {ranks[name]:5.2f}  win share {wins.get(name, 0.0):.0%}")


def _user_trial(path: Path, treatment: str | None, outcome: str | None, propensity: str,
                covariates: str | None):
    from iclr25.cate_benchmark.datasets import from_frame
    if treatment is None or outcome is None:
        raise UserError("--trial needs --treatment and --outcome (column names)")
    cov = [c.strip() for c in covariates.split(",") if c.strip()] if covariates else None
    data = from_frame(_read_csv(path, "trial"), treatment, outcome, _parse_propensity(propensity),
                      covariates=cov, name=path.stem or "trial")
    if data.n < 200 or min(data.w.sum(), data.n - data.w.sum()) < 40:
        raise UserError(f"--trial has {data.n} units ({int(data.w.sum())} treated); the benchmark needs at "
                        "least 200 with 40 per arm to carve training and evaluation sets")
    if data.X.shape[1] == 0:
        raise UserError("--trial has no covariates besides treatment, outcome and propensity")
    return data


@app.command("datasets")
def datasets_cmd() -> None:
    """List the bundled RCTs (installed from PyPI) with their size and design propensity."""
    from iclr25.cate_benchmark.datasets import DATASETS, load_rct
    for name in DATASETS:
        try:
            d = load_rct(name)
        except UserError as exc:
            typer.echo(f"{name:18s} unavailable: {exc}")
            continue
        typer.echo(f"{name:18s} n={d.n:6d} d={d.X.shape[1]:3d} treated={d.w.mean():.2f}  "
                   f"{d.source}; {d.notes}")
