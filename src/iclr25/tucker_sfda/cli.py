"""`iclr25 tucker_sfda ...`: train a source model on your labelled series, decompose it once, adapt only its
cores to a user's unlabelled series, and count what that saves. Input: `.npz` with `X` (N, C, T) and
optional integer labels `y` (N,).

    iclr25 tucker_sfda train-source --source src.npz -o src.pt
    iclr25 tucker_sfda decompose --ckpt src.pt --rf 8 --source src.npz -o dec.pt
    iclr25 tucker_sfda adapt --ckpt dec.pt --target user.npz --method shot --tune core -o user.pt
    iclr25 tucker_sfda bench --ckpt src.pt --rf 2,4,8,16
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from iclr25.core.errors import UserError
from iclr25.core.io import output_path
from iclr25.core.options import Seed, count, finite

app = typer.Typer(help="Tucker-SFT: decompose a time-series CNN once, then adapt only its cores "
                       "(source-free).",
                  no_args_is_help=True, add_completion=False)

CKPT = (".pt", ".pth")
MAX_EPOCHS = 10_000
MAX_WIDTH = 2048  # conv widths, kernel, stride: far above any sensor model, far below a memory bomb
MAX_RF = 100_000
MAX_SERIES_SIZE = 1_000_000  # C·T of one series in `bench`


def _label_index(y, labels: list[int], what: str):
    import numpy as np
    lut = {v: i for i, v in enumerate(labels)}
    unknown = sorted(set(np.unique(y).tolist()) - set(lut))
    if unknown:
        raise UserError(f"{what}: label {unknown[0]} is not among the source labels {labels}")
    return np.array([lut[v] for v in y.tolist()], dtype=np.int64)


@app.command("train-source")
def train_source_cmd(
    source: Annotated[Path, typer.Option(help=".npz with X (N, C, T) and labels y (N,)")],
    out: Annotated[Path, typer.Option("-o", "--out", help="where to write the source checkpoint (.pt)")],
    epochs: Annotated[int, count("source epochs (CE, label smoothing 0.1)", MAX_EPOCHS)] = 15,
    kernel: Annotated[int, count("first conv's kernel size k", MAX_WIDTH)] = 5,
    stride: Annotated[int, count("first conv's stride", MAX_WIDTH)] = 1,
    mid: Annotated[int, count("width of block 1 (block 2 has 2·mid)", MAX_WIDTH)] = 64,
    final: Annotated[int, count("width of block 3 (the feature size)", MAX_WIDTH)] = 128,
    dropout: Annotated[float, typer.Option(help="dropout after block 1, in [0, 1)")] = 0.5,
    imputer: Annotated[bool, typer.Option(help="also train MAPU's temporal imputer (needed by --method "
                                               "mapu)")] = False,
    seed: Seed = 0,
) -> None:
    """Train the dense AdaTime CNN on labelled source series (z-normalised per channel)."""
    import numpy as np

    from iclr25.core.runtime import pin_threads
    from iclr25.tucker_sfda.checkpoint import Checkpoint
    from iclr25.tucker_sfda.data import Domain, channel_stats, load_npz, znorm
    from iclr25.tucker_sfda.training import SourceConfig, evaluate, train_source

    pin_threads()
    output_path(out, "-o checkpoint", CKPT)
    finite(dropout, "--dropout", 0.0, 0.99)
    d = load_npz(source, require_labels=True)
    labels = sorted(np.unique(d.y).tolist())
    if len(labels) < 2:
        raise UserError(f"{source.name}: need at least 2 classes, got {labels}")
    mean, std = channel_stats(d.X)
    d = znorm(Domain(d.X, _label_index(d.y, labels, source.name), d.name), mean, std)
    model, imp = train_source(d, SourceConfig(epochs=epochs, imputer=imputer), seed=seed, mid=mid,
                              final=final, k=kernel, stride=stride, dropout=dropout)
    Checkpoint(model, mean, std, labels, imp).save(out)
    typer.echo(f"trained on {len(d)} series ({d.X.shape[1]} channels, length {d.X.shape[2]}, "
               f"{len(labels)} classes), {epochs} epochs: source macro-F1 {evaluate(model, d):.3f}")
    typer.echo(f"wrote {out}")


@app.command()
def decompose(
    ckpt: Annotated[Path, typer.Option(help="dense source checkpoint from train-source")],
    source: Annotated[Path, typer.Option(help="labelled source .npz for the short fine-tuning")],
    out: Annotated[Path, typer.Option("-o", "--out", help="where to write the decomposed checkpoint")],
    rf: Annotated[int, count("rank factor RF: ranks = max(1, channels // RF)", MAX_RF)] = 8,
    finetune_epochs: Annotated[int, count("source epochs after decomposition (0: none)", MAX_EPOCHS,
                                          low=0)] = 2,
    min_channels: Annotated[int, count("modes with at most this many channels keep full rank", MAX_RF,
                                       low=0)] = 3,
    seed: Seed = 0,
) -> None:
    """Tucker-2 (HOSVD) every conv at rank factor RF, then fine-tune on source to recover accuracy."""
    from iclr25.core.runtime import pin_threads
    from iclr25.tucker_sfda.checkpoint import Checkpoint, is_decomposed, load_checkpoint
    from iclr25.tucker_sfda.data import Domain, load_npz, znorm
    from iclr25.tucker_sfda.efficiency import efficiency
    from iclr25.tucker_sfda.training import evaluate, finetune_source, select_trainable
    from iclr25.tucker_sfda.tucker import tucker_reparameterize

    pin_threads()
    output_path(out, "-o checkpoint", CKPT)
    ck = load_checkpoint(ckpt)
    if is_decomposed(ck.model):
        raise UserError(f"{ckpt} is already decomposed (RF {ck.rf}); decompose the dense source checkpoint")
    raw = load_npz(source, require_labels=True)
    if raw.X.shape[1] != ck.model.config.C:
        raise UserError(f"{source.name}: {raw.X.shape[1]} channels, the checkpoint expects "
                        f"{ck.model.config.C}")
    d = znorm(Domain(raw.X, _label_index(raw.y, ck.labels, source.name), raw.name), ck.mean, ck.std)
    dec = tucker_reparameterize(ck.model, rf, min_channels)
    before = evaluate(dec, d)
    finetune_source(dec, d, finetune_epochs, seed=seed, imputer=ck.imputer)
    C, T = ck.model.config.C, ck.model.config.T
    select_trainable(ck.model, "all")
    dense_e = efficiency(ck.model, (C, T))
    select_trainable(dec, "core")
    dec_e = efficiency(dec, (C, T))
    Checkpoint(dec, ck.mean, ck.std, ck.labels, ck.imputer, rf, min_channels).save(out)
    typer.echo(f"RF {rf}: source macro-F1 {evaluate(ck.model, d):.3f} dense, {before:.3f} right after HOSVD, "
               f"{evaluate(dec, d):.3f} after {finetune_epochs} fine-tuning epochs")
    typer.echo(f"cores (adapted on target): {dec_e.trainable:,} of {dense_e.trainable:,} extractor "
               f"parameters "
               f"({100 * dec_e.trainable / dense_e.trainable:.1f}%); MACs {dec_e.macs:,} vs {dense_e.macs:,} "
               f"({100 * dec_e.macs / dense_e.macs:.1f}%); size {dec_e.bytes / 1024:.0f} vs "
               f"{dense_e.bytes / 1024:.0f} KiB")
    typer.echo(f"wrote {out}")


ADAPT_TUNES = ("core", "core+bn", "all", "bn", "lora", "subset")


@app.command("adapt")
def adapt_cmd(
    ckpt: Annotated[Path, typer.Option(help="source checkpoint (decomposed for --tune core)")],
    target: Annotated[Path, typer.Option(help="target .npz with X (N, C, T); y, if present, is only used to "
                                              "report macro-F1")],
    method: Annotated[str, typer.Option(help="shot | shot_im | nrc | aad | mapu")] = "shot",
    tune: Annotated[str, typer.Option(help="core (SFT, decomposed checkpoint) | core+bn | all (full "
                                           "fine-tuning) | bn | lora (LoRA on every conv, ranks matched "
                                           "to --rf's core count) | subset (a random subset of the conv "
                                           "weights of that count)")] = "core",
    rf: Annotated[int, count("for --tune lora / subset: the rank factor whose core count the update "
                             "matches", MAX_RF)] = 8,
    out: Annotated[Path | None, typer.Option("-o", "--out", help="write the adapted checkpoint here")] = None,
    predictions: Annotated[Path | None, typer.Option(help="write per-series predictions to this CSV")] = None,
    epochs: Annotated[int, count("target epochs (passes over the target series)", MAX_EPOCHS)] = 10,
    lr: Annotated[float, typer.Option(help="Adam learning rate, in (0, 1]")] = 1e-4,
    batch_size: Annotated[int, count("mini-batch size", 1_000_000, low=2)] = 32,
    seed: Seed = 0,
) -> None:
    """Adapt to unlabelled target series, source-free: only the parameters --tune selects change.

    Prints the source-only model beside the adapted one — macro-F1 when the target file has labels y,
    and always the label-free information-maximisation score (mean prediction entropy − entropy of the
    mean prediction, lower is better) — and warns when adaptation made it worse. --tune lora and subset
    adapt a dense checkpoint with as many trainable entries as the cores at --rf."""
    from iclr25.core.runtime import pin_threads
    from iclr25.tucker_sfda.adapt import AdaptConfig, adapt
    from iclr25.tucker_sfda.checkpoint import Checkpoint, is_decomposed, load_checkpoint
    from iclr25.tucker_sfda.data import load_npz, znorm
    from iclr25.tucker_sfda.efficiency import delta_norm
    from iclr25.tucker_sfda.hosts import METHODS
    from iclr25.tucker_sfda.lora import add_lora, add_random_subset
    from iclr25.tucker_sfda.tucker import TuckerConv1d, tucker_reparameterize

    pin_threads()
    if method not in METHODS:
        raise UserError(f"--method: unknown method {method!r}; choose from {', '.join(METHODS)}")
    if tune not in ADAPT_TUNES:
        raise UserError(f"--tune: unknown mode {tune!r}; choose from {', '.join(ADAPT_TUNES)}")
    finite(lr, "--lr", 0.0, 1.0, low_open=True)
    if out is not None:
        output_path(out, "-o checkpoint", CKPT)
    if predictions is not None:
        output_path(predictions, "--predictions", (".csv",))
    ck = load_checkpoint(ckpt)
    raw = load_npz(target)
    if raw.X.shape[1] != ck.model.config.C:
        raise UserError(f"{target.name}: {raw.X.shape[1]} channels, the checkpoint expects "
                        f"{ck.model.config.C}")
    d = znorm(raw, ck.mean, ck.std)
    y = None if raw.y is None else _label_index(raw.y, ck.labels, target.name)
    model = ck.model
    if tune in ("lora", "subset"):
        if is_decomposed(model):
            raise UserError(f"--tune {tune} adapts a dense checkpoint; {ckpt} is decomposed (RF {ck.rf})")
        dec = tucker_reparameterize(model, rf, ck.min_channels)
        budgets = {n: m.core.weight.numel() for n, m in dec.named_modules() if isinstance(m, TuckerConv1d)}
        if tune == "lora":
            model = add_lora(model, budgets)
        else:
            model = add_random_subset(model, sum(budgets.values()), seed)
    res = adapt(model, d.X, method, tune, AdaptConfig(epochs=epochs, lr=lr, batch_size=batch_size),
                imputer=ck.imputer, seed=seed)
    typer.echo(f"{method}, tune={tune}: adapted {res.trainable:,} parameters on {len(d)} series; "
               f"loss {res.losses[0]:.4f} -> {res.losses[-1]:.4f}; "
               f"‖ΔW‖_F = {delta_norm(ck.model, res.model):.4f}")
    _report(ck.model, res.model, d.X, y, ck.labels, target.name, predictions)
    if out is not None:
        adapted = res.model
        if tune in ("lora", "subset"):
            from iclr25.tucker_sfda.lora import merge_deltas
            adapted = merge_deltas(adapted)  # a plain dense checkpoint, as the source was
        Checkpoint(adapted, ck.mean, ck.std, ck.labels, ck.imputer, ck.rf, ck.min_channels).save(out)
        typer.echo(f"wrote {out}")


def _report(source, adapted, X, y, labels: list, name: str, predictions: Path | None) -> None:
    """The source-only model beside the adapted one on the target series (macro-F1 when labels are known,
    the label-free information-maximisation score always), a warning when adaptation made it worse, and
    the per-series predictions."""
    import numpy as np
    import torch

    from iclr25.tucker_sfda.hosts import information_maximisation
    from iclr25.tucker_sfda.training import macro_f1, predict_logits

    X = torch.as_tensor(X, dtype=torch.float32)
    before, after = predict_logits(source, X), predict_logits(adapted, X)
    im = [float(information_maximisation(z.softmax(1), 1.0, 1.0)) for z in (before, after)]
    changed = float((before.argmax(1) != after.argmax(1)).float().mean())
    typer.echo(f"information-maximisation score (lower is better): source-only {im[0]:.4f}, adapted "
               f"{im[1]:.4f}; {changed:.1%} of predictions changed")
    if y is not None:
        f1 = [macro_f1(y, z.argmax(1).numpy()) for z in (before, after)]
        majority = np.bincount(y, minlength=len(labels)).argmax()
        chance = macro_f1(y, np.full_like(y, majority))
        typer.echo(f"macro-F1 on {name}: source-only {f1[0]:.3f}, adapted {f1[1]:.3f} (one class "
                   f"for all: {chance:.3f})")
        if f1[1] < f1[0]:
            typer.echo(f"warning: adaptation lowered macro-F1 on {name} ({f1[0]:.3f} -> {f1[1]:.3f}); "
                       "the source-only model is better here", err=True)
    elif im[1] > im[0]:
        typer.echo("warning: adaptation made the label-free score worse than the source-only model's "
                   f"({im[0]:.4f} -> {im[1]:.4f}); without labels nothing shows that it helped", err=True)
    if predictions is not None:
        import pandas as pd
        prob = after.softmax(1).numpy()
        pd.DataFrame({"row": np.arange(len(prob)), "label": np.asarray(labels)[prob.argmax(1)],
                      "confidence": prob.max(1)}).to_csv(predictions, index=False)
        typer.echo(f"wrote {predictions}")


@app.command("adapt-model")
def adapt_model_cmd(
    module: Annotated[str, typer.Option(help="your model: 'file.py:factory' or 'package.module:factory' "
                                             "(called with no arguments, returns an nn.Module whose convs "
                                             "are nn.Conv1d and whose head is an nn.Linear)")],
    target: Annotated[Path, typer.Option(help="target .npz with X (N, C, T) as your model reads it (no "
                                              "normalisation is applied); y, if present, only reports F1")],
    weights: Annotated[Path | None, typer.Option(help="the source-trained state dict (torch.save of "
                                                      "state_dict())")] = None,
    head: Annotated[str | None, typer.Option(help="name of the classifier submodule (default: the last "
                                                  "nn.Linear); frozen, its input are the features")] = None,
    source: Annotated[Path | None, typer.Option(help="labelled source .npz (X, y with y in 0..classes-1) for "
                                                     "the short fine-tuning after decomposition (it trains "
                                                     "factors, cores, BN and head, as the paper's source "
                                                     "side does)")] = None,
    rf: Annotated[int, count("rank factor RF of the Tucker decomposition (and of the LoRA / subset "
                             "budget)", MAX_RF)] = 8,
    finetune_epochs: Annotated[int, count("source epochs after decomposition (needs --source)", MAX_EPOCHS,
                                          low=0)] = 2,
    method: Annotated[str, typer.Option(help="shot | shot_im | nrc | aad (MAPU needs its imputer: "
                                             "AdaTime checkpoints only)")] = "shot",
    tune: Annotated[str, typer.Option(help="core (SFT) | core+bn | all | bn | lora | subset")] = "core",
    out: Annotated[Path | None, typer.Option(
        "-o", "--out", help="write the adapted weights as a state dict of YOUR architecture (.pt): Tucker "
                            "factors folded back into dense convs")] = None,
    torchscript: Annotated[Path | None, typer.Option(
        help="also export the adapted dense model as TorchScript (traced on one target series)")] = None,
    predictions: Annotated[Path | None, typer.Option(help="write per-series predictions to this CSV")] = None,
    epochs: Annotated[int, count("target epochs (passes over the target series)", MAX_EPOCHS)] = 10,
    lr: Annotated[float, typer.Option(help="Adam learning rate, in (0, 1]")] = 1e-4,
    batch_size: Annotated[int, count("mini-batch size", 1_000_000, low=2)] = 32,
    seed: Seed = 0,
) -> None:
    """Adapt YOUR PyTorch classifier to unlabelled target series: decompose its Conv1d layers (Tucker-2 at
    --rf), optionally fine-tune on --source, train only what --tune selects with the host objective, and
    export the result with your architecture (plain convs) as a state dict and, if asked, TorchScript."""
    import torch

    from iclr25.core.runtime import atomic_write, pin_threads
    from iclr25.tucker_sfda.adapt import AdaptConfig, adapt
    from iclr25.tucker_sfda.data import load_npz
    from iclr25.tucker_sfda.efficiency import delta_norm, trainable_count
    from iclr25.tucker_sfda.hosts import METHODS
    from iclr25.tucker_sfda.lora import add_lora, add_random_subset
    from iclr25.tucker_sfda.training import evaluate, finetune_source, select_trainable
    from iclr25.tucker_sfda.tucker import TuckerConv1d, tucker_reparameterize
    from iclr25.tucker_sfda.usermodel import UserModel, load_module, to_dense

    pin_threads()
    if method not in METHODS or method == "mapu":
        raise UserError(f"--method: choose from shot, shot_im, nrc, aad for your own model, got {method!r}")
    if tune not in ADAPT_TUNES:
        raise UserError(f"--tune: unknown mode {tune!r}; choose from {', '.join(ADAPT_TUNES)}")
    finite(lr, "--lr", 0.0, 1.0, low_open=True)
    for path, flag, suffixes in ((out, "-o", CKPT), (torchscript, "--torchscript", (".pt", ".ts")),
                                 (predictions, "--predictions", (".csv",))):
        if path is not None:
            output_path(path, flag, suffixes)
    raw = load_npz(target)
    src_data = None if source is None else load_npz(source, require_labels=True)
    model = UserModel(load_module(module, weights), channels=raw.X.shape[1], head=head)
    classes = model.config.classes
    y = None if raw.y is None else raw.y.astype("int64")
    if y is not None and (y.min() < 0 or y.max() >= classes):
        raise UserError(f"{target.name}: labels must be in 0..{classes - 1} (the head's outputs)")
    try:
        model.eval()(torch.from_numpy(raw.X[:2]))
    except Exception as e:
        raise UserError(f"your model does not run on {target.name}'s series {tuple(raw.X.shape[1:])}: "
                        f"{type(e).__name__}: {str(e).splitlines()[0][:120]}") from None
    source_model = model
    select_trainable(model, "all")
    n_all = trainable_count(model)
    if tune in ("core", "core+bn"):
        model = tucker_reparameterize(model, rf)
        if src_data is not None and finetune_epochs:
            finetune_source(model, src_data, finetune_epochs, seed=seed)
            typer.echo(f"decomposed at RF {rf}; source macro-F1 {evaluate(source_model, src_data):.3f} "
                       f"dense, {evaluate(model, src_data):.3f} after {finetune_epochs} fine-tuning epochs")
        else:
            typer.echo(f"decomposed at RF {rf} (no --source: no fine-tuning to recover the truncation)")
    elif tune in ("lora", "subset"):
        dec = tucker_reparameterize(model, rf)
        budgets = {n: m.core.weight.numel() for n, m in dec.named_modules() if isinstance(m, TuckerConv1d)}
        if tune == "lora":
            model = add_lora(model, budgets)
        else:
            model = add_random_subset(model, sum(budgets.values()), seed)
    res = adapt(model, raw.X, method, tune, AdaptConfig(epochs=epochs, lr=lr, batch_size=batch_size),
                seed=seed)
    dense = to_dense(res.model)
    typer.echo(f"{method}, tune={tune}: adapted {res.trainable:,} of {n_all:,} feature-extractor parameters "
               f"on {len(raw.X)} series; ‖ΔW‖_F = {delta_norm(source_model, dense):.4f}")
    _report(source_model, dense, raw.X, y, list(range(classes)), target.name, predictions)
    if out is not None:
        with atomic_write(out) as f:
            torch.save(dense.net.state_dict(), f)
        typer.echo(f"wrote {out} (load it with your factory's model.load_state_dict)")
    if torchscript is not None:
        traced = torch.jit.trace(dense.net.eval(), torch.from_numpy(raw.X[:1]))
        with atomic_write(torchscript) as f:
            torch.jit.save(traced, f)
        typer.echo(f"wrote {torchscript} (torch.jit.load)")


@app.command()
def bench(
    rf: Annotated[str, typer.Option(help="comma-separated rank factors")] = "2,4,8,16",
    ckpt: Annotated[Path | None, typer.Option(help="dense checkpoint (default: a fresh model of --channels, "
                                                   "--length, --classes)")] = None,
    channels: Annotated[int, count("input channels C (without --ckpt)", 4096)] = 3,
    length: Annotated[int, count("series length T (without --ckpt)", 100_000)] = 128,
    classes: Annotated[int, count("number of classes (without --ckpt)", 100_000, low=2)] = 5,
    latency: Annotated[bool, typer.Option(help="also time inference at batch 1 and 64 (1 thread)")] = True,
) -> None:
    """Trainable parameters, MACs, bytes (and latency) of the decomposed model at each RF vs dense."""
    import time

    import torch

    from iclr25.core.runtime import pin_threads
    from iclr25.tucker_sfda.checkpoint import is_decomposed, load_checkpoint
    from iclr25.tucker_sfda.efficiency import efficiency
    from iclr25.tucker_sfda.model import AdaTimeCNN
    from iclr25.tucker_sfda.training import select_trainable
    from iclr25.tucker_sfda.tucker import tucker_reparameterize

    pin_threads()
    try:
        rfs = [int(v) for v in rf.split(",") if v.strip()]
    except ValueError:
        raise UserError(f"--rf: expected comma-separated integers, got {rf!r}") from None
    if not rfs:
        raise UserError("--rf: no rank factor given")
    for r in rfs:
        if not 1 <= r <= MAX_RF:
            raise UserError(f"--rf: rank factors must be integers in [1, {MAX_RF}], got {r}")
    if ckpt is not None:
        dense = load_checkpoint(ckpt).model
        if is_decomposed(dense):
            raise UserError(f"{ckpt} is decomposed; bench compares against the dense source checkpoint")
    else:
        if channels * length > MAX_SERIES_SIZE:  # the batch-64 latency input alone would not fit in memory
            raise UserError(f"--channels × --length must be at most {MAX_SERIES_SIZE:,}, got "
                            f"{channels * length:,}")
        dense = AdaTimeCNN(channels, length, classes)
    C, T = dense.config.C, dense.config.T

    def ms(model, batch: int) -> float:
        x = torch.randn(batch, C, T)
        model.eval()
        with torch.no_grad():
            model(x)
            times = []
            for _ in range(5):
                t0 = time.perf_counter()
                model(x)
                times.append(time.perf_counter() - t0)
        return 1e3 * sorted(times)[2]

    select_trainable(dense, "all")
    e0 = efficiency(dense, (C, T))
    lat0 = (ms(dense, 1), ms(dense, 64)) if latency else None
    typer.echo(f"input ({C}, {T}); dense: {e0.trainable:,} extractor parameters, {e0.macs:,} MACs, "
               f"{e0.bytes / 1024:.0f} KiB"
               + (f", {lat0[0]:.2f} / {lat0[1]:.1f} ms at batch 1 / 64" if lat0 else ""))
    header = "RF   cores  %params       MACs  %MACs    KiB" + ("  lat1/dense  lat64/dense" if latency else "")
    typer.echo(header)
    for r in rfs:
        dec = tucker_reparameterize(dense, r)
        select_trainable(dec, "core")
        e = efficiency(dec, (C, T))
        line = (f"{r:<3} {e.trainable:>6,} {100 * e.trainable / e0.trainable:>7.2f} {e.macs:>10,} "
                f"{100 * e.macs / e0.macs:>6.2f} {e.bytes / 1024:>6.0f}")
        if lat0:
            line += f"  {ms(dec, 1) / lat0[0]:>10.2f}  {ms(dec, 64) / lat0[1]:>11.2f}"
        typer.echo(line)
