"""Reproduction of PSR-SCI (ICLR 2025) at CPU scale: synthetic 28-band scenes from measured reflectance
spectra, the real KAIST mask and two unseen Bernoulli masks, a predictor that starts at GAP-TV, URSe and
two diffusion priors trained here. Experiments measure; each claim's rule (claims.py) decides. Only
relative claims are testable (no KAIST ground truth, no Stable Diffusion). Profiles change sizes only
(training.SIZES); quick decides the timing claim and shows the rest as "decided by the full profile"."""

from __future__ import annotations

import statistics
import time

import numpy as np
import torch

from iclr25.core.claims import Finding, Verdict
from iclr25.core.runtime import RunContext, child_seeds
from iclr25.core.stats import mean_ci, paired_ci
from iclr25.psr_sci import figures
from iclr25.psr_sci.claims import CLAIMS, MASKS
from iclr25.psr_sci.models import TrainedModels, trained_models
from iclr25.psr_sci.training import (
    G_SCALE,
    G_SCALES,
    SIZES,
    START_T,
    START_TS,
    Sizes,
    eval_scenes,
    load_mask,
    test_mask,
)

KIND_OFFSET = {"test": 0, "zero_shot": 40, "sweep": 80}
RULES = {c.key: c.rule for c in CLAIMS}


# ---- one scene under one mask, all arms (a worker task) --------------------------------------------

def evaluate_scene(item: tuple) -> dict:
    """All reconstructions of one fixed scene under one test mask: GAP-TV, the predictor (which starts at
    GAP-TV), PSR, the positive control (PSR refining GAP-TV's output) and, for test scenes under the first
    mask, the URSe round trip, unguided refinement and the full-cube prior; metrics and residuals of each."""
    kind, idx, mask_name, sizes, seed, models, (g_scale, start_t) = item
    from iclr25.core.runtime import pin_threads
    from iclr25.psr_sci.freq import freq_split
    from iclr25.psr_sci.metrics import psnr, sam, ssim
    from iclr25.psr_sci.operators import cassi_forward
    from iclr25.psr_sci.pipeline import residual

    pin_threads()
    x = eval_scenes(sizes, seed, kind)[idx]
    mask = test_mask(mask_name, sizes.scene)
    y = cassi_forward(x, mask)
    m = models.build()
    out: dict = {"kind": kind, "idx": idx, "mask": mask_name}

    def score(name: str, xh: np.ndarray) -> None:
        out[name] = {"psnr": psnr(xh, x), "ssim": ssim(xh, x), "sam": sam(xh, x),
                     "residual": residual(xh, y, mask)}

    x_init, x_gap = m.predictor.predict_with_classic(y, mask)
    score("gaptv", x_gap)
    score("init", x_init)
    # one noise seed per (scene, mask): every arm of this scene starts from the same noise
    s_seed = child_seeds(seed, 128)[idx + KIND_OFFSET[kind] + 10 * MASKS.index(mask_name)]
    if kind == "sweep":
        runs = [(f"s{int(s)}_t{t}", m.psr, True, s, x_init) for s in G_SCALES for t in START_TS]
    else:
        runs = [("psr", m.psr, True, g_scale, x_init), ("control", m.psr, True, g_scale, x_gap)]
        if kind == "test" and mask_name == MASKS[0]:
            runs += [("unguided", m.psr, False, g_scale, x_init),
                     ("full_cube", m.full_cube, True, g_scale, x_init)]
            hg, lg = freq_split(torch.as_tensor(x)[None])
            with torch.no_grad():
                score("roundtrip", (m.urse(hg) + lg)[0].numpy())
    for name, pipe, guided, s, start in runs:
        t = int(name.rsplit("_t", 1)[1]) if kind == "sweep" else start_t
        xh, _ = pipe.reconstruct(y, mask, guidance=guided, g_scale=s, seed=s_seed, x_init=start, start_t=t)
        score(name, xh)
        if idx == 0 and kind == "test" and mask_name == MASKS[0]:
            out.setdefault("cubes", {})[name] = xh
    if "cubes" in out:
        out["cubes"].update(gt=x, init=x_init, gaptv=x_gap)
    return out


