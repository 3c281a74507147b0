"""Figures of the reproduction: RGB renders, PSNR per scene, spectra at a few pixels, the s sweep,
zero-shot renders and training curves (matplotlib, Agg)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from iclr25.psr_sci.metrics import to_rgb

METHODS = ("gaptv", "predictor", "unguided", "full_cube", "psr")


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _render(x: np.ndarray) -> np.ndarray:
    return to_rgb(x, exposure=1.6)


def renders(path: Path, cubes: dict[str, np.ndarray], scores: dict[str, dict]) -> None:
    plt = _plt()
    names = [n for n in ("gt", "predictor", "unguided", "full_cube", "band_group", "psr") if n in cubes]
    fig, ax = plt.subplots(1, len(names), figsize=(2.6 * len(names), 2.9))
    for a, n in zip(np.atleast_1d(ax), names, strict=True):
        a.imshow(_render(cubes[n]))
        a.set_title(n if n == "gt" else f"{n}\n{scores[n]['psnr']:.2f} dB", fontsize=9)
        a.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def psnr_per_scene(path: Path, rows: list[dict]) -> None:
    plt = _plt()
    methods = [m for m in METHODS if m in rows[0]]
    fig, ax = plt.subplots(figsize=(max(5, 0.9 * len(rows) + 2), 3.4))
    width = 0.8 / len(methods)
    for j, m in enumerate(methods):
        ax.bar(np.arange(len(rows)) + j * width, [r[m]["psnr"] for r in rows], width, label=m)
    ax.set_xlabel("test scene")
    ax.set_ylabel("PSNR (dB)")
    lo = min(r[m]["psnr"] for r in rows for m in methods)
    ax.set_ylim(lo - 2, None)
    ax.legend(fontsize=7, ncol=len(methods))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def spectra(path: Path, cubes: dict[str, np.ndarray]) -> None:
    from iclr25.psr_sci.operators import KAIST_WAVELENGTHS

    plt = _plt()
    gt = cubes["gt"]
    h, w = gt.shape[1:]
    pts = [(h // 4, w // 4), (h // 2, w // 2), (3 * h // 4, 3 * w // 4)]
    fig, ax = plt.subplots(1, 3, figsize=(11, 3))
    for a, (i, j) in zip(ax, pts, strict=True):
        for n, style in (("gt", "k-"), ("predictor", "b--"), ("psr", "r-")):
            if n in cubes:
                a.plot(KAIST_WAVELENGTHS, cubes[n][:, i, j], style, label=n)
        a.set_title(f"pixel ({i}, {j})", fontsize=9)
        a.set_xlabel("nm")
    ax[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def sweep_plot(path: Path, sweep: list[dict]) -> None:
    plt = _plt()
    keys = sorted((k for k in sweep[0] if k.startswith("s") and k[1:].isdigit()), key=lambda k: int(k[1:]))
    s = [int(k[1:]) for k in keys]
    fig, ax = plt.subplots(figsize=(4.5, 3.2))
    for r in sweep:
        gains = [r[k]["psnr"] - r["predictor"]["psnr"] for k in keys]
        ax.plot(s, gains, "o-", label=f"training scene {r['idx']}")
    ax.axhline(0, color="gray", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("guidance scale s")
    ax.set_ylabel("gain over predictor (dB)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def curves(path: Path, losses: dict[str, list[float]]) -> None:
    plt = _plt()
    fig, ax = plt.subplots(1, len(losses), figsize=(2.6 * len(losses), 2.6))
    for a, (name, ls) in zip(np.atleast_1d(ax), losses.items(), strict=True):
        a.plot(ls, lw=0.7)
        a.set_yscale("log")
        a.set_title(name, fontsize=9)
        a.set_xlabel("step")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def real_renders(path: Path, recons: list[tuple[int, np.ndarray, np.ndarray]]) -> None:
    """recons: (scene, predictor cube, PSR cube) per real scene."""
    plt = _plt()
    fig, ax = plt.subplots(2, len(recons), figsize=(2.6 * len(recons), 5.2), squeeze=False)
    for j, (scene, xp, xr) in enumerate(recons):
        for i, (name, x) in enumerate((("predictor", xp), ("PSR", xr))):
            ax[i, j].imshow(to_rgb(x, exposure=1.6 / max(float(np.percentile(x, 99)), 1e-6)))
            ax[i, j].set_title(f"real scene {scene}: {name}", fontsize=8)
            ax[i, j].axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def make_all(out: Path, test: list[dict], zero: list[dict], sweep: list[dict] | None,
             losses: dict[str, list[float]], real: list | None) -> dict[str, list[str]]:
    out = Path(out)
    figs: dict[str, list[str]] = {}
    first = next(r for r in test if "cubes" in r)
    renders(out / "renders.png", first["cubes"], first)
    figs["renders"] = ["renders.png"]
    spectra(out / "spectra.png", first["cubes"])
    figs["spectra"] = ["spectra.png"]
    psnr_per_scene(out / "psnr_per_scene.png", test)
    curves(out / "training_curves.png", losses)
    figs["psnr"] = ["psnr_per_scene.png", "training_curves.png"]
    psnr_per_scene(out / "psnr_zero_shot.png", zero)
    figs["zero"] = ["psnr_zero_shot.png"]
    if real:
        real_renders(out / "real_scenes.png", real)
        figs["zero"].append("real_scenes.png")
    figs["sweep"] = []
    if sweep:
        sweep_plot(out / "s_sweep.png", sweep)
        figs["sweep"] = ["s_sweep.png"]
    return figs
