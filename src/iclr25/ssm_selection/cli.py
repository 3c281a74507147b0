"""`iclr25 ssm_selection ...`: fit an SSM+FNN sequence classifier on your own sequences, apply it to new
ones, explain it with gradient × input, and run the paper's synthetic tasks.

    iclr25 ssm_selection fit --csv seqs.csv --seq-col seq --label-col y --model ssmfnn3 --compare tf2 \
        -o model.pt
    iclr25 ssm_selection predict --model model.pt --csv new.csv -o predictions.csv
    iclr25 ssm_selection saliency --model model.pt --csv seqs.csv -o sal.csv --plot sal.png
    iclr25 ssm_selection run --task ar --models ssm1,ssmfnn3,tf2 --sizes 4,8 --steps 3000 -o runs/ar
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from iclr25.core.errors import UserError
from iclr25.core.io import output_dir, output_path
from iclr25.core.options import Seed, count, finite

app = typer.Typer(help="SSM token selection: LTI SSM + FNN sequence models that select tokens as "
                       "attention does (Nishikawa & Suzuki, ICLR 2025).",
                  no_args_is_help=True, add_completion=False)

SPLITS = ("auto", "char", "space")
TASKS = ("ar", "copy", "regression")
CHECKPOINT_VERSION = 2  # 2: the CSV column names and the training labels' majority class are stored
MAX_STEPS, MAX_WIDTH, MAX_TEST = 1_000_000, 1024, 100_000
# A sequence longer than this many tokens is refused before any work: a 5 MB field made one 5M-token
# sequence (6.2 GB of activations; issue #49). The SSM layer runs a 16k-token sequence in ~0.5 s.
MAX_TOKENS = 16_384
MAX_CELLS = 20_000_000  # sequences × longest sequence: the padded id matrix
# --sizes caps per task: AR pairs (keys are distinct, |K| = 32), copy lengths, regression sample sizes
MAX_SIZE = {"ar": 32, "copy": 128, "regression": 200_000}


def _read_sequences(csv: Path, seq_col: str, label_col: str | None, split: str, label_optional: bool = False):
    """(sequences as strings, labels or None, the token split: None for characters, " " for words).
    `label_optional`: a missing label column gives None instead of an error."""
    from iclr25.core.io import read_csv

    if split not in SPLITS:
        raise UserError(f"--split: unknown value {split[:40]!r}; choose from {', '.join(SPLITS)}")
    df = read_csv(csv, "--csv", dtype=str, keep_default_na=False)
    if label_optional and label_col not in df.columns:
        label_col = None
    for option, col in (("--seq-col", seq_col), ("--label-col", label_col)):
        if col is not None and col not in df.columns:
            cols = ", ".join(map(str, df.columns))[:200]
            raise UserError(f"{option}: column {col[:40]!r} not in {csv.name} (columns: {cols})")
    seqs = [s.strip() for s in df[seq_col]]
    empty = [i for i, s in enumerate(seqs) if not s]
    if empty:
        raise UserError(f"{csv.name}: empty sequence in row {empty[0] + 2} of the file")
    sep = (" " if any(" " in s for s in seqs) else None) if split == "auto" else (
        " " if split == "space" else None)
    lengths = [len(s.split(sep)) if sep else len(s) for s in seqs]
    longest = max(lengths)
    if longest > MAX_TOKENS:
        row = lengths.index(longest) + 2
        raise UserError(f"{csv.name}: row {row} holds a sequence of {longest:,} tokens; the limit is "
                        f"{MAX_TOKENS:,} tokens per sequence")
    if longest * len(seqs) > MAX_CELLS:
        raise UserError(f"{csv.name}: {len(seqs):,} sequences × {longest:,} tokens exceed the limit of "
                        f"{MAX_CELLS:,} padded tokens; split the file")
    labels = None
    if label_col is not None:
        labels = [v.strip() for v in df[label_col]]
        missing = [i for i, v in enumerate(labels) if not v]
        if missing and not label_optional:
            raise UserError(f"{csv.name}: missing label in row {missing[0] + 2} of the file")
    return seqs, labels, sep


@app.command()
def fit(
    csv: Annotated[Path, typer.Option(help="CSV with a header row: one sequence and one label per row")],
    out: Annotated[Path, typer.Option("-o", "--out", help="where to save the trained model (.pt)")],
    seq_col: Annotated[str, typer.Option(help="column holding the sequences")] = "seq",
    label_col: Annotated[str, typer.Option(help="column holding the class labels")] = "y",
    model: Annotated[str, typer.Option(help="ssm1 | fnnssmfnn | ssmfnn<k> | tf<k> | mlp<k>, suffixes "
                                            "-causal, -s4d")] = "ssmfnn3",
    compare_with: Annotated[str | None, typer.Option(
        "--compare", help="also train this model on the same split and print both (e.g. tf2)")] = None,
    split: Annotated[str, typer.Option(help="tokens: auto (space-separated if any sequence has a space, "
                                            "else one character each) | char | space")] = "auto",
    steps: Annotated[int, count("training steps (batch 128, AdamW 1e-3)", MAX_STEPS)] = 1000,
    width: Annotated[int, count("model width d", MAX_WIDTH)] = 64,
    pool: Annotated[str, typer.Option(help="readout: mean over the tokens (default: shift-invariant, where "
                                           "the evidence sits anywhere) | last token")] = "mean",
    window: Annotated[int | None, count("SSM window U in lags, >= 1 (default: the longest sequence, "
                                        "so every position sees the whole sequence)", 1_000_000)] = None,
    test_fraction: Annotated[float, typer.Option(help="share of rows held out for the test accuracy, "
                                                      "in (0, 1)")] = 0.2,
    seed: Seed = 0,
    d_old: Annotated[int | None, typer.Option("--d", hidden=True)] = None,
) -> None:
    """Train a sequence classifier on a CSV, print its test accuracy beside the majority-class baseline,
    and save it for `predict` and `saliency`.

    20% of the rows are held out for the test accuracy, 10% of the rest for early stopping."""
    import torch

    from iclr25.core.runtime import atomic_write, pin_threads
    from iclr25.ssm_selection.models import build_model
    from iclr25.ssm_selection.tasks import SeqData, encode_text
    from iclr25.ssm_selection.train import TrainConfig, evaluate, train

    pin_threads()
    if d_old is not None:
        width = _in_range(d_old, "--d", 1, MAX_WIDTH)
    finite(test_fraction, "--test-fraction", 0.0, 1.0, low_open=True)
    if test_fraction >= 1.0:
        raise UserError(f"--test-fraction must be below 1, got {test_fraction}")
    output_path(out, "-o (model file)")
    names = [model] + ([compare_with] if compare_with else [])
    seqs, labels, sep = _read_sequences(csv, seq_col, label_col, split)
    classes = sorted(set(labels))
    if len(classes) < 2:
        raise UserError(f"--label-col {label_col!r}: needs at least 2 classes, found {classes}")
    x, alphabet = encode_text(seqs, split=sep)
    y = torch.tensor([classes.index(v) for v in labels])
    data = SeqData(x, y, "classify", len(classes), vocab=len(alphabet) + 1)
    rest, test = data.split(test_fraction, seed)
    fit_set, val = rest.split(0.1, seed) if len(rest) >= 20 else (rest, None)
    kwargs = {"vocab": data.vocab, "n_out": len(classes), "length": data.length, "d": width, "pool": pool,
              "window": window}
    models = {n: build_model(n, **kwargs) for n in names}  # validates every name before training
    majority = int(torch.bincount(fit_set.y, minlength=len(classes)).argmax())
    baseline = float((test.y == majority).float().mean())
    typer.echo(f"{len(data)} sequences (longest {data.length} tokens, {len(alphabet)} token types), "
               f"{len(classes)} classes; train {len(fit_set)}, validation {len(val) if val else 0}, "
               f"test {len(test)}")
    typer.echo(f"majority-class baseline (always {classes[majority]!r}): test accuracy {baseline:.4f}")
    for name, net in models.items():
        torch.manual_seed(seed)
        res = train(net, fit_set, TrainConfig(steps=steps, seed=seed, eval_every=50 if val else 0), val=val,
                    description=f"training {name}")
        acc = evaluate(net, test)["accuracy"]
        typer.echo(f"{name}: test accuracy {acc:.4f} vs majority baseline {baseline:.4f} "
                   f"({net.n_params():,} parameters, best step {res.best_step}/{res.steps}, "
                   f"{res.seconds:.1f} s)")
        if acc <= baseline:
            hint = "more --steps" + (", --pool mean" if pool != "mean" else "") + " or a shorter --window"
            typer.echo(f"warning: {name} does not beat the majority-class baseline on the test rows "
                       f"({acc:.4f} ≤ {baseline:.4f}); try {hint}", err=True)
    checkpoint = {"version": CHECKPOINT_VERSION, "model": model, "kwargs": kwargs, "alphabet": alphabet,
                  "split": sep, "classes": classes, "state_dict": models[model].state_dict(),
                  "seq_col": seq_col, "label_col": label_col, "majority_class": classes[majority]}
    with atomic_write(out) as f:
        torch.save(checkpoint, f)
    typer.echo(f"wrote {out}")


def _in_range(v: int, flag: str, low: int, high: int) -> int:
    if not low <= v <= high:
        raise UserError(f"{flag} must be in [{low}, {high:,}], got {v}")
    return v


def load_checkpoint(path: Path):
    """(model in eval mode, checkpoint dict) from a file written by `fit`."""
    import torch

    from iclr25.ssm_selection.models import build_model

    if not path.is_file():
        raise UserError(f"--model: file not found: {path}")
    try:
        ck = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises RuntimeError, UnpicklingError, EOFError, BadZipFile, ...
        first = (str(e).splitlines() or [type(e).__name__])[0][:80]
        raise UserError(f"--model: {path} is not a model saved by 'fit' ({first})") from None
    keys = {"model", "kwargs", "alphabet", "split", "classes", "state_dict"}
    if not isinstance(ck, dict) or ck.get("version") not in (1, CHECKPOINT_VERSION) or not keys <= set(ck):
        raise UserError(f"--model: {path} is not a model saved by 'iclr25 ssm_selection fit'")
    ck.setdefault("seq_col", "seq")  # version 1 did not store the columns
    ck.setdefault("label_col", "y")
    ck.setdefault("majority_class", None)
    try:
        net = build_model(ck["model"], **ck["kwargs"])
        net.load_state_dict(ck["state_dict"])
    except (TypeError, RuntimeError, AttributeError) as e:
        first = (str(e).splitlines() or [type(e).__name__])[0][:80]
        raise UserError(f"--model: {path} does not hold a model 'fit' saved ({first})") from None
    return net.eval(), ck


def _encode_for(ck: dict, csv: Path, seq_col: str | None, need_labels: bool = False):
    """A CSV's sequences encoded with a fitted model's alphabet and token split (the sequence column
    defaults to the one `fit` read): (ids, sequences as strings, labels — from fit's label column when
    `need_labels` and the CSV has it — or None)."""
    from iclr25.ssm_selection.tasks import encode_text

    split = "space" if ck["split"] == " " else "char"
    label_col = ck["label_col"] if need_labels else None
    seqs, labels, _ = _read_sequences(csv, seq_col or ck["seq_col"], label_col, split, label_optional=True)
    x, _ = encode_text(seqs, alphabet=ck["alphabet"], split=ck["split"])
    if x.shape[1] > ck["kwargs"]["length"]:
        raise UserError(f"sequences of {x.shape[1]} tokens are longer than the model's "
                        f"{ck['kwargs']['length']} (the longest sequence 'fit' saw)")
    return x, seqs, labels


@app.command()
def predict(
    model: Annotated[Path, typer.Option(help="a model saved by 'fit'")],
    csv: Annotated[Path, typer.Option(help="CSV with the sequences to classify (a header row)")],
    out: Annotated[Path, typer.Option("-o", "--out", help="output CSV: row, predicted class, its "
                                                           "probability, one probability column per class")],
    seq_col: Annotated[str | None, typer.Option(help="column holding the sequences (default: the one "
                                                     "'fit' read)")] = None,
) -> None:
    """Classify new sequences with a fitted model. When the CSV also has the label column 'fit' read, the
    accuracy is printed beside the majority-class baseline."""
    import pandas as pd
    import torch

    from iclr25.core.runtime import pin_threads
    from iclr25.ssm_selection.train import predict as forward

    pin_threads()
    output_path(out, "-o (predictions)")
    net, ck = load_checkpoint(model)
    x, seqs, labels = _encode_for(ck, csv, seq_col, need_labels=True)
    from iclr25.ssm_selection.tasks import SeqData
    probs = forward(net, SeqData(x, torch.zeros(len(x), dtype=torch.long), "classify", len(ck["classes"]),
                                 vocab=net.vocab)).softmax(-1)
    pred = probs.argmax(-1)
    classes = ck["classes"]
    df = pd.DataFrame({"row": range(len(seqs)), "predicted": [classes[int(i)] for i in pred],
                       "probability": probs.max(-1).values.numpy()})
    for i, c in enumerate(classes):
        df[f"p_{c}"] = probs[:, i].numpy()
    df.to_csv(out, index=False)
    counts = df["predicted"].value_counts()
    typer.echo(f"{len(seqs)} sequences: " + ", ".join(f"{c} {int(counts.get(c, 0))}" for c in classes))
    if labels is not None:
        known = [i for i, v in enumerate(labels) if v in classes]
        if known:
            acc = sum(df["predicted"][i] == labels[i] for i in known) / len(known)
            line = f"accuracy on the {len(known)} labelled rows: {acc:.4f}"
            if ck["majority_class"] is not None:
                base = sum(labels[i] == ck["majority_class"] for i in known) / len(known)
                line += f" vs majority-class baseline {base:.4f} (always {ck['majority_class']!r})"
                if acc <= base:
                    typer.echo("warning: the model does not beat the majority-class baseline on these rows",
                               err=True)
            typer.echo(line)
    typer.echo(f"wrote {out}")


@app.command()
def saliency(
    model: Annotated[Path, typer.Option(help="a model saved by 'fit'")],
    csv: Annotated[Path, typer.Option(help="CSV with the sequences to explain")],
    out: Annotated[Path, typer.Option("-o", "--out", help="output CSV: sequence, position, token, saliency")],
    seq_col: Annotated[str | None, typer.Option(help="column holding the sequences (default: the one "
                                                     "'fit' read)")] = None,
    plot: Annotated[Path | None, typer.Option(help="also draw a heat map (PNG) of up to 30 sequences, "
                                                   "tokens written in the cells")] = None,
    top_k: Annotated[int, count("k for the printed top-k saliency share", 100_000)] = 6,
) -> None:
    """Gradient × input token importance of a fitted model for each sequence of a CSV."""
    import pandas as pd
    import torch

    from iclr25.core.runtime import pin_threads
    from iclr25.ssm_selection.saliency import saliency as grad_x_input
    from iclr25.ssm_selection.saliency import selection_sparsity

    pin_threads()
    output_path(out, "-o (saliency table)")
    if plot is not None:
        output_path(plot, "--plot", suffixes=(".png",))
    net, ck = load_checkpoint(model)
    x, seqs, _ = _encode_for(ck, csv, seq_col)
    with torch.no_grad():
        pred = net(x).argmax(-1)
    s = grad_x_input(net, x)
    rows, tokens = [], []
    for i, text in enumerate(seqs):
        toks = text.split(ck["split"]) if ck["split"] else list(text)
        tokens.append(toks)
        rows += [{"sequence": i, "position": t, "token": tok, "saliency": float(s[i, t]),
                  "predicted": ck["classes"][int(pred[i])]} for t, tok in enumerate(toks)]
    pd.DataFrame(rows).to_csv(out, index=False)
    rep = selection_sparsity(s, top_k)
    typer.echo(f"{len(seqs)} sequences: mean top-{top_k} saliency share {rep['top_k_share']:.3f} "
               f"(uniform {rep['uniform_share']:.3f}), argmax position std {rep['argmax_std']:.1f}")
    typer.echo(f"wrote {out}")
    if plot is not None:
        saliency_map(plot, s[:30], tokens[:30], [ck["classes"][int(p)] for p in pred[:30]])
        typer.echo(f"wrote {plot}")


def saliency_map(path: Path, s, tokens: list[list[str]], predicted: list[str]) -> None:
    """One row per sequence: each position's share of the sequence's |gradient × input| as a colour, its
    token written in the cell (up to 120 positions), the predicted class beside the row, a colour bar."""
    import matplotlib
    import numpy as np

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    m = s.numpy().astype(float)
    m = m / np.maximum(m.sum(1, keepdims=True), 1e-30)
    n, length = m.shape
    show_tokens = length <= 120
    fig, ax = plt.subplots(figsize=(min(24.0, max(6.0, 0.22 * length + 2)), 0.32 * n + 1.6))
    im = ax.imshow(np.ma.masked_where(m == 0, m), aspect="auto", cmap="magma", interpolation="nearest")
    if show_tokens:
        top = np.nanmax(m) or 1.0
        for i, toks in enumerate(tokens):
            for t, tok in enumerate(toks[:length]):
                ax.text(t, i, tok[:3], ha="center", va="center", fontsize=6,
                        color="black" if m[i, t] > 0.6 * top else "white")
    ax.set_yticks(range(n), [f"#{i} → {p}" for i, p in enumerate(predicted)], fontsize=7)
    ax.set(xlabel="position", title="gradient × input per token (share of each sequence's total)")
    fig.colorbar(im, ax=ax, fraction=0.03, pad=0.01, label="share of |gradient × input|")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


@app.command()
def run(
    task: Annotated[str, typer.Option(help="ar (associative recall) | copy | regression (dynamic token "
                                           "selection)")] = "ar",
    models: Annotated[str | None, typer.Option(help="comma-separated model names (default: the task's "
                                                    "comparison set)")] = None,
    sizes: Annotated[str | None, typer.Option(help="comma-separated sizes: AR pairs N (default 4,8), copy "
                                                   "lengths L (8,16), regression sample sizes n "
                                                   "(500,2000,8000)")] = None,
    steps: Annotated[int, count("training steps per run (batch 128, AdamW 1e-3)", MAX_STEPS)] = 1000,
    n_seeds: Annotated[int, count("seeds per (model, size)", 100)] = 1,
    n_test: Annotated[int, count("fresh test instances", MAX_TEST)] = 2000,
    out: Annotated[Path, typer.Option("-o", "--out", help="folder for results.csv and the plot")] \
    = Path("runs/ssm_selection"),
    seeds_old: Annotated[int | None, typer.Option("--seeds", hidden=True)] = None,
) -> None:
    """Compare models on one of the paper's synthetic tasks; writes results.csv and a plot."""
    from iclr25.core.runtime import pin_threads
    from iclr25.ssm_selection.tasks import make_associative_recall, make_copy, make_selection_regression
    from iclr25.ssm_selection.train import compare

    pin_threads()
    seeds = _in_range(seeds_old, "--seeds", 1, 100) if seeds_old is not None else n_seeds
    if task not in TASKS:
        raise UserError(f"--task: unknown task {task[:40]!r}; choose from {', '.join(TASKS)}")
    # AR: the causal Transformer, as in the reproduction (the two-sided one had not learnt AR in 1,000 steps)
    defaults = {"ar": ("ssm1,fnnssmfnn,ssmfnn3,tf2-causal", "4,8"),
                "copy": ("ssmfnn3,ssm1,tf2-causal", "8,16"),
                "regression": ("ssmfnn3,tf2,ssm1,mlp4", "500,2000,8000")}[task]
    names = [m.strip() for m in (models or defaults[0]).split(",") if m.strip()]
    try:
        size_list = [int(v) for v in (sizes or defaults[1]).split(",") if v.strip()]
    except ValueError:
        raise UserError(f"--sizes: expected comma-separated integers, got {sizes[:40]!r}") from None
    if not names or not size_list:
        raise UserError("--models and --sizes must each name at least one value")
    if min(size_list) < 1:
        raise UserError(f"--sizes must be positive, got {min(size_list)}")
    if task != "ar" and max(size_list) > MAX_SIZE[task]:  # AR: the generator names the n_keys bound
        raise UserError(f"--sizes: {task} sizes go up to {MAX_SIZE[task]:,}, got {max(size_list):,}")
    output_dir(out, "--out")
    fn = {"ar": lambda s, n, seed: make_associative_recall(n, s, 32, 32, seed=seed),
          "copy": lambda s, n, seed: make_copy(n, s, seed=seed),
          "regression": lambda s, n, seed: make_selection_regression(n, seed=seed)}[task]
    fn(size_list[0], 2, 0)  # bad sizes fail here, before any training
    from iclr25.ssm_selection.models import build_model
    for name in names:
        build_model(name, vocab=8, n_out=2)  # unknown names fail before training
    size_name = {"ar": "n_pairs", "copy": "length", "regression": "n"}[task]
    df = compare(names, fn, size_list, steps=steps, seeds=range(seeds), n_test=n_test,
                 online=task != "regression", size_name=size_name)
    df.to_csv(out / "results.csv", index=False)
    metric = "excess_risk" if task == "regression" else "accuracy"
    summary = df.groupby(["model", size_name])[metric].mean().unstack(size_name)
    typer.echo(f"mean test {metric} ({seeds} seed(s), {steps} steps):\n{summary.round(4).to_string()}")
    _plot_run(df, size_name, metric, out / f"{task}.png")
    typer.echo(f"wrote {out / 'results.csv'} and {out / f'{task}.png'}")


def _plot_run(df, size_name: str, metric: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.5))
    for name, g in df.groupby("model"):
        m = g.groupby(size_name)[metric].mean()
        ax.plot(m.index, m.values, marker="o", label=name)
    ax.set(xlabel=size_name, ylabel=metric)
    if metric == "excess_risk":
        ax.set(xscale="log", yscale="log")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
