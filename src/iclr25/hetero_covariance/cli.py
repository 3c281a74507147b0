"""`iclr25 hetero_covariance ...`: fit a mean + full-covariance regressor on your own CSV.

    iclr25 hetero_covariance fit --csv data.csv --targets y1,y2,y3 --loss w2_pseudo --epochs 50
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
    """Commands: fit."""  # a callback keeps `fit` a subcommand (typer collapses a one-command app)


def _split_names(raw: str | None, option: str) -> list[str]:
    names = [" ".join(c.split()) for c in (raw or "").split(",") if c.strip()]  # as read_csv cleans headers
    if raw is not None and not names:
        raise UserError(f"{option}: no column names in {raw!r}")
    return names


def _separator(sep: str) -> str | None:
    if sep == "auto":
        return None
    if sep in ("tab", "\\t"):
        return "\t"
    if len(sep) != 1 or sep in "\"\r\n":
        raise UserError(f"--sep must be one character, 'tab' or 'auto', got {sep[:20]!r}")
    return sep


@app.command()
def fit(
    csv: Annotated[Path, typer.Option(help="CSV file with a header row")],
    targets: Annotated[str, typer.Option(help="comma-separated target columns (at least 2)")],
    inputs: Annotated[str | None, typer.Option(help="comma-separated input columns (default: all other "
                                                                  "numeric columns)")]
    = None,
    loss: Annotated[str, typer.Option(help="w2_pseudo | w2_exact | kl_calibrated | nll | nll_diag | "
                                           "beta_nll | faithful | tic | mse")] = "w2_pseudo",
    epochs: Annotated[int, count("training epochs", 100_000)] = 50,
    lr: Annotated[float, typer.Option(help="AdamW learning rate")] = 3e-4,
    batch_size: Annotated[int, count("mini-batch size", 1_000_000)] = 32,
    neighbours: Annotated[int, count("pseudo-label neighbourhood size k", 1_000_000)] = 50,
    test_fraction: Annotated[float, typer.Option(help="share of rows held out for the metrics (0: report on "
                                                      "the training rows)")] = 0.2,
    predictions: Annotated[Path | None, typer.Option(help="write per-row mean and covariance to this CSV")]
    = None,
    sep: Annotated[str, typer.Option(help="column separator: one character (e.g. ';' for the UCI wine "
                                          "files), 'tab', or 'auto' to detect it")] = ",",
    dropna: Annotated[bool, typer.Option(help="drop rows with missing or non-finite values in the chosen "
                                               "columns (default: refuse them)")] = False,
    seed: Seed = 0,
) -> None:
    """Fit HeteroscedasticRegressor on a CSV and print TAC, log-likelihood and MSE."""
    import numpy as np
    import pandas as pd

    from iclr25.core.runtime import pin_threads
    from iclr25.hetero_covariance.estimator import LOSSES, HeteroscedasticRegressor
    from iclr25.hetero_covariance.metrics import gaussian_ll, mse, tac

    pin_threads()
    if loss not in LOSSES:
        raise UserError(f"--loss: unknown loss {loss!r}; choose from {', '.join(LOSSES)}")
    if not csv.is_file():
        raise UserError(f"--csv: file not found: {csv}")
    if not 0.0 <= test_fraction < 1.0:
        raise UserError(f"--test-fraction must be in [0, 1), got {test_fraction}")
    finite(lr, "--lr", 0.0, 10.0, low_open=True)
    if predictions is not None:
        output_path(predictions, "--predictions")
    df = read_csv(csv, "--csv", sep=_separator(sep))
    y_cols = _split_names(targets, "--targets")
    unknown = [c for c in y_cols if c not in df.columns]
    if unknown:
        hint = ""
        if len(df.columns) == 1:
            found = [c for c in ";\t|" if c in str(df.columns[0])]
            hint = f"; the file has one column: try --sep {found[0]!r}" if found else "; try --sep auto"
        raise UserError(f"--targets: column {unknown[0]!r} not in {csv.name} "
                        f"(columns: {', '.join(map(str, df.columns))[:300]}){hint}")
    if len(y_cols) < 2:
        raise UserError(f"--targets: a full covariance needs at least 2 target columns, got {len(y_cols)} "
                        f"({y_cols[0]!r})")
    x_cols = _split_names(inputs, "--inputs") or [
        c for c in df.columns if c not in y_cols and pd.api.types.is_numeric_dtype(df[c])]
    unknown = [c for c in x_cols if c not in df.columns]
    if unknown:
        raise UserError(f"--inputs: column {unknown[0]!r} not in {csv.name}")
    if not x_cols:
        raise UserError("--inputs: no input columns left after removing the targets")
    bad = [c for c in x_cols + y_cols if not pd.api.types.is_numeric_dtype(df[c])]
    if bad:
        raise UserError(f"column {bad[0]!r} is not numeric")
    X, Y = df[x_cols].to_numpy(float), df[y_cols].to_numpy(float)
    bad_rows = ~(np.isfinite(X).all(1) & np.isfinite(Y).all(1))
    if bad_rows.any() and not dropna:
        first = int(np.argmax(bad_rows)) + 2  # 1-based line of the file, after the header
        raise UserError(f"{int(bad_rows.sum())} of {len(bad_rows)} rows of {csv.name} have missing or "
                        f"non-finite values in the chosen columns (first: line {first} of the file); clean "
                        f"them, or pass --dropna to fit on the other rows only")
    X, Y = X[~bad_rows], Y[~bad_rows]
    if len(Y) < 2:
        raise UserError(f"{csv.name}: fewer than 2 usable rows")

    rng = np.random.default_rng(seed)
    idx = rng.permutation(len(Y))
    n_test = int(round(test_fraction * len(Y)))
    test, train = (idx[:n_test], idx[n_test:]) if n_test else (idx, idx)
    reg = HeteroscedasticRegressor(loss=loss, epochs=epochs, lr=lr, batch_size=batch_size,
                                   k_neighbours=neighbours, random_state=seed)
    reg.fit(X[train], Y[train])
    mu, cov = reg.predict(X[test])
    where = f"{len(test)} held-out rows" if n_test else f"the {len(test)} training rows"
    typer.echo(f"loss={loss} epochs={epochs} inputs={len(x_cols)} targets={len(y_cols)} "
               f"train_rows={len(train)} time_per_epoch_s={np.mean(reg.history_.epoch_s):.3f}")
    typer.echo(f"on {where}: TAC={tac(mu, cov, Y[test]):.4f} LL={gaussian_ll(mu, cov, Y[test]):.4f} "
               f"MSE={mse(mu, Y[test]):.4f}")
    if predictions is not None:
        mu_all, cov_all = reg.predict(X)
        out = pd.DataFrame(mu_all, columns=[f"mean_{c}" for c in y_cols])
        out.insert(0, "row", np.flatnonzero(~bad_rows))  # 0-based data row in the CSV
        for i, a in enumerate(y_cols):
            for j, b in enumerate(y_cols[: i + 1]):
                out[f"cov_{a}_{b}"] = cov_all[:, i, j]
        out.to_csv(predictions, index=False)
        typer.echo(f"wrote {predictions}")
