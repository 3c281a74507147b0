"""`iclr25 topograph ...`: the strict metric on your own masks, the training harness, the loss benchmark."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from iclr25.core.errors import UserError
from iclr25.core.io import output_path
from iclr25.core.options import Seed, count, finite

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")

app = typer.Typer(help="Topograph: strict topological metric (DIU), topology loss training, speed bench.",
                  no_args_is_help=True)


def load_mask(path: Path, name: str, allow_gray: bool) -> np.ndarray:  # noqa: F821
    """Read a .png/.jpg/.npy mask. Binary means values {0, 1} or {0, 255}; a grayscale prediction
    (allow_gray) is read as probabilities x 255 and thresholded at 0.5."""
    import numpy as np

    from iclr25.core.io import read_array, read_image
    a = read_array(path, name) if path.suffix.lower() == ".npy" else read_image(path, name)
    if a.ndim != 2:
        raise UserError(f"{name} must be a non-empty 2-D mask, got shape {a.shape} from {path}")
    vals = np.unique(a)
    if set(vals.tolist()) <= {0, 1}:
        return a.astype(bool)
    if set(vals.tolist()) <= {0, 255}:
        return a == 255
    if allow_gray and a.dtype == np.uint8:
        return a >= 128
    if allow_gray and np.issubdtype(a.dtype, np.floating):
        if a.min() < 0 or a.max() > 1:
            raise UserError(f"{name} probabilities must lie in [0, 1], found [{a.min():.3g}, {a.max():.3g}]")
        return a >= 0.5
    raise UserError(f"{name} must be binary (0/1 or 0/255), found {len(vals)} distinct values in {path}")


BoundaryOpt = Annotated[str, typer.Option(help="DIU boundary convention: pad (image surrounded by "
                                               "background, used by our claims) | none (official default)")]


@app.command()
def metric(pred: Annotated[Path, typer.Option(help="predicted mask (.png/.npy; grayscale = probability)")],
           gt: Annotated[Path, typer.Option(help="ground-truth mask (binary .png/.npy)")],
           out: Annotated[Path | None, typer.Option(help="write an overlay PNG of the critical regions here "
                                                          "(default: no overlay)")] = None,
           boundary: BoundaryOpt = "pad") -> None:
    """DIU, Betti-number errors, Dice and the critical regions of a prediction against its ground truth."""
    import numpy as np

    from iclr25.topograph.checks import check_pair
    from iclr25.topograph.graph import FN, FP, component_graph
    from iclr25.topograph.metrics import BOUNDARIES, evaluate

    if boundary not in BOUNDARIES:
        raise UserError(f"--boundary must be pad or none, got {boundary!r}")
    if out is not None:
        output_path(out, "--out", (".png",))
    p, g = check_pair(load_mask(pred, "pred", True), load_mask(gt, "gt", False))
    m = evaluate(p, g, boundary)
    cg = component_graph(p, g)
    crit = cg.critical_nodes
    typer.echo(f"DIU          {int(m['diu'])} (boundary: {boundary})")
    typer.echo(f"Betti0 error {int(m['betti0_err'])}")
    typer.echo(f"Betti1 error {int(m['betti1_err'])}")
    typer.echo(f"Dice         {m['dice']:.4f}")
    typer.echo(f"clDice       {m['cldice']:.4f}")
    typer.echo(f"critical regions {len(crit)} ({int((cg.node_class[crit] == FP).sum())} FP, "
               f"{int((cg.node_class[crit] == FN).sum())} FN)")
    if out is None:
        return
    rgb = np.zeros(p.shape + (3,), np.uint8)
    rgb[p & g] = (255, 255, 255)          # correct foreground: white
    rgb[p & ~g] = (90, 90, 255)           # FP: blue
    rgb[~p & g] = (255, 200, 0)           # FN: orange
    rgb[cg.critical_mask()] = (255, 0, 0)  # critical: red
    from PIL import Image
    scale = max(1, 256 // max(p.shape))
    Image.fromarray(rgb).resize((p.shape[1] * scale, p.shape[0] * scale), Image.NEAREST).save(out)
    typer.echo(f"overlay      {out}")


@app.command()
def train(data: Annotated[str, typer.Option(help="synthetic family: curvilinear | membranes | blobs "
                                                 "(ignored with --images/--masks)")] = "curvilinear",
          images: Annotated[Path | None, typer.Option(help="folder of your own input images (PNG, ...); "
                                                           "needs --masks")] = None,
          masks: Annotated[Path | None, typer.Option(help="folder of binary masks named as the images")
                           ] = None,
          loss: Annotated[str, typer.Option(help="dice | dice+cldice | dice+topograph | dice+ph")
                          ] = "dice+topograph",
          alpha: Annotated[float, typer.Option(help="weight of the topology term")] = 0.5,
          size: Annotated[int, count("image side of the synthetic family, a multiple of 4", 1024, low=16)
                          ] = 64,
          warm_iters: Annotated[int, count("at most this many Dice warm-start steps (stops earlier when "
                                           "validation Dice plateaus; cached)", 100_000, low=0)] = 2000,
          iters: Annotated[int, count("fine-tuning steps with LOSS", 100_000, low=0)] = 300,
          n_train: Annotated[int, count("synthetic training images", 100_000)] = 800,
          n_test: Annotated[int, count("synthetic test images", 100_000)] = 200,
          test_fraction: Annotated[float, typer.Option(help="share of your own pairs held out for the "
                                                            "metrics")] = 0.2,
          boundary: BoundaryOpt = "pad",
          seed: Seed = 0,
          save: Annotated[Path | None, typer.Option(help="write the fine-tuned weights here (.pt)")] = None,
          ) -> None:
    """Train the small U-Net: Dice until validation Dice plateaus (the warm start), then fine-tune with
    LOSS; prints the held-out metrics. Data: a synthetic family, or your own image/mask folders."""
    from dataclasses import replace

    from iclr25.core.runtime import pin_threads
    from iclr25.topograph.data import MAX_TOTAL_PIXELS, load_pairs
    from iclr25.topograph.metrics import BOUNDARIES
    from iclr25.topograph.train import LOSSES, TrainConfig, folder_data, train_one
    if loss not in LOSSES:
        raise UserError(f"unknown loss {loss!r}; choose from {', '.join(LOSSES)}")
    if boundary not in BOUNDARIES:
        raise UserError(f"--boundary must be pad or none, got {boundary!r}")
    if size % 4:
        raise UserError(f"size must be a multiple of 4, got {size}")
    if images is None and (n_train + n_test + 100) * size * size > MAX_TOTAL_PIXELS:
        raise UserError(f"{n_train + n_test} synthetic images of {size}x{size} exceed {MAX_TOTAL_PIXELS:,} "
                        f"pixels in all; lower --n-train, --n-test or --size")
    if (images is None) != (masks is None):
        raise UserError("--images and --masks go together (a folder of images and one of their masks)")
    finite(alpha, "alpha", low=0.0)
    finite(test_fraction, "--test-fraction", 0.0, 0.9, low_open=True)
    if save:
        output_path(save, "--save")  # before training, not after
    pin_threads()
    cfg = TrainConfig(family=data, size=size, n_train=n_train, n_test=n_test, warm_iters=warm_iters,
                      finetune_iters=iters, alpha_topograph=alpha, alpha_ph=alpha / 10, seed=seed)
    user_data = None
    if images is not None:
        user_data = folder_data(*load_pairs(images, masks), test_fraction, seed)
        cfg = replace(cfg, family=images.name or "images")
    model, metrics = train_one(cfg, loss, user_data, boundary)
    for k, v in metrics.items():
        typer.echo(f"{k:14s} {v:.4f}")
    if save:
        import torch
        torch.save(model.state_dict(), save)
        typer.echo(f"saved          {save}")


@app.command()
def bench(size: Annotated[list[int] | None, count("image side (repeatable)", 2048, low=8)] = None,
          batch: Annotated[int, count("images per batch", 256)] = 8,
          repeats: Annotated[int, count("timed repeats", 1000)] = 5) -> None:
    """Loss time per batch for Topograph, gudhi-PH and cripser-PH, with PH / Topograph ratios."""
    from iclr25.core.runtime import pin_threads
    from iclr25.topograph.bench import benchmark_loss, format_table
    size = size or [64, 128, 256]
    pin_threads()
    typer.echo(format_table(benchmark_loss(sizes=size, batch=batch, repeats=repeats)))
