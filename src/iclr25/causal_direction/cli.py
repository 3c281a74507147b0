"""`iclr25 causal_direction ...`: is your noisily labelled data causal or anticausal, and how noisy are
its labels?

    iclr25 causal_direction detect data.csv --label y [--embed pca:32] [--clusterer gmm] [--plot c.png]
        [-o r.json]
    iclr25 causal_direction detect --x-file X.npy --y-file y.npy
    iclr25 causal_direction noise data.csv --label y [-o suspects.csv]
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


def _load(csv: Path | None, label: str | None, x_file: Path | None, y_file: Path | None):
    """(X, y, feature names or None) from a CSV with --label, or from --x-file/--y-file."""
    from iclr25.causal_direction.data import load_table
    from iclr25.core.io import read_array

    if csv is not None:
        if x_file is not None or y_file is not None:
            raise UserError("give either a CSV file with --label, or --x-file and --y-file, not both")
        if label is None:
            raise UserError("--label: name the column of the CSV that holds the noisy labels")
        return load_table(csv, label)
    if x_file is not None and y_file is not None:
        return read_array(x_file, "--x-file"), _load_labels(y_file), None
    raise UserError("no data: give a CSV file with --label, or --x-file X.npy --y-file y.npy")


CsvArg = Annotated[Path | None, typer.Argument(help="CSV file with a header row (or use --x-file/--y-file)")]
LabelOpt = Annotated[str | None, typer.Option(help="column of the CSV holding the noisy labels")]
XOpt = Annotated[Path | None, typer.Option("--x-file", help="features as .npy, (n, d) or images (n, h, w)")]
YOpt = Annotated[Path | None, typer.Option("--y-file", help="labels as .npy, (n,)")]
XOld = Annotated[Path | None, typer.Option("--X", hidden=True)]
YOld = Annotated[Path | None, typer.Option("--y", hidden=True)]


@app.command()
def detect(
    csv: CsvArg = None,
    label: LabelOpt = None,
    x_file: XOpt = None,
    y_file: YOpt = None,
    x_old: XOld = None,
    y_old: YOld = None,
    embed: Annotated[str | None, typer.Option(help="cluster an embedding instead of standardised X: pca:K")]
    = None,
    clusterer: Annotated[str, typer.Option(help="kmeans | minibatch-kmeans (large n) | gmm (elongated or "
                                                "unequal clusters) | agglomerative (Ward, <= 20,000 rows)")]
    = "kmeans",
    noise: Annotated[str, typer.Option(help="kind of injected noise: idn | sym | pair")] = "idn",
    rates: Annotated[str, typer.Option(help="injected noise rates, comma-separated, each in [0, 1)")]
    = "0,0.1,0.2,0.3,0.4",
    reps: Annotated[int, count("injections per rate", 1000)] = 3,
    decision: Annotated[str, typer.Option(help="effect (normalised slope >= threshold) | ttest (p < alpha)")]
    = "effect",
    threshold: Annotated[float | None, typer.Option(
        help="normalised slope at or above which the data is called anticausal (default: the threshold "
             "chosen on synthetic data, 0.47)")] = None,
    alpha: Annotated[float, typer.Option(help="significance level for --decision ttest")] = 0.05,
    seed: Seed = 0,
    n_classes: Annotated[int | None, count("number of classes when some never occur in the labels (labels "
                                           "must then be 0..C-1; default: the distinct labels)", 1000, low=2)]
    = None,
    plot: Annotated[Path | None, typer.Option(help="save the disagreement curve to this .png, .pdf or .svg")]
    = None,
    out: Annotated[Path | None, typer.Option("-o", "--out", help="write the result as JSON to this file "
                                                                 "(.json)")] = None,
    baselines: Annotated[bool, typer.Option(help="also run the fast baselines (CDNL, cluster agreement, "
                                                 "RECI, IGCI)")] = False,
    check_stability: Annotated[bool, typer.Option("--stability/--no-stability", help=(
        "re-run with other clustering seeds and with each feature group left out, and warn when the call "
        "changes"))] = True,
    json_out: Annotated[bool, typer.Option("--json", help="print one JSON object instead of text")] = False,
) -> None:
    """Detect the causal direction between features and noisy labels with RoCA and print e.g.
    "anticausal (normalised slope 0.520, p = 1e-09)". Categorical CSV columns are one-hot encoded.

    Warnings (stderr; the exit status stays 0) name a call not to trust: the clusters agree with the
    labels no better than with permuted labels, or the call changes with the clustering seed or when
    one feature group is left out. Exit 2 on bad input."""
    from iclr25.causal_direction.diagnostics import agreement_beyond_null, near_chance, stability
    from iclr25.causal_direction.pseudo_labels import CLUSTERERS, parse_embed
    from iclr25.causal_direction.roca import DEFAULT_THRESHOLD, RoCAConfig, detect_direction, fmt_slope
    from iclr25.core.io import output_path
    from iclr25.core.runtime import pin_threads

    pin_threads()
    threshold = DEFAULT_THRESHOLD if threshold is None else threshold
    finite(threshold, "--threshold", 0.0, 1.0)
    finite(alpha, "--alpha", 0.0, 1.0, low_open=True)
    if clusterer not in CLUSTERERS:
        raise UserError(f"--clusterer must be one of {', '.join(CLUSTERERS)}, got {clusterer[:40]!r}")
    config = RoCAConfig(_parse_rates(rates), noise, reps, decision, threshold, alpha, 10, seed)
    parse_embed(embed)
    if plot is not None:
        output_path(plot, "--plot", PLOT_SUFFIXES)
    if out is not None:
        output_path(out, "--out", (".json",))
    X, y, names = _load(csv, label, x_file or x_old, y_file or y_old)

    result = detect_direction(X, y, embed=embed, clusterer=clusterer, noise_rates=config.noise_rates,
                              noise=noise, reps=reps, decision=decision, threshold=threshold, alpha=alpha,
                              random_state=seed, n_classes=n_classes)
    stab = None
    if check_stability and embed is None:
        stab = stability(X, y, result, names, clusterer=clusterer, random_state=seed, n_classes=n_classes,
                         progress=len(y) * X.reshape(len(X), -1).shape[1] > 2_000_000)
    warnings = []
    if near_chance(result):
        warnings.append(
            f"the clusters agree with the labels on {result.agreement:.1%} of rows, hardly more than with "
            f"permuted labels ({result.null_agreement:.1%}): RoCA cannot tell 'X does not cluster by class' "
            "(causal) from 'the clustering follows something else' (an unrelated column, a bad scale); "
            "check the stability line, drop unrelated columns, or try --embed or --clusterer")
    if stab is not None and not stab.stable:
        w, s, c = stab.flips[0]
        where = w.replace("without", "without column")
        warnings.append(f"the call is unstable: it becomes {c} (slope {s:.3f}) {where} ({len(stab.flips)} of "
                        f"{len(stab.variants)} re-runs disagree)")
    extra = []
    if baselines:
        from iclr25.causal_direction.baselines import agreement_test, cdnl, igci, reci

        extra = [agreement_test(X, y, random_state=seed), cdnl(X, y, random_state=seed),
                 reci(X, y), igci(X, y)]
    if plot is not None:
        from iclr25.causal_direction.plots import plot_curve

        plot_curve(result, plot)
    doc = result.to_dict()
    doc["n_rows"], doc["n_features"] = int(len(y)), int(X.reshape(len(X), -1).shape[1])
    doc["agreement_beyond_null"] = agreement_beyond_null(result)
    doc["stability"] = None if stab is None else [{"variant": w, "normalized_slope": sl, "direction": c}
                                                 for w, sl, c in stab.variants]
    doc["warnings"] = warnings
    doc["baselines"] = [{"method": b.method, "direction": b.direction, "score": b.score, "detail": b.detail}
                        for b in extra]
    if out is not None:
        out.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    if json_out:
        typer.echo(json.dumps(doc, indent=2))
    else:
        typer.echo(str(result))
        typer.echo(f"  {len(y)} rows, {result.n_classes} classes; pseudo-labels agree with the labels on "
                   f"{result.agreement:.1%} of rows (with permuted labels: {result.null_agreement:.1%}); "
                   f"slope {result.slope:.3f} vs {result.reference_slope:.3f} with Y' = labels ({noise}, "
                   f"{reps} reps)")
        if decision == "effect":
            how = " (chosen on synthetic data)" if threshold == DEFAULT_THRESHOLD else ""
            typer.echo(f"  threshold {threshold:g}{how}; the same clusters against permuted labels: slope "
                       f"{fmt_slope(result.null_slope)}")
        if stab is not None:
            typer.echo(f"  {stab}")
        for b in extra:
            typer.echo(f"  {b}")
        if plot is not None:
            typer.echo(f"  wrote {plot}")
        if out is not None:
            typer.echo(f"  wrote {out}")
    for w in warnings:
        typer.echo(f"warning: {w}", err=True)


@app.command("noise")
def noise_cmd(
    csv: CsvArg = None,
    label: LabelOpt = None,
    x_file: XOpt = None,
    y_file: YOpt = None,
    x_old: XOld = None,
    y_old: YOld = None,
    out: Annotated[Path | None, typer.Option("-o", "--out", help="write the suspect rows to this .csv")]
    = None,
    show: Annotated[int, count("suspect rows to print", 10_000, low=0)] = 10,
    seed: Seed = 0,
) -> None:
    """Estimate how many labels are wrong and list the suspect rows (confident learning on out-of-fold
    logistic-regression probabilities). Rows are numbered from 0 in file order (the CSV header is not a
    row). Prints the classifier's out-of-fold accuracy beside always answering the commonest label and
    warns when it does not beat it (the estimate then means nothing)."""
    import csv as csv_mod

    from iclr25.causal_direction.diagnostics import label_noise
    from iclr25.causal_direction.roca import DEFAULT_THRESHOLD
    from iclr25.core.io import output_path
    from iclr25.core.runtime import pin_threads

    pin_threads()
    if out is not None:
        output_path(out, "--out", (".csv",))
    X, y, _ = _load(csv, label, x_file or x_old, y_file or y_old)
    r = label_noise(X, y, random_state=seed)
    typer.echo(f"estimated label-noise rate {r.noise_rate:.1%}: {len(r.suspects)} of {len(y)} rows look "
               f"mislabelled")
    typer.echo(f"  classifier (logistic regression, 5-fold out-of-fold) accuracy {r.accuracy:.1%} vs "
               f"{r.majority:.1%} always answering the commonest label")
    cap = r.slope_cap()
    typer.echo(f"  at this rate an anticausal data set's normalised slope is at most about {cap:.3f} (the "
               f"detect threshold is {DEFAULT_THRESHOLD:g})")
    for i, g, s_, c in list(zip(r.suspects, r.given, r.suggested, r.self_confidence, strict=True))[:show]:
        typer.echo(f"  row {int(i)}: labelled {g!s}, looks like {s_!s} (P(label) = {c:.2f})")
    if out is not None:
        with out.open("w", newline="", encoding="utf-8") as f:
            w = csv_mod.writer(f)
            w.writerow(["row", "label", "suggested", "p_label"])
            for i, g, s_, c in zip(r.suspects, r.given, r.suggested, r.self_confidence, strict=True):
                w.writerow([int(i), g, s_, f"{c:.4f}"])
        typer.echo(f"  wrote {out}")
    if not r.informative:
        typer.echo("warning: the classifier does not beat always answering the commonest label: the "
                   "features barely predict the labels, so the estimate says nothing about label noise",
                   err=True)
    elif cap < DEFAULT_THRESHOLD:
        typer.echo(f"warning: with this much label noise even anticausal data cannot reach the detect "
                   f"threshold ({cap:.3f} < {DEFAULT_THRESHOLD:g}): a 'causal' call from detect is not "
                   "evidence",
                   err=True)
