"""`iclr25 imagefolder ...`: train the ImageFolder tokenizer and its folded AR model on your own images,
sample class-conditional images, and look at coarse-prefix reconstructions.

    iclr25 imagefolder train-tokenizer --images my_images/ -o tok.pt
    iclr25 imagefolder train-ar --tokenizer tok.pt --images my_images/ -o ar.pt
    iclr25 imagefolder sample --tokenizer tok.pt --ar ar.pt --class shirt --n 64 -o grid.png
    iclr25 imagefolder sample --tokenizer tok.pt --ar ar.pt --balanced --n 1000 -o grid.png --npz s.npz
    iclr25 imagefolder score --real my_images/ --fake s.npz
    iclr25 imagefolder reconstruct --tokenizer tok.pt --images my_images/ --n-scales 2 -o recon.png

IMAGES is a folder of PNG/JPEG files of one size (one sub-folder per class gives the labels) or an .npz
with `images` (N, H, W[, C]) and optional `labels` (N,)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated

import typer

from iclr25.core.errors import UserError
from iclr25.core.io import output_path
from iclr25.core.options import Seed, count, finite

app = typer.Typer(help="ImageFolder: dual-branch multi-scale tokenizer + folded next-scale AR generator.",
                  no_args_is_help=True, add_completion=False)

ImagesOpt = Annotated[Path, typer.Option("--images", help="folder of images (class sub-folders = labels) "
                                                          "or an .npz with 'images' and optional 'labels'")]


MAX_SCALE = 16  # K <= 16 (the paper's K is 11): the encoder attends over branches * K^2 latent tokens
MAX_STEPS = 10_000_000
StepsOpt = Annotated[int | None, count("optimiser steps in all (overrides --epochs)", MAX_STEPS)]
EpochsOpt = Annotated[int, count("passes over your images (ignored when --steps is given)", 10_000)]


def _out(help_: str):  # noqa: ANN202 - a typer option
    return typer.Option("-o", "--out", help=help_)


def _parse_scales(raw: str) -> tuple[int, ...]:
    try:
        scales = tuple(int(s) for s in raw.split(",") if s.strip())
    except ValueError:
        raise UserError(f"--scales must be comma-separated integers, got {raw[:40]!r}") from None
    if not scales:
        raise UserError(f"--scales needs at least one integer, got {raw[:40]!r}")
    if max(scales) > MAX_SCALE or len(scales) > MAX_SCALE:
        raise UserError(f"--scales: at most {MAX_SCALE} scales of side <= {MAX_SCALE}, got {raw[:40]}")
    return scales


@app.command("train-tokenizer")
def train_tokenizer(
    images: ImagesOpt,
    out: Annotated[Path, _out("where to save the tokenizer (.pt)")],
    branches: Annotated[int, count("token branches (2 = ImageFolder, 1 = VAR tokenizer)", 8)] = 2,
    scales: Annotated[str, typer.Option(help="token-map sides, coarse to fine, never decreasing (the paper's "
                                             "1,1,2,3,3,4,5,6,8,11 repeats sides); the last is K")]
    = "1,2,3,4",
    latent_size: Annotated[int | None, count("K, the latent grid side (default: the last scale)", MAX_SCALE)]
    = None,
    codebook: Annotated[int, count("codewords per branch (V)", 65_536, low=2)] = 256,
    dim: Annotated[int, count("codebook dimension d", 1024)] = 16,
    width: Annotated[int, count("ViT width, a multiple of 4 (= the teacher feature size)", 2048)] = 64,
    depth: Annotated[int, count("ViT layers in encoder and decoder", 48)] = 2,
    patch: Annotated[int, count("patch side in pixels; must divide the image size", 512)] = 7,
    semantic: Annotated[str, typer.Option(help="semantic InfoNCE on the 'last' branch, 'all' or 'none' "
                                               "(needs labels: trains our CNN teacher)")] = "last",
    qdrop: Annotated[float, typer.Option(help="share of each batch hit by quantizer dropout, in [0, 1]")]
    = 0.1,
    start_drop: Annotated[int, count("dropout keeps at least this many scales", MAX_SCALE)] = 2,
    epochs: EpochsOpt = 2,
    steps: StepsOpt = None,
    batch_size: Annotated[int, count("mini-batch size", 65_536, low=2)] = 64,
    lr: Annotated[float, typer.Option(help="AdamW peak learning rate, in (0, 10]")] = 2e-3,
    gan_weight: Annotated[float, typer.Option(help="adversarial loss weight in [0, 100] (patch "
                                                   "discriminator, hinge loss, VQGAN's adaptive weight); 0 = "
                                                   "off")] = 0.0,
    gan_start: Annotated[int, count("step at which the adversarial loss starts", MAX_STEPS, low=0)] = 0,
    ema: Annotated[float, typer.Option(help="keep and save the exponential moving average of the weights "
                                            "with this decay in [0, 1), e.g. 0.999; 0 = off")] = 0.0,
    seed: Seed = 0,
) -> None:
    """Train the multi-scale residual tokenizer and save it."""
    from iclr25.core.runtime import pin_threads
    from iclr25.imagefolder.data import load_images
    from iclr25.imagefolder.metrics import psnr
    from iclr25.imagefolder.tokenizer import MSRQTokenizer

    pin_threads()
    output_path(out, "--out", (".pt",))
    finite(qdrop, "--qdrop", 0.0, 1.0)
    finite(lr, "--lr", 0.0, 10.0, low_open=True)
    finite(gan_weight, "--gan-weight", 0.0, 100.0)
    finite(ema, "--ema", 0.0, 0.999999)
    if semantic not in ("last", "all", "none"):
        raise UserError(f"--semantic must be last, all or none, got {semantic[:40]!r}")
    tok = MSRQTokenizer(branches, _parse_scales(scales), codebook, dim, width, depth, patch,
                        None if semantic == "none" else semantic, qdrop, start_drop, latent_size=latent_size,
                        epochs=epochs, batch_size=batch_size, lr=lr, seed=seed, steps=steps,
                        gan_weight=gan_weight, gan_start=gan_start, ema=ema)
    data = load_images(images)
    if tok.config.semantic and data.labels is None:
        raise UserError(f"--semantic {semantic} needs class labels ({images} has none: use class "
                        "sub-folders or a 'labels' array) or --semantic none")
    typer.echo(f"{len(data)} images {tuple(data.images.shape[1:])}, "
               f"{data.num_classes or 'no'} classes; {tok.config.positions} positions x {branches} tokens")
    tok.fit(data.images, data.labels)
    tok.save(out)
    x = data.images[:500]
    ours, base = psnr(tok.reconstruct(x), x), _mean_image_psnr(data.images, x)
    typer.echo(f"train reconstruction on {len(x)} images: PSNR {ours:.2f} dB (higher is better; the mean "
               f"image, a constant predictor: {base:.2f} dB); {tok.history_.steps} steps, "
               f"{tok.history_.seconds:.0f} s; wrote {out}")
    if not ours > base:
        typer.echo("warning: the tokenizer does not reconstruct better than the mean image: train longer "
                   "(--steps) or check the images", err=True)


def _mean_image_psnr(train, x) -> float:  # noqa: ANN001 - image arrays
    """PSNR of the trivial reconstruction: every image replaced by the mean training image."""
    import numpy as np

    from iclr25.imagefolder.metrics import psnr
    return psnr(np.broadcast_to(train.mean(0, keepdims=True), x.shape).copy(), x)


@app.command("train-ar")
def train_ar(
    tokenizer: Annotated[Path, typer.Option(help="a tokenizer saved by train-tokenizer")],
    images: ImagesOpt,
    out: Annotated[Path, _out("where to save the AR model (.pt)")],
    depth: Annotated[int, count("transformer blocks", 48)] = 3,
    width: Annotated[int, count("transformer width, a multiple of 4", 4096)] = 128,
    unfold: Annotated[bool, typer.Option("--unfold", help="one position per token (the baseline)")] = False,
    epochs: EpochsOpt = 2,
    steps: StepsOpt = None,
    batch_size: Annotated[int, count("mini-batch size", 65_536)] = 128,
    lr: Annotated[float, typer.Option(help="AdamW peak learning rate, in (0, 10]")] = 8e-3,
    seed: Seed = 0,
) -> None:
    """Train the class-conditional next-scale AR model (folded by default) on the tokenizer's codes."""
    from iclr25.core.runtime import pin_threads
    from iclr25.imagefolder.data import load_images
    from iclr25.imagefolder.tokenizer import MSRQTokenizer
    from iclr25.imagefolder.var import FoldedVAR

    pin_threads()
    output_path(out, "--out", (".pt",))
    finite(lr, "--lr", 0.0, 10.0, low_open=True)
    tok = MSRQTokenizer.load(tokenizer)
    data = load_images(images)
    n_classes = max(1, data.num_classes)
    names = data.classes if data.classes and len(data.classes) == n_classes else None
    ar = FoldedVAR(tok, n_classes, depth, width, fold=not unfold, class_names=names)
    typer.echo(f"{len(data)} images, {n_classes} class(es); {ar.positions} positions per image "
               f"({'unfolded' if unfold else 'folded'})")
    ar.fit(data.images, data.labels, epochs=epochs, batch_size=batch_size, lr=lr, seed=seed, steps=steps)
    ar.save(out)
    loss = ar.history_["loss"][-1]
    unigram = _unigram_entropy(tok.encode(data.images[:2000]), tok.config.codebook)
    typer.echo(f"final cross-entropy {loss:.3f} nats per token (lower is better; chance ln V = "
               f"{math.log(tok.config.codebook):.3f}, the tokens' own frequencies {unigram:.3f}); "
               f"{ar.history_['seconds']:.0f} s; wrote {out}")
    if not loss < unigram:
        typer.echo("warning: the AR model predicts no better than the token frequencies: train longer "
                   "(--steps) or check the tokenizer", err=True)


