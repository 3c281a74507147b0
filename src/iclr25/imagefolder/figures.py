"""Figures of the reproduction: reconstructions per tokenizer, coarse-prefix decoding, class-conditional
samples per AR model, and rFD / gFD per arm with bootstrap intervals and the train-vs-test floor."""

from __future__ import annotations

from pathlib import Path

import numpy as np

NAMES = {"reconstructions": "reconstructions.png", "prefixes": "prefixes.png", "samples": "samples.png",
         "fd": "rfd_gfd.png"}


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _strip(images: np.ndarray) -> np.ndarray:
    """(n, 1, H, W) -> (H, n W) with a 1-pixel white gap."""
    n, _, h, w = images.shape
    out = np.ones((h, n * (w + 1) - 1), np.float32)
    for i in range(n):
        out[:, i * (w + 1): i * (w + 1) + w] = images[i, 0]
    return out


def _rows(ax_rows, rows: list[tuple[str, np.ndarray]], plt) -> None:
    for ax, (label, imgs) in zip(ax_rows, rows, strict=True):
        ax.imshow(_strip(np.clip(imgs, 0, 1)), cmap="gray", vmin=0, vmax=1)
        ax.set_yticks([])
        ax.set_xticks([])
        ax.set_ylabel(label, rotation=0, ha="right", va="center", fontsize=8)


def make_figures(out_dir: Path, tok: dict, ar: dict, floor: dict) -> dict[str, str]:
    plt = _plt()
    out_dir = Path(out_dir)
    arms = list(tok)
    first = tok[arms[0]]

    rows = [("test images", first["show"])] + [(a, tok[a]["show_recon"]) for a in arms]
    fig, axes = plt.subplots(len(rows), 1, figsize=(6, 0.8 * len(rows) + 0.4))
    _rows(np.atleast_1d(axes), rows, plt)
    fig.suptitle("reconstructions (all scales)", fontsize=9)
    fig.tight_layout()
    fig.savefig(out_dir / NAMES["reconstructions"], dpi=110)
    plt.close(fig)

    shown = [a for a in ("pq1_nodrop", "pq1", "imagefolder") if a in tok]
    rows = []
    for a in shown:
        for n, imgs in enumerate(tok[a]["show_prefix"], start=1):
            rows.append((f"{a}: {n} scale{'s' if n > 1 else ''}", imgs))
    fig, axes = plt.subplots(len(rows), 1, figsize=(6, 0.7 * len(rows) + 0.4))
    _rows(np.atleast_1d(axes), rows, plt)
    fig.suptitle("decoding a coarse prefix of the scales", fontsize=9)
    fig.tight_layout()
    fig.savefig(out_dir / NAMES["prefixes"], dpi=110)
    plt.close(fig)

    keys = sorted(ar, key=lambda k: (arms.index(k[0]), not k[1]))
    rows = [(f"{a}{'' if f else ' (unfolded)'} cfg {ar[(a, f)]['cfg']:g}", ar[(a, f)]["show"][:20])
            for a, f in keys]
    fig, axes = plt.subplots(len(rows), 1, figsize=(9, 0.8 * len(rows) + 0.4))
    _rows(np.atleast_1d(axes), rows, plt)
    fig.suptitle("class-conditional samples (two per class, classes 0-9)", fontsize=9)
    fig.tight_layout()
    fig.savefig(out_dir / NAMES["samples"], dpi=110)
    plt.close(fig)

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.2))
    x = np.arange(len(arms))
    r = np.array([[tok[a]["rfd"], tok[a]["rfd_lo"], tok[a]["rfd_hi"]] for a in arms])
    a1.bar(x, r[:, 0], yerr=[r[:, 0] - r[:, 1], r[:, 2] - r[:, 0]], color="tab:blue", capsize=3)
    a1.set(xticks=x, title="reconstruction FD (rFD, test set)", ylabel="FD in FeatureCNN features")
    a1.set_xticklabels(arms, rotation=30, ha="right", fontsize=8)
    labels = [a if f else a + "\n(unfolded)" for a, f in keys]
    gv = np.array([[ar[k]["gfd"], ar[k]["gfd_lo"], ar[k]["gfd_hi"]] for k in keys])
    x2 = np.arange(len(keys))
    a2.bar(x2, gv[:, 0], yerr=[gv[:, 0] - gv[:, 1], gv[:, 2] - gv[:, 0]], color="tab:orange", capsize=3)
    a2.axhline(floor["fd"], color="k", ls="--", lw=1, label="train vs test floor")
    a2.set(xticks=x2, title="generation FD (gFD)")
    a2.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
    a2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out_dir / NAMES["fd"], dpi=110)
    plt.close(fig)
    return dict(NAMES)
