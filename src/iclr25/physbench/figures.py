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
    ax.set_title("Held-out PhysBench-Synth: BaseQA vs PhysAgent per sub-type")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "per_sub_type.png", dpi=110)
    plt.close(fig)
    return "per_sub_type.png"


def ablations(acc: dict[str, list[float]], out: Path) -> str:
    """Held-out accuracy of the baselines, the base model, the agent's ablations (where run) and the agent."""
    plt = _plt()
    names = [n for n in ("prior", "blind", "base", "no_perception", "no_knowledge", "no_verify", "agent")
             if n in acc]
    fig, ax = plt.subplots(figsize=(7, 3))
    vals = [float(np.mean(acc[n])) for n in names]
    colour = {"prior": "grey", "blind": "grey", "base": "C0", "agent": "C1"}
    ax.bar(names, vals, color=[colour.get(n, "C2") for n in names])
    ax.axhline(25, color="grey", ls="--", lw=1, label="chance")
    for i, v in enumerate(vals):
        ax.text(i, v + 1, f"{v:.0f}", ha="center", fontsize=8)
    ax.set_ylabel("held-out accuracy (%)")
    ax.set_title("Baselines and PhysAgent ablations (held-out set)")
    plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    fig.tight_layout()
    fig.savefig(out / "ablations.png", dpi=110)
    plt.close(fig)
    return "ablations.png"


def scale_curve(pm: dict, out: Path) -> str:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(4.5, 3))
    ax.plot([pm["n_1x"], pm["n_4x"]], [np.mean(pm["prior_base_1x"]), np.mean(pm["prior_base_4x"])], "o-",
            label="BaseQA, more data")
    ax.plot([pm["n_1x"]], [np.mean(pm["prior_agent_1x"])], "s", color="C1", label="PhysAgent on BaseQA (1x)")
    ax.set_xscale("log")
    ax.set_xlabel("training items")
    ax.set_ylabel("held-out accuracy (%)")
    ax.set_title("attribute/throwing/manipulation/collision", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "scale_curve.png", dpi=110)
    plt.close(fig)
    return "scale_curve.png"


def embodied(em: dict, out: Path) -> str:
    plt = _plt()
    tasks = [k[len("embodied_base_"):] for k in em if k.startswith("embodied_base_")]
    fig, ax = plt.subplots(figsize=(5, 3))
    for k, name in enumerate(("base", "agent")):
        ax.bar(np.arange(len(tasks)) + (k - 0.5) * 0.4, [np.mean(em[f"embodied_{name}_{t}"]) for t in tasks],
               0.4, label=name)
    ax.scatter(range(len(tasks)), [em[f"embodied_chance_{t}"] for t in tasks], marker="_", s=300, color="k",
               label="chance")
    ax.set_xticks(range(len(tasks)), tasks)
    ax.set_ylabel("success (%)")
    ax.set_title(f"Embodied episodes ({em['episodes_per_task']} per task)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "embodied.png", dpi=110)
    plt.close(fig)
    return "embodied.png"


def gallery(out: Path, seed: int = 0) -> str:
    """One item per sub-type, in-template (top) and held-out (bottom): the last frame the model sees."""
    from iclr25.physbench import synth
    from iclr25.physbench.harness import frames

    plt = _plt()
    s, h = synth.generate(15, seed=seed), synth.generate(15, seed=seed, heldout=True)
    fig, axes = plt.subplots(6, 5, figsize=(10, 13))
    for ax, it, a in zip(axes.ravel(), s.items + h.items, s.answers + h.answers, strict=True):
        fr = frames(it)
        ax.imshow(fr[len(fr) - 5] if it.mode == "general" else fr[-1])
        ax.set_title(f"{a['sub_type']} ({a['answer']})", fontsize=8)
        ax.axis("off")
    fig.suptitle("PhysBench-Synth, one item per sub-type (answer letter): in-template (rows 1-3), held-out "
                 "(rows 4-6)", fontsize=10)
    fig.tight_layout()
    fig.savefig(out / "synth_gallery.png", dpi=100)
    plt.close(fig)
    return "synth_gallery.png"
