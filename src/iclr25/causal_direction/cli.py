"""`iclr25 causal_direction ...`: is your noisily labelled data causal or anticausal?

    iclr25 causal_direction detect data.csv --label y [--embed pca:32] [--noise idn] [--plot c.png] [--json]
    iclr25 causal_direction detect --X X.npy --y y.npy
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from iclr25.core.errors import UserError
from iclr25.core.options import Seed, count, finite

app = typer.Typer(help="Causal or anticausal (RoCA, ICLR 2025): tell from noisily labelled data whether the "
                       "features cause the label (X→Y) or the label causes the features (Y→X).",
                  no_args_is_help=True, add_completion=False)

MAX_RATES = 50
PLOT_SUFFIXES = (".png", ".pdf", ".svg")


@app.callback()
def main() -> None:
    """Causal or anticausal (RoCA, Yao et al., ICLR 2025)."""


def _parse_rates(raw: str) -> tuple[float, ...]:
    try:
        rates = tuple(float(r) for r in raw.split(",") if r.strip())
    except ValueError:
        raise UserError(f"--rates: not a comma-separated list of numbers: {raw[:60]!r}") from None
    if len(rates) > MAX_RATES:
        raise UserError(f"--rates: at most {MAX_RATES} rates, got {len(rates)}")
    return rates


def _load_labels(path: Path):
    """Labels from a .npy: numbers, booleans or strings (core's read_array takes numbers only)."""
    import numpy as np

    from iclr25.core.io import read_array

    if path.suffix == ".npy" and path.is_file():
        try:
            a = np.load(path, allow_pickle=False)
        except Exception:  # read_array below names the problem
            a = None
        if isinstance(a, np.ndarray) and a.dtype.kind in "US" and a.size:
            return a
    return read_array(path, "--y")


@app.command()
def detect(
    csv: Annotated[Path | None, typer.Argument(help="CSV file with a header row (or use --X/--y)")] = None,
    label: Annotated[str | None, typer.Option(help="column of the CSV holding the noisy labels")] = None,
    x_npy: Annotated[Path | None, typer.Option("--X", help="features as .npy, (n, d) or images (n, h, w)")]
    = None,
    y_npy: Annotated[Path | None, typer.Option("--y", help="labels as .npy, (n,)")] = None,
    embed: Annotated[str | None, typer.Option(help="cluster an embedding instead of standardised X: pca:K")]
    = None,
    noise: Annotated[str, typer.Option(help="kind of injected noise: idn | sym | pair")] = "idn",
    rates: Annotated[str, typer.Option(help="injected noise rates, comma-separated, each in [0, 1)")]
    = "0,0.1,0.2,0.3,0.4",
    reps: Annotated[int, count("injections per rate", 1000)] = 3,
    decision: Annotated[str, typer.Option(help="effect (normalised slope >= threshold) | ttest (p < alpha)")]
    = "effect",
    threshold: Annotated[float, typer.Option(help="normalised slope at or above which the data is called "
                                                  "anticausal")] = 0.33,
    alpha: Annotated[float, typer.Option(help="significance level for --decision ttest")] = 0.05,
    seed: Seed = 0,
    n_classes: Annotated[int | None, count("number of classes when some never occur in the labels (labels "
                                           "must then be 0..C-1; default: the distinct labels)", 1000, low=2)]
    = None,
    plot: Annotated[Path | None, typer.Option(help="save the disagreement curve to this .png, .pdf or .svg")]
    = None,
    baselines: Annotated[bool, typer.Option(help="also run the fast baselines (CDNL, cluster agreement, "
                                                 "RECI, IGCI)")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="print one JSON object instead of text")] = False,
) -> None:
    """Detect the causal direction between features and noisy labels with RoCA and print e.g.
    "anticausal (normalised slope 0.52, p = 1e-09)". Categorical CSV columns are one-hot encoded."""
    from iclr25.causal_direction.data import load_table
    from iclr25.causal_direction.pseudo_labels import parse_embed
    from iclr25.causal_direction.roca import RoCAConfig, detect_direction
    from iclr25.core.io import output_path, read_array
    from iclr25.core.runtime import pin_threads

    pin_threads()
    finite(threshold, "--threshold", 0.0, 1.0)
    finite(alpha, "--alpha", 0.0, 1.0, low_open=True)
    config = RoCAConfig(_parse_rates(rates), noise, reps, decision, threshold, alpha, 10, seed)
    parse_embed(embed)
    if plot is not None:
        output_path(plot, "--plot", PLOT_SUFFIXES)
    if csv is not None:
        if x_npy is not None or y_npy is not None:
            raise UserError("give either a CSV file with --label, or --X and --y, not both")
        if label is None:
            raise UserError("--label: name the column of the CSV that holds the noisy labels")
        X, y, _ = load_table(csv, label)
    elif x_npy is not None and y_npy is not None:
        X, y = read_array(x_npy, "--X"), _load_labels(y_npy)
    else:
        raise UserError("no data: give a CSV file with --label, or --X X.npy --y y.npy")

    result = detect_direction(X, y, embed=embed, noise_rates=config.noise_rates, noise=noise, reps=reps,
                              decision=decision, threshold=threshold, alpha=alpha, random_state=seed,
                              n_classes=n_classes)
    extra = []
    if baselines:
        from iclr25.causal_direction.baselines import agreement_test, cdnl, igci, reci

        extra = [agreement_test(X, y, random_state=seed), cdnl(X, y, random_state=seed),
                 reci(X, y), igci(X, y)]
    if plot is not None:
        from iclr25.causal_direction.plots import plot_curve

        plot_curve(result, plot)
    if json_out:
        out = result.to_dict()
        out["n_rows"], out["n_features"] = int(len(y)), int(X.reshape(len(X), -1).shape[1])
        out["baselines"] = [{"method": b.method, "direction": b.direction, "score": b.score,
                             "detail": b.detail} for b in extra]
        typer.echo(json.dumps(out, indent=2))
        return
    typer.echo(str(result))
    typer.echo(f"  {len(y)} rows, {result.n_classes} classes; pseudo-labels agree with the labels on "
               f"{result.agreement:.1%} of rows; slope {result.slope:.3f} vs {result.reference_slope:.3f} "
               f"with Y' = labels ({noise}, {reps} reps)")
    for b in extra:
        typer.echo(f"  {b}")
    if plot is not None:
        typer.echo(f"  wrote {plot}")