def time_steps(models: TrainedModels, sizes: Sizes, seed: int, steps: int = 3) -> dict[str, list[float]]:
    """Process CPU seconds per guided DDIM step (every step inside t < t_start) of each prior on one test
    scene of `sizes.timing_scene`² under the KAIST mask, `sizes.repeats` times; the arms alternate, and
    their order flips each repeat."""
    from dataclasses import replace

    from iclr25.psr_sci.operators import cassi_forward

    x = eval_scenes(replace(sizes, scene=sizes.timing_scene, n_test=1), seed, "test")[0]
    mask = test_mask(MASKS[0], sizes.timing_scene)
    y = cassi_forward(x, mask)
    m = models.build()
    x_init = m.predictor.predict(y, mask)
    pipes = {"subspace": m.psr, "band_group": m.band_group, "full_cube": m.full_cube}
    saved = {k: p.refiner.ddpm.config for k, p in pipes.items()}
    for p in pipes.values():
        cfg = p.refiner.ddpm.config
        p.refiner.ddpm.config = replace(cfg, start_t=cfg.t_start - 1)
    out: dict[str, list[float]] = {k: [] for k in pipes}
    try:
        for r in range(sizes.repeats):
            order = list(pipes) if r % 2 == 0 else list(pipes)[::-1]
            for name in order:
                _, info = pipes[name].reconstruct(y, mask, guidance=True, steps=steps, seed=seed,
                                                  x_init=x_init)
                out[name].append(info["refine_cpu_s"] / steps)
    finally:
        for k, p in pipes.items():
            p.refiner.ddpm.config = saved[k]
    return out


def has_real_data() -> bool:
    from iclr25.core.data import shared_data
    from iclr25.psr_sci.training import DATA

    folder = shared_data(DATA)
    return folder is not None and (folder / "real" / "scene1.mat").exists()


def real_task(item: tuple) -> tuple[int, np.ndarray, np.ndarray]:
    """Predictor and PSR on the central region of a real TSA-Net measurement (no ground truth)."""
    from iclr25.psr_sci.real import normalise_real, real_crop, real_scene

    scene, sizes, seed, models, (g_scale, start_t) = item
    y, mask = real_crop(*real_scene(scene), sizes.scene)
    y = normalise_real(y, mask)
    m = models.build()
    xp = m.predictor.predict(y, mask)
    xr, _ = m.psr.reconstruct(y, mask, g_scale=g_scale, seed=seed, x_init=xp, start_t=start_t)
    return scene, xp, xr


# ---- the run -----------------------------------------------------------------------------------------

def run(profile: str, ctx: RunContext) -> list[Finding]:
    sizes = SIZES[profile]
    seed = ctx.seed
    _, mask_source = load_mask()
    t0 = time.perf_counter()
    models = trained_models(sizes, seed, ctx)
    train_s = time.perf_counter() - t0
    choice, sweep = (G_SCALE, START_T), None
    if sizes.sweep:  # (s, start) are chosen on two training-image scenes, never on the test scenes
        sweep = ctx.map(evaluate_scene, [("sweep", i, MASKS[0], sizes, seed, models, choice)
                                         for i in range(2)], "s sweep")
        choice = max(((s, t) for s in G_SCALES for t in START_TS),
                     key=lambda st: np.mean([r[f"s{int(st[0])}_t{st[1]}"]["psnr"] for r in sweep]))
    items = [(kind, i, mk, sizes, seed, models, choice) for kind, n in (("test", sizes.n_test),
                                                                        ("zero_shot", sizes.n_zero))
             for mk in MASKS for i in range(n)]
    results = ctx.map(evaluate_scene, items, "scenes x masks")
    timing = time_steps(models, sizes, seed)
    real = None
    if has_real_data():
        scenes = ctx.pick(smoke=[1], quick=[], full=[1, 2, 3, 4, 5])
        if scenes:
            real = ctx.map(real_task, [(k, sizes, seed, models, choice) for k in scenes], "real scenes")
    test = [r for r in results if r["kind"] == "test"]
    zero = [r for r in results if r["kind"] == "zero_shot"]
    figs = figures.make_all(ctx.out_dir, test, zero, sweep, models.losses(), real)
    common = {"profile_scene_px": sizes.scene, "n_test_scenes": sizes.n_test, "mask_source": mask_source,
              "g_scale": choice[0], "start_t": choice[1], "train_s": train_s,
              "prior_steps": sizes.prior_steps}
    return findings(profile, test, zero, timing, common, figs, models)


