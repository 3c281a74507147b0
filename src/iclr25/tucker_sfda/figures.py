"""The reproduction's figures: F1 against the rank factor (with parameters and MACs), the SFT − FT gap
against the share of target samples per data set, per-host bars of F1 and ‖ΔW‖, and SFT against the
matched-capacity baselines. Means with 95% intervals over the runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from iclr25.core.stats import mean_ci

VARIANT_LABELS = {"source_only": "source only", "ft": "FT (all)", "sft4": "SFT RF 4", "sft8": "SFT RF 8",
                  "bn": "BN only", "lora": "LoRA (matched)", "random": "random subset (matched)"}


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _mean_hw(xs: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% interval (0 for a single value)."""
    if not xs:
        return float("nan"), 0.0
    iv = mean_ci(xs)
    return iv.mean, (iv.hi - iv.mean) if len(xs) > 1 else 0.0


def _sel(runs: list[dict], key: str, **match) -> list[float]:
    return [r[key] for r in runs if all(r[k] == v for k, v in match.items())]


def plot_f1_vs_rf(runs: list[dict], counts: dict, out_dir: Path) -> str:
    """SHOT: macro-F1 of SFT at each RF beside FT, and the core parameters / MACs as % of dense."""
    plt = _plt()
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    rfs = sorted({r["rf"] for r in runs if r["host"] == "shot" and r["variant"] == "sft"
                  and r["fraction"] == 1.0})
    for ds, marker in (("A", "o"), ("B", "s")):
        pts = [_mean_hw(_sel(runs, "f1", host="shot", variant="sft", rf=rf, fraction=1.0, dataset=ds))
               for rf in rfs]
        if pts and not np.isnan(pts[0][0]):
            a.errorbar(rfs, [p[0] for p in pts], [p[1] for p in pts], marker=marker, capsize=3,
                       label=f"SFT, Data {ds}")
            ft, _ = _mean_hw(_sel(runs, "f1", host="shot", variant="ft", fraction=1.0, dataset=ds))
            a.axhline(ft, ls="--", color=a.lines[-1].get_color(), label=f"FT, Data {ds}")
    a.set(xscale="log", xlabel="rank factor RF", ylabel="target macro-F1 (SHOT)", title="F1 vs RF")
    a.set_xticks(rfs or [4, 8], [str(r) for r in rfs or [4, 8]])
    if a.get_legend_handles_labels()[0]:
        a.legend(fontsize=8)
    else:  # quick: counts only
        a.text(0.5, 0.5, "F1: full profile only", ha="center", va="center", transform=a.transAxes)
    for name, row in counts.items():
        xs = sorted(row["rf"])
        b.plot(xs, [100 * row["rf"][x]["trainable"] / row["dense"]["trainable"] for x in xs], "o-",
               label=f"trainable params, {name.split(' ')[0]}")
        b.plot(xs, [100 * row["rf"][x]["macs"] / row["dense"]["macs"] for x in xs], "s--",
               label=f"MACs, {name.split(' ')[0]}")
    b.axhline(10, color="grey", lw=0.8)
    b.set(xscale="log", yscale="log", xlabel="rank factor RF", ylabel="% of dense",
          title="cost of the decomposed model")
    count_rfs = sorted(next(iter(counts.values()))["rf"])
    b.set_xticks(count_rfs, [str(x) for x in count_rfs])
    b.legend(fontsize=8)
    fig.tight_layout()
    name = "f1_vs_rf.png"
    fig.savefig(Path(out_dir) / name, dpi=120)
    plt.close(fig)
    return name


def plot_hosts(runs: list[dict], out_dir: Path) -> str:
    """Per host: mean macro-F1 and ‖ΔW‖_F of source-only, FT, SFT RF 4 / 8 (and the SHOT baselines)."""
    plt = _plt()
    hosts = [h for h in ("shot", "nrc", "aad", "mapu")
             if _sel(runs, "f1", host=h, variant="ft", fraction=1.0)]
    arms = {"source_only": {"variant": "source_only"}, "ft": {"variant": "ft", "rf": None},
            "sft4": {"variant": "sft", "rf": 4}, "sft8": {"variant": "sft", "rf": 8},
            "bn": {"variant": "bn"}, "lora": {"variant": "lora"}, "random": {"variant": "random"}}
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    width = 0.8 / len(arms)
    for j, (arm, match) in enumerate(arms.items()):
        for ax, key in zip(axes, ("f1", "delta"), strict=True):
            vals = []
            for h in hosts:
                src_host = ("mapu" if h == "mapu" else "none") if arm == "source_only" else h
                vals.append(_mean_hw(_sel(runs, key, host=src_host, fraction=1.0, **match)))
            if all(np.isnan(v[0]) for v in vals) or (key == "delta" and arm == "source_only"):
                continue
            x = np.arange(len(hosts)) + (j - len(arms) / 2 + 0.5) * width
            ax.bar(x, [v[0] for v in vals], width, yerr=[v[1] for v in vals], capsize=2,
                   label=VARIANT_LABELS[arm])
    for ax, ylabel in zip(axes, ("target macro-F1", "‖ΔW‖_F (dense weights)"), strict=True):
        ax.set_xticks(np.arange(len(hosts)), [h.upper() for h in hosts])
        ax.set_ylabel(ylabel)
    axes[0].set_ylim(0, 1)
    axes[0].legend(fontsize=7, ncol=2)
    axes[0].set_title("F1 per host (mean, 95% CI)")
    axes[1].set_title("distance from the source weights")
    fig.tight_layout()
    name = "hosts.png"
    fig.savefig(Path(out_dir) / name, dpi=120)
    plt.close(fig)
    return name


