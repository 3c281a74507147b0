"""`iclr25 hetero_covariance ...`: fit a mean + full-covariance regressor on your own CSV, save it, and
apply it to new rows.

    iclr25 hetero_covariance fit --csv data.csv --targets y1,y2,y3 --loss w2_pseudo --epochs 50 -o model.pt
    iclr25 hetero_covariance predict --model model.pt --csv new.csv -o predictions.csv
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from iclr25.core.errors import UserError
from iclr25.core.io import output_path, read_csv
from iclr25.core.options import Seed, count, finite

app = typer.Typer(help="Heteroscedastic covariance (ToSS): W₂ bound + neighbourhood pseudo-labels.",
                  no_args_is_help=True, add_completion=False)


@app.callback()
def _group() -> None:
    """Commands: fit, predict."""


def _split_names(raw: str | None, option: str) -> list[str]:
    names = [" ".join(c.split()) for c in (raw or "").split(",") if c.strip()]  # as read_csv cleans headers
    if raw is not None and not names:
        raise UserError(f"{option}: no column names in {raw[:80]!r}")
    seen = set()
    for c in names:
        if c in seen:
            raise UserError(f"{option}: column {c[:80]!r} is named twice; give each column once")
        seen.add(c)
    return names


def _separator(sep: str) -> str | None:
    if sep == "auto":
        return None
    if sep in ("tab", "\\t"):
        return "\t"
    if len(sep) != 1 or sep in "\"\r\n":
        raise UserError(f"--sep must be one character, 'tab' or 'auto', got {sep[:20]!r}")
    return sep


def _missing(df, cols: list[str], option: str, csv: Path) -> None:
    unknown = [c for c in cols if c not in df.columns]
    if unknown:
        hint = ""
        if len(df.columns) == 1:
            found = [c for c in ";\t|" if c in str(df.columns[0])]
            hint = f"; the file has one column: try --sep {found[0]!r}" if found else "; try --sep auto"
        raise UserError(f"{option}: column {unknown[0][:80]!r} not in {csv.name} "
                        f"(columns: {', '.join(map(str, df.columns))[:300]}){hint}")


def _numeric_rows(df, cols: list[str], csv: Path, dropna: bool):
    """The chosen columns as a float matrix and the mask of usable rows (refused unless --dropna)."""
    import numpy as np
    import pandas as pd
    bad = [c for c in cols if not pd.api.types.is_numeric_dtype(df[c])]
    if bad:
        raise UserError(f"column {bad[0][:80]!r} of {csv.name} is not numeric")
    M = df[cols].to_numpy(float)
    ok = np.isfinite(M).all(1)
    if not ok.all() and not dropna:
        first = int(np.argmax(~ok)) + 2  # 1-based line of the file, after the header
        raise UserError(f"{int((~ok).sum())} of {len(ok)} rows of {csv.name} have missing or non-finite "
                        f"values in the chosen columns (first: line {first} of the file); clean them, or "
                        f"pass --dropna to fit on the other rows only")
    return M, ok


def _score_table(reg, X, Y, where: str, err: bool = False) -> None:
    """The model's scores beside its two baselines, each with its direction; warnings when it loses."""
    import functools
    echo = functools.partial(typer.echo, err=err)
    scores = reg.evaluate(X, Y)
    k = Y.shape[1]
    first = "TAC" if k > 1 else "MAE"
    echo(f"on {where} ({first} and MSE: lower is better; LL: higher is better; a calibrated "
               f"covariance has 50/90/95% of the rows inside its 50/90/95% ellipsoids"
               + ("; one target: TAC is the MAE of the mean" if k == 1 else "") + "):")
    echo(f"  {'model':<28}{first:>9}{'LL':>10}{'MSE':>10}{'inside 50/90/95%':>19}{'calib. err':>12}")
    names = {"model": f"{reg.loss} (this model)", "homoscedastic": "homoscedastic baseline",
             "constant": "constant-mean baseline"}
    for key, s in scores.items():
        inside = "/".join(f"{100 * v:.0f}" for v in s["coverage"].values()) + "%"
        echo(f"  {names[key]:<28}{s['tac']:>9.4f}{s['ll']:>10.4f}{s['mse']:>10.4f}{inside:>19}"
                   f"{s['calibration_error']:>12.3f}")
    echo("  (homoscedastic: the fitted mean with its training residuals' covariance for every row; "
               "constant: the training mean and covariance of the targets)")
    m, h, c = scores["model"], scores["homoscedastic"], scores["constant"]
    if m["ll"] <= h["ll"]:
        typer.echo(f"iclr25: warning: the predicted covariance does not beat the homoscedastic baseline on "
                   f"log-likelihood ({m['ll']:.4f} vs {h['ll']:.4f}): train longer (--epochs), or the noise "
                   f"may not depend on the inputs", err=True)
    if k > 1 and m["tac"] >= h["tac"]:
        typer.echo(f"iclr25: warning: TAC {m['tac']:.4f} is no better than the homoscedastic baseline's "
                   f"{h['tac']:.4f}", err=True)
    if m["mse"] >= c["mse"]:
        typer.echo(f"iclr25: warning: the predicted mean does not beat the constant mean (MSE "
                   f"{m['mse']:.4f} vs {c['mse']:.4f})", err=True)


