"""Loss-computation timing: Topograph vs the PH loss (gudhi and cripser backends), measured in one run on
the same batches, reported as ratios (spec Sec. 7)."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import torch
from scipy import ndimage

from iclr25.core.errors import UserError
from iclr25.topograph.data import DataConfig, make_dataset
from iclr25.topograph.losses import TopographLoss
from iclr25.topograph.ph import PHLoss

BACKENDS = ("topograph", "gudhi", "cripser")


def synthetic_logits(gt: np.ndarray, rng: np.random.Generator, noise: float = 1.5) -> np.ndarray:
    """A plausible network output for `gt` (N, H, W): a confident, blurred mask plus smooth noise, so
    that the binarised prediction has the gaps, spurs and specks a half-trained model makes."""
    smooth = np.stack([ndimage.gaussian_filter(g.astype(np.float32), 1.0) for g in gt])
    field = np.stack([ndimage.gaussian_filter(rng.normal(size=g.shape), 1.5) for g in gt])
    return (8.0 * (smooth - 0.5) + noise * 4.0 * field).astype(np.float32)


def make_batch(size: int, batch: int, seed: int = 0, family: str = "curvilinear"
               ) -> tuple[torch.Tensor, torch.Tensor]:
    """(logits (B, 1, S, S), target (B, S, S)) for timing."""
    _, y = make_dataset(family, batch, seed, DataConfig(size=size))
    x = synthetic_logits(y, np.random.default_rng(seed + 1))
    return torch.from_numpy(x[:, None]), torch.from_numpy(y.astype(np.int64))


def _loss(name: str) -> torch.nn.Module:
    if name == "topograph":
        return TopographLoss(alpha=1.0)
    if name in ("gudhi", "cripser"):
        return PHLoss(alpha=1.0, backend=name)
    raise UserError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}")


def time_losses(names: Sequence[str], logits: torch.Tensor, target: torch.Tensor, repeats: int = 5
                ) -> dict[str, list[float]]:
    """CPU seconds (this process) of forward + backward of each loss on one batch, one value per repeat,
    after one warm-up call each. The losses alternate within each repeat (the order reversed every other
    repeat), so a change of the machine's load hits every arm; CPU time, so other processes do not count.

    >>> x, y = make_batch(16, 1)
    >>> t = time_losses(("topograph", "cripser"), x, y, repeats=2); sorted(t), len(t["topograph"])
    (['cripser', 'topograph'], 2)
    """
    fns = {name: _loss(name) for name in names}
    out: dict[str, list[float]] = {name: [] for name in names}
    order = list(names)
    for r in range(repeats + 1):
        for name in order if r % 2 == 0 else order[::-1]:
            x = logits.clone().requires_grad_(True)
            t0 = time.process_time()
            fns[name](x, target).backward()
            if r:  # the first round is warm-up
                out[name].append(time.process_time() - t0)
    return out


def time_loss(name: str, logits: torch.Tensor, target: torch.Tensor, repeats: int = 5) -> float:
    """Median CPU time (s) of forward + backward of one loss on one batch, after one warm-up call."""
    return float(np.median(time_losses((name,), logits, target, repeats)[name]))


def benchmark_loss(sizes: Sequence[int] = (64, 128, 256), batch: int = 8,
                   backends: Sequence[str] = BACKENDS, repeats: int = 5, seed: int = 0,
                   family: str = "curvilinear") -> list[dict[str, float]]:
    """One row per size: CPU seconds per batch for each backend (median of alternated repeats) and the
    PH / Topograph ratios.

    >>> rows = benchmark_loss(sizes=(32,), batch=1, repeats=1)
    >>> [k for k in rows[0] if k.startswith("ratio")]
    ['ratio_gudhi', 'ratio_cripser']
    """
    for b in backends:
        _loss(b)  # validate names before timing anything
    rows = []
    for s in sizes:
        x, y = make_batch(s, batch, seed, family)
        row: dict[str, float] = {"size": s, "batch": batch}
        times = time_losses(backends, x, y, repeats)
        for b in backends:
            row[f"{b}_s"] = float(np.median(times[b]))
        for b in backends:
            if b != "topograph" and "topograph" in backends:
                row[f"ratio_{b}"] = row[f"{b}_s"] / row["topograph_s"]
        rows.append(row)
    return rows


def format_table(rows: list[dict[str, float]]) -> str:
    """A plain-text table of benchmark rows."""
    keys = list(rows[0])
    out = ["  ".join(f"{k:>14}" for k in keys)]
    for r in rows:
        out.append("  ".join(f"{r[k]:>14.4g}" if isinstance(r[k], float) else f"{r[k]:>14}" for k in keys))
    return "\n".join(out)
