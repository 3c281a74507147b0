"""Figures of the reproduction: RGB renders, PSNR per scene, spectra at a few pixels, the s sweep,
zero-shot renders and training curves (matplotlib, Agg)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from iclr25.psr_sci.metrics import to_rgb

METHODS = ("gaptv", "control", "init", "unguided", "full_cube", "psr")
LABELS = {"gt": "truth", "gaptv": "GAP-TV", "control": "GAP-TV + refine", "init": "predictor",
          "unguided": "unguided", "full_cube": "full-cube prior", "psr": "PSR"}


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _render(x: np.ndarray) -> np.ndarray:
    return to_rgb(x, exposure=1.6)


def renders(path: Path, cubes: dict[str, np.ndarray], scores: dict[str, dict]) -> None:
    """Truth | reconstruction | absolute error (mean over bands) for each method, one column each."""
    plt = _plt()
    names = [n for n in ("gaptv", "init", "unguided", "full_cube", "psr") if n in cubes]
    gt = cubes["gt"]
    err_max = max(float(np.abs(cubes[n] - gt).mean(0).max()) for n in names) or 1.0
    fig, ax = plt.subplots(2, len(names) + 1, figsize=(2.4 * (len(names) + 1), 5.0), squeeze=False)
    ax[0, 0].imshow(_render(gt))
    ax[0, 0].set_title("truth", fontsize=9)
    ax[1, 0].axis("off")
    ax[0, 0].axis("off")
    im = None
    for j, n in enumerate(names, start=1):
        ax[0, j].imshow(_render(cubes[n]))
        ax[0, j].set_title(f"{LABELS[n]}\n{scores[n]['psnr']:.2f} dB, SSIM "
                           f"{scores[n]['ssim']:.3f}", fontsize=8)
        im = ax[1, j].imshow(np.abs(cubes[n] - gt).mean(0), cmap="magma", vmin=0, vmax=err_max)
        ax[1, j].set_title("|error|, mean over bands", fontsize=8)
        for a in (ax[0, j], ax[1, j]):
            a.axis("off")
    if im is not None:
        fig.colorbar(im, ax=ax[1, 1:].tolist(), shrink=0.8)
    fig.savefig(path, dpi=90)
    plt.close(fig)


def psnr_per_scene(path: Path, rows: list[dict], mask: str) -> None:
    plt = _plt()
    rows = sorted((r for r in rows if r["mask"] == mask), key=lambda r: r["idx"])
    methods = [m for m in METHODS if m in rows[0]]
    fig, ax = plt.subplots(figsize=(max(5, 0.9 * len(rows) + 2), 3.4))
    width = 0.8 / len(methods)
    for j, m in enumerate(methods):
        ax.bar(np.arange(len(rows)) + j * width, [r[m]["psnr"] for r in rows], width, label=LABELS[m])
    ax.set_xlabel(f"scene (mask {mask})")
    ax.set_ylabel("PSNR (dB)")
    lo = min(r[m]["psnr"] for r in rows for m in methods)
    ax.set_ylim(lo - 2, None)
    ax.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def gains_by_mask(path: Path, rows: list[dict], masks: tuple[str, ...]) -> None:
    """Per-scene gains over the predictor (PSR) and over GAP-TV (the positive control), each mask."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 3.4))
    for j, mk in enumerate(masks):
        rs = [r for r in rows if r["mask"] == mk]
        for k, (arm, base, colour) in enumerate((("psr", "init", "C0"), ("control", "gaptv", "C1"))):
            g = [r[arm]["psnr"] - r[base]["psnr"] for r in rs]
            xs = np.full(len(g), j + (k - 0.5) * 0.3)
            ax.scatter(xs, g, s=14, color=colour, label=None if j else ("PSR − predictor", "refined GAP-TV "
                                                                                           "− GAP-TV")[k])
            ax.plot([xs[0] - 0.1, xs[0] + 0.1], [np.mean(g)] * 2, color=colour, lw=2)
    ax.axhline(0, color="gray", lw=0.8)
    ax.set_xticks(range(len(masks)), masks)
    ax.set_ylabel("PSNR gain (dB)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def spectra(path: Path, cubes: dict[str, np.ndarray]) -> None:
    from iclr25.psr_sci.operators import KAIST_WAVELENGTHS

    plt = _plt()
    gt = cubes["gt"]
    h, w = gt.shape[1:]
    pts = [(h // 4, w // 4), (h // 2, w // 2), (3 * h // 4, 3 * w // 4)]
    fig, ax = plt.subplots(1, 3, figsize=(11, 3))
    for a, (i, j) in zip(ax, pts, strict=True):
        for n, style in (("gt", "k-"), ("init", "b--"), ("psr", "r-")):
            if n in cubes:
                a.plot(KAIST_WAVELENGTHS, cubes[n][:, i, j], style, label=LABELS[n])
        a.set_title(f"pixel ({i}, {j})", fontsize=9)
        a.set_xlabel("nm")
    ax[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def sweep_plot(path: Path, sweep: list[dict]) -> None:
    """Mean gain over the predictor on the sweep scenes for each (s, start step)."""
    plt = _plt()
    keys = [k for k in sweep[0] if k.startswith("s") and "_t" in k]
    grid = sorted({(int(k[1:].split("_t")[0]), int(k.split("_t")[1])) for k in keys})
    fig, ax = plt.subplots(figsize=(4.8, 3.2))
    for t in sorted({t for _, t in grid}):
        ss = [s for s, tt in grid if tt == t]
        gains = [np.mean([r[f"s{s}_t{t}"]["psnr"] - r["init"]["psnr"] for r in sweep]) for s in ss]
        ax.plot(ss, gains, "o-", label=f"start t = {t}")
    ax.axhline(0, color="gray", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("guidance scale s")
    ax.set_ylabel("gain over predictor (dB)")
    ax.set_title("choice on 2 training-image scenes", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
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
    from iclr25.psr_sci.claims import MASKS

    out = Path(out)
    figs: dict[str, list[str]] = {}
    first = next(r for r in test if "cubes" in r)
    renders(out / "renders.png", first["cubes"], first)
    figs["renders"] = ["renders.png"]
    spectra(out / "spectra.png", first["cubes"])
    figs["spectra"] = ["spectra.png"]
    psnr_per_scene(out / "psnr_per_scene.png", test, MASKS[0])
    gains_by_mask(out / "gains_by_mask.png", test, MASKS)
    curves(out / "training_curves.png", losses)
    figs["psnr"] = ["gains_by_mask.png", "psnr_per_scene.png", "training_curves.png"]
    gains_by_mask(out / "gains_zero_shot.png", zero, MASKS)
    figs["zero"] = ["gains_zero_shot.png"]
    if real:
        real_renders(out / "real_scenes.png", real)
        figs["zero"].append("real_scenes.png")
    figs["sweep"] = []
    if sweep:
        sweep_plot(out / "s_sweep.png", sweep)
        figs["sweep"] = ["s_sweep.png"]
    return figs