def _write_predictions(reg, X, rows, path: Path) -> None:
    import numpy as np
    import pandas as pd

    from iclr25.core.runtime import atomic_write
    mu, cov = reg.predict(X)
    names = reg.target_names_
    out = pd.DataFrame(mu, columns=[f"mean_{c}" for c in names])
    out.insert(0, "row", np.asarray(rows))  # 0-based data row in the CSV
    for i, a in enumerate(names):
        for j, b in enumerate(names[: i + 1]):
            out[f"cov_{a}_{b}"] = cov[:, i, j]
    with atomic_write(path, "w") as f:
        out.to_csv(f, index=False)
    typer.echo(f"wrote {len(out)} rows of means and covariances to {path}", err=str(path) == "-")


@app.command()
def fit(
    csv: Annotated[Path, typer.Option(help="CSV file with a header row")],
    targets: Annotated[str, typer.Option(help="comma-separated target columns (one or more; each once)")],
    inputs: Annotated[str | None, typer.Option(help="comma-separated input columns (default: all other "
                                                                  "numeric columns)")]
    = None,
    loss: Annotated[str, typer.Option(help="w2_pseudo | w2_exact | kl_calibrated | nll | nll_diag | "
                                           "beta_nll | faithful | tic | mse")] = "w2_pseudo",
    epochs: Annotated[int, count("training epochs: passes over your training rows", 100_000)] = 50,
    lr: Annotated[float, typer.Option(help="AdamW learning rate")] = 3e-4,
    batch_size: Annotated[int, count("mini-batch size", 1_000_000)] = 32,
    neighbours: Annotated[int, count("pseudo-label neighbourhood size k", 1_000_000)] = 50,
    test_fraction: Annotated[float, typer.Option(help="share of rows held out for the metrics (0: report on "
                                                      "the training rows)")] = 0.2,
    out: Annotated[Path | None, typer.Option("-o", "--out", help="save the fitted model to this "
                                             "file (apply it with `predict`)")] = None,
    predictions: Annotated[Path | None, typer.Option(help="write every row's mean and covariance to this "
                                                          "CSV")] = None,
    sep: Annotated[str, typer.Option(help="column separator: one character (e.g. ';' for the UCI wine "
                                          "files), 'tab', or 'auto' to detect it")] = ",",
    dropna: Annotated[bool, typer.Option(help="drop rows with missing or non-finite values in the chosen "
                                               "columns (default: refuse them)")] = False,
    seed: Seed = 0,
) -> None:
    """Fit HeteroscedasticRegressor on a CSV; print TAC, log-likelihood, MSE and ellipsoid coverage beside
    the homoscedastic and constant baselines."""
    import numpy as np
    import pandas as pd

    from iclr25.core.runtime import pin_threads
    from iclr25.hetero_covariance.estimator import LOSSES, HeteroscedasticRegressor

    pin_threads()
    if loss not in LOSSES:
        raise UserError(f"--loss: unknown loss {loss[:40]!r}; choose from {', '.join(LOSSES)}")
    if not csv.is_file():
        raise UserError(f"--csv: file not found: {csv}")
    if not 0.0 <= test_fraction < 1.0:
        raise UserError(f"--test-fraction must be in [0, 1), got {test_fraction}")
    finite(lr, "--lr", 0.0, 10.0, low_open=True)
    for path, flag in ((out, "--out"), (predictions, "--predictions")):
        if path is not None and str(path) != "-":
            output_path(path, flag)
    if out is not None and predictions is not None and str(out) == str(predictions):
        raise UserError("--out (the model) and --predictions (a CSV) must be different files")
    df = read_csv(csv, "--csv", sep=_separator(sep))
    y_cols = _split_names(targets, "--targets")
    _missing(df, y_cols, "--targets", csv)
    x_cols = _split_names(inputs, "--inputs") or [
        c for c in df.columns if c not in y_cols and pd.api.types.is_numeric_dtype(df[c])]
    _missing(df, x_cols, "--inputs", csv)
    both = [c for c in x_cols if c in y_cols]
    if both:
        raise UserError(f"column {both[0][:80]!r} is both an input and a target")
    if not x_cols:
        raise UserError("--inputs: no input columns left after removing the targets")
    M, ok = _numeric_rows(df, x_cols + y_cols, csv, dropna)
    X, Y = M[ok, :len(x_cols)], M[ok, len(x_cols):]
    if len(Y) < 2:
        raise UserError(f"{csv.name}: fewer than 2 usable rows")

    rng = np.random.default_rng(seed)
    idx = rng.permutation(len(Y))
    n_test = int(round(test_fraction * len(Y)))
    test, train = (idx[:n_test], idx[n_test:]) if n_test else (idx, idx)
    if len(train) < len(y_cols) or len(train) < 2:
        raise UserError(f"{len(train)} training rows for {len(y_cols)} targets: lower --test-fraction")
    reg = HeteroscedasticRegressor(loss=loss, epochs=epochs, lr=lr, batch_size=batch_size,
                                   k_neighbours=neighbours, random_state=seed)
    reg.fit(pd.DataFrame(X[train], columns=x_cols), pd.DataFrame(Y[train], columns=y_cols))
    typer.echo(f"loss={loss} epochs={epochs} inputs={len(x_cols)} targets={len(y_cols)} "
               f"train_rows={len(train)} time_per_epoch_s={np.mean(reg.history_.epoch_s):.3f}")
    _score_table(reg, X[test], Y[test], f"{len(test)} held-out rows" if n_test else
                 f"the {len(test)} training rows")
    if out is not None:
        reg.save(out)
        typer.echo(f"saved the model to {out} (apply it: iclr25 hetero_covariance predict --model {out} "
                   f"--csv NEW.csv -o OUT.csv)")
    if predictions is not None:
        _write_predictions(reg, X, np.flatnonzero(ok), predictions)


