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


def load_label_mask(path: Path, name: str) -> np.ndarray:  # noqa: F821
    """A multi-class mask: integer class ids (0 = background) as .png or .npy."""
    import numpy as np

    from iclr25.core.io import read_array, read_image
    a = read_array(path, name) if path.suffix.lower() == ".npy" else read_image(path, name)
    if a.ndim != 2:
        raise UserError(f"{name} must be a non-empty 2-D mask, got shape {a.shape} from {path}")
    if not np.all(a == np.round(a)) or a.min() < 0 or a.max() > 255:
        raise UserError(f"{name} {path}: a multi-class mask holds class ids 0..255 (0 = background)")
    return a.astype(np.int64)


AGGREGATES = ("mean", "sum", "median")
METRIC_KEYS = ("diu", "bm", "betti0_err", "betti1_err", "dice", "cldice")


def _pairs(pred: Path, gt: Path) -> list[tuple[str, Path, Path]]:
    """(name, pred file, gt file): one pair for two files, or every file of folder PRED with a file of the
    same stem in folder GT."""
    from iclr25.topograph.data import MAX_PAIRS
    suffixes = (*IMAGE_SUFFIXES, ".npy")
    if pred.is_dir() != gt.is_dir():
        raise UserError("--pred and --gt must both be files or both be folders")
    if not pred.is_dir():
        return [(pred.stem, pred, gt)]
    by_stem = {p.stem: p for p in sorted(gt.iterdir()) if p.suffix.lower() in suffixes}
    pairs = [(p.stem, p, by_stem[p.stem]) for p in sorted(pred.iterdir())
             if p.suffix.lower() in suffixes and p.stem in by_stem]
    if not pairs:
        raise UserError(f"no file in {pred} has a ground truth of the same name in {gt} "
                        f"({', '.join(suffixes)})")
    if len(pairs) > MAX_PAIRS:
        raise UserError(f"{len(pairs)} pairs: more than {MAX_PAIRS:,}; use a subset")
    return pairs


