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
