"""Figures: the 3×3 style-substance matrix of each scorer (overall = mean over domains) and
Easy / Normal / Hard bars beside the paper's best reward model."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from iclr25.rm_bench.data import STYLES

PAPER_BEST = {"easy": 89.0, "normal": 74.7, "hard": 46.6}  # Skywork-Reward-Llama-3.1-8B, RM-Bench Table 2


def overall_matrix(result: Mapping[str, Any]) -> np.ndarray:
    """Mean over domains of the (pooled) domain matrices: the matrix whose cells average to Overall."""
    return np.mean([np.asarray(d["matrix"]) for d in result["domains"].values()], axis=0)


def heatmaps(results: Mapping[str, Mapping[str, Any]], path: Path) -> Path:
    """One 3×3 panel per scorer: rows chosen style, columns rejected style, cells in percent."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    n = len(results)
    cols = min(n, 4)
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 3.0 * rows), squeeze=False)
    for ax in axes.ravel()[n:]:
        ax.axis("off")
    for ax, (name, res) in zip(axes.ravel(), results.items(), strict=False):
        m = overall_matrix(res)
        ax.imshow(m, vmin=0, vmax=100, cmap="RdYlGn")
        for i in range(3):
            for j in range(3):
                ax.text(j, i, f"{m[i, j]:.0f}", ha="center", va="center", fontsize=9)
        ax.set_xticks(range(3), STYLES, fontsize=7)
        ax.set_yticks(range(3), STYLES, fontsize=7)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("rejected style", fontsize=7)
        ax.set_ylabel("chosen style", fontsize=7)
    fig.suptitle("accuracy (%) of chosen (row style) over rejected (column style); upper triangle = Hard",
                 fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def difficulty_bars(levels: Mapping[str, Mapping[str, float]], path: Path) -> Path:
    """Grouped bars of Easy / Normal / Hard per scorer, the paper's best RM first; a line at chance."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = {"paper best RM": PAPER_BEST, **levels}
    fig, ax = plt.subplots(figsize=(1.2 + 0.9 * len(rows), 3.2))
    x = np.arange(len(rows))
    for k, (lvl, color) in enumerate(zip(("easy", "normal", "hard"), ("#4c9a2a", "#e0a100", "#c0392b"),
                                         strict=True)):
        ax.bar(x + (k - 1) * 0.27, [r[lvl] for r in rows.values()], 0.27, label=lvl.capitalize(), color=color)
    ax.axhline(50, color="grey", lw=0.8, ls="--")
    ax.set_xticks(x, list(rows), rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(0, 100)
    ax.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def style_heatmap(result: Mapping[str, Any], path: Path, title: str = "") -> Path:
    """The 3×3 style-substance matrix of one results file as heat maps: overall (mean over domains) and
    one panel per domain, cells in percent with 50 (chance) in the middle of the colour scale; written
    atomically (a device or FIFO is written through)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from iclr25.core.runtime import atomic_write
    panels = {"overall": overall_matrix(result),
              **{d: np.asarray(r["matrix"], dtype=float) for d, r in result["domains"].items()}}
    if len(result["domains"]) == 1:  # one domain: its matrix is the overall one
        only = next(iter(result["domains"]))
        panels = {f"overall = {only}": panels.pop(only)}
    n = len(panels)
    fig, axes = plt.subplots(1, n, figsize=(3.1 * n + 0.6, 3.3), squeeze=False)
    im = None
    for ax, (name, m) in zip(axes[0], panels.items(), strict=True):
        im = ax.imshow(m, vmin=0, vmax=100, cmap="RdYlGn")
        for i in range(3):
            for j in range(3):
                ax.text(j, i, f"{m[i, j]:.0f}", ha="center", va="center", fontsize=9,
                        fontweight="bold" if i < j else "normal")  # bold: the Hard cells
        ax.set_xticks(range(3), STYLES, fontsize=7)
        ax.set_yticks(range(3), STYLES, fontsize=7)
        ax.set_xlabel("rejected style", fontsize=7)
        ax.set_ylabel("chosen style", fontsize=7)
        lv = {"easy": m[np.tril_indices(3, -1)].mean(), "normal": np.diag(m).mean(),
              "hard": m[np.triu_indices(3, 1)].mean()}
        ax.set_title(f"{name}\nEasy {lv['easy']:.1f} · Normal {lv['normal']:.1f} · Hard {lv['hard']:.1f}",
                     fontsize=8)
    fig.colorbar(im, ax=axes[0].tolist(), shrink=0.8, label="accuracy (%), chance 50")
    fig.suptitle((title + ": " if title else "") + "chosen (row style) beats rejected (column style); "
                 "upper triangle (bold) = Hard", fontsize=8)
    fmt = path.suffix.lstrip(".").lower() or "png"
    with atomic_write(path) as f:
        fig.savefig(f, format=fmt, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path