@app.command()
def metric(pred: Annotated[Path, typer.Option(help="predicted mask (.png/.npy; grayscale = probability), or "
                                                   "a folder of them")],
           gt: Annotated[Path, typer.Option(help="ground-truth mask (binary .png/.npy), or a folder with one "
                                                 "file of the same name per prediction")],
           out: Annotated[Path | None, typer.Option("-o", "--out", help="write one row of metrics per image "
                                                    "(and per class) to this CSV")] = None,
           overlay: Annotated[Path | None, typer.Option(help="write an overlay PNG of the critical regions "
                                                             "(one pair of files only)")] = None,
           boundary: BoundaryOpt = "pad",
           connectivity: Annotated[int, typer.Option(help="foreground connectivity: 8 (background 4, the "
                                                          "paper's) | 4 (background 8)")] = 8,
           multiclass: Annotated[bool, typer.Option("--multiclass", help="masks hold class ids (0 = "
                                                    "background): each class is scored one-vs-rest")] = False,
           aggregate: Annotated[str, typer.Option(help="how the summary line combines images: mean | sum | "
                                                       "median")] = "mean") -> None:
    """DIU (the paper's strict metric), the Betti-matching error, Betti-number errors, Dice and clDice of
    predictions against their ground truth, for one pair of masks or two folders. DIU and BM count
    topological errors: 0 means the same topology, lower is better."""
    import numpy as np

    from iclr25.topograph.checks import check_pair
    from iclr25.topograph.graph import FN, FP, component_graph
    from iclr25.topograph.metrics import BOUNDARIES, CONNECTIVITIES, evaluate

    if boundary not in BOUNDARIES:
        raise UserError(f"--boundary must be pad or none, got {boundary!r}")
    if connectivity not in CONNECTIVITIES:
        raise UserError(f"--connectivity must be 8 or 4, got {connectivity}")
    if aggregate not in AGGREGATES:
        raise UserError(f"--aggregate must be one of {', '.join(AGGREGATES)}, got {aggregate!r}")
    if out is not None:
        output_path(out, "--out", (".csv",))
    if overlay is not None:
        output_path(overlay, "--overlay", (".png",))
    pairs = _pairs(pred, gt)
    if overlay is not None and (len(pairs) > 1 or multiclass):
        raise UserError("--overlay draws one binary pair; drop it for folders or --multiclass")
    rows: list[dict] = []
    for name, pp, gp in pairs:
        if multiclass:
            p_lab, g_lab = load_label_mask(pp, "pred"), load_label_mask(gp, "gt")
            if p_lab.shape != g_lab.shape:
                raise UserError(f"shape mismatch for {name}: pred {p_lab.shape} vs gt {g_lab.shape}")
            for c in sorted(set(np.unique(g_lab).tolist()) | set(np.unique(p_lab).tolist()) - {0}):
                if c == 0:
                    continue
                m = evaluate(p_lab == c, g_lab == c, boundary, connectivity, betti_matching=True)
                rows.append({"image": name, "class": c, **m})
        else:
            p, g = check_pair(load_mask(pp, "pred", True), load_mask(gp, "gt", False))
            rows.append({"image": name, "class": 1, **evaluate(p, g, boundary, connectivity,
                                                                 betti_matching=True)})
    if not rows:
        raise UserError("no foreground class in any mask: nothing to score")
    agg = {"mean": np.mean, "sum": np.sum, "median": np.median}[aggregate]
    if multiclass:  # per image: the classes' errors add up (DIU, BM), overlaps average (Dice)
        per_image: dict[str, dict] = {}
        for r in rows:
            acc = per_image.setdefault(r["image"], {k: [] for k in METRIC_KEYS})
            for k in METRIC_KEYS:
                acc[k].append(r[k])
        summary = {k: [float(np.sum(v[k]) if k not in ("dice", "cldice") else np.mean(v[k]))
                       for v in per_image.values()] for k in METRIC_KEYS}
    else:
        summary = {k: [r[k] for r in rows] for k in METRIC_KEYS}
    n_img = len({r["image"] for r in rows})
    if len(rows) == 1:
        m = rows[0]
        typer.echo(f"DIU          {int(m['diu'])} (boundary: {boundary}, {connectivity}-connected "
                   "foreground; 0 = same topology)")
        typer.echo(f"Betti match  {int(m['bm'])} ({int(m['bm0'])} components, {int(m['bm1'])} holes "
                   "unmatched)")
        typer.echo(f"Betti0 error {int(m['betti0_err'])}")
        typer.echo(f"Betti1 error {int(m['betti1_err'])}")
        typer.echo(f"Dice         {m['dice']:.4f}")
        typer.echo(f"clDice       {m['cldice']:.4f}")
    else:
        typer.echo(f"{n_img} images{' (classes scored one-vs-rest, errors summed per image)' * multiclass}; "
                   f"{aggregate} over images (DIU and BM: 0 = same topology, lower is better):")
        for k in METRIC_KEYS:
            v = agg(summary[k])
            typer.echo(f"  {k:<11} {v:.4f}" + (f"   (images with errors: "
                                                f"{sum(x > 0 for x in summary[k])})" if k in ("diu", "bm")
                                               else ""))
        if multiclass:
            for c in sorted({r["class"] for r in rows}):
                cr = [r for r in rows if r["class"] == c]
                typer.echo(f"  class {c}: DIU {agg([r['diu'] for r in cr]):.4f}, BM "
                           f"{agg([r['bm'] for r in cr]):.4f}, Dice {np.mean([r['dice'] for r in cr]):.4f} "
                           f"({len(cr)} images)")
    if not multiclass and len(pairs) == 1:
        p, g = check_pair(load_mask(pairs[0][1], "pred", True), load_mask(pairs[0][2], "gt", False))
        cg = component_graph(p, g)
        crit = cg.critical_nodes
        typer.echo(f"critical regions {len(crit)} ({int((cg.node_class[crit] == FP).sum())} FP, "
                   f"{int((cg.node_class[crit] == FN).sum())} FN)")
        if overlay is not None:
            rgb = np.zeros(p.shape + (3,), np.uint8)
            rgb[p & g] = (255, 255, 255)          # correct foreground: white
            rgb[p & ~g] = (90, 90, 255)           # FP: blue
            rgb[~p & g] = (255, 200, 0)           # FN: orange
            rgb[cg.critical_mask()] = (255, 0, 0)  # critical: red
            from PIL import Image
            scale = max(1, 256 // max(p.shape))
            Image.fromarray(rgb).resize((p.shape[1] * scale, p.shape[0] * scale), Image.NEAREST).save(overlay)
            typer.echo(f"overlay      {overlay}")
    if out is not None:
        from iclr25.core.runtime import atomic_write
        cols = ["image", "class", "diu", "bm", "bm0", "bm1", "betti0_err", "betti1_err", "dice", "cldice"]
        with atomic_write(out, "w") as f:
            f.write(",".join(cols) + "\n")
            for r in rows:
                f.write(",".join(str(r[c]) if c in ("image", "class") else
                                 (str(int(r[c])) if c not in ("dice", "cldice") else f"{r[c]:.6f}")
                                 for c in cols) + "\n")
        typer.echo(f"rows         {out} ({len(rows)})")


def _either(new, old, flag: str, old_flag: str):
    """The value of an option given under its name or its old (hidden) spelling, not both."""
    if old is not None and new is not None:
        raise UserError(f"{flag} and {old_flag} are the same option; give it once")
    return old if old is not None else new


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
          thres_noise: Annotated[float, typer.Option(help="uniform threshold jitter of the Topograph loss "
                                                          "(0: none, the official default)")] = 0.0,
          model: Annotated[str | None, typer.Option(help="your own network: FILE.py:NAME, a function or "
                                                         "class returning an nn.Module that maps (B, 1, H, "
                                                         "W) images to (B, 1, H, W) logits (default: our "
                                                         "U-Net)")
                           ] = None,
          resume: Annotated[Path | None, typer.Option(help="continue a checkpoint written by -o: --steps "
                                                           "more steps of its loss (no warm start)")] = None,
          size: Annotated[int, count("image side of the synthetic family, a multiple of 4", 1024, low=16)
                          ] = 64,
          warm_steps: Annotated[int | None, count("at most this many Dice warm-start steps (stops earlier "
                                                  "when validation Dice plateaus; cached; default 2000)",
                                                  100_000, low=0)] = None,
          steps: Annotated[int | None, count("fine-tuning steps with LOSS (and with Dice alone, the "
                                             "baseline; default 300)", 100_000, low=0)] = None,
          n_train: Annotated[int, count("synthetic training images", 100_000)] = 800,
          n_test: Annotated[int, count("synthetic test images", 100_000)] = 200,
          test_fraction: Annotated[float, typer.Option(help="share of your own pairs held out for the "
                                                            "metrics")] = 0.2,
          boundary: BoundaryOpt = "pad",
          seed: Seed = 0,
          out: Annotated[Path | None, typer.Option("-o", "--out", help="write the fine-tuned checkpoint here "
                                                   "(.pt: weights, network, optimiser state), for `segment` "
                                                   "and --resume")] = None,
          warm_iters: Annotated[int | None, typer.Option("--warm-iters", hidden=True)] = None,
          iters: Annotated[int | None, typer.Option("--iters", hidden=True)] = None,
          save: Annotated[Path | None, typer.Option("--save", hidden=True)] = None,
          ) -> None:
    """Train a segmentation network: Dice until validation Dice plateaus (the warm start, cached), then
    fine-tune with LOSS and, from the same start on the same batches, with Dice alone: prints both on the
    held-out images. Data: a synthetic family, or your own image/mask folders."""
    from dataclasses import replace

    from iclr25.core.runtime import pin_threads
    from iclr25.topograph.data import MAX_TOTAL_PIXELS, load_pairs
    from iclr25.topograph.metrics import BOUNDARIES
    from iclr25.topograph.model_io import (
        checkpoint_bytes,
        load_checkpoint,
        probe_output,
        save_checkpoint,
        user_model,
    )
    from iclr25.topograph.train import (
        LOSSES,
        TrainConfig,
        default_arch,
        folder_data,
        synthetic_data,
        train_compare,
    )
    from iclr25.topograph.train import resume as resume_training
    from iclr25.topograph.unet import UNet
    warm_steps = _either(warm_steps, warm_iters, "--warm-steps", "--warm-iters")
    steps = _either(steps, iters, "--steps", "--iters")
    out = _either(out, save, "--out", "--save")
    warm_steps = 2000 if warm_steps is None else warm_steps
    steps = 300 if steps is None else steps
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
    finite(thres_noise, "--thres-noise", 0.0, 0.49)
    finite(test_fraction, "--test-fraction", 0.0, 0.9, low_open=True)
    arch = {"kind": "user", "spec": model} if model else None
    net = user_model(model) if model else None
    ck = None
    if resume is not None:
        net, meta, opt_state = load_checkpoint(resume, model)
        ck = (meta, opt_state)
        arch = meta.get("arch")
        if meta.get("loss") and meta["loss"] != loss:
            typer.echo(f"note: resuming with {meta['loss']}, the checkpoint's loss (not --loss {loss})")
            loss = meta["loss"]
    if out is not None:  # before training, not after: a full disk or a device refuses now
        output_path(out, "--out", (".pt",))
        probe_output(out, checkpoint_bytes(net or UNet()))
    pin_threads()
    cfg = TrainConfig(family=data, size=size, n_train=n_train, n_test=n_test, warm_iters=warm_steps,
                      finetune_iters=steps, alpha_topograph=alpha, alpha_ph=alpha / 10, seed=seed,
                      thres_noise=thres_noise)
    if loss == "dice+topograph" and thres_noise:
        from iclr25.topograph.train import JITTER_ARM
        loss_name = JITTER_ARM
    else:
        loss_name = loss
    user_data = None
    if images is not None:
        user_data = folder_data(*load_pairs(images, masks), test_fraction, seed)
        cfg = replace(cfg, family=images.name or "images")
    data_ = user_data or synthetic_data(cfg)
    if ck is not None:
        meta, opt_state = ck
        done = int(meta.get("steps", 0))
        net, opt, before, after = resume_training(net, opt_state, cfg, loss_name, data_, done, boundary)
        typer.echo(f"resumed {resume} after {done} steps: {steps} more with {loss}")
        _table({"checkpoint": before, f"+{steps} steps": after})
        metrics, total = after, done + steps
    else:
        net, opt, res = train_compare(cfg, loss_name, data_, boundary, arch)
        shown = {("Dice alone" if k == "dice" else loss): v for k, v in res.items()}
        _table(shown)
        metrics, total = res[loss_name], steps
        if loss != "dice":
            d, t = res["dice"]["diu"], res[loss_name]["diu"]
            if d == t == 0:
                typer.echo("note: Dice alone already makes no topological error on these held-out images "
                           "(DIU 0): nothing for the topology term to fix")
            elif t >= d:
                typer.echo(f"warning: {loss} did not lower DIU below Dice alone ({t:.3f} vs {d:.3f}) on "
                           "these held-out images")
    if out is not None:
        save_checkpoint(out, net, arch or default_arch(cfg), {"loss": loss_name, "steps": total,
                                                              "metrics": metrics, "boundary": boundary}, opt)
        typer.echo(f"checkpoint     {out}")


