"""Figures of the PhysBench reproduction: accuracy per sub-type, ablations, the data-scale comparison, a
PhysBench-Synth gallery and embodied success (matplotlib, Agg)."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def per_sub_type(res: list[dict], out: Path) -> str:
    plt = _plt()
    subs = sorted(res[0]["sub"]["agent"])
    fig, ax = plt.subplots(figsize=(9, 3.5))
    w = 0.4
    for k, name in enumerate(("base", "agent")):
        vals = [np.mean([r["sub"][name].get(s, np.nan) for r in res]) for s in subs]
        ax.bar(np.arange(len(subs)) + (k - 0.5) * w, vals, w, label=name)
    ax.axhline(25, color="grey", ls="--", lw=1, label="chance")
    ax.set_xticks(range(len(subs)), subs, rotation=45, ha="right")
    ax.set_ylabel("accuracy (%)")
    ax.set_title("PhysBench-Synth: BaseQA vs PhysAgent per sub-type")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "per_sub_type.png", dpi=110)
    plt.close(fig)
    return "per_sub_type.png"


def ablations(acc: dict[str, list[float]], out: Path) -> str:
    plt = _plt()
    names = ["chance", "prior", "blind", "base", "no_experts", "no_knowledge", "no_verify", "agent"]
    fig, ax = plt.subplots(figsize=(7, 3))
    vals = [float(np.mean(acc[n])) for n in names]
    ax.bar(names, vals, color=["grey"] * 3 + ["C0"] + ["C2"] * 3 + ["C1"])
    for i, v in enumerate(vals):
        ax.text(i, v + 1, f"{v:.0f}", ha="center", fontsize=8)
    ax.set_ylabel("accuracy (%)")
    ax.set_title("Baselines and PhysAgent ablations")
    plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    fig.tight_layout()
    fig.savefig(out / "ablations.png", dpi=110)
    plt.close(fig)
    return "ablations.png"


def scale_curve(pm: dict, out: Path) -> str:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(4.5, 3))
    ax.plot([pm["n_1x"], pm["n_4x"]], [pm["base_1x_pct"], pm["base_4x_pct"]], "o-", label="BaseQA, more data")
    ax.plot([pm["n_1x"]], [pm["agent_1x_pct"]], "s", color="C1", label="PhysAgent on BaseQA (1x)")
    ax.set_xscale("log")
    ax.set_xlabel("training items")
    ax.set_ylabel("accuracy (%)")
    ax.set_title("attribute/throwing/manipulation/collision", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "scale_curve.png", dpi=110)
    plt.close(fig)
    return "scale_curve.png"


def embodied(em: dict, out: Path) -> str:
    plt = _plt()
    tasks = ["stack", "throw", "push"]
    fig, ax = plt.subplots(figsize=(5, 3))
    for k, name in enumerate(("base", "agent")):
        ax.bar(np.arange(3) + (k - 0.5) * 0.4, [em[f"{t}_{name}_pct"] for t in tasks], 0.4, label=name)
    ax.set_xticks(range(3), tasks)
    ax.set_ylabel("success (%)")
    ax.set_title(f"Embodied proxy ({em['episodes_per_task']} episodes per task)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "embodied.png", dpi=110)
    plt.close(fig)
    return "embodied.png"


def gallery(out: Path, seed: int = 0) -> str:
    """One item per sub-type: the last frame the model sees, titled with the sub-type and answer."""
    from iclr25.physbench import synth
    from iclr25.physbench.harness import frames

    plt = _plt()
    s = synth.generate(15, seed=seed)
    fig, axes = plt.subplots(3, 5, figsize=(10, 6.6))
    for ax, it, a in zip(axes.ravel(), s.items, s.answers, strict=True):
        fr = frames(it)
        ax.imshow(fr[len(fr) - 5] if it.mode == "general" else fr[-1])
        ax.set_title(f"{a['sub_type']} ({a['answer']})", fontsize=8)
        ax.axis("off")
    fig.suptitle("PhysBench-Synth: one item per sub-type (answer letter)", fontsize=10)
    fig.tight_layout()
    fig.savefig(out / "synth_gallery.png", dpi=100)
    plt.close(fig)
    return "synth_gallery.png"
