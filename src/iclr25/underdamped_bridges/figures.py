"""The reproduction's figures and the CLI's learning curves and sample scatter (matplotlib, Agg), each drawn
from measured results only."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def _save(fig, path: Path) -> str:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path.name


def score_matching_gap(seeds: list[dict], path: Path) -> str:
    """ELBO deficit against the score-matching integral, one colour per seed, with y = x."""
    fig, ax = plt.subplots(figsize=(4.6, 4))
    top = max(max(r["sm"] + r["deficit"]) for r in seeds)
    ax.plot([0, top], [0, top], "k--", lw=1, label="y = x (theory)")
    for i, r in enumerate(seeds):
        ax.scatter(r["sm"], r["deficit"], s=18, label=f"seed {i}: slope {r['slope']:.3f}, R² {r['r2']:.3f}")
    ax.set_xlabel("½∫E‖σᵀ(s − ∇log p_t)‖² dt")
    ax.set_ylabel("ELBO(exact score) − ELBO(s)")
    ax.set_title("velocity-only noise: score matching = ELBO", fontsize=10)
    ax.legend(fontsize=7)
    return _save(fig, path)


def elbo_vs_k(cells: dict[tuple[str, str, bool], dict[int, tuple[float, float]]], refs: dict[str, float],
              path: Path) -> str:
    """Mean ELBO (± half-range over seeds) against K per target: UD solid, OD dashed, a colour per method."""
    targets = sorted({t for t, _, _ in cells})
    fig, axes = plt.subplots(1, len(targets), figsize=(5 * len(targets), 3.8), squeeze=False)
    colours = {"ula": "C0", "dis": "C1", "dbs": "C2", "mcd": "C3", "cmcd": "C4"}
    for ax, target in zip(axes[0], targets, strict=True):
        for (t, method, ud), points in sorted(cells.items()):
            if t != target:
                continue
            ks = sorted(points)
            mean = [points[k][0] for k in ks]
            err = [points[k][1] for k in ks]
            ax.errorbar(ks, mean, yerr=err, fmt="o-" if ud else "s--", color=colours.get(method, "k"),
                        label=f"{method.upper()}{'-UD' if ud else ''}", capsize=3)
        if target in refs:
            ax.axhline(refs[target], color="grey", lw=1, ls=":", label=f"log Z ≈ {refs[target]:.2f}")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("steps K")
        ax.set_ylabel("ELBO")
        ax.set_title(target)
        ax.legend(fontsize=7)
    return _save(fig, path)


def bars(groups: dict[str, list[float]], title: str, ylabel: str, path: Path,
         ref: float | None = None) -> str:
    """One bar per group: the mean over seeds, error bar ± half-range, the seeds as dots."""
    fig, ax = plt.subplots(figsize=(1.2 + 1.1 * len(groups), 3.6))
    names = list(groups)
    for i, name in enumerate(names):
        vals = np.asarray(groups[name], dtype=float)
        vals = vals[np.isfinite(vals)]
        if len(vals) == 0:
            continue
        ax.bar(i, vals.mean(), color="C0" if i % 2 == 0 else "C1", alpha=0.6)
        ax.errorbar(i, vals.mean(), yerr=(vals.max() - vals.min()) / 2, color="k", capsize=4)
        ax.scatter(np.full(len(vals), i), vals, color="k", s=10, zorder=3)
    finite = [v for vals in groups.values() for v in vals if np.isfinite(v)]
    if finite:
        lo, hi = min(finite), max(finite)
        pad = 0.15 * (hi - lo) + 0.5
        ax.set_ylim(lo - pad, hi + pad if ref is None else max(hi, ref) + pad)
    if ref is not None:
        ax.axhline(ref, color="grey", ls=":", lw=1, label=f"log Z ≈ {ref:.2f}")
        ax.legend(fontsize=7)
    ax.set_xticks(range(len(names)), names, fontsize=8, rotation=20)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    return _save(fig, path)


def learning_curves(curves: dict[str, tuple[int, list[float]]], path: Path, title: str = "") -> str:
    """Training ELBO (the batch mean of log w) against the iteration, one line per run; the y-axis is
    clipped to the last 80% of the iterations so that early collapses do not flatten the curves."""
    fig, ax = plt.subplots(figsize=(6.2, 3.8))
    tails = []
    for name, (step, ys) in curves.items():
        xs = np.arange(len(ys)) * step
        ax.plot(xs, ys, lw=1.2, label=name)
        tail = np.asarray(ys[len(ys) // 5:], dtype=float)
        tails.append(tail[np.isfinite(tail)])
    both = np.concatenate([t for t in tails if t.size]) if any(t.size for t in tails) else np.zeros(0)
    if both.size:
        lo, hi = np.percentile(both, 1), both.max()
        ax.set_ylim(lo - 0.1 * (hi - lo + 1e-9), hi + 0.1 * (hi - lo + 1e-9))
    ax.set_xlabel("iteration")
    ax.set_ylabel("training ELBO (batch mean of log w)")
    ax.set_title(title or "learning curves", fontsize=10)
    ax.legend(fontsize=7)
    return _save(fig, path)


def sample_scatter(x: np.ndarray, path: Path, truth: np.ndarray | None = None, title: str = "",
                   dims: tuple[int, int] = (0, 1)) -> str:
    """Scatter of the sampler's draws in two coordinates (beside exact samples when there are any)."""
    panels = [("exact samples", truth)] if truth is not None else []
    panels.append(("sampler", x))
    fig, axes = plt.subplots(1, len(panels), figsize=(3.6 * len(panels), 3.4), sharex=True, sharey=True,
                             squeeze=False)
    i, j = dims
    for ax, (name, pts) in zip(axes[0], panels, strict=True):
        if pts.shape[1] > j:
            ax.scatter(pts[:, i], pts[:, j], s=3, alpha=0.4)
            ax.set_ylabel(f"x{j}")
        else:  # one-dimensional target: a histogram
            ax.hist(pts[:, i], bins=50, alpha=0.7)
        ax.set_xlabel(f"x{i}")
        ax.set_title(name, fontsize=9)
    if title:
        fig.suptitle(title, fontsize=10)
    return _save(fig, path)


def funnel_samples(samples: dict[str, np.ndarray], truth: np.ndarray, path: Path) -> str:
    """(x₀, x₁) scatter of ground truth and of each sampler's draws."""
    fig, axes = plt.subplots(1, len(samples) + 1, figsize=(3.3 * (len(samples) + 1), 3.2), sharex=True,
                             sharey=True)
    for ax, (name, x) in zip(axes, [("ground truth", truth), *samples.items()], strict=True):
        ax.scatter(x[:, 0], x[:, 1], s=3, alpha=0.4)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("x₀")
    axes[0].set_ylabel("x₁")
    axes[0].set_xlim(-10, 10)
    axes[0].set_ylim(-15, 15)
    return _save(fig, path)
