"""`iclr25 underdamped_bridges ...`: fit a diffusion sampler to your own density, then evaluate and sample.

    iclr25 underdamped_bridges fit --logreg data.csv --label y --method dbs --sde-steps 16 -o run/
    iclr25 underdamped_bridges fit --log-prob mymod:log_prob --dim 10 --log-z 0.0 -o run/
    iclr25 underdamped_bridges fit --target funnel -o run/
    iclr25 underdamped_bridges eval run/
    iclr25 underdamped_bridges sample run/ --n 1000 -o samples.csv
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated

import typer

from iclr25.core.errors import UserError
from iclr25.core.options import Seed, count, finite

app = typer.Typer(help="Underdamped diffusion bridges: samples and log Z of an unnormalised density.",
                  no_args_is_help=True, add_completion=False)

TARGET_FILE, SAMPLER_FILE, HISTORY_FILE, DATA_FILE = "target.json", "sampler.pt", "history.csv", "data.npz"
CURVES_FILE, SAMPLES_FILE = "curves.png", "samples.png"


def _load_function(spec: str, cwd: Path):
    """'module:function' or 'path/to/file.py:function' (relative to `cwd`) -> the callable."""
    from iclr25.core.usercode import user_callable
    return user_callable(spec, "--log-prob", "target.py:log_prob", cwd)


def _logreg_arrays(csv: Path, label: str, features: str | None, standardize: bool):
    import numpy as np
    import pandas as pd

    from iclr25.core.io import read_csv

    df = read_csv(csv, "--logreg")
    if label not in df.columns:
        columns = ", ".join(map(str, df.columns))
        raise UserError(f"--label: column {label!r} not in {csv.name} (columns: {columns})")
    cols = [c.strip() for c in features.split(",") if c.strip()] if features else [
        c for c in df.columns if c != label and pd.api.types.is_numeric_dtype(df[c])]
    unknown = [c for c in cols if c not in df.columns]
    if unknown:
        raise UserError(f"--features: column {unknown[0]!r} not in {csv.name}")
    bad = [c for c in cols if not pd.api.types.is_numeric_dtype(df[c])]
    if bad:
        raise UserError(f"--features: column {bad[0]!r} is not numeric")
    if not cols:
        raise UserError(f"{csv.name}: no numeric feature columns besides {label!r}")
    X = df[cols].to_numpy(dtype=float)
    if not np.isfinite(X).all():
        row = int(np.argmax(~np.isfinite(X).all(1)))
        raise UserError(f"{csv.name}: missing or non-finite feature values (first at data row {row + 1})")
    if standardize:
        sd = X.std(0)
        sd[sd == 0] = 1.0
        X = (X - X.mean(0)) / sd
    return X, df[label].to_numpy(), cols


def _target_from_spec(spec: dict, run_dir: Path):
    from iclr25.underdamped_bridges.data import target_by_name
    from iclr25.underdamped_bridges.targets import bayesian_logreg, from_log_prob

    if spec["kind"] == "named":
        return target_by_name(spec["name"])
    if spec["kind"] == "logreg":
        import numpy as np
        data = np.load(run_dir / DATA_FILE)
        return bayesian_logreg(data["X"], data["y"], spec["prior_std"], spec["intercept"], spec["name"])
    return from_log_prob(_load_function(spec["spec"], Path(spec["cwd"])), spec["dim"], spec["name"],
                         log_Z=spec.get("log_z"))


def _load_run(run_dir: Path):
    from iclr25.core.io import read_json
    from iclr25.underdamped_bridges.sampler import Sampler

    spec_path = run_dir / TARGET_FILE
    if not spec_path.is_file():
        raise UserError(f"{run_dir} is not a fitted run (no {TARGET_FILE}); run 'fit -o {run_dir}' first")
    spec = read_json(spec_path, "run description")
    try:
        target = _target_from_spec(spec, run_dir)
    except UserError:
        raise
    except Exception as e:  # a hand-edited or foreign target.json / data.npz
        raise UserError(f"{spec_path} does not describe a target: {type(e).__name__}: {e}"[:300]) from None
    return Sampler.load(run_dir / SAMPLER_FILE, target)


def _print_metrics(m: dict, prefix: str = "") -> None:
    line = (f"{prefix}ELBO {m['elbo']:.3f} ± {m['elbo_se']:.3f}   "
            f"log Z-hat {m['log_z_hat']:.3f} ± {m['log_z_se']:.3f}   "
            f"ESS {m['ess']:.3f} (1 = perfect)")
    if "log_z" in m:
        line += f"   |log Z-hat - log Z| {m['log_z_error']:.3f} (log Z = {m['log_z']:.3f})"
    if "sinkhorn" in m:
        line += f"   Sinkhorn {m['sinkhorn']:.4f} (lower is better)"
    if "mmd" in m:
        line += f"   MMD {m['mmd']:.4f} (lower is better; 0 = same law)"
    if "emc" in m:
        line += f"   EMC {m['emc']:.3f} (1 = every mode)"
    typer.echo(line + f"   ({m['n']} samples)")


@app.command()
def fit(
    out: Annotated[Path, typer.Option("--out", "-o", help="run folder to write (created)")],
    logreg: Annotated[Path | None, typer.Option(help="CSV for Bayesian logistic regression")] = None,
    label: Annotated[str | None, typer.Option(help="binary label column of --logreg (0/1, -1/+1, bool)")]
    = None,
    features: Annotated[str | None, typer.Option(help="comma-separated feature columns (default: all other "
                                                      "numeric columns)")] = None,
    prior_std: Annotated[float, typer.Option(help="logistic regression: prior N(0, s²) on the weights "
                                                  "(s in (0, 1e6])")] = 1.0,
    standardize: Annotated[bool, typer.Option(help="logistic regression: standardise the features")] = True,
    intercept: Annotated[bool, typer.Option(help="logistic regression: add an intercept")] = True,
    log_prob: Annotated[str | None, typer.Option(help="your log-density, module:function or file.py:function "
                                                      "(torch, batched (B, d) -> (B,))")] = None,
    dim: Annotated[int | None, count("dimension of --log-prob", 1_000_000)] = None,
    log_z: Annotated[float | None, typer.Option(
        "--log-z", help="the known log Z of --log-prob, if you know it (|log Z-hat - log Z| is then "
                        "reported)")]
    = None,
    target: Annotated[str | None, typer.Option(help="a built-in target: funnel, many_well, gmm40, seeds, "
                                                    "student_t_mixture (or ionosphere, sonar, credit, "
                                                    "cancer, lgcp with the data)")]
    = None,
    method: Annotated[str, typer.Option(help="dbs | dis | cmcd | mcd | ula")] = "dbs",
    underdamped: Annotated[bool, typer.Option(help="underdamped (the paper's) or overdamped dynamics")]
    = True,
    integrator: Annotated[str | None, typer.Option(help="obabo | obab | baoab | em (default: em for DBS-UD, "
                                                        "obabo otherwise; overdamped: em)")] = None,
    sde_steps: Annotated[int, typer.Option("--sde-steps", min=1, max=4096,
                                           help="discretisation steps K of the SDE (paper: 128)")] = 32,
    steps: Annotated[int | None, typer.Option(
        "--steps", min=0, max=1_000_000, help="training steps, i.e. Adam updates (default 1000; paper: "
        "10,000); the SDE's K is --sde-steps")] = None,
    iters: Annotated[int | None, typer.Option("--iters", "--iterations", min=0, max=1_000_000, hidden=True)]
    = None,
    batch_size: Annotated[int, typer.Option("--batch-size", min=2, max=100_000,
                                            help="paths per training step (paper: 2,000)")] = 256,
    batch: Annotated[int | None, typer.Option("--batch", min=2, max=100_000, hidden=True)] = None,
    loss: Annotated[str, typer.Option(help="kl (reverse KL, the paper's) | logvar")] = "kl",
    hidden: Annotated[int, count("width of the control networks (paper: 128)", 4096)] = 64,
    dt: Annotated[float | None, typer.Option(help="initial step-size scale (default: the target's, 0.01 for "
                                                  "your own density)")] = None,
    friction: Annotated[float, typer.Option(help="initial friction γ (η = γ·dt must stay < 1)")] = 1.0,
    tune_dt: Annotated[bool, typer.Option(help="pick the initial step size from dt × {1, 2, ..., 64} first, "
                                               "by the ELBO of the uncontrolled sampler")] = True,
    plots: Annotated[bool, typer.Option(help=f"write {CURVES_FILE} (learning curve) and {SAMPLES_FILE} "
                                             "(sample scatter) to --out")] = True,
    seed: Seed = 0,
) -> None:
    """Fit a sampler to one target (exactly one of --logreg, --log-prob, --target) and save it in --out.

    Prints the untrained sampler's metrics (the baseline: the uncontrolled process at the initial step
    size) beside the trained one's, and warns when training did not raise the ELBO."""
    import numpy as np
    import pandas as pd

    from iclr25.core.io import output_dir
    from iclr25.core.runtime import pin_threads
    from iclr25.underdamped_bridges.data import target_by_name
    from iclr25.underdamped_bridges.sampler import Sampler
    from iclr25.underdamped_bridges.targets import bayesian_logreg, from_log_prob

    pin_threads()
    if steps is not None and iters is not None:
        raise UserError("give --steps (training steps) or its old spelling --iters, not both; the SDE's "
                        "discretisation steps K are --sde-steps")
    steps = steps if steps is not None else iters if iters is not None else 1000
    batch = batch if batch is not None else batch_size
    chosen = [name for name, v in (("--logreg", logreg), ("--log-prob", log_prob), ("--target", target)) if v]
    if log_z is not None and log_prob is None:
        raise UserError("--log-z goes with --log-prob (built-in targets know theirs)")
    if len(chosen) != 1:
        raise UserError("give exactly one of --logreg CSV, --log-prob module:function, --target NAME"
                        + (f" (got {', '.join(chosen)})" if chosen else ""))
    finite(prior_std, "--prior-std", 0, 1e6, low_open=True)
    finite(dt, "--dt", 0, 1e3, low_open=True)
    finite(friction, "--friction", 0, 1e6, low_open=True)
    output_dir(out, "--out run folder")
    cwd = Path.cwd()
    if logreg is not None:
        if not label:
            raise UserError("--logreg needs --label (the binary label column)")
        X, y, cols = _logreg_arrays(logreg, label, features, standardize)
        tgt = bayesian_logreg(X, y, prior_std, intercept, logreg.stem)
        np.savez(out / DATA_FILE, X=X, y=tgt.y.numpy())
        spec = {"kind": "logreg", "name": logreg.stem, "csv": str(logreg.resolve()), "label": label,
                "features": cols, "prior_std": prior_std, "intercept": intercept, "standardize": standardize}
    elif log_prob is not None:
        if dim is None:
            raise UserError("--log-prob needs --dim")
        finite(log_z, "--log-z")
        tgt = from_log_prob(_load_function(log_prob, cwd), dim, log_prob.rsplit(":", 1)[-1], log_Z=log_z)
        spec = {"kind": "log_prob", "spec": log_prob, "dim": dim, "cwd": str(cwd), "name": tgt.name,
                "log_z": log_z}
    else:
        tgt = target_by_name(target)
        spec = {"kind": "named", "name": target}
    sampler = Sampler(tgt, method=method, underdamped=underdamped, integrator=integrator, num_steps=sde_steps,
                      loss=loss, hidden=hidden, seed=seed, dt=dt, friction=friction)
    if tune_dt:
        sampler.tune_dt()
    typer.echo(f"fitting {sampler.name} ({sampler.config.integrator}, K={sde_steps} SDE steps) to {tgt.name} "
               f"(d={tgt.dim}): {steps} training steps × {batch} paths")
    before = sampler.evaluate(2000, seed=seed + 1)
    _print_metrics(before, "untrained (baseline): ")
    sampler.fit(steps, batch)
    (out / TARGET_FILE).write_text(json.dumps(spec, indent=2))
    sampler.save(out / SAMPLER_FILE)
    pd.DataFrame(sampler.history_).to_csv(out / HISTORY_FILE, index=False)
    after = sampler.evaluate(2000, seed=seed + 1)
    _print_metrics(after, "trained:              ")
    se = math.hypot(before["elbo_se"], after["elbo_se"]) if steps else 0.0
    if not after["elbo"] > before["elbo"] + 2 * se:
        typer.echo(f"warning: training did not raise the ELBO beyond 2 standard errors ({after['elbo']:.3f} "
                   f"vs {before['elbo']:.3f} untrained); try more --steps, a larger --batch-size or tune_dt",
                   err=True)
    written = [SAMPLER_FILE, TARGET_FILE, HISTORY_FILE]
    if plots:
        written += _plots(sampler, out, seed)
    typer.echo(f"saved to {out}/ ({', '.join(written)})")