def plot_f1_vs_fraction(runs: list[dict], out_dir: Path) -> str | None:
    """SHOT, per data set: the paired gap SFT (RF 4) − FT against the share of target series used for
    adaptation (mean and 95% interval over runs); the claim is that the gap grows as the share shrinks."""
    fractions = sorted({r["fraction"] for r in runs})
    if len(fractions) < 2:
        return None
    plt = _plt()
    datasets = sorted({r["dataset"] for r in runs})
    fig, axes = plt.subplots(1, len(datasets), figsize=(4.5 * len(datasets), 3.8), squeeze=False)
    for ax, ds in zip(axes[0], datasets, strict=True):
        pts = []
        for f in fractions:
            sft = {(r["scenario"], r["seed"], r["sub"]): r["f1"] for r in runs if r["host"] == "shot"
                   and r["variant"] == "sft" and r["rf"] == 4 and r["fraction"] == f and r["dataset"] == ds}
            ft = {(r["scenario"], r["seed"], r["sub"]): r["f1"] for r in runs if r["host"] == "shot"
                  and r["variant"] == "ft" and r["fraction"] == f and r["dataset"] == ds}
            per_run: dict[tuple, list[float]] = {}
            for k in sorted(set(sft) & set(ft)):
                per_run.setdefault(k[:2], []).append(sft[k] - ft[k])
            pts.append(_mean_hw([float(np.mean(v)) for v in per_run.values()]))
        ax.errorbar([100 * f for f in fractions], [p[0] for p in pts], [p[1] for p in pts], marker="o",
                    capsize=3)
        ax.axhline(0, color="grey", lw=0.8)
        ax.set(xscale="log", xlabel="% of target series adapted on", ylabel="macro-F1, SFT RF 4 − FT (SHOT)",
               title=f"Data {ds}")
        ax.set_xticks([100 * f for f in fractions], [f"{100 * f:g}" for f in fractions])
    fig.suptitle("sample efficiency: the SFT − FT gap against target data", fontsize=10)
    fig.tight_layout()
    name = "f1_vs_fraction.png"
    fig.savefig(Path(out_dir) / name, dpi=120)
    plt.close(fig)
    return name


def plot_matched(runs: list[dict], out_dir: Path) -> str | None:
    """SHOT: target macro-F1 of SFT against the baselines with matched trainable counts (one pair of bars
    per comparison, the counts in the labels)."""
    pairs = (("random subset", ("sft", 8), ("random", 8)), ("LoRA", ("sft", 8), ("lora", 8)),
             ("BN only", ("sft", 16), ("bn", None)))
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    shown = 0
    for i, (label, (va, ra), (vb, rb)) in enumerate(pairs):
        a = _sel(runs, "f1", host="shot", variant=va, rf=ra, fraction=1.0)
        b = _sel(runs, "f1", host="shot", variant=vb, rf=rb, fraction=1.0)
        if not a or not b:
            continue
        shown += 1
        na = max(_sel(runs, "trainable", host="shot", variant=va, rf=ra, fraction=1.0))
        nb = max(_sel(runs, "trainable", host="shot", variant=vb, rf=rb, fraction=1.0))
        for j, (vals, n, name, color) in enumerate(((a, na, f"SFT RF {ra}", "C0"), (b, nb, label, "C1"))):
            m, hw = _mean_hw(vals)
            ax.bar(3 * i + j, m, yerr=hw, capsize=3, color=color)
            ax.text(3 * i + j, 0.02, f"{name}\n{n:,}", ha="center", va="bottom", fontsize=7, rotation=90,
                    color="white")
    if not shown:
        plt.close(fig)
        return None
    ax.set(ylim=(0, 1), ylabel="target macro-F1 (SHOT)", xticks=[],
           title="SFT vs updates of the same size (mean, 95% CI)")
    fig.tight_layout()
    name = "matched.png"
    fig.savefig(Path(out_dir) / name, dpi=120)
    plt.close(fig)
    return name
