"""`iclr25 pattern_cav ...`: fit a CAV from saved activations and labels, or compare all CAV methods."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from iclr25.core.io import output_path
from iclr25.core.options import Seed, count, finite

app = typer.Typer(help="Pattern-based CAVs (Pahde et al., ICLR 2025): fit and compare concept directions.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)

Method = Annotated[str, typer.Option(help="pattern | mean | fastcav | svm | ridge | lasso | logistic")]


def load_array(path: Path, what: str):
    """A .npy array, or the first array of a .npz (its 'acts'/'labels' key when present)."""
    import numpy as np

    from iclr25.core.io import read_array
    if path.suffix.lower() == ".npz" and path.is_file():
        try:
            with np.load(path, allow_pickle=False) as z:
                key = what if what in z.files else None
        except Exception:  # unreadable: read_array names the problem
            key = None
        return read_array(path, what, key=key)
    return read_array(path, what)


Folds = Annotated[int, count("cross-validation folds for the held-out AUC (fewer when a class is small)",
                             100, low=2)]


def _report(cav, method: str, acts, labels, true_direction: Path | None, gt_diffs: Path | None,
            folds: int, seed: int) -> dict[str, float]:
    import numpy as np

    from iclr25.pattern_cav.metrics import alignment, cosine, heldout_auc
    out: dict[str, float] = {}
    t = np.asarray(labels)
    if np.unique(t).size == 2:
        auc, k = heldout_auc(acts, labels, method, folds, seed)
        if k:  # held out: a CAV fit on the other folds scores each fold
            out[f"auc_{k}fold"] = auc
    if true_direction is not None:
        out["cos_true"] = cosine(cav, load_array(true_direction, "direction"))
    if gt_diffs is not None:
        out["alignment"] = alignment(cav, load_array(gt_diffs, "diffs"))
    return out


@app.command()
def fit(
    acts: Annotated[Path, typer.Option(help="activations (n, D) as .npy or .npz")],
    labels: Annotated[Path, typer.Option(help="concept labels (n,) as .npy: 0/1, or a strength for pattern")],
    method: Method = "pattern",
    out: Annotated[Path, typer.Option("--out", "-o", help="where to write the unit CAV (.npy)")] = Path(
        "cav.npy"),
    true_direction: Annotated[Path | None, typer.Option(help="known concept direction (D,) .npy")] = None,
    gt_diffs: Annotated[Path | None, typer.Option(help="per-sample a(x~) - a(x), (m, D) .npy")] = None,
    folds: Folds = 5,
    seed: Seed = 0,
) -> None:
    """Fit one CAV on all samples and write it; print its held-out (cross-validated) concept AUC for
    binary labels, and cos/alignment when ground truth is given."""
    import numpy as np

    from iclr25.core.runtime import atomic_write
    from iclr25.pattern_cav.cav import compute_cav
    output_path(out, "--out")
    a, t = load_array(acts, "acts"), load_array(labels, "labels")
    cav = compute_cav(a, t, method)
    with atomic_write(out) as f:
        np.save(f, cav.vector)
    scores = _report(cav, method, a, t, true_direction, gt_diffs, folds, seed)
    extra = "".join(f" {k}={v:.4f}" for k, v in scores.items())
    meta = "".join(f" {k}={v:g}" for k, v in cav.meta.items() if k not in ("n", "dim"))
    typer.echo(f"{method} CAV (D={cav.vector.size}, n={cav.meta['n']}){meta} -> {out}{extra}")


@app.command()
def compare(
    acts: Annotated[Path, typer.Option(help="activations (n, D) as .npy or .npz")],
    labels: Annotated[Path, typer.Option(help="binary concept labels (n,) as .npy")],
    true_direction: Annotated[Path | None, typer.Option(help="known concept direction (D,) .npy")] = None,
    gt_diffs: Annotated[Path | None, typer.Option(help="per-sample a(x~) - a(x), (m, D) .npy")] = None,
    methods: Annotated[str, typer.Option(help="comma-separated methods")] = (
        "pattern,svm,ridge,lasso,logistic"),
    folds: Folds = 5,
    seed: Seed = 0,
) -> None:
    """Fit several CAV methods on the same data and print held-out (cross-validated) AUC and alignment."""
    from iclr25.pattern_cav.cav import compute_cav
    a, t = load_array(acts, "acts"), load_array(labels, "labels")
    for m in [s.strip() for s in methods.split(",") if s.strip()]:
        cav = compute_cav(a, t, m)
        scores = _report(cav, m, a, t, true_direction, gt_diffs, folds, seed)
        typer.echo(f"{m:<9}" + "".join(f" {k}={v:.4f}" for k, v in scores.items()))


@app.command()
def toy(
    angle: Annotated[float, typer.Option(help="distractor rotation r in degrees")] = 45.0,
    seed: Seed = 0,
) -> None:
    """The paper's 2-D toy at one angle: cos(CAV, true direction) per method and the analytic filter cos."""
    import numpy as np

    from iclr25.pattern_cav.cav import compute_cav
    from iclr25.pattern_cav.metrics import cosine
    from iclr25.pattern_cav.toy import analytic_filter_cos, toy_data, true_direction
    finite(angle, "--angle", -360.0, 360.0)
    a, t = toy_data(angle, np.random.default_rng(seed))
    typer.echo(f"r={angle:g} deg, analytic LS filter cos={float(analytic_filter_cos(angle)):.3f}")
    for m in ("pattern", "svm", "ridge", "lasso", "logistic"):
        typer.echo(f"{m:<9} cos={cosine(compute_cav(a, t, m), true_direction()):.4f}")
