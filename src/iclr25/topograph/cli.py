"""`iclr25 topograph ...`: the strict metric on your own masks, the training harness, the loss benchmark."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from iclr25.core.errors import UserError

app = typer.Typer(help="Topograph: strict topological metric (DIU), topology loss training, speed bench.",
                  no_args_is_help=True)


def load_mask(path: Path, name: str, allow_gray: bool) -> np.ndarray:  # noqa: F821
    """Read a .png/.jpg/.npy mask. Binary means values {0, 1} or {0, 255}; a grayscale prediction
    (allow_gray) is read as probabilities x 255 and thresholded at 0.5."""
    import numpy as np
    if not path.is_file():
        raise UserError(f"{name} file not found: {path}")
    if path.suffix.lower() == ".npy":
        a = np.load(path)
    else:
        from PIL import Image, UnidentifiedImageError
        try:
            a = np.asarray(Image.open(path).convert("L"))
        except (UnidentifiedImageError, OSError):
            raise UserError(f"{name} is not a readable image: {path}") from None
    if a.ndim != 2 or a.size == 0:
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


@app.command()
def metric(pred: Annotated[Path, typer.Option(help="predicted mask (.png/.npy; grayscale = probability)")],
           gt: Annotated[Path, typer.Option(help="ground-truth mask (binary .png/.npy)")],
           out: Annotated[Path | None, typer.Option(help="overlay image of the critical regions "
                                                          "(default: <pred>_critical.png)")] = None) -> None:
    """DIU, Betti-number errors, Dice and the critical regions of a prediction against its ground truth."""
    import numpy as np

    from iclr25.topograph.checks import check_pair
    from iclr25.topograph.graph import FN, FP, component_graph
    from iclr25.topograph.metrics import evaluate

    p, g = check_pair(load_mask(pred, "pred", True), load_mask(gt, "gt", False))
    m = evaluate(p, g)
    cg = component_graph(p, g)
    crit = cg.critical_nodes
    typer.echo(f"DIU          {int(m['diu'])}")
    typer.echo(f"Betti0 error {int(m['betti0_err'])}")
    typer.echo(f"Betti1 error {int(m['betti1_err'])}")
    typer.echo(f"Dice         {m['dice']:.4f}")
    typer.echo(f"clDice       {m['cldice']:.4f}")
    typer.echo(f"critical regions {len(crit)} ({int((cg.node_class[crit] == FP).sum())} FP, "
               f"{int((cg.node_class[crit] == FN).sum())} FN)")
    out = out or pred.with_name(pred.stem + "_critical.png")
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
def train(data: Annotated[str, typer.Option(help="curvilinear | membranes | blobs")] = "curvilinear",
          loss: Annotated[str, typer.Option(help="dice | dice+cldice | dice+topograph | dice+ph")
                          ] = "dice+topograph",
          alpha: Annotated[float, typer.Option(help="weight of the topology term")] = 0.5,
          size: Annotated[int, typer.Option(help="image side")] = 64,
          warm_iters: Annotated[int, typer.Option(help="Dice warm-start iterations (cached)")] = 300,
          iters: Annotated[int, typer.Option(help="fine-tuning iterations with LOSS")] = 150,
          n_train: int = 200, n_test: int = 50, seed: int = 0,
          save: Annotated[Path | None, typer.Option(help="write the fine-tuned weights here (.pt)")] = None,
          ) -> None:
    """Train the small U-Net on a synthetic family: Dice warm start, then fine-tune with LOSS."""
    from iclr25.core.runtime import pin_threads
    from iclr25.topograph.train import LOSSES, TrainConfig, train_one
    if loss not in LOSSES:
        raise UserError(f"unknown loss {loss!r}; choose from {', '.join(LOSSES)}")
    if size < 16 or size % 4:
        raise UserError(f"size must be a multiple of 4 and >= 16, got {size}")
    if alpha < 0:
        raise UserError(f"alpha must be >= 0, got {alpha}")
    pin_threads()
    cfg = TrainConfig(family=data, size=size, n_train=n_train, n_test=n_test, warm_iters=warm_iters,
                      finetune_iters=iters, alpha_topograph=alpha, alpha_ph=alpha / 10, seed=seed)
    model, metrics = train_one(cfg, loss)
    for k, v in metrics.items():
        typer.echo(f"{k:12s} {v:.4f}")
    if save:
        import torch
        torch.save(model.state_dict(), save)
        typer.echo(f"saved        {save}")


@app.command()
def bench(size: Annotated[list[int] | None, typer.Option(help="image side (repeatable)")] = None,
          batch: int = 8, repeats: int = 5) -> None:
    """Loss time per batch for Topograph, gudhi-PH and cripser-PH, with PH / Topograph ratios."""
    from iclr25.core.runtime import pin_threads
    from iclr25.topograph.bench import benchmark_loss, format_table
    size = size or [64, 128, 256]
    if batch < 1 or repeats < 1 or any(s < 8 for s in size):
        raise UserError(f"need batch >= 1, repeats >= 1 and sizes >= 8, got {batch}, {repeats}, {size}")
    pin_threads()
    typer.echo(format_table(benchmark_loss(sizes=size, batch=batch, repeats=repeats)))
