"""The reproduction's figures (matplotlib, Agg): RingTransfer accuracy by ring size, the rewiring sweep,
curvature on the demo graphs and their lifts, the sensitivity bound, and MUTAG."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    _plt().close(fig)
    return Path(path)


def _err(values: list[float]) -> float:
    return float(np.std(values, ddof=1) / np.sqrt(len(values))) if len(values) > 1 else 0.0


def ring_transfer(path: Path, acc: dict[tuple[str, int], list[float]]) -> Path:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    for lift in sorted({k[0] for k in acc}):
        ns = sorted(n for li, n in acc if li == lift)
        label = f"{lift} (L = 3)" if lift == "ring" else f"{lift} (L = n/2)"
        ax.errorbar(ns, [np.mean(acc[(lift, n)]) for n in ns], yerr=[_err(acc[(lift, n)]) for n in ns],
                    marker="o", capsize=3, label=label)
    ax.axhline(0.2, color="grey", ls=":", label="chance")
    ax.set(xlabel="ring size n", ylabel="test accuracy", ylim=(0, 1.05),
           title="RingTransfer: lifting as a shortcut (RGCN)")
    ax.legend(fontsize=8)
    return _save(fig, path)


def rewiring(path: Path, reach: dict[str, list[float]], acc: dict[str, list[list[float]]] | None) -> Path:
    plt = _plt()
    fig, axes = plt.subplots(1, 2 if acc else 1, figsize=(10 if acc else 5.2, 3.6), squeeze=False)
    ax = axes[0, 0]
    for mth, r in reach.items():
        ax.plot(range(len(r)), r, marker="o", label=mth.upper())
    ax.set(xlabel="rewired pairs per ring", ylabel="share of rings", ylim=(0, 1.05),
           title="label within L = 4 hops of the root (n = 10)")
    ax.legend(fontsize=8)
    if acc:
        ax = axes[0, 1]
        for mth, series in acc.items():
            ax.errorbar(range(len(series)), [np.mean(s) for s in series], yerr=[_err(s) for s in series],
                        marker="o", capsize=3, label=mth.upper())
        ax.axhline(0.2, color="grey", ls=":", label="chance")
        ax.set(xlabel="rewired pairs per ring", ylabel="test accuracy", ylim=(0, 1.05),
               title="RingTransfer n = 10, RGCN with L = 4")
        ax.legend(fontsize=8)
    return _save(fig, path)


def _cell_positions(rs, G: nx.Graph) -> dict[int, np.ndarray]:
    """Cells drawn at their vertices' mean position (vertices on a spring layout of the graph)."""
    pos = nx.spring_layout(G, seed=1)
    ids = list(rs.node_ids)
    return {i: np.mean([pos[ids[v]] for v in c], axis=0) for i, c in enumerate(rs.cells)}


def curvature_demo(path: Path, cases: dict[tuple[str, str], dict]) -> Path:
    plt = _plt()
    from matplotlib.collections import LineCollection
    names = sorted({k[0] for k in cases})
    fig, axes = plt.subplots(2, len(names), figsize=(4.2 * len(names), 7.5), squeeze=False)
    lo = min(min(c["curv"].values()) for c in cases.values())
    hi = max(max(c["curv"].values()) for c in cases.values())
    norm = plt.Normalize(lo, hi)
    cmap = plt.get_cmap("coolwarm_r")
    for col, name in enumerate(names):
        for row, lift in enumerate(("none", "clique")):
            c, ax = cases[(name, lift)], axes[row, col]
            pos = _cell_positions(c["rs"], c["G"])
            edges = list(c["curv"])
            vals = np.array([c["curv"][e] for e in edges])
            worst = vals <= vals.min() + 1e-9
            segs = [[pos[a], pos[b]] for a, b in edges]
            ax.add_collection(LineCollection(segs, colors=cmap(norm(vals)),
                                             linewidths=np.where(worst, 3.5, 1.0)))
            pts = np.array(list(pos.values()))
            dims = c["rs"].cell_dim
            ax.scatter(pts[:, 0], pts[:, 1], s=np.where(dims == 0, 28, 10),
                       c=np.where(dims == 0, "k", "grey"), zorder=3)
            ax.set_title(f"{name}, {'graph' if lift == 'none' else 'clique lift'}\nmin BFC {vals.min():.2f} "
                         f"({'on' if c['minima_on_bridge'] else 'NOT on'} a bridge)", fontsize=9)
            ax.set_aspect("equal")
            ax.autoscale()
            ax.axis("off")
    fig.colorbar(plt.cm.ScalarMappable(norm=norm, cmap=cmap), ax=axes, shrink=0.6, label="Balanced Forman")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return Path(path)


def sensitivity(path: Path, scatter: tuple[list[float], list[float]], ring: dict) -> Path:
    plt = _plt()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.8))
    b, j = np.array(scatter[0]), np.array(scatter[1])
    keep = j > 0
    a1.loglog(b[keep], j[keep], ".", ms=2, alpha=0.4)
    lim = [b[keep].min(), b.max()]
    a1.loglog(lim, lim, "r-", lw=1, label="bound = Jacobian")
    a1.set(xlabel="bound (Â^L)_στ", ylabel="‖∂h_σ/∂h_τ‖ (linear RMP, ‖W‖ = 1)",
           title="every cell pair lies under the bound")
    a1.legend(fontsize=8)
    n = ring["n"]
    for label, row in ring["profiles"].items():
        a2.semilogy(range(n), np.maximum(row, 1e-12), marker="o", label=label)
    a2.axvline(n // 2, color="grey", ls=":", label="label node")
    a2.set(xlabel="ring node τ", ylabel="share of the root's bound from τ", ylim=(1e-6, None),
           title=f"RingTransfer n = {n}: the root's sensitivity")
    a2.legend(fontsize=8)
    return _save(fig, path)


def mutag(path: Path, wc: dict[str, dict], acc: dict[tuple[str, str, str], list[float]] | None) -> Path:
    plt = _plt()
    fig, axes = plt.subplots(1, 2 if acc else 1, figsize=(11 if acc else 4.8, 4), squeeze=False)
    ax = axes[0, 0]
    for kappa, w in wc.items():
        g, c = w["wc"]["graph"], w["wc"]["lift"]
        ax.scatter(g, c, s=8, label=f"WC ({kappa}), R² {w['wc']['r2']:.2f}")
    lim = ax.get_xlim()
    ax.plot(lim, lim, "k:", lw=1, label="y = x")
    ax.set(xlabel="WC of the graph", ylabel="WC of the clique lift", title="MUTAG weighted curvature")
    ax.legend(fontsize=8)
    if acc:
        ax = axes[0, 1]
        keys = sorted(acc)
        ax.bar(range(len(keys)), [np.mean(acc[k]) for k in keys], yerr=[_err(acc[k]) for k in keys],
               capsize=2,
               color=["tab:blue" if k[0] == "rgcn" else "tab:orange" for k in keys])
        ax.set_xticks(range(len(keys)), [f"{m}\n{li}/{rw}" for m, li, rw in keys], fontsize=6, rotation=90)
        ax.set(ylabel="test accuracy", ylim=(0.5, 1.0), title="MUTAG: model × lift / rewiring")
    return _save(fig, path)