def _unigram_entropy(codes, vocab: int) -> float:  # noqa: ANN001 - codes[branch][scale]
    """Entropy (nats) of the token frequencies: the loss of a model that ignores class and context."""
    import numpy as np
    flat = np.concatenate([c.numpy().ravel() for cb in codes for c in cb])
    p = np.bincount(flat, minlength=vocab) / len(flat)
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


@app.command()
def sample(
    tokenizer: Annotated[Path, typer.Option(help="the tokenizer the AR model was trained on")],
    ar: Annotated[Path, typer.Option("--ar", help="an AR model saved by train-ar")],
    out: Annotated[Path, _out("PNG grid of the samples (.png)")],
    class_: Annotated[str, typer.Option("--class", help="class to sample: a class name (the training "
                                                        "folder's sub-folder) or an index")] = "0",
    balanced: Annotated[bool, typer.Option("--balanced", help="sample every class in turn (N/classes each, "
                                                              "as FD/KID need); ignores --class")] = False,
    n: Annotated[int, count("number of images", 100_000)] = 64,
    cfg: Annotated[float, typer.Option(help="classifier-free guidance in [0, 100], ramped over the scales")]
    = 3.25,
    top_k: Annotated[int, count("top-k filter (0 = off)", 1_000_000, low=0)] = 46,
    top_p: Annotated[float, typer.Option(help="top-p (nucleus) filter in (0, 1]")] = 0.95,
    seed: Seed = 0,
    npz: Annotated[Path | None, typer.Option(help="also save the images, their labels and codes to this .npz "
                                                  "(the input of `score --fake`)")] = None,
) -> None:
    """Sample class-conditional images with the KV-cached next-scale sampler."""
    import numpy as np

    from iclr25.core.runtime import pin_threads
    from iclr25.imagefolder.data import save_grid
    from iclr25.imagefolder.sampling import check_sampling
    from iclr25.imagefolder.tokenizer import MSRQTokenizer
    from iclr25.imagefolder.var import FoldedVAR

    pin_threads()
    output_path(out, "--out", (".png",))
    if npz is not None:
        output_path(npz, "--npz", (".npz",))
    finite(cfg, "--cfg", 0.0, 100.0)
    finite(top_p, "--top-p", 0.0, 1.0, low_open=True)
    check_sampling(top_k, top_p, cfg)
    tok = MSRQTokenizer.load(tokenizer)
    model = FoldedVAR.load(ar, tok)
    k = model.config.num_classes
    if balanced:
        if n < k:
            raise UserError(f"--balanced needs --n >= the number of classes ({k}), got {n}")
        labels = np.arange(n) % k
        what = f"{n} class-balanced samples ({n // k}{'+' if n % k else ''} per class)"
    else:
        idx = model.class_index(class_)
        labels = np.full(n, idx)
        what = f"{n} samples of class {_class_name(model, idx)}"
    codes = model.generate_codes(labels, cfg, top_k, top_p, seed)
    imgs = tok.decode(codes)
    title = f"{what}, cfg {cfg:g}, top-k {top_k}, top-p {top_p:g}, seed {seed}"
    if balanced and k <= 20:  # one column per class, up to 8 rows
        rows = min(n // k, 8)
        shown = [np.flatnonzero(labels == c)[r] for r in range(rows) for c in range(k)]
        save_grid(imgs[shown], out, nrow=k, title=title, col_labels=[_class_name(model, i) for i in range(k)])
    else:
        save_grid(imgs[np.argsort(labels, kind="stable")[:100]], out, title=title)
    if npz is not None:
        flat = {f"codes_b{b}_s{s}": c.numpy() for b, cb in enumerate(codes) for s, c in enumerate(cb)}
        np.savez_compressed(npz, images=imgs, labels=labels, **flat)
    typer.echo(f"{what} (cfg {cfg:g}, top-k {top_k}, top-p {top_p:g}) -> {out}"
               + (f", {npz}" if npz is not None else ""))


def _class_name(model, idx: int) -> str:  # noqa: ANN001 - a FoldedVAR
    return model.class_names[idx] if model.class_names else str(idx)


@app.command()
def score(
    real: Annotated[Path, typer.Option(help="real images with class labels (folder with class sub-folders or "
                                            ".npz with 'images' and 'labels')")],
    fake: Annotated[Path, typer.Option(help="generated images: an .npz from `sample --npz` (or any images)")],
    out: Annotated[Path | None, _out("also write the scores to this .json")] = None,
    epochs: Annotated[int, count("passes of the feature network over half the real images", 1000)] = 2,
    seed: Seed = 0,
) -> None:
    """FD and KID of FAKE against REAL in the features of our FeatureCNN (no Inception weights offline: these
    are not FID numbers). The feature network is trained on one half of the real images; the other half is
    the reference, and FD between the halves is the floor (real against real)."""
    import json

    import numpy as np

    from iclr25.core.runtime import atomic_write, pin_threads
    from iclr25.imagefolder.classifiers import FeatureCNN, accuracy, embed, train_classifier
    from iclr25.imagefolder.data import load_images
    from iclr25.imagefolder.metrics import fd_features, kid

    pin_threads()
    if out is not None:
        output_path(out, "--out", (".json",))
    r, f = load_images(real), load_images(fake)
    if r.labels is None:
        raise UserError(f"--real: {real} carries no class labels (use class sub-folders or a 'labels' "
                        "array): the feature network is a classifier")
    if r.images.shape[1:] != f.images.shape[1:]:
        raise UserError(f"--fake images are {tuple(f.images.shape[1:])}, --real images "
                        f"{tuple(r.images.shape[1:])}")
    if len(r) < 20 or len(f) < 10:
        raise UserError(f"need at least 20 real and 10 fake images, got {len(r)} and {len(f)}")
    perm = np.random.default_rng(seed).permutation(len(r))
    half_a, half_b = perm[: len(r) // 2], perm[len(r) // 2:]
    net = FeatureCNN(r.images.shape[1], r.num_classes, 128)
    train_classifier(net, r.images[half_a], r.labels[half_a], epochs=epochs, seed=seed)
    acc = accuracy(net, r.images[half_b], r.labels[half_b])
    m = min(len(half_b), len(f), len(half_a))
    ref, other = embed(net, r.images[half_b][:m]), embed(net, r.images[half_a][:m])
    fk = embed(net, f.images[:m])
    k_size = max(2, min(1000, m // 2))
    res = {"n": m, "fd": fd_features(ref, fk), "kid": kid(ref, fk, 10, k_size, seed)[0],
           "fd_floor_real_vs_real": fd_features(ref, other),
           "kid_floor": kid(ref, other, 10, k_size, seed)[0],
           "feature_net_accuracy": acc, "chance": 1.0 / r.num_classes}
    if f.labels is not None and f.labels.max() < r.num_classes:
        pred = embed(net, f.images[:m], logits=True).argmax(1)
        res["class_consistency"] = float((pred == f.labels[:m]).mean())
    typer.echo(f"FD {res['fd']:.3f}, KID {res['kid']:.4f} on {m} images each (lower is better; real vs real "
               f"floor FD {res['fd_floor_real_vs_real']:.3f}, KID {res['kid_floor']:.4f}); feature network "
               f"accuracy {acc:.3f} on held-out real images (chance {res['chance']:.3f})")
    if "class_consistency" in res:
        typer.echo(f"class consistency of the fake images: {res['class_consistency']:.3f} "
                   f"(chance {res['chance']:.3f})")
    if acc <= res["chance"] + 0.05:
        typer.echo("warning: the feature network barely beats chance on the real images: its features say "
                   "little; give more labelled real images or --epochs", err=True)
    if out is not None:
        with atomic_write(out, "w") as fh:
            json.dump(res, fh, indent=2)


@app.command()
def reconstruct(
    tokenizer: Annotated[Path, typer.Option(help="a tokenizer saved by train-tokenizer")],
    images: ImagesOpt,
    out: Annotated[Path, _out("PNG: originals on the left, reconstructions on the right")],
    n_scales: Annotated[int | None, count("decode only the first n scales (default: all)", MAX_SCALE)]
    = None,
    n: Annotated[int, count("images to show", 10_000)] = 16,
) -> None:
    """Encode images, decode a prefix of the scales, print PSNR/SSIM and save a side-by-side grid."""
    import numpy as np

    from iclr25.core.runtime import pin_threads
    from iclr25.imagefolder.data import load_images, save_grid
    from iclr25.imagefolder.metrics import psnr, ssim
    from iclr25.imagefolder.tokenizer import MSRQTokenizer

    pin_threads()
    output_path(out, "--out", (".png",))
    tok = MSRQTokenizer.load(tokenizer)
    x = load_images(images).images
    rec = tok.reconstruct(x, n_scales)
    pairs = np.stack([x[:n], rec[:n]], axis=1).reshape(-1, *x.shape[1:])
    nrow = 2 * int(np.ceil(np.sqrt(min(n, len(x)) / 2)))
    used = n_scales or len(tok.config.scales)
    save_grid(pairs, out, nrow=nrow, title=f"{used} of {len(tok.config.scales)} scales",
              col_labels=["original", "reconstruction"] * (nrow // 2))
    typer.echo(f"{len(x)} images, {used} of {len(tok.config.scales)} scales: PSNR {psnr(rec, x):.2f} dB "
               f"(higher is better; the mean image: {_mean_image_psnr(x, x):.2f} dB), SSIM "
               f"{ssim(rec, x):.3f}, MSE {float(((rec - x) ** 2).mean()):.4f} -> {out}")