def _plots(sampler, out: Path, seed: int) -> list[str]:
    """The learning curve (training ELBO per step) and a scatter of 1,000 samples (with exact samples
    beside them where the target has them)."""
    import torch

    from iclr25.underdamped_bridges import figures
    hist = sampler.history_
    step = max(1, len(hist) // 500)
    figures.learning_curves({sampler.name: (step, [h["elbo"] for h in hist][::step])}, out / CURVES_FILE,
                            f"{sampler.name} on {sampler.target.name}: training ELBO")
    x = sampler.sample(1000, seed=seed + 3)[0].double().numpy()
    truth = None
    if sampler.target.can_sample:
        truth = sampler.target.sample(1000, torch.Generator().manual_seed(seed + 4)).double().numpy()
    figures.sample_scatter(x, out / SAMPLES_FILE, truth, f"{sampler.name} on {sampler.target.name}")
    return [CURVES_FILE, SAMPLES_FILE]


@app.command("eval")
def evaluate(
    run: Annotated[Path, typer.Argument(help="run folder written by fit")],
    n: Annotated[int, count("evaluation paths", 1_000_000, low=2)] = 2000,
    sinkhorn: Annotated[bool, typer.Option(help="Sinkhorn divergence and MMD to exact samples (targets that "
                                                "have them: funnel, many_well, gmm40, student_t_mixture)")]
    = False,
    reference: Annotated[Path | None, typer.Option(
        help="CSV of your own reference samples (columns x0..x{d-1}, e.g. from a long MCMC run): Sinkhorn "
             "divergence and MMD to them, which see dropped modes")] = None,
    seed: Seed = 1,
) -> None:
    """Print ELBO, log Z-hat (± standard errors), the ESS and, where there is something to compare with,
    |log Z-hat - log Z|, the mode coverage (EMC) and the Sinkhorn divergence and MMD to reference samples."""
    from iclr25.core.runtime import pin_threads
    pin_threads()
    sampler = _load_run(run)
    ref = _reference_samples(reference, sampler.target.dim) if reference is not None else None
    typer.echo(f"{sampler.name} ({sampler.config.integrator}, K={sampler.config.num_steps}) on "
               f"{sampler.target.name} (d={sampler.target.dim})")
    _print_metrics(sampler.evaluate(n, seed=seed, sinkhorn=sinkhorn, reference=ref))


def _reference_samples(path: Path, dim: int):
    """(n, dim) floats from a CSV with columns x0..x{dim-1} (other columns, e.g. log_w, ignored)."""
    import numpy as np

    from iclr25.core.io import read_csv
    df = read_csv(path, "--reference")
    cols = [f"x{i}" for i in range(dim)]
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise UserError(f"--reference: expected a CSV with columns x0..x{dim - 1} (as 'sample' writes); "
                        f"{path.name} lacks {missing[0]!r}")
    x = df[cols].to_numpy(dtype=float, na_value=np.nan)
    if len(x) < 2 or not np.isfinite(x).all():
        raise UserError(f"--reference: {path.name} needs at least 2 rows of finite numbers")
    return x


@app.command()
def sample(
    run: Annotated[Path, typer.Argument(help="run folder written by fit")],
    n: Annotated[int, count("number of samples", 1_000_000)] = 1000,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="CSV to write (default: stdout)")] = None,
    seed: Seed = 2,
) -> None:
    """Draw samples x (columns x0..x{d-1}) with their log importance weights (column log_w)."""
    import pandas as pd

    from iclr25.core.io import output_path
    from iclr25.core.runtime import pin_threads
    pin_threads()
    if out is not None:
        output_path(out, "--out samples CSV")
    sampler = _load_run(run)
    x, log_w = sampler.sample(n, seed=seed)
    df = pd.DataFrame(x.double().numpy(), columns=[f"x{i}" for i in range(x.shape[1])])
    df["log_w"] = log_w.double().numpy()
    if out is None:
        typer.echo(df.to_csv(index=False), nl=False)
    else:
        df.to_csv(out, index=False)
        typer.echo(f"wrote {n} samples to {out}")
