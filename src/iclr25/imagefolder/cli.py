"""`iclr25 imagefolder ...`: train the ImageFolder tokenizer and its folded AR model on your own images,
sample class-conditional images, and look at coarse-prefix reconstructions.

    iclr25 imagefolder train-tokenizer --images my_images/ --out tok.pt
    iclr25 imagefolder train-ar --tokenizer tok.pt --images my_images/ --out ar.pt
    iclr25 imagefolder sample --tokenizer tok.pt --ar ar.pt --class 3 --n 64 --out grid.png
    iclr25 imagefolder reconstruct --tokenizer tok.pt --images my_images/ --n-scales 2 --out recon.png

IMAGES is a folder of PNG/JPEG files of one size (one sub-folder per class gives the labels) or an .npz
with `images` (N, H, W[, C]) and optional `labels` (N,)."""

from __future__ import annotations

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
    out: Annotated[Path, typer.Option(help="where to save the tokenizer (.pt)")],
    branches: Annotated[int, count("token branches (2 = ImageFolder, 1 = VAR tokenizer)", 8)] = 2,
    scales: Annotated[str, typer.Option(help="token-map sides, strictly increasing; the last is K")]
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
    epochs: Annotated[int, count("training epochs", 10_000)] = 2,
    batch_size: Annotated[int, count("mini-batch size", 65_536, low=2)] = 64,
    lr: Annotated[float, typer.Option(help="AdamW peak learning rate, in (0, 10]")] = 2e-3,
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
    if semantic not in ("last", "all", "none"):
        raise UserError(f"--semantic must be last, all or none, got {semantic[:40]!r}")
    tok = MSRQTokenizer(branches, _parse_scales(scales), codebook, dim, width, depth, patch,
                        None if semantic == "none" else semantic, qdrop, start_drop, latent_size=latent_size,
                        epochs=epochs, batch_size=batch_size, lr=lr, seed=seed)
    data = load_images(images)
    if tok.config.semantic and data.labels is None:
        raise UserError(f"--semantic {semantic} needs class labels ({images} has none: use class "
                        "sub-folders or a 'labels' array) or --semantic none")
    typer.echo(f"{len(data)} images {tuple(data.images.shape[1:])}, "
               f"{data.num_classes or 'no'} classes; {tok.config.positions} positions x {branches} tokens")
    tok.fit(data.images, data.labels)
    tok.save(out)
    x = data.images[:500]
    typer.echo(f"train reconstruction on {len(x)} images: PSNR {psnr(tok.reconstruct(x), x):.2f} dB; "
               f"{tok.history_.seconds:.0f} s; wrote {out}")


@app.command("train-ar")
def train_ar(
    tokenizer: Annotated[Path, typer.Option(help="a tokenizer saved by train-tokenizer")],
    images: ImagesOpt,
    out: Annotated[Path, typer.Option(help="where to save the AR model (.pt)")],
    depth: Annotated[int, count("transformer blocks", 48)] = 3,
    width: Annotated[int, count("transformer width, a multiple of 4", 4096)] = 128,
    unfold: Annotated[bool, typer.Option("--unfold", help="one position per token (the baseline)")] = False,
    epochs: Annotated[int, count("training epochs", 10_000)] = 2,
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
    ar = FoldedVAR(tok, n_classes, depth, width, fold=not unfold)
    typer.echo(f"{len(data)} images, {n_classes} class(es); {ar.positions} positions per image "
               f"({'unfolded' if unfold else 'folded'})")
    ar.fit(data.images, data.labels, epochs=epochs, batch_size=batch_size, lr=lr, seed=seed)
    ar.save(out)
    typer.echo(f"final loss {ar.history_['loss'][-1]:.3f}; {ar.history_['seconds']:.0f} s; wrote {out}")


@app.command()
def sample(
    tokenizer: Annotated[Path, typer.Option(help="the tokenizer the AR model was trained on")],
    ar: Annotated[Path, typer.Option("--ar", help="an AR model saved by train-ar")],
    out: Annotated[Path, typer.Option(help="PNG grid of the samples (.png)")],
    class_: Annotated[int, count("class index to sample (0 .. num_classes - 1)", 1_000_000, low=0,
                                 flag="--class")] = 0,
    n: Annotated[int, count("number of images", 100_000)] = 64,
    cfg: Annotated[float, typer.Option(help="classifier-free guidance in [0, 100], ramped over the scales")]
    = 3.25,
    top_k: Annotated[int, count("top-k filter (0 = off)", 1_000_000, low=0)] = 46,
    top_p: Annotated[float, typer.Option(help="top-p (nucleus) filter in (0, 1]")] = 0.95,
    seed: Seed = 0,
    npz: Annotated[Path | None, typer.Option(help="also save the images and codes to this .npz")] = None,
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
    model.check_classes([class_])
    codes = model.generate_codes([class_] * n, cfg, top_k, top_p, seed)
    imgs = tok.decode(codes)
    save_grid(imgs, out)
    if npz is not None:
        flat = {f"codes_b{b}_s{s}": c.numpy() for b, cb in enumerate(codes) for s, c in enumerate(cb)}
        np.savez_compressed(npz, images=imgs, **flat)
    typer.echo(f"{n} samples of class {class_} (cfg {cfg:g}, top-k {top_k}, top-p {top_p:g}) -> {out}")


@app.command()
def reconstruct(
    tokenizer: Annotated[Path, typer.Option(help="a tokenizer saved by train-tokenizer")],
    images: ImagesOpt,
    out: Annotated[Path, typer.Option(help="PNG: originals on the left, reconstructions on the right")],
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
    save_grid(pairs, out, nrow=2 * int(np.ceil(np.sqrt(min(n, len(x)) / 2))))
    used = n_scales or len(tok.config.scales)
    typer.echo(f"{len(x)} images, {used} of {len(tok.config.scales)} scales: PSNR {psnr(rec, x):.2f} dB, "
               f"SSIM {ssim(rec, x):.3f}, MSE {float(((rec - x) ** 2).mean()):.4f} -> {out}")
