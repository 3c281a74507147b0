"""The reproduction's figures (matplotlib, Agg): AR accuracy (+ the width ladder), copy accuracy vs L,
excess risk vs n on log-log axes, and saliency maps on DNA."""

from __future__ import annotations

from pathlib import Path

import numpy as np

LABELS = {"ssmfnn3": "3×[SSM+FNN]", "ssmfnn3-causal": "3×[SSM+FNN] causal", "ssm1": "single SSM",
          "ssm1-causal": "single SSM causal", "tf2": "Transformer (2 layers)",
          "tf2-causal": "Transformer causal", "mlp4": "MLP on first 4 tokens", "fnnssmfnn": "FNN-SSM-FNN"}


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _save(fig, path: Path) -> str:
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    _plt().close(fig)
    return Path(path).name


def ar_accuracy(path: Path, rows: list[dict], ladder: list[dict] | None = None) -> str:
    """Left: test accuracy per model at N = 8 (one dot per seed). Right (full): the width ladder, test
    accuracy (mean, one dot per seed) against parameter count for each N."""
    plt = _plt()
    fig, axes = plt.subplots(1, 2 if ladder else 1, figsize=(10 if ladder else 5, 3.6), squeeze=False)
    ax = axes[0, 0]
    models = list(dict.fromkeys(r["model"] for r in rows))
    for i, m in enumerate(models):
        accs = [r["accuracy"] for r in rows if r["model"] == m]
        ax.bar(i, np.mean(accs), color=f"C{i}", alpha=0.6)
        ax.scatter([i] * len(accs), accs, color="k", s=12, zorder=3)
    n_pairs = rows[0]["n_pairs"]
    ax.axhline(1 / n_pairs, ls=":", c="gray", label=f"a value present (1/{n_pairs})")
    ax.axhline(0.90, ls="--", c="C3", lw=0.8, label="SSM+FNN criterion 0.90")
    ax.set_xticks(range(len(models)), [LABELS.get(m, m) for m in models], fontsize=8)
    ax.set(ylim=(0, 1.05), ylabel="test accuracy", title=f"associative recall, N = {n_pairs}, |K|=|V|=32")
    ax.legend(fontsize=7, loc="center right")
    if ladder:
        ax = axes[0, 1]
        widths = sorted({r["d"] for r in ladder})
        for j, (m, marker) in enumerate((("ssmfnn3", "o"), ("tf2-causal", "s"))):
            for k, n in enumerate(sorted({r["n_pairs"] for r in ladder})):
                pts = {}
                for r in ladder:
                    if r["model"] == m and r["n_pairs"] == n:
                        pts.setdefault(r["params"], []).append(r["accuracy"])
                if pts:
                    xs = sorted(pts)
                    ax.plot(xs, [np.mean(pts[x]) for x in xs], marker=marker, color=f"C{k}",
                            ls="-" if j == 0 else "--", label=f"{LABELS[m]} N={n}")
                    for x in xs:
                        ax.scatter([x] * len(pts[x]), pts[x], color=f"C{k}", s=6, alpha=0.5)
        ax.axhline(0.90, ls=":", c="gray")
        ax.set(xscale="log", xlabel="parameters", ylabel="test accuracy", ylim=(0, 1.05),
               title=f"parameters against N, d ∈ {{{', '.join(map(str, widths))}}}")
        ax.legend(fontsize=6)
    return _save(fig, path)


def copy_accuracy(path: Path, rows: list[dict], lengths) -> str:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    for i, m in enumerate(dict.fromkeys(r["model"] for r in rows)):
        have = [L for L in lengths if any(r["model"] == m and r["length"] == L for r in rows)]
        means = [np.mean([r["accuracy"] for r in rows if r["model"] == m and r["length"] == L])
                 for L in have]  # the Transformer runs at the top length only
        ax.plot(have, means, marker="o", color=f"C{i}", ls="--" if "causal" in m else "-",
                label=LABELS.get(m, m))
    ax.axhline(1 / 16, ls=":", c="gray", label="chance 1/16")
    ax.set(xlabel="maximum source length L", ylabel="per-token copy accuracy", ylim=(0, 1.05),
           title="input copying (teacher forced)", xticks=list(lengths))
    ax.legend(fontsize=7)
    return _save(fig, path)


def regression_rate(path: Path, rows: list[dict], ns, slopes: dict[str, float], var_f: float,
                    fit: list[int] = ()) -> str:
    """Excess risk against n per model (mean ± sd over seeds); the sizes of the rate fit shaded."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    for i, m in enumerate(dict.fromkeys(r["model"] for r in rows)):
        have = [n for n in ns if any(r["model"] == m and r["n"] == n for r in rows)]
        per_n = [[r["excess_risk"] for r in rows if r["model"] == m and r["n"] == n] for n in have]
        means = [np.mean(v) for v in per_n]
        slope = slopes.get(m, float("nan"))
        label = LABELS.get(m, m) + (f" (slope {slope:.2f})" if np.isfinite(slope) else "")
        ax.errorbar(have, means, yerr=[np.std(v) for v in per_n], marker="o", color=f"C{i}", label=label,
                    capsize=2)
    if len(fit) >= 2:
        ax.axvspan(min(fit) / 1.3, max(fit) * 1.3, color="gray", alpha=0.12, label="sizes in the rate fit")
    ax.axhline(var_f, ls=":", c="gray", label="constant predictor (Var F°)")
    ax.set(xscale="log", yscale="log", xlabel="training sequences n", ylabel="excess risk E(F̂ − F°)²",
           title="dynamic token selection regression")
    ax.legend(fontsize=7)
    return _save(fig, path)


def saliency_figure(path: Path, splice: dict, motif: dict) -> str:
    """Top: splice, mean normalised |gradient × input| per position per class and single sequences.
    Bottom: planted motifs, one row per test sequence (sorted by motif position), motif marked."""
    plt = _plt()
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    ax = axes[0]
    for c, prof in splice["profile_by_class"].items():
        ax.plot(np.arange(1, len(prof) + 1), prof, label=c)
    ax.set(xlabel="position (nt)", ylabel="mean saliency share", title="splice: mean importance by class")
    ax.legend(fontsize=7)
    ax = axes[1]
    ax.imshow(np.asarray(splice["examples"]), aspect="auto", cmap="magma")
    ax.set(xlabel="position (nt)", ylabel="test sequence",
           title=f"splice: single sequences (top-6 share {splice['top_k_share']:.2f})")
    ax = axes[2]
    ex = np.asarray(motif["examples"])
    ax.imshow(ex, aspect="auto", cmap="magma", interpolation="nearest")
    for i, s in enumerate(motif["example_starts"]):
        ax.plot([s - 0.5, s + motif["motif_length"] - 0.5], [i, i], c="cyan", lw=0.8)
    ax.set(xlabel="position (nt)", ylabel="test sequence (by motif position)",
           title=f"planted motif: argmax inside it in {motif['argmax_in_motif']:.2f} of sequences")
    return _save(fig, path)
