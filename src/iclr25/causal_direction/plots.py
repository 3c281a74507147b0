"""Figures: one detector's disagreement curve (for users), and the reproduction's four figures."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from iclr25.causal_direction.roca import DirectionResult


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _draw_curve(ax, result: DirectionResult, title: str | None = None) -> None:
    c = result.curve
    g = c.groupby("rate")
    rates = np.array(sorted(g.groups))
    for col, label, style in (("disagreement", "D(ρ): Y′ vs Ŷ_ρ", "-o"),
                              ("reference", "reference: Ỹ vs Ŷ_ρ", "--")):
        m = g[col].mean().to_numpy()
        ax.plot(rates, m - m[0], style, label=label, ms=4)
    ax.scatter(c["rate"], c["disagreement"] - g["disagreement"].mean().iloc[0], s=8, alpha=0.4)
    if result.config.decision == "effect":  # above this line the normalised slope passes the threshold
        ref = g["reference"].mean().to_numpy()
        ax.plot(rates, result.config.threshold * (ref - ref[0]), ":", color="grey",
                label=f"{result.config.threshold:g} × reference")
    ax.set_xlabel("injected noise rate ρ")
    ax.set_ylabel("change in disagreement")
    ax.set_title(title or str(result), fontsize=9)


def plot_curve(result: DirectionResult, path: str | Path | None = None, ax=None):
    """Plot D(ρ) − D(0) against ρ beside the reference (Y′ = Ỹ, slope ≈ 1). A flat curve means causal,
    one rising with the reference means anticausal. Saves to `path` if given; returns the figure.

    >>> import numpy as np, tempfile, os
    >>> from iclr25.causal_direction import detect_direction
    >>> rng = np.random.default_rng(0); y = rng.integers(0, 2, 200)
    >>> r = detect_direction(rng.normal(size=(200, 2)) + 4 * y[:, None], y, reps=1)
    >>> p = os.path.join(tempfile.mkdtemp(), "c.png"); _ = plot_curve(r, p); os.path.exists(p)
    True
    """
    plt = _plt()
    fig = None
    if ax is None:
        fig, ax = plt.subplots(figsize=(5, 3.5))
    _draw_curve(ax, result)
    ax.legend(fontsize=8)
    fig = fig or ax.figure
    if path is not None:
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)
    return fig


def curves_figure(results: dict[str, tuple[str, DirectionResult]], path: Path) -> None:
    """A grid of disagreement curves, one panel per data set; `results[name] = (truth, result)`."""
    plt = _plt()
    n = len(results)
    cols = min(4, n)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 2.8 * rows), squeeze=False)
    for ax, (name, (truth, r)) in zip(axes.flat, results.items(), strict=False):
        _draw_curve(ax, r, f"{name} (truth {truth}): {r.normalized_slope:.2f}")
        ax.set_ylim(-0.05, 0.45)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def slopes_figure(rows: list[dict], threshold: float, path: Path) -> None:
    """Normalised slope per data set (mean and interval over seeds), coloured by the true direction;
    rows: {name, truth, mean, lo, hi}."""
    plt = _plt()
    rows = sorted(rows, key=lambda r: r["mean"])
    colour = {"causal": "tab:blue", "anticausal": "tab:red"}
    fig, ax = plt.subplots(figsize=(6, 0.35 * len(rows) + 1.2))
    for i, r in enumerate(rows):
        ax.errorbar(r["mean"], i, xerr=[[r["mean"] - r["lo"]], [r["hi"] - r["mean"]]], fmt="o",
                    color=colour.get(r["truth"], "grey"), capsize=3)
    ax.set_yticks(range(len(rows)), [f"{r['name']} ({r['truth']})" for r in rows], fontsize=8)
    ax.axvline(threshold, color="k", ls="--", lw=1, label=f"threshold {threshold}")
    ax.set_xlabel("normalised slope (mean over seeds, 95% interval)")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def robustness_figure(names: list[str], cells: list[str], slopes: np.ndarray, correct: np.ndarray,
                      threshold: float, path: Path) -> None:
    """Heat map of the normalised slope per data set (rows) and pre-existing noise cell (columns);
    wrong calls are marked with a cross."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(0.7 * len(cells) + 2.5, 0.35 * len(names) + 1.5))
    im = ax.imshow(slopes, cmap="coolwarm", vmin=0, vmax=2 * threshold, aspect="auto")
    for i in range(len(names)):
        for j in range(len(cells)):
            ax.text(j, i, f"{slopes[i, j]:.2f}" + ("" if correct[i, j] else " ✗"), ha="center", va="center",
                    fontsize=6)
    ax.set_xticks(range(len(cells)), cells, rotation=45, ha="right", fontsize=7)
    ax.set_yticks(range(len(names)), names, fontsize=7)
    fig.colorbar(im, ax=ax, label="normalised slope")
    ax.set_title("pre-existing noise (type, rate); ✗ = wrong call", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def scaling_figure(by_n: tuple[list[int], list[float]], d_main: int,
                   by_d: tuple[list[int], list[float]] | None, n_d: int, path: Path) -> None:
    """Median wall time of one detection against n (log-log, with an O(n) guide) and, when measured,
    against the dimension d at a fixed n."""
    plt = _plt()
    panels = 2 if by_d else 1
    fig, axes = plt.subplots(1, panels, figsize=(5 * panels, 3.5), squeeze=False)
    ns, ts = by_n
    ax = axes[0, 0]
    ax.loglog(ns, ts, "-o", label=f"d = {d_main}")
    ax.loglog(ns, [ts[0] * n / ns[0] for n in ns], "k:", label="∝ n")
    ax.set_xlabel("rows n")
    ax.set_ylabel("wall time per detection (s)")
    ax.legend(fontsize=8)
    if by_d:
        ds, tds = by_d
        ax = axes[0, 1]
        ax.loglog(ds, tds, "-o", color="tab:green", label=f"n = {n_d:,}")
        ax.set_xlabel("features d")
        ax.set_ylabel("wall time per detection (s)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
