"""Training curves of one `train` run as a PNG: reward per step of both seats and, where the game has one,
its own metric (cooperation rate, own-coin fraction, welfare per round), each smoothed over 10 iterations."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from iclr25.core.runtime import atomic_write


def smooth(h: list[float] | np.ndarray, window: int = 10) -> np.ndarray:
    """Trailing moving average over `window` iterations (shorter at the start).

    >>> smooth([0.0, 2.0, 4.0], window=2).tolist()
    [0.0, 1.0, 3.0]
    """
    h = np.asarray(h, dtype=float)
    c = np.cumsum(np.insert(h, 0, 0.0))
    i = np.arange(1, len(h) + 1)
    lo = np.maximum(i - window, 0)
    return (c[i] - c[lo]) / (i - lo)


def game_metric(history: dict[str, list[float]]) -> tuple[str, np.ndarray] | None:
    """The game's own per-iteration metric, if its history has one."""
    if "welfare" in history:
        return "welfare per round (greedy 9, cooperative 15)", np.asarray(history["welfare"])
    if "coins" in history:
        own, coins = np.asarray(history["own_coins"]), np.asarray(history["coins"])
        return "own-coin fraction (random pickup 0.5)", own / np.maximum(coins, 1e-9)
    if "cooperate" in history:
        return "cooperation rate", np.asarray(history["cooperate"]) / 2
    return None


def training_curves(history: dict[str, list[float]], path: Path, title: str) -> Path:
    """Write the curves of `history` (as `train` returns it) to `path` (PNG) and return the path."""
    import io

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    extra = game_metric(history)
    fig, axes = plt.subplots(1, 2 if extra else 1, figsize=(10 if extra else 5.5, 3.4), squeeze=False)
    ax = axes[0, 0]
    for seat, color in (("0", "C0"), ("1", "C1")):
        h = history.get(f"reward_{seat}", [])
        ax.plot(h, color=color, alpha=0.25, lw=0.8)
        ax.plot(smooth(h), color=color, lw=1.8, label=f"seat {seat}")
    ax.set(xlabel="iteration", ylabel="reward / step", title=title)
    ax.legend(fontsize=7)
    if extra:
        label, y = extra
        axes[0, 1].plot(y, color="C2", alpha=0.25, lw=0.8)
        axes[0, 1].plot(smooth(y), color="C2", lw=1.8)
        axes[0, 1].set(xlabel="iteration", ylabel=label.split(" (")[0], title=label)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    with atomic_write(Path(path)) as f:
        f.write(buf.getvalue())
    return Path(path)
