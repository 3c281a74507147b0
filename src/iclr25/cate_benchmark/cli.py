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
    covariates: Annotated[str | None, typer.Option(help="comma list for dr/loc/rloss and --plugin (default: "
                                                         "all other columns)")] = None,
    plugin: Annotated[str | None, typer.Option(help="also print the plug-in τ-risk against a T-learner "
                                                    "cross-fitted on the trial: lasso | gbm (biased; "
                                                    "lower is better)")] = None,
    plot: Annotated[Path | None, typer.Option(help="forest plot of Q̂ ± 1.96 SE per model, with the "
                                                   "zero-effect and constant-ATE references (.png, .pdf "
                                                   "or .svg)")] = None,
    out: Annotated[Path | None, typer.Option("-o", "--out", help="also write every score to this CSV")]
    = None,
    seed: Seed = 0,
) -> None:
    """Score each model's predictions with Q̂ (lower is better; ≥ 0 = no better than zero effect), beside
    the zero-effect and constant-ATE references, with the Qini coefficient and a calibration check."""
    import numpy as np
    import pandas as pd

    from iclr25.cate_benchmark.datasets import from_frame
    from iclr25.cate_benchmark.learners import eval_outcome_models
    from iclr25.cate_benchmark.q_hat import KINDS, compare_to_constant, pseudo_outcome, q_hat
    from iclr25.cate_benchmark.uplift import calibration, plugin_risk, plugin_tau, uplift_curve
    from iclr25.core.runtime import atomic_write

    if kind not in KINDS:
        raise UserError(f"unknown --kind {kind[:40]!r}; choose from {', '.join(KINDS)}")
    if plugin is not None and plugin not in ("lasso", "gbm"):
        raise UserError(f"--plugin must be lasso or gbm, got {plugin[:40]!r}")
    for path, flag, suffixes in ((out, "--out", ()), (plot, "--plot", (".png", ".pdf", ".svg"))):
        if path is not None and str(path) != "-":
            output_path(path, flag, suffixes)
    trial_df = _read_csv(rct, "trial")
    preds = _read_csv(pred, "prediction")
    if len(preds) != len(trial_df):
        raise UserError(f"prediction file has {len(preds)} rows but the trial has {len(trial_df)}")
    cov = [c.strip() for c in covariates.split(",")] if covariates else None
    needs_x = kind != "ht" or plugin is not None
    trial = from_frame(trial_df, treatment, outcome, _parse_propensity(propensity),
                       covariates=cov if needs_x else [], name=rct.stem)
    if needs_x and trial.X.shape[1] == 0:
        raise UserError(f"--kind {kind} / --plugin need covariates; the trial has none besides treatment and "
                        "outcome")
    nuis = {}
    if kind != "ht":
        mu0, mu1 = eval_outcome_models(trial.X, trial.w, trial.y, 2, seed)
        nuis = {"mu0": mu0, "mu1": mu1, "m": trial.e * mu1 + (1 - trial.e) * mu0}
    eta = pseudo_outcome(trial.y, trial.w, trial.e, "dr", **{k: nuis[k] for k in ("mu0", "mu1")}) \
        if kind == "dr" else None
    tau_tilde = plugin_tau(trial.X, trial.w, trial.y, plugin, 2, seed) if plugin is not None else None
    from iclr25.core.runtime import progress
    rows = []
    for col in progress(list(preds.columns), "scoring models (Q̂, Qini bootstrap, calibration)",
                        total=len(preds.columns)):
        tau = pd.to_numeric(preds[col], errors="coerce").to_numpy(dtype=float)
        if not np.isfinite(tau).all():
            raise UserError(f"prediction column {str(col)[:60]!r} has missing or non-numeric values")
        r = q_hat(tau, trial.y, trial.w, trial.e, kind, **nuis)
        c = compare_to_constant(tau, trial.y, trial.w, trial.e, kind=kind, **nuis)
        up = uplift_curve(tau, trial.y, trial.w, trial.e, seed=seed)
        cal = calibration(tau, trial.y, trial.w, trial.e, eta=eta)
        row = {"model": str(col), "q_hat": r.value, "se": r.se, "degenerate": r.degenerate,
               "q_constant": c.q_constant, "diff_vs_constant": c.diff, "se_diff": c.se_diff,
               "auuc": up.auuc, "qini": up.qini, "qini_se": up.qini_se,
               "blp_mean": cal.a, "blp_mean_se": cal.a_se, "blp_slope": cal.b, "blp_slope_se": cal.b_se}
        if tau_tilde is not None:
            pr = plugin_risk(tau, tau_tilde, plugin)
            row.update(plugin_risk=pr.value, plugin_risk_se=pr.se)
        rows.append(row)
    res = pd.DataFrame(rows).sort_values("q_hat", kind="stable")
    zero_q = 0.0
    const = compare_to_constant(np.zeros(trial.n), trial.y, trial.w, trial.e, kind=kind, **nuis)
    q_const = const.q_constant
    se_const = float(q_hat(np.full(trial.n, const.constant), trial.y, trial.w, trial.e, kind, **nuis).se)
    _print_eval(res, trial.n, kind, const.constant, q_const, se_const, plugin)
    worse0 = res.loc[res["q_hat"] >= zero_q, "model"].tolist()
    worse_c = res.loc[res["diff_vs_constant"] > 0, "model"].tolist()
    if worse0:
        typer.echo(f"iclr25: warning: {len(worse0)} of {len(res)} models do not beat the zero-effect model "
                   f"(Q̂ ≥ 0, degenerate): {', '.join(worse0)[:300]}", err=True)
    if worse_c:
        typer.echo(f"iclr25: warning: {len(worse_c)} of {len(res)} models score worse than the constant-ATE "
                   f"model: {', '.join(worse_c)[:300]}", err=True)
    if plot is not None:
        _forest_plot(res, q_const, se_const, kind, trial.n, plot)
        typer.echo(f"wrote {plot}")
    if out is not None:
        with atomic_write(out, "w") as f:
            res.to_csv(f, index=False)
        typer.echo(f"wrote {out}", err=str(out) == "-")


