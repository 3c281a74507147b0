"""The reproduction's figures: F1 against the rank factor (with parameters and MACs), F1 against the share
of target samples, and per-host bars of F1 and ‖ΔW‖. Means with 95% intervals over the runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from iclr25.core.stats import mean_ci

VARIANT_LABELS = {"source_only": "source only", "ft": "FT (all)", "sft4": "SFT RF 4", "sft8": "SFT RF 8",
                  "bn": "BN only", "lora": "LoRA (matched)"}


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
    a.legend(fontsize=8)
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
            "bn": {"variant": "bn"}, "lora": {"variant": "lora"}}
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
    """SHOT on Data A: F1 of SFT (RF 4) and FT against the share of target training series."""
    fractions = sorted({r["fraction"] for r in runs if r["dataset"] == "A"})
    if len(fractions) < 2:
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5, 4))
    for label, match in (("SFT RF 4", {"variant": "sft", "rf": 4}), ("FT", {"variant": "ft", "rf": None})):
        pts = [_mean_hw(_sel(runs, "f1", host="shot", dataset="A", fraction=f, **match)) for f in fractions]
        ax.errorbar([100 * f for f in fractions], [p[0] for p in pts], [p[1] for p in pts], marker="o",
                    capsize=3, label=label)
    src, _ = _mean_hw(_sel(runs, "f1", host="none", dataset="A", variant="source_only"))
    ax.axhline(src, color="grey", ls=":", label="source only")
    ax.set(xscale="log", xlabel="% of target training series", ylabel="target macro-F1 (SHOT)",
           title="sample efficiency (Data A)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    name = "f1_vs_fraction.png"
    fig.savefig(Path(out_dir) / name, dpi=120)
    plt.close(fig)
    return name
