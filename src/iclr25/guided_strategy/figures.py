"""Figures of the reproduction: factor histograms, VL_K against the budget K, learning curves."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from iclr25.guided_strategy.gsd import METHODS

LABELS = {"gsd": "GSD", "infogail": "IG", "infogail_m": "IG+M", "infogail_m_sn": "IG+M+SN"}


def _runs(results: list[dict]) -> list[tuple[str, str]]:
    return sorted({(r["task"]["env"], r["task"]["split"]) for r in results})


def make_figures(results: list[dict], out_dir: Path) -> list[str]:
    """PNGs in out_dir (names returned): factor histograms, VL_K vs K, learning curves, and GSD's task
    relevance on held-out demonstration steps with the style varied vs another input varied as far."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = _runs(results)
    names = ["factor_histograms.png", "vl_vs_budget.png", "learning_curves.png", "task_relevance.png"]

    fig, axes = plt.subplots(len(runs), len(METHODS), figsize=(3.2 * len(METHODS), 2.4 * len(runs)),
                             squeeze=False)
    for i, (env, split) in enumerate(runs):
        for j, m in enumerate(METHODS):
            ax = axes[i, j]
            rs = [r for r in results if (r["task"]["env"], r["task"]["split"], r["task"]["method"]) ==
                  (env, split, m)]
            if not rs:
                continue
            f = np.concatenate([r["factors"] for r in rs])
            lo, hi = min(rs[0]["targets"]) - 0.5, max(rs[0]["targets"]) + 0.5
            ax.hist(np.clip(f, lo, hi), bins=60, range=(lo, hi), color="0.4")
            for lv, g in zip(rs[0]["levels"], rs[0]["targets"], strict=True):
                test = lv in rs[0]["test_levels"]
                ax.axvline(g, color="tab:red" if test else "tab:blue", ls="--" if test else "-", lw=1)
            ax.set_title(f"{LABELS[m]} · {env} {split}", fontsize=8)
            ax.tick_params(labelsize=7)
    n = len(results[0]["factors"]) if results else 0
    fig.suptitle(f"style factor of {n} prior codes per run (blue: train levels, red dashed: test levels)",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(out_dir / names[0], dpi=110)
    plt.close(fig)

    fig, axes = plt.subplots(1, len(runs), figsize=(3.6 * len(runs), 3), squeeze=False)
    for i, (env, split) in enumerate(runs):
        ax = axes[0, i]
        for m in METHODS:
            rs = [r for r in results if (r["task"]["env"], r["task"]["split"], r["task"]["method"]) ==
                  (env, split, m)]
            if not rs:
                continue
            ks = sorted(rs[0]["vl"])
            idx = [rs[0]["levels"].index(lv) for lv in rs[0]["test_levels"]]
            vals = [np.mean([np.mean([r["vl"][k][j] for j in idx]) for r in rs]) for k in ks]
            ax.plot(ks, vals, marker="o", ms=3, label=LABELS[m])
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("budget K")
        ax.set_ylabel("VL_K, test levels")
        ax.set_title(f"{env} {split}", fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out_dir / names[1], dpi=110)
    plt.close(fig)

    fig, axes = plt.subplots(1, len(runs), figsize=(3.6 * len(runs), 3), squeeze=False)
    for i, (env, split) in enumerate(runs):
        ax = axes[0, i]
        for m in METHODS:
            curves = [r["history"]["task_return"] for r in results
                      if (r["task"]["env"], r["task"]["split"], r["task"]["method"]) == (env, split, m)]
            if curves:
                ax.plot(np.mean(curves, axis=0), label=LABELS[m])
        demo = [r["demo_return"] for r in results if (r["task"]["env"], r["task"]["split"]) == (env, split)]
        ax.axhline(float(np.mean(demo)), color="k", ls=":", lw=1, label="demos")
        ax.set_xlabel("iteration")
        ax.set_ylabel("task return per episode")
        ax.set_title(f"{env} {split}", fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out_dir / names[2], dpi=110)
    plt.close(fig)

    gsd = {(r["task"]["env"], r["task"]["split"]): r for r in results if r["task"]["method"] == "gsd"}
    fig, axes = plt.subplots(1, len(runs), figsize=(3.6 * len(runs), 3), squeeze=False)
    for i, key in enumerate(runs):
        ax = axes[0, i]
        if key in gsd:  # the first seed of the run
            r = gsd[key]
            bins = np.linspace(0, 1, 41)
            for k, label in (("rho_style", "style varied (demo of a neighbouring level)"),
                             ("rho_task", "non-style input varied as far")):
                ax.hist(r["relevance"][k], bins=bins, alpha=0.6, density=True, label=label)
        ax.set_xlabel("GSD task relevance σ(h(s, a))")
        ax.set_title(f"{key[0]} {key[1]}", fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out_dir / names[3], dpi=110)
    plt.close(fig)
    return names