def _fmt(v: float, spec: str = ".4g") -> str:
    import math
    return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, spec)


def _print_eval(res, n: int, kind: str, constant: float, q_const: float, se_const: float,
                plugin: str | None) -> None:
    """Fixed-width table: every score with its direction, the two references first."""
    typer.echo(f"{n} units. Q̂ ({kind}): lower is better, Q̂ < 0 beats the zero-effect model; Qini: "
               f"higher is better, 0 = a random order; BLP slope: 1 = calibrated spread, 0 = no "
               f"heterogeneity found" + ("; plug-in τ-risk: lower is better" if plugin else ""))
    # "Q̂" is two code points (Q + a combining circumflex) and one column wide: its fields are one wider
    head = (f"{'model':<24}{'Q̂':>11}{'SE':>9}{'Q̂ − const':>12}{'SE':>9}{'Qini':>10}{'SE':>9}"
            f"{'BLP slope':>11}{'SE':>8}" + (f"{'plug-in':>10}{'SE':>10}" if plugin else ""))
    typer.echo(head)
    blank = f"{'—':>10}{'—':>10}" if plugin else ""
    typer.echo(f"{'zero effect (reference)':<24}{0:>10}{0:>9}{-q_const:>+11.4g}{_fmt(se_const, '.3g'):>9}"
               f"{0:>10}{0:>9}{'—':>11}{'—':>8}" + blank)
    typer.echo(f"{'constant ATE (reference)':<24}{q_const:>10.4g}{_fmt(se_const, '.3g'):>9}{0:>+11}{0:>9}"
               f"{0:>10}{0:>9}{'—':>11}{'—':>8}" + blank)
    for r in res.itertuples():
        line = (f"{str(r.model)[:23]:<24}{r.q_hat:>10.4g}{_fmt(r.se, '.3g'):>9}{r.diff_vs_constant:>+11.4g}"
                f"{_fmt(r.se_diff, '.3g'):>9}{r.qini:>10.4g}{_fmt(r.qini_se, '.3g'):>9}"
                f"{_fmt(r.blp_slope, '.3g'):>11}{_fmt(r.blp_slope_se, '.2g'):>8}")
        if plugin:
            line += f"{r.plugin_risk:>10.4g}{_fmt(r.plugin_risk_se, '.3g'):>10}"
        typer.echo(line)
    typer.echo(f"(constant ATE: τ̂ ≡ {constant:.4g}, the trial's Horvitz–Thompson ATE; its Q̂ is about −ATE²; "
               f"Q̂ − const < 0: better than it)")


