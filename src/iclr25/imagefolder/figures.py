"""Figures of the reproduction: reconstructions per tokenizer, coarse-prefix decoding, class-conditional
samples per AR model, rFD / gFD per arm (mean over seeds, each seed a dot) with the train-vs-test floor, and
the tokenizers' validation curves (where training levels off)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

NAMES = {"reconstructions": "reconstructions.png", "prefixes": "prefixes.png", "samples": "samples.png",
         "fd": "rfd_gfd.png", "curves": "validation_curves.png"}


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


def _rows(ax_rows, rows: list[tuple[str, np.ndarray]]) -> None:
    for ax, (label, imgs) in zip(ax_rows, rows, strict=True):
        ax.imshow(_strip(np.clip(imgs, 0, 1)), cmap="gray", vmin=0, vmax=1)
        ax.set_yticks([])
        ax.set_xticks([])
        ax.set_ylabel(label, rotation=0, ha="right", va="center", fontsize=8)


def make_figures(out_dir: Path, runs, arms: list[str], ar_runs: list[tuple[str, bool]],  # noqa: ANN001
                 floor: dict) -> dict[str, str]:
    """`runs`: experiments.Runs; images are shown from the first seed, numbers over every seed."""
    plt = _plt()
    out_dir = Path(out_dir)
    s0 = runs.seeds[0]
    tok = {a: runs.tok[(a, s0)] for a in arms}

    rows = [("test images", tok[arms[0]]["show"])] + [(a, tok[a]["show_recon"]) for a in arms]
    fig, axes = plt.subplots(len(rows), 1, figsize=(6, 0.8 * len(rows) + 0.4))
    _rows(np.atleast_1d(axes), rows)
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
    _rows(np.atleast_1d(axes), rows)
    fig.suptitle("decoding a coarse prefix of the scales", fontsize=9)
    fig.tight_layout()
    fig.savefig(out_dir / NAMES["prefixes"], dpi=110)
    plt.close(fig)

    keys = sorted(ar_runs, key=lambda k: (arms.index(k[0]), not k[1]))
    rows = [(f"{a}{'' if f else ' (unfolded)'} cfg {runs.ar[(a, f, s0)]['cfg']:g}",
             runs.ar[(a, f, s0)]["show"][:20]) for a, f in keys]
    fig, axes = plt.subplots(len(rows), 1, figsize=(9, 0.8 * len(rows) + 0.4))
    _rows(np.atleast_1d(axes), rows)
    fig.suptitle("class-conditional samples (two per class, classes 0-9)", fontsize=9)
    fig.tight_layout()
    fig.savefig(out_dir / NAMES["samples"], dpi=110)
    plt.close(fig)

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.2))
    x = np.arange(len(arms))
    r = np.array([runs.t(a, "rfd") for a in arms])  # (arms, seeds)
    a1.bar(x, r.mean(1), color="tab:blue", alpha=0.7)
    a1.plot(np.repeat(x, r.shape[1]), r.ravel(), "k.", ms=4)
    a1.set(xticks=x, title="reconstruction FD (rFD, test set)",
           ylabel="FD in FeatureCNN features (lower is better)")
    a1.set_xticklabels(arms, rotation=30, ha="right", fontsize=8)
    labels = [a if f else a + "\n(unfolded)" for a, f in keys]
    gv = np.array([runs.g(a, "gfd", f) for a, f in keys])
    x2 = np.arange(len(keys))
    a2.bar(x2, gv.mean(1), color="tab:orange", alpha=0.7)
    a2.plot(np.repeat(x2, gv.shape[1]), gv.ravel(), "k.", ms=4, label="one seed")
    a2.axhline(floor["fd"], color="k", ls="--", lw=1, label="train vs test floor")
    a2.set(xticks=x2, title="generation FD (gFD)")
    a2.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
    a2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out_dir / NAMES["fd"], dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(5.5, 3.2))
    for i, a in enumerate(arms):
        for j, s in enumerate(runs.seeds):
            t = runs.tok[(a, s)]
            ax.plot(t["val_step"], t["val_mse"], color=f"C{i}", lw=1, alpha=0.8, label=a if j == 0 else None)
    ax.set(xlabel="tokenizer step", ylabel="validation MSE (1,000 held-out train images)", yscale="log",
           title="tokenizer training: validation reconstruction error (one line per seed)")
    ax.title.set_fontsize(9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out_dir / NAMES["curves"], dpi=110)
    plt.close(fig)
    return dict(NAMES)