def _col(rows: list[dict], mask: str, method: str, metric: str) -> list[float]:
    return [float(r[method][metric]) for r in sorted(rows, key=lambda r: r["idx"]) if r["mask"] == mask]


def _gain_text(a: list[float], b: list[float], unit: str = " dB") -> str:
    ci = paired_ci(a, b)
    return f"{ci.mean:+.2f}{unit} [{ci.lo:+.2f}, {ci.hi:+.2f}]"


def findings(profile: str, test: list[dict], zero: list[dict], timing: dict[str, list[float]], common: dict,
             figs: dict[str, list[str]], models: TrainedModels) -> list[Finding]:
    """The findings from per-scene results: measurements (one value per scene) and a summary each."""
    decide_here = profile != "quick"  # quick's sizes show the pipeline, full decides (smoke never shows)
    k0 = MASKS[0]

    def col(method: str, metric: str, mask: str = k0, rows: list[dict] = test) -> list[float]:
        return _col(rows, mask, method, metric)

    measured: dict[str, dict] = {key: {} for key in RULES}
    for mk in MASKS:
        for arm, key in (("psr", "psr"), ("init", "init"), ("gaptv", "gaptv"), ("control", "control")):
            measured["refine_gain"][f"{key}_psnr_{mk}"] = col(arm, "psnr", mk)
            if arm in ("psr", "init"):
                measured["refine_gain"][f"{key}_residual_{mk}"] = col(arm, "residual", mk)
                measured["ssim_competitive"][f"{key}_ssim_{mk}"] = col(arm, "ssim", mk)
                measured["ssim_competitive"][f"{key}_sam_deg_{mk}"] = col(arm, "sam", mk)
        for arm in ("psr", "init", "gaptv"):
            measured["zero_shot"][f"zs_{arm}_psnr_{mk}"] = _col(zero, mk, arm, "psnr")
    measured["urse_reversible"] = {"roundtrip_psnr_db": col("roundtrip", "psnr"),
                                   "roundtrip_ssim": col("roundtrip", "ssim"),
                                   "urse_params": models.n_params["urse"]}
    measured["guidance_consistency"] = {"residual_guided": col("psr", "residual"),
                                        "residual_unguided": col("unguided", "residual"),
                                        "psnr_guided": col("psr", "psnr"),
                                        "psnr_unguided": col("unguided", "psnr")}
    measured["subspace_data_efficiency"] = {"psnr_subspace": col("psr", "psnr"),
                                            "psnr_full_cube": col("full_cube", "psnr"),
                                            "psnr_predictor": col("init", "psnr"),
                                            "subspace_prior_params": models.n_params["subspace"],
                                            "full_cube_prior_params": models.n_params["full_cube"]}
    ratios = [b / s for b, s in zip(timing["band_group"], timing["subspace"], strict=True)]
    measured["subspace_speed"] = {"ratio_band_group_over_subspace": ratios,
                                  "cpu_s_per_step_subspace": timing["subspace"],
                                  "cpu_s_per_step_band_group": timing["band_group"],
                                  "cpu_s_per_step_full_cube": timing["full_cube"]}

    rg = measured["refine_gain"]
    pre = {mk: paired_ci(rg[f"init_psnr_{mk}"], rg[f"gaptv_psnr_{mk}"]) for mk in MASKS}
    pre_text = "; ".join(f"{mk} {p.mean:+.2f} dB [{p.lo:+.2f}, {p.hi:+.2f}]" for mk, p in pre.items())
    gains = "; ".join(f"{mk} {_gain_text(rg[f'psr_psnr_{mk}'], rg[f'init_psnr_{mk}'])}" for mk in MASKS)
    control = "; ".join(f"{mk} {_gain_text(rg[f'control_psnr_{mk}'], rg[f'gaptv_psnr_{mk}'])}"
                        for mk in MASKS)
    scale = " — not shown at our prior's scale"

    def shortfall(key: str) -> str:
        if not decide_here or RULES[key].decide(measured[key] | common) is Verdict.REPRODUCED:
            return ""
        return scale

    ss = measured["ssim_competitive"]
    zs = measured["zero_shot"]
    g = measured["guidance_consistency"]
    e = measured["subspace_data_efficiency"]
    rt = mean_ci(measured["urse_reversible"]["roundtrip_psnr_db"])
    summaries = {
        "urse_reversible": f"GT round trip {rt.mean:.2f} dB [{rt.lo:.2f}, {rt.hi:.2f}], SSIM "
                           f"{np.mean(measured['urse_reversible']['roundtrip_ssim']):.4f}; paper 49.25 dB / "
                           "0.9961",
        "refine_gain": f"PSR − predictor per mask: {gains}; positive control (refining GAP-TV): {control}; "
                       f"precondition init − GAP-TV: {pre_text}; paper +0.93 dB" + shortfall("refine_gain"),
        "guidance_consistency": f"guided − unguided ({k0}): residual "
                                f"{_gain_text(g['residual_guided'], g['residual_unguided'], '')}, PSNR "
                                f"{_gain_text(g['psnr_guided'], g['psnr_unguided'])}; paper visual only",
        "ssim_competitive": "ΔSSIM PSR − predictor per mask: " + "; ".join(
            f"{mk} {_gain_text(ss[f'psr_ssim_{mk}'], ss[f'init_ssim_{mk}'], '')}" for mk in MASKS)
            + f"; SAM {np.mean(ss[f'psr_sam_deg_{k0}']):.2f}° vs {np.mean(ss[f'init_sam_deg_{k0}']):.2f}° "
              f"({k0}); paper notebook −0.030" + shortfall("ssim_competitive"),
        "zero_shot": "zero-shot gain per mask: " + "; ".join(
            f"{mk} {_gain_text(zs[f'zs_psr_psnr_{mk}'], zs[f'zs_init_psnr_{mk}'])}" for mk in MASKS)
            + f" ({len(zs[f'zs_psr_psnr_{k0}'])} scenes, CIE-2017 spectra); paper "
              "qualitative" + shortfall("zero_shot"),
        "subspace_data_efficiency": f"subspace − full-cube refiner ({k0}): "
                                    f"{_gain_text(e['psnr_subspace'], e['psnr_full_cube'])} (subspace "
                                    f"{np.mean(e['psnr_subspace']):.2f}, full cube "
                                    f"{np.mean(e['psnr_full_cube']):.2f}, "
                                    f"predictor {np.mean(e['psnr_predictor']):.2f} dB); paper: full-cube "
                                    "diffusion impractical",
        "subspace_speed": f"CPU per guided step: subspace {statistics.median(timing['subspace']) * 1e3:.0f} "
                          f"ms, band-group {statistics.median(timing['band_group']) * 1e3:.0f} ms (×"
                          f"{statistics.median(ratios):.2f} median of {len(ratios)}); per-step part only; "
                          "paper 8.9 s vs 84.5 s per scene (×9.5)",
    }
    out = [Finding.not_testable(
        "predictor_beats_classic",
        f"prior work (MST/DAUHST) PSR-SCI quotes, not testable at our scale; precondition 'init ≥ classic' "
        f"measured: predictor − GAP-TV {pre_text}",
        **{f"init_minus_gaptv_db_{mk}": p.mean for mk, p in pre.items()},
        **{f"init_minus_gaptv_db_lo_{mk}": p.lo for mk, p in pre.items()},
        **{f"init_psnr_db_{mk}": float(np.mean(rg[f"init_psnr_{mk}"])) for mk in MASKS},
        **{f"gaptv_psnr_db_{mk}": float(np.mean(rg[f"gaptv_psnr_{mk}"])) for mk in MASKS},
        predictor_params=models.n_params["predictor"])]
    fig_of = {"refine_gain": figs["renders"] + figs["psnr"], "guidance_consistency": figs["sweep"],
              "zero_shot": figs["zero"], "ssim_competitive": figs["spectra"]}
    for key in ("urse_reversible", "refine_gain", "guidance_consistency", "ssim_competitive", "zero_shot",
                "subspace_data_efficiency"):
        m = {**measured[key], **common}
        if decide_here:
            out.append(Finding.measure(key, m, summaries[key], fig_of.get(key, [])))
        else:
            out.append(Finding.deferred(key, f"{profile}: {summaries[key]}", **m))
    out.append(Finding.measure("subspace_speed", {**measured["subspace_speed"], **common},
                               summaries["subspace_speed"]))
    out.append(Finding.not_testable(
        "kaist_benchmark", "needs the 10 KAIST ground-truth cubes (Drive-hosted, not in shared/data) and the "
        "SD-2.1 / DiffBIR / DAUHST weights (hub downloads)"))
    return out