def _forest_plot(res, q_const: float, se_const: float, kind: str, n: int, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from iclr25.core.runtime import atomic_write
    names = ["zero effect", "constant ATE", *map(str, res["model"])]
    q = [0.0, q_const, *res["q_hat"]]
    se = [0.0, se_const, *res["se"]]
    fig, ax = plt.subplots(figsize=(6.4, 1.2 + 0.38 * len(names)))
    ys = list(range(len(names)))[::-1]
    colours = ["grey", "grey"] + ["#c0392b" if v >= 0 else "#2e7d32" for v in res["q_hat"]]
    for qi, yi, si, ci in zip(q, ys, se, colours, strict=True):
        ax.errorbar([qi], [yi], xerr=[1.96 * si], fmt="o", color=ci, ms=5, elinewidth=1.5, capsize=3)
    ax.axvline(0.0, color="grey", lw=0.8, ls="-")
    ax.axvline(q_const, color="grey", lw=0.8, ls="--")
    ax.set_yticks(ys, [n[:28] for n in names], fontsize=8)
    ax.set_xlabel(f"Q̂ ({kind}) ± 1.96 SE    ← better (lower)        degenerate (≥ 0) →", fontsize=8)
    ax.set_title(f"{n} units; solid line: zero-effect model (Q̂ = 0), dashed: constant ATE", fontsize=8)
    fig.tight_layout()
    with atomic_write(path) as f:
        fig.savefig(f, format=path.suffix.lstrip(".").lower() or "png", dpi=120)
    plt.close(fig)


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
    learners: Annotated[str, typer.Option(help="comma list, 'all' (the paper's 16), 'fast', or 'tuned' "
                                               "(boosting tuned by cross-validation, like the paper's "
                                               "XGBoost rows)")] = "all",
    reps: Annotated[int, count("repetitions per grid point", 10_000)] = 1,
    grid: Annotated[str, typer.Option(help="'quick' (2 configurations) or 'paper' (36)")] = "quick",
    backend: Annotated[str, typer.Option(help="serial | process | ray")] = "process",
    ray_address: Annotated[str | None, typer.Option(help="existing Ray cluster, e.g. 'auto'")] = None,
    workers: Annotated[int | None, count("worker processes (default: all cores)", 1024)] = None,
    seed: Seed = 0,
    out: Annotated[Path, typer.Option("-o", "--out", help="tidy table CSV")] = Path("cate_benchmark.csv"),
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
    n_var = len(bench.variants())
    typer.echo(f"fitting {len(bench.learners)} learners on {n_var} variants ({backend} backend; a progress "
               f"bar per variant on a terminal)", err=True)
    table = bench.run(ctx)
    from iclr25.core.runtime import atomic_write
    with atomic_write(out, "w") as f:
        table.to_csv(f, index=False)
    failed = table[table["error"].astype(str) != ""]
    s = summarize(table)
    typer.echo(f"{s['variants']} variants, {s['estimates']} CATE estimates -> {out}")
    import math
    wtc = s["worse_than_constant_rate"]
    wtc_text = "n/a (add dml.lasso, the paper's constant model)" if math.isnan(wtc) else f"{wtc:.0%}"
    typer.echo(f"degenerate rate {s['degenerate_rate']:.0%} (paper 62%), worse than constant {wtc_text} "
               f"(paper 80%), orthogonal win share {s['orthogonal_win_share']:.0%} (paper 30%)")
    ranks, wins = avg_rank(table), win_share(table)
    scored = table.dropna(subset=["q_hat"])
    beats0 = scored.assign(b=scored["q_hat"] < 0).groupby("learner")["b"].mean()
    typer.echo("per learner (lower Q̂ is better; the zero-effect model has Q̂ = 0 exactly, so 'beats zero' is "
               "the share of variants with Q̂ < 0):")
    for name in ranks.index:
        typer.echo(f"  {name:14s} avg rank {ranks[name]:5.2f}  win share {wins.get(name, 0.0):4.0%}  "
                   f"beats zero {beats0.get(name, 0.0):4.0%}")
    if len(failed):
        first = failed.iloc[0]
        typer.echo(f"iclr25: error: {len(failed)} of {len(table)} fits failed (first: {first['learner']} on "
                   f"{first['variant']}: {str(first['error'])[:200]}); their rows have the error", err=True)
        raise typer.Exit(1)


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
