"""`iclr25 pattern_cav ...`: fit a CAV from saved activations and labels, or compare all CAV methods."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from iclr25.core.io import output_path
from iclr25.core.options import Seed, count, finite
from iclr25.pattern_cav.usermodel import SPEC_HELP

app = typer.Typer(help="Pattern-based CAVs (Pahde et al., ICLR 2025): fit and compare concept directions.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)

Method = Annotated[str, typer.Option(help="pattern | mean | fastcav | svm | ridge | lasso | logistic")]


FORMATS = "a NumPy .npy/.npz array or a numeric .csv/.tsv (one row per sample)"


def load_array(path: Path, what: str):
    """A .npy array, the first array of a .npz (its 'acts'/'labels' key when present), or a numeric
    .csv/.tsv/.txt table (one row per sample, an optional header row). Anything else is refused with one
    line that names the formats read."""
    import numpy as np

    from iclr25.core.errors import UserError
    from iclr25.core.io import read_array
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv", ".txt"):
        return _read_table(path, what)
    if suffix not in (".npy", ".npz"):
        raise UserError(f"{what} file {path}: expected {FORMATS}, got a {suffix or 'suffix-less'} file")
    key = None
    if suffix == ".npz" and path.is_file():
        try:
            with np.load(path, allow_pickle=False) as z:
                key = what if what in z.files else None
        except Exception:  # unreadable: read_array names the problem
            key = None
    try:
        return read_array(path, what, key=key)
    except UserError as e:
        if "pickle" in str(e) or "cannot read" in str(e):
            raise UserError(f"{what} file {path} is not a readable NumPy {suffix} file; expected "
                            f"{FORMATS}") from None
        raise


def _read_table(path: Path, what: str):
    """A numeric table: comma, tab or whitespace separated; a first row that is not numbers is a header."""
    import numpy as np

    from iclr25.core.errors import UserError
    from iclr25.core.io import check_array
    if not path.is_file():
        raise UserError(f"{what} file not found: {path}")
    if path.stat().st_size > 2 << 30:
        raise UserError(f"{what} file {path} is larger than 2 GiB; save it as .npy instead")
    with open(path, encoding="utf-8", errors="replace") as f:
        first = f.readline()
    delim = "," if "," in first else "\t" if "\t" in first else None
    cells = [c.strip() for c in (first.split(delim) if delim else first.split())]
    try:
        [float(c) for c in cells if c]
        skip = 0
    except ValueError:
        skip = 1  # a header row
    import warnings
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an empty file: refused below, in one line
            a = np.loadtxt(path, delimiter=delim, skiprows=skip, ndmin=2, dtype=np.float64)
    except ValueError as e:
        raise UserError(f"{what} file {path}: expected a numeric table, one row per sample, every cell a "
                        f"number ({str(e).splitlines()[0][:100]})") from None
    if a.size == 0:
        raise UserError(f"{what} file {path} holds no numbers; expected a numeric table, one row per sample")
    a = a[:, 0] if a.shape[1] == 1 else a
    return check_array(a, f"{what} ({path})")


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
    acts: Annotated[Path, typer.Option(help="activations (n, D): .npy, .npz or a numeric .csv (one row per "
                                            "sample)")],
    labels: Annotated[Path, typer.Option(help="concept labels (n,): 0/1, or a strength for pattern; .npy or "
                                              "a one-column .csv")],
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
    acts: Annotated[Path, typer.Option(help="activations (n, D): .npy, .npz or a numeric .csv")],
    labels: Annotated[Path, typer.Option(help="binary concept labels (n,): .npy or a one-column .csv")],
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


@app.command()
def score(
    cav: Annotated[Path, typer.Option(help="a CAV written by `fit` (.npy), or any (D,) direction")],
    acts: Annotated[Path, typer.Option(help="new activations (n, D) of the same layer: .npy, .npz or .csv")],
    labels: Annotated[Path | None, typer.Option(help="optional 0/1 concept labels (n,): print the AUC")
                      ] = None,
    out: Annotated[Path | None, typer.Option("-o", "--out", help="write one concept score per row (CSV: "
                                             "row, score)")] = None,
) -> None:
    """Concept scores CAV·a of new activations (how strongly each sample expresses the concept); with
    labels, the concept-detection AUC beside chance (0.5)."""
    import numpy as np

    from iclr25.core.errors import UserError
    from iclr25.core.runtime import atomic_write
    from iclr25.pattern_cav.cav import check_acts, check_labels
    from iclr25.pattern_cav.metrics import auc
    if out is not None:
        output_path(out, "--out", (".csv",))
    v = np.asarray(load_array(cav, "cav"), dtype=np.float64).ravel()
    a = check_acts(load_array(acts, "acts"))
    if a.shape[1] != v.size:
        raise UserError(f"the CAV has {v.size} dims but the activations have {a.shape[1]} columns; score the "
                        "layer (and reduction) the CAV was fit on")
    if not np.any(v):
        raise UserError(f"{cav} is the zero vector: it has no direction to score along")
    s = a @ (v / np.linalg.norm(v))
    typer.echo(f"{s.size} samples scored along the CAV: mean {s.mean():.4g}, sd {s.std():.4g}, "
               f"min {s.min():.4g}, max {s.max():.4g}")
    if labels is not None:
        t = check_labels(load_array(labels, "labels"), a.shape[0], binary=True)
        value = auc(t, s)
        typer.echo(f"concept AUC {value:.4f} (chance 0.5; {int(t.sum())} concept / {int((1 - t).sum())} "
                   "other)")
        if value <= 0.5:
            typer.echo("warning: the scores do not separate concept from other samples better than chance",
                       err=True)
    if out is not None:
        with atomic_write(out, "w") as f:
            f.write("row,score\n")
            f.writelines(f"{i},{x:.9g}\n" for i, x in enumerate(s))
        typer.echo(f"scores -> {out}")


Model = Annotated[str, typer.Option(help=SPEC_HELP)]
Weights = Annotated[Path | None, typer.Option(help="the model's state_dict (.pt), read with "
                                                   "weights_only=True")]
Layer = Annotated[str, typer.Option(help="the probed module's name (as in model.named_modules())")]


@app.command()
def tcav(
    model: Model,
    layer: Layer,
    inputs: Annotated[Path, typer.Option(help="inputs to test (n, ...) as the model takes them, .npy")],
    target_class: Annotated[int, typer.Option(help="the class whose logit is differentiated", min=0)],
    cav: Annotated[list[Path] | None, typer.Option(help="CAV(s) to score (.npy; repeatable)")] = None,
    acts: Annotated[Path | None, typer.Option(help="concept activations (n, D) for a bank of CAVs tested "
                                                   "against random CAVs (with --labels)")] = None,
    labels: Annotated[Path | None, typer.Option(help="0/1 concept labels of --acts")] = None,
    bank: Annotated[int, count("CAVs in the concept bank and random CAVs (with --acts)", 100, low=2)] = 10,
    method: Method = "pattern",
    aggregate: Annotated[str, typer.Option(help="position (count every spatial position: the paper's code) "
                                                "| mean (average the gradient over positions first)")
                         ] = "position",
    weights: Weights = None,
    seed: Seed = 0,
) -> None:
    """TCAV: the share of inputs whose TARGET_CLASS logit grows along the CAV (0.5 = no preference);
    with --acts/--labels, a bank of CAVs from random halves of the concept data is t-tested against CAVs
    of random splits (the paper's significance test)."""
    import numpy as np

    from iclr25.core.errors import UserError
    from iclr25.core.runtime import pin_threads
    from iclr25.pattern_cav.sensitivity import (
        AGGREGATES,
        cav_bank,
        directional_derivatives,
        layer_gradients,
        random_cavs,
        tcav_score,
        tcav_test,
    )
    from iclr25.pattern_cav.usermodel import load_model
    if aggregate not in AGGREGATES:
        raise UserError(f"--aggregate must be position or mean, got {aggregate!r}")
    if not cav and acts is None:
        raise UserError("give --cav (one or more CAV files) or --acts with --labels (a concept bank)")
    if (acts is None) != (labels is None):
        raise UserError("--acts and --labels go together (the concept's activations and their 0/1 labels)")
    pin_threads()
    net = load_model(model, weights)
    x = load_array(inputs, "inputs").astype(np.float32)
    g = layer_gradients(net, layer, x, target_class)
    typer.echo(f"TCAV of class {target_class} at {layer} on {len(x)} inputs ({aggregate}; 0.5 = no "
               "preference):")
    for path in cav or []:
        v = np.asarray(load_array(path, "cav"), dtype=np.float64).ravel()
        typer.echo(f"  {path.name:<24} {tcav_score(directional_derivatives(g, v, aggregate)):.3f}")
    if acts is not None:
        a, t = load_array(acts, "acts"), load_array(labels, "labels")
        rng = np.random.default_rng(seed)
        concept = [tcav_score(directional_derivatives(g, c, aggregate))
                   for c in cav_bank(a, t, bank, method, rng=rng)]
        rand = [tcav_score(directional_derivatives(g, c, aggregate))
                for c in random_cavs(a, bank, method, rng)]
        p = tcav_test(concept, rand)
        typer.echo(f"  concept bank ({bank} {method} CAVs) {np.mean(concept):.3f} +- {np.std(concept):.3f}; "
                   f"random CAVs {np.mean(rand):.3f} +- {np.std(rand):.3f}; Welch t-test p = {p:.3g} "
                   f"({'significant' if p < 0.05 else 'not significant'} at 0.05)")


@app.command()
def correct(
    model: Model,
    layer: Layer,
    cav: Annotated[Path, typer.Option(help="the artifact's CAV at LAYER (.npy, from `fit`)")],
    inputs: Annotated[Path, typer.Option(help="training inputs (n, ...) .npy: RR-ClArC fine-tunes on them; "
                                              "P-ClArC takes its reference mean from them (give inputs "
                                              "without the artifact)")],
    labels: Annotated[Path, typer.Option(help="their class labels (n,) as integers, .npy or .csv")],
    method: Annotated[str, typer.Option(help="rr (RR-ClArC: fine-tune the layers after LAYER) | p (P-ClArC: "
                                             "project the activations, no training)")] = "rr",
    test_inputs: Annotated[Path | None, typer.Option(help="inputs to evaluate before and after (default: "
                                                          "--inputs)")] = None,
    test_labels: Annotated[Path | None, typer.Option(help="their class labels")] = None,
    artifact_inputs: Annotated[Path | None, typer.Option(help="inputs that carry the artifact (.npy), for "
                                                              "the artifact relevance")] = None,
    artifact_masks: Annotated[Path | None, typer.Option(help="where the artifact is in them: a 0/1 .npy of "
                                                             "the same shape")] = None,
    target_class: Annotated[int | None, typer.Option(help="class whose relevance is measured (default: "
                                                          "the model's prediction per input)", min=0)] = None,
    lam: Annotated[float, typer.Option(help="RR-ClArC weight lambda (its scale depends on the model's "
                                            "gradient magnitudes: try 1e6-1e9)")] = 1e7,
    epochs: Annotated[int, count("RR-ClArC fine-tuning passes over --inputs", 1000)] = 5,
    lr: Annotated[float, typer.Option(help="RR-ClArC learning rate (Adam)")] = 1e-3,
    weights: Weights = None,
    seed: Seed = 0,
    out: Annotated[Path | None, typer.Option("-o", "--out", help="write the corrected state_dict here (.pt; "
                                             "RR-ClArC only)")] = None,
) -> None:
    """Remove a shortcut with a CAV and show whether it worked: accuracy before and after, and the share of
    attribution (Gradient x Input) that falls on the artifact before and after (the paper's evidence)."""
    import copy

    import numpy as np
    import torch

    from iclr25.core.errors import UserError
    from iclr25.core.runtime import atomic_write, pin_threads
    from iclr25.pattern_cav.activations import collect_activations
    from iclr25.pattern_cav.clarc import ProjectiveClArC, RRClArCConfig, reference_mean, rr_clarc
    from iclr25.pattern_cav.relevance import artifact_relevance
    from iclr25.pattern_cav.usermodel import load_model
    if method not in ("rr", "p"):
        raise UserError(f"--method must be rr or p, got {method!r}")
    if out is not None and method != "rr":
        raise UserError("-o writes RR-ClArC's fine-tuned weights; P-ClArC changes no weights (drop -o)")
    if (artifact_inputs is None) != (artifact_masks is None):
        raise UserError("--artifact-inputs and --artifact-masks go together")
    if (test_inputs is None) != (test_labels is None):
        raise UserError("--test-inputs and --test-labels go together")
    finite(lam, "--lam", 0.0)
    finite(lr, "--lr", 0.0, 10.0, low_open=True)
    if out is not None:
        output_path(out, "--out", (".pt",))
    pin_threads()
    net = load_model(model, weights)
    x = load_array(inputs, "inputs").astype(np.float32)
    y = _class_labels(load_array(labels, "labels"), len(x))
    xt = load_array(test_inputs, "test inputs").astype(np.float32) if test_inputs else x
    yt = _class_labels(load_array(test_labels, "test labels"), len(xt)) if test_labels else y
    v = np.asarray(load_array(cav, "cav"), dtype=np.float64).ravel()
    xa = ma = None
    if artifact_inputs is not None:
        xa = load_array(artifact_inputs, "artifact inputs").astype(np.float32)
        ma = load_array(artifact_masks, "artifact masks").astype(bool)

    def report(m, name: str) -> None:
        with torch.no_grad():
            acc = float((m(torch.as_tensor(xt)).argmax(1).numpy() == yt).mean())
        line = f"{name:<10} accuracy {acc:.3f}"
        if xa is not None:
            with torch.no_grad():
                pred = m(torch.as_tensor(xa)).argmax(1).numpy()
            cls = pred if target_class is None else np.full(len(xa), target_class)
            shares = np.concatenate([artifact_relevance(m, xa[cls == c], ma[cls == c], int(c))
                                     for c in np.unique(cls)])
            line += (f"; relevance on the artifact {np.nanmean(shares):.3f} (artifact area "
                     f"{ma.mean():.3f}: a model that ignores it is near this)")
        typer.echo(line)

    majority = float(np.mean(yt == np.bincount(y).argmax()))
    typer.echo(f"baseline: always the training majority class, accuracy {majority:.3f}")
    report(net, "before")
    if method == "p":
        reduce = "flatten" if v.size == _flat(net, layer, x) else "max"
        m0 = reference_mean(v, collect_activations(net, layer, x, reduce=reduce))
        with ProjectiveClArC(net, layer, v, m0):
            report(net, "P-ClArC")
        return
    corrected = rr_clarc(copy.deepcopy(net), layer, v, x, y, RRClArCConfig(lam=lam, epochs=epochs, lr=lr,
                                                                          optimizer="adam", seed=seed))
    report(corrected.eval(), "RR-ClArC")
    if out is not None:
        import io
        buf = io.BytesIO()
        torch.save(corrected.state_dict(), buf)
        with atomic_write(out) as f:
            f.write(buf.getvalue())
        typer.echo(f"corrected weights -> {out}")


def _class_labels(a, n: int):
    import numpy as np

    from iclr25.core.errors import UserError
    a = np.asarray(a).ravel()
    if a.size != n:
        raise UserError(f"{a.size} labels for {n} inputs; lengths must match")
    if not np.all(a == np.round(a)) or a.min() < 0:
        raise UserError("class labels must be non-negative integers (0, 1, 2, ...)")
    return a.astype(np.int64)


def _flat(net, layer: str, x) -> int:
    """The size of one flattened activation of LAYER (to tell a flattened CAV from a per-channel one)."""
    from iclr25.pattern_cav.activations import collect_activations
    return int(collect_activations(net, layer, x[:1], reduce="flatten").shape[1])