def _table(columns: dict[str, dict[str, float]]) -> None:
    """Held-out metrics side by side; counts as integers, the rest with 4 decimals."""
    names = list(columns)
    keys = [k for k in next(iter(columns.values())) if not k.startswith("warm_")]
    typer.echo(f"{'held-out metric':<15}" + "".join(f"{n:>18}" for n in names)
               + "   (DIU, Betti errors: lower is better)")
    for k in keys:
        typer.echo(f"{k:<15}" + "".join(f"{columns[n][k]:>18.4f}" for n in names))
    warm = next(iter(columns.values()))
    if "warm_steps" in warm:
        typer.echo(f"warm start     {int(warm['warm_steps'])} Dice steps, validation Dice "
                   f"{warm['warm_val_dice']:.4f}")


@app.command()
def segment(checkpoint: Annotated[Path, typer.Option(help="a checkpoint written by `train -o` (or a "
                                                          "state_dict of our U-Net)")],
            images: Annotated[Path, typer.Option(help="an image, or a folder of images (PNG, ...)")],
            out: Annotated[Path, typer.Option("-o", "--out", help="folder to write one mask PNG (0/255) per "
                                              "image into")],
            model: Annotated[str | None, typer.Option(help="FILE.py:NAME of your network, when the "
                                                           "checkpoint holds a network of yours that has "
                                                           "moved")] = None,
            threshold: Annotated[float, typer.Option(help="foreground when the probability is at least this")
                                 ] = 0.5,
            masks: Annotated[Path | None, typer.Option(help="optional ground-truth folder: print DIU and "
                                                            "Dice per image")] = None,
            boundary: BoundaryOpt = "pad") -> None:
    """Segment new images with a trained network: one binary mask per image, named as the image."""
    import numpy as np
    import torch
    from PIL import Image

    from iclr25.core.io import output_dir, read_image
    from iclr25.topograph.data import MAX_SIDE, read_mask
    from iclr25.topograph.metrics import evaluate
    from iclr25.topograph.model_io import load_checkpoint
    finite(threshold, "--threshold", 0.0, 1.0, low_open=True)
    files = [images] if images.is_file() else sorted(p for p in images.iterdir()
                                                     if p.suffix.lower() in IMAGE_SUFFIXES) \
        if images.is_dir() else None
    if files is None:
        raise UserError(f"--images: no such file or folder: {images}")
    if not files:
        raise UserError(f"no image in {images} ({', '.join(IMAGE_SUFFIXES)})")
    output_dir(out, "--out")
    net, _, _ = load_checkpoint(checkpoint, model)
    rows = []
    from iclr25.core.runtime import progress
    for f in progress(files, "segmenting", total=len(files)):
        x = read_image(f, "image").astype(np.float32)
        if max(x.shape) > 4 * MAX_SIDE:
            raise UserError(f"image {f.name} is {x.shape[1]}x{x.shape[0]}: tile images larger than "
                            f"{4 * MAX_SIDE} px")
        h, w = x.shape
        ph, pw = -h % 4, -w % 4  # the U-Net needs sides divisible by 4: pad, then crop back
        xs = np.pad((x - x.mean()) / (x.std() + 1e-6), ((0, ph), (0, pw)), mode="reflect")
        with torch.no_grad():
            prob = torch.sigmoid(net(torch.from_numpy(xs[None, None].copy())))[0, 0, :h, :w].numpy()
        mask = prob >= threshold
        Image.fromarray((mask * 255).astype(np.uint8)).save(out / f"{f.stem}.png")
        if masks is not None:
            gpath = next((masks / f"{f.stem}{s}" for s in IMAGE_SUFFIXES
                          if (masks / f"{f.stem}{s}").is_file()), None)
            if gpath is None:
                raise UserError(f"no ground truth for {f.name} in {masks}")
            m = evaluate(mask, read_mask(gpath, "mask"), boundary)
            rows.append(m)
            typer.echo(f"{f.name}: DIU {int(m['diu'])}, Dice {m['dice']:.4f}")
    typer.echo(f"{len(files)} mask(s) -> {out}")
    if rows:
        typer.echo(f"mean over {len(rows)}: DIU {np.mean([r['diu'] for r in rows]):.4f} (0 = same topology), "
                   f"Dice {np.mean([r['dice'] for r in rows]):.4f}")


@app.command()
def bench(size: Annotated[list[int] | None, count("image side (repeatable)", 2048, low=8)] = None,
          batch_size: Annotated[int | None, count("images per batch (default 8)", 256)] = None,
          repeats: Annotated[int, count("timed repeats", 1000)] = 5,
          batch: Annotated[int | None, typer.Option("--batch", hidden=True)] = None) -> None:
    """Loss CPU time per batch for Topograph, gudhi-PH and cripser-PH (median of alternated repeats), with
    PH / Topograph ratios (above 1: Topograph is faster)."""
    from iclr25.core.runtime import pin_threads
    from iclr25.topograph.bench import benchmark_loss, format_table
    size = size or [64, 128, 256]
    batch_size = _either(batch_size, batch, "--batch-size", "--batch") or 8
    pin_threads()
    typer.echo(format_table(benchmark_loss(sizes=size, batch=batch_size, repeats=repeats)))