@app.command()
def predict(
    model: Annotated[Path, typer.Option(help="a model saved by `fit -o`")],
    csv: Annotated[Path, typer.Option(help="CSV with the model's input columns (and, to score it, its "
                                           "target columns)")],
    out: Annotated[Path, typer.Option("-o", "--out", help="CSV of each row's mean and covariance entries "
                                                          "('-': standard output)")],
    sep: Annotated[str, typer.Option(help="column separator: one character, 'tab', or 'auto'")] = ",",
    dropna: Annotated[bool, typer.Option(help="skip rows with missing or non-finite inputs (default: "
                                              "refuse them)")] = False,
) -> None:
    """Apply a saved model to new rows: write each row's mean and covariance; when the file also has the
    target columns, print the scores beside the baselines."""
    import numpy as np

    from iclr25.core.runtime import pin_threads
    from iclr25.hetero_covariance.estimator import HeteroscedasticRegressor

    pin_threads()
    if str(out) != "-":
        output_path(out, "--out")
    reg = HeteroscedasticRegressor.load(model)
    if not csv.is_file():
        raise UserError(f"--csv: file not found: {csv}")
    df = read_csv(csv, "--csv", sep=_separator(sep))
    x_cols, y_cols = list(reg.feature_names_in_), list(reg.target_names_)
    _missing(df, x_cols, f"--csv (the model's inputs are {', '.join(x_cols)[:200]})", csv)
    X, ok = _numeric_rows(df, x_cols, csv, dropna)
    if not ok.any():
        raise UserError(f"{csv.name}: no usable rows")
    if all(c in df.columns for c in y_cols):
        Y, y_ok = _numeric_rows(df, y_cols, csv, True)
        rows = ok & y_ok
        if rows.any():
            _score_table(reg, X[rows], Y[rows], f"{int(rows.sum())} rows of {csv.name} with targets",
                         err=str(out) == "-")  # the CSV goes to standard output: the table to stderr
    _write_predictions(reg, X[ok], np.flatnonzero(ok), out)
