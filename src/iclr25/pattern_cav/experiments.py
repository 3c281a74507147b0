"""Reproduction of Pahde et al. (ICLR 2025) at CPU scale: the 2-D toy, a high-dimensional synthetic
latent, and a CNN with a controlled shortcut on scikit-learn digits (alignment, TCAV, RR-ClArC)."""

from __future__ import annotations

import copy
import io
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from iclr25.core.claims import Claim, Finding, Verdict, all_of, at_least, at_most, between
from iclr25.core.runtime import RunContext, atomic_write, cache_dir, child_seeds, config_hash
from iclr25.core.stats import Interval, mean_ci, paired_ci
from iclr25.pattern_cav.cav import FILTER_METHODS, FilterConfig, compute_cav
from iclr25.pattern_cav.metrics import alignment, concept_auc, cosine
from iclr25.pattern_cav.synthetic import LatentConfig, latent_directions, sample_latent
from iclr25.pattern_cav.toy import analytic_filter_cos, toy_data, true_direction

ALL_METHODS = ("pattern", *FILTER_METHODS)

# Criteria fixed before measuring (spec 08, Sec. 4).
TOY_PATTERN_MIN_COS = 0.98
TOY_FILTER_45_RANGE = (0.80, 0.90)  # analytic 0.856 (Sec. 2 of the spec)
TOY_FILTER_MIN_COS = 0.85
MIN_SHORTCUT_RATE = 0.15  # the vanilla model must demonstrably use the patch
ALIGN_MARGIN = 0.10  # cos(pattern) - best filter cos
PATTERN_CUT = 0.50  # relative cut of the shortcut rate by RR-ClArC(pattern) ...
SVM_CUT_BELOW = 0.25  # ... at a lambda where RR-ClArC(svm) cuts it by less than this
MAX_CLEAN_DROP = 0.10  # clean-accuracy cost, absolute

CLAIMS = [
    Claim("toy_alignment",
          "In the 2-D toy with a rotating distractor, the pattern CAV stays on the concept direction while "
          "filter CAVs (SVM, ridge) rotate with the distractor (directional divergence).",
          "Animation/Fig. 1 of the paper: pattern fixed at (1, 0); filters rotate; analytic LS filter "
          "cos 0.856 at 45 deg, min 0.797 near 65 deg",
          f"pattern cos >= {TOY_PATTERN_MIN_COS} at every angle and seed; SVM and ridge mean cos at 45 deg "
          "in "
          f"[{TOY_FILTER_45_RANGE[0]}, {TOY_FILTER_45_RANGE[1]}] and their minimum over angles <= "
          f"{TOY_FILTER_MIN_COS}"),
    Claim("high_dim_alignment",
          "With distractors in a high-dimensional latent, pattern CAVs align better with the true concept "
          "direction than every filter CAV, while filters may separate as well or better (AUC).",
          "Paper (ISIC, Bone Age, FunnyBirds; VGG, ResNet, EfficientNet, ViT): pattern CAVs have the "
          "highest cosine alignment across datasets, architectures and layers; filter AUC comparable or "
          "slightly higher",
          "in every setting (D in {32, 256}, distractor strength >= signal), mean cos(pattern) > mean cos of "
          "each of svm, ridge, lasso, logistic; AUC reported, not judged"),
    Claim("shortcut_removal",
          "On a CNN that uses an injected shortcut, the pattern CAV aligns better with the true artifact "
          "direction, and RR-ClArC with it removes the shortcut where RR-ClArC with an SVM CAV does not.",
          "Paper (ISIC timestamp, Bone Age brightness artifacts): RR-ClArC with pattern CAVs lowers "
          "artifact sensitivity most at similar clean accuracy",
          f"vanilla shortcut rate >= {MIN_SHORTCUT_RATE}; cos(pattern) >= best filter + {ALIGN_MARGIN}; "
          f"at some lambda of the grid RR-ClArC(pattern) cuts the shortcut rate by >= {PATTERN_CUT:.0%} "
          f"while RR-ClArC(svm) cuts it by < {SVM_CUT_BELOW:.0%}, with a clean-accuracy drop <= "
          f"{MAX_CLEAN_DROP * 100:.0f} points (means over seeds). Decided on the full profile's 5 seeds: "
          f"the per-seed margin's 95% interval must lie above 0 (PARTIAL if the mean is below "
          f"{ALIGN_MARGIN})"),
    Claim("tcav_fidelity",
          "TCAV computed with pattern CAVs is closer to the ground-truth TCAV (sensitivity along the true "
          "per-sample concept direction) than TCAV with filter CAVs.",
          "Paper (FunnyBirds forced concepts): pattern-CAV TCAV closest to TCAV_gt",
          "first the concept must be significant: pattern-CAV bank vs random CAVs, p < 0.05 over the full "
          "profile's 5 seeds (per-position TCAV, else position-averaged; NOT_TESTABLE at this power if "
          "neither); then the per-seed paired 95% interval of |TCAV(best filter) - gt| - |TCAV(pattern) - "
          "gt| lies above 0 (PARTIAL if only against the filters' mean), shortcut class"),
]


# ---- A. 2-D toy ---------------------------------------------------------------------------------

def _toy_cell(item: tuple[int, float, FilterConfig, tuple[str, ...]]) -> dict[str, float]:
    seed, angle, fcfg, methods = item
    a, t = toy_data(angle, np.random.default_rng(seed))
    h = true_direction()
    return {m: cosine(compute_cav(a, t, m, fcfg), h) for m in methods}


def _toy(ctx: RunContext, fcfg: FilterConfig) -> tuple[Finding, dict[str, Any]]:
    angles = ctx.pick(smoke=[0.0, 45.0], quick=list(np.arange(0, 181, 15.0)),
                      full=list(np.arange(0, 181, 5.0)))
    n_seeds = ctx.pick(smoke=1, quick=3, full=5)
    # the criterion needs svm and ridge; lasso and logistic only add curves to the full figure
    methods = ctx.pick(smoke=("pattern", "svm", "ridge"), quick=("pattern", "svm", "ridge"), full=ALL_METHODS)
    seeds = child_seeds(ctx.seed + 1, n_seeds)
    items = [(s, a, fcfg, methods) for s in seeds for a in angles]
    res = ctx.map(_toy_cell, items, description="toy sweep")
    cos = {m: np.array([r[m] for r in res]).reshape(n_seeds, len(angles)) for m in methods}
    mean = {m: cos[m].mean(0) for m in methods}
    i45 = angles.index(45.0)
    pattern_min = float(cos["pattern"].min())
    checks = [at_least(pattern_min, TOY_PATTERN_MIN_COS)]
    measured: dict[str, Any] = {"pattern_cos_min": pattern_min, "n_seeds": n_seeds, "n_angles": len(angles),
                                "analytic_filter_cos_45": float(analytic_filter_cos(45.0))}
    for m in methods[1:]:
        measured[f"{m}_cos_45"] = float(mean[m][i45])
        measured[f"{m}_cos_min"] = float(mean[m].min())
        measured[f"{m}_argmin_deg"] = float(angles[int(np.argmin(mean[m]))])
    for m in ("svm", "ridge"):
        checks += [between(measured[f"{m}_cos_45"], *TOY_FILTER_45_RANGE),
                   at_most(measured[f"{m}_cos_min"], TOY_FILTER_MIN_COS)]
    summary = (f"pattern cos >= {pattern_min:.3f} at all {len(angles)} angles; at 45 deg svm "
               f"{measured['svm_cos_45']:.3f}, ridge {measured['ridge_cos_45']:.3f} (analytic 0.856); "
               f"min svm {measured['svm_cos_min']:.3f}, ridge {measured['ridge_cos_min']:.3f}")
    fig = _plot_toy(ctx, angles, mean)
    return Finding("toy_alignment", all_of(*checks), measured, summary, [fig]), {}


def _plot_toy(ctx: RunContext, angles: list[float], mean: dict[str, np.ndarray]) -> str:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 3.6))
    grid = np.linspace(0, 180, 181)
    ax.plot(grid, analytic_filter_cos(grid), "k--", lw=1, label="analytic LS filter (paper setup)")
    for m in mean:
        ax.plot(angles, mean[m], marker="o" if m == "pattern" else ".", label=f"{m} (measured)")
    ax.set_xlabel("distractor rotation r (deg)")
    ax.set_ylabel("cos(CAV, true concept direction)")
    ax.set_title("2-D toy: pattern CAV vs filter CAVs")
    ax.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    name = "toy_sweep.png"
    fig.savefig(ctx.figure_path(name), dpi=110)
    plt.close(fig)
    return name


# ---- B. high-dimensional synthetic latent ---------------------------------------------------------

def _latent_cell(item: tuple[int, LatentConfig, FilterConfig]) -> dict[str, float]:
    seed, lcfg, fcfg = item
    rng = np.random.default_rng(seed)
    h, u = latent_directions(lcfg, rng)
    a, t = sample_latent(lcfg, h, u, lcfg.n, rng)
    a_te, t_te = sample_latent(lcfg, h, u, 1000, rng)  # held-out, same generative model
    out: dict[str, float] = {}
    for m in ALL_METHODS:
        cav = compute_cav(a, t, m, fcfg)
        out[f"{m}_cos"] = cosine(cav, h)
        out[f"{m}_auc"] = concept_auc(cav, a_te, t_te)
    return out


def _high_dim(ctx: RunContext, fcfg: FilterConfig) -> Finding:
    dims = ctx.pick(smoke=[16], quick=[32, 256], full=[32, 256])
    ns = ctx.pick(smoke=[100], quick=[200, 1000], full=[50, 500, 2000])
    ks = ctx.pick(smoke=[2], quick=[4], full=[2, 8])
    strengths = ctx.pick(smoke=[2.0], quick=[2.0], full=[1.0, 2.0])
    n_seeds = ctx.pick(smoke=1, quick=2, full=3)
    settings = [LatentConfig(dim=d, n=n, n_distractors=k, distractor_strength=g)
                for d in dims for n in ns for k in ks for g in strengths]
    seeds = child_seeds(ctx.seed + 2, n_seeds)
    items = [(s, c, fcfg) for c in settings for s in seeds]
    res = ctx.map(_latent_cell, items, description="high-D latent")
    wins, rows = [], []
    for i in range(len(settings)):
        cell = res[i * n_seeds:(i + 1) * n_seeds]
        mean = {k: float(np.mean([r[k] for r in cell])) for k in cell[0]}
        rows.append(mean)
        wins.append(all(mean["pattern_cos"] > mean[f"{m}_cos"] for m in FILTER_METHODS))
    measured: dict[str, Any] = {"n_settings": len(settings), "n_seeds": n_seeds,
                                "settings_pattern_wins": int(sum(wins))}
    for key in rows[0]:
        measured[f"{key}_mean"] = float(np.mean([r[key] for r in rows]))
    measured["pattern_cos_min"] = float(min(r["pattern_cos"] for r in rows))
    best_f = max(FILTER_METHODS, key=lambda m: measured[f"{m}_cos_mean"])
    best_auc = max(ALL_METHODS, key=lambda m: measured[f"{m}_auc_mean"])
    verdict = at_least(sum(wins) / len(wins), 1.0)
    summary = (f"pattern beats every filter on cos in {sum(wins)}/{len(wins)} settings; mean cos pattern "
               f"{measured['pattern_cos_mean']:.3f} vs best filter {best_f} "
               f"{measured[f'{best_f}_cos_mean']:.3f}; AUC pattern {measured['pattern_auc_mean']:.3f}, "
               f"best {best_auc} {measured[f'{best_auc}_auc_mean']:.3f}")
    return Finding("high_dim_alignment", verdict, measured, summary)


# ---- C. CNN shortcut on sklearn digits ------------------------------------------------------------

@dataclass(frozen=True)
class DigitsRun:
    """One seed of experiment C; profiles change only these sizes."""

    seed: int
    train_epochs: int = 15
    rr_epochs: int = 5
    rr_lr: float = 1e-3  # Adam (our CPU setting; the paper uses SGD 5e-4 for 10 epochs)
    lams: tuple[float, ...] = (1e6, 1e7, 1e8)
    rr_methods: tuple[str, ...] = ("pattern", "svm")
    layer: str = "conv3"
    extra_layers: tuple[str, ...] = ()  # alignment also measured (not judged) at these layers
    n_bank: int = 5  # TCAV significance: concept CAVs from random subsets vs random CAVs
    filter_config: FilterConfig = FilterConfig()


def _trained_model(run: DigitsRun, data: Any) -> Any:
    """The vanilla CNN for this seed, cached under the iclr25 cache keyed by its config."""
    import torch

    from iclr25.pattern_cav.digits import DigitsConfig, SmallCNN, TrainConfig, train_cnn
    tcfg = replace(TrainConfig(), epochs=run.train_epochs)
    key = config_hash({"what": "pattern_cav-digits-cnn-v1", "seed": run.seed, "data": DigitsConfig().__dict__,
                       "train": tcfg.__dict__, "torch": torch.__version__})
    path = cache_dir() / "pattern_cav" / f"cnn-{key}.pt"
    if path.is_file():
        try:
            model = SmallCNN()
            model.load_state_dict(torch.load(path, weights_only=True))
            return model.eval()
        except (OSError, RuntimeError, EOFError, ValueError):  # a stale or damaged cache entry: retrain
            pass
    model = train_cnn(data, run.seed, tcfg)
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    with atomic_write(path) as f:
        f.write(buf.getvalue())
    return model


def _digits_seed(run: DigitsRun) -> dict[str, float]:
    import torch

    from iclr25.core.runtime import pin_threads
    from iclr25.pattern_cav.activations import collect_activations
    from iclr25.pattern_cav.clarc import RRClArCConfig, rr_clarc
    from iclr25.pattern_cav.digits import make_digits, shortcut_metrics
    from iclr25.pattern_cav.sensitivity import (
        cav_bank,
        directional_derivatives,
        layer_gradients,
        random_cavs,
        tcav_score,
    )
    pin_threads()
    torch.manual_seed(run.seed)
    data = make_digits(run.seed)
    model = _trained_model(run, data)
    out: dict[str, float] = {f"vanilla_{k}": v for k, v in shortcut_metrics(model, data).items()}
    cls = 3
    tr = data.y_train == cls  # cav_scope: the attacked class only
    acts = collect_activations(model, run.layer, data.x_train[tr])
    labels = data.artifact_train[tr]
    te = data.y_test == cls
    a_with = collect_activations(model, run.layer, data.x_test_art[te])
    a_without = collect_activations(model, run.layer, data.x_test[te])
    det_acts = np.concatenate([a_with, a_without])
    det_labels = np.r_[np.ones(len(a_with)), np.zeros(len(a_without))]
    cavs = {m: compute_cav(acts, labels, m, run.filter_config) for m in ALL_METHODS}
    for m, cav in cavs.items():
        out[f"{m}_cos"] = alignment(cav, a_with, a_without)
        out[f"{m}_auc"] = concept_auc(cav, det_acts, det_labels)
    for layer in run.extra_layers:
        acts_l = collect_activations(model, layer, data.x_train[tr])
        with_l = collect_activations(model, layer, data.x_test_art[te])
        without_l = collect_activations(model, layer, data.x_test[te])
        for m in ALL_METHODS:
            out[f"{layer}_{m}_cos"] = alignment(compute_cav(acts_l, labels, m, run.filter_config), with_l,
                                                without_l)
    # TCAV on clean test images of the attacked class: CAV vs the per-sample ground-truth direction
    grads = layer_gradients(model, run.layer, data.x_test[te], cls)
    # judged: per-position counting (the paper's code); reported too: positions averaged first
    out["tcav_gt"] = tcav_score(directional_derivatives(grads, a_with - a_without))
    out["tcavmean_gt"] = tcav_score(directional_derivatives(grads, a_with - a_without, "mean"))
    for m, cav in cavs.items():
        out[f"tcav_{m}"] = tcav_score(directional_derivatives(grads, cav))
        out[f"tcavmean_{m}"] = tcav_score(directional_derivatives(grads, cav, "mean"))
    # significance: a bank of pattern CAVs (random halves of each class) against CAVs of random splits
    rng = np.random.default_rng(run.seed)
    bank, rand = cav_bank(acts, labels, run.n_bank, rng=rng), random_cavs(acts, run.n_bank, rng=rng)
    for agg, tag in (("position", "tcav"), ("mean", "tcavmean")):
        for i, c in enumerate(bank):
            out[f"{tag}_bank_{i}"] = tcav_score(directional_derivatives(grads, c, agg))
        for i, c in enumerate(rand):
            out[f"{tag}_random_{i}"] = tcav_score(directional_derivatives(grads, c, agg))
    for m in run.rr_methods:
        for lam in run.lams:
            corrected = rr_clarc(copy.deepcopy(model), run.layer, cavs[m], data.x_train, data.y_train,
                                 RRClArCConfig(lam=lam, epochs=run.rr_epochs, lr=run.rr_lr, optimizer="adam",
                                               seed=run.seed))
            for k, v in shortcut_metrics(corrected, data).items():
                out[f"rr_{m}_{lam:.0e}_{k}"] = v
    return out


def _digits(ctx: RunContext, fcfg: FilterConfig) -> tuple[Finding, Finding]:
    n_seeds = ctx.pick(smoke=1, quick=1, full=5)
    base = DigitsRun(seed=0, filter_config=fcfg)
    base = ctx.pick(
        smoke=replace(base, train_epochs=1, rr_epochs=1, lams=(1e7,), n_bank=2, extra_layers=("conv2",)),
        quick=replace(base, lams=(1e6, 1e7), extra_layers=("conv2",)),
        full=replace(base, lams=(1e6, 1e7, 1e8), rr_methods=ALL_METHODS, n_bank=10, extra_layers=("conv2",)))
    runs = [replace(base, seed=s % 2**31) for s in child_seeds(ctx.seed + 3, n_seeds)]
    res = ctx.map(_digits_seed, runs, description="digits CNN")
    m = {k: float(np.mean([r[k] for r in res])) for k in res[0]}
    m["n_seeds"] = n_seeds
    # a seed count below 3 cannot give an interval: quick measures, the full profile's 5 seeds decide
    decide = n_seeds >= 3
    return _shortcut_finding(ctx, base, m, res, decide), _tcav_finding(m, res, base.n_bank, decide)


def alignment_verdict(margins: Interval) -> Verdict:
    """REPRODUCED: mean margin >= ALIGN_MARGIN and the interval above 0; PARTIAL: only the interval
    above 0 (pattern significantly better aligned, by less than the margin)."""
    if margins.lo <= 0:
        return Verdict.NOT_REPRODUCED
    return Verdict.REPRODUCED if margins.mean >= ALIGN_MARGIN else Verdict.PARTIAL


def _shortcut_finding(ctx: RunContext, run: DigitsRun, m: dict[str, float], res: list[dict[str, float]],
                      decide: bool) -> Finding:
    v0 = m["vanilla_shortcut_rate"]
    best_f = max(FILTER_METHODS, key=lambda k: m[f"{k}_cos"])
    # per seed: pattern's cosine minus the best filter's cosine in that seed
    margins = [r["pattern_cos"] - max(r[f"{k}_cos"] for k in FILTER_METHODS) for r in res]
    m["align_margin"] = float(np.mean(margins))
    m.update({f"align_margin_seed{i}": v for i, v in enumerate(margins)})
    hits, partial = [], []
    for lam in run.lams:
        cut = {k: 1 - m[f"rr_{k}_{lam:.0e}_shortcut_rate"] / v0 if v0 > 0 else 0.0 for k in run.rr_methods}
        drop = m["vanilla_clean_acc"] - m[f"rr_pattern_{lam:.0e}_clean_acc"]
        m[f"cut_pattern_{lam:.0e}"], m[f"cut_svm_{lam:.0e}"] = cut["pattern"], cut["svm"]
        m[f"clean_drop_pattern_{lam:.0e}"] = drop
        ok_p = cut["pattern"] >= PATTERN_CUT and drop <= MAX_CLEAN_DROP
        hits.append(ok_p and cut["svm"] < SVM_CUT_BELOW)
        partial.append(ok_p and cut["pattern"] > cut["svm"])
    best_lam = max(run.lams, key=lambda lam: m[f"cut_pattern_{lam:.0e}"])
    per_seed_cut = [1 - r[f"rr_pattern_{best_lam:.0e}_shortcut_rate"] / r["vanilla_shortcut_rate"]
                    if r["vanilla_shortcut_rate"] > 0 else 0.0 for r in res]
    m.update({f"cut_pattern_best_lambda_seed{i}": v for i, v in enumerate(per_seed_cut)})
    margin_text = (f"margin over the best filter per seed {_interval_text(margins)} (per seed "
                   + ", ".join(f"{x:.3f}" for x in margins) + ")")
    summary = (f"cos pattern {m['pattern_cos']:.3f} vs best filter {best_f} {m[f'{best_f}_cos']:.3f}; "
               f"{margin_text}; shortcut rate {v0:.3f} -> RR-ClArC(pattern) "
               f"{m[f'rr_pattern_{best_lam:.0e}_shortcut_rate']:.3f} "
               f"/ RR-ClArC(svm) {m[f'rr_svm_{best_lam:.0e}_shortcut_rate']:.3f} at lambda {best_lam:.0e} "
               f"(per-seed cut " + ", ".join(f"{x:.0%}" for x in per_seed_cut) + "; clean acc "
               f"{m['vanilla_clean_acc']:.3f} -> {m[f'rr_pattern_{best_lam:.0e}_clean_acc']:.3f})")
    fig = _plot_correction(ctx, run, m)
    if not decide:
        return Finding("shortcut_removal", Verdict.DEFERRED, m, f"{len(res)} seed: {summary}", [fig])
    iv = mean_ci(margins)
    m.update(iv.to_measured("align_margin_ci"))
    if v0 < MIN_SHORTCUT_RATE:
        verdict = Verdict.NOT_REPRODUCED
        summary = f"no usable shortcut: vanilla shortcut rate {v0:.3f} < {MIN_SHORTCUT_RATE}; " + summary
    else:
        rr_v = (Verdict.REPRODUCED if any(hits) else Verdict.PARTIAL if any(partial)
                else Verdict.NOT_REPRODUCED)
        verdict = all_of(alignment_verdict(iv), rr_v)
    return Finding("shortcut_removal", verdict, m, summary, [fig])


def _interval_text(xs: list[float]) -> str:
    return str(mean_ci(xs)) if len(xs) > 1 else f"{xs[0]:.3f} (1 seed)"


def _plot_correction(ctx: RunContext, run: DigitsRun, m: dict[str, float]) -> str:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.4))
    for k in run.rr_methods:
        for ax, what in zip(axes, ("shortcut_rate", "clean_acc"), strict=True):
            ax.plot(run.lams, [m[f"rr_{k}_{lam:.0e}_{what}"] for lam in run.lams], marker="o",
                    label=f"RR-ClArC ({k} CAV)")
    for ax, what, title in zip(axes, ("shortcut_rate", "clean_acc"),
                               ("poisoned non-3 images predicted '3'", "clean test accuracy"), strict=True):
        ax.axhline(m[f"vanilla_{what}"], color="k", ls="--", lw=1, label="vanilla")
        ax.set_xscale("log")
        ax.set_xlabel("lambda")
        ax.set_title(title, fontsize=9)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    name = "correction_curve.png"
    fig.savefig(ctx.figure_path(name), dpi=110)
    plt.close(fig)
    return name


TCAV_ALPHA = 0.05  # concept (pattern bank) vs random CAVs must differ at this level before fidelity counts


def fidelity_verdict(err_pattern: list[float], err_best_filter: list[float],
                     err_filter_mean: list[float]) -> Verdict:
    """Per-seed paired intervals of |TCAV(filter) - gt| - |TCAV(pattern) - gt|: REPRODUCED when the one
    against the best filter lies above 0, PARTIAL when only the one against the filters' mean does."""
    if paired_ci(err_best_filter, err_pattern).lo > 0:
        return Verdict.REPRODUCED
    return Verdict.PARTIAL if paired_ci(err_filter_mean, err_pattern).lo > 0 else Verdict.NOT_REPRODUCED


def _tcav_finding(m: dict[str, float], res: list[dict[str, float]], n_bank: int, decide: bool) -> Finding:
    from iclr25.pattern_cav.sensitivity import tcav_test
    measured: dict[str, Any] = {"tcav_gt": m["tcav_gt"], "n_seeds": m["n_seeds"], "n_bank": n_bank}
    p_values = {}
    for tag in ("tcav", "tcavmean"):  # per-position counting (the paper's code), positions averaged first
        bank = [r[f"{tag}_bank_{i}"] for r in res for i in range(n_bank)]
        rand = [r[f"{tag}_random_{i}"] for r in res for i in range(n_bank)]
        p_values[tag] = tcav_test(bank, rand)
        measured[f"{tag}_bank_mean"] = float(np.mean(bank))
        measured[f"{tag}_random_mean"] = float(np.mean(rand))
        measured[f"{tag}_concept_vs_random_p"] = p_values[tag]
    for k in ALL_METHODS:
        measured[f"tcav_{k}"] = m[f"tcav_{k}"]
        measured[f"abs_err_{k}"] = abs(m[f"tcav_{k}"] - m["tcav_gt"])
        measured[f"abs_err_mean_aggregate_{k}"] = abs(m[f"tcavmean_{k}"] - m["tcavmean_gt"])
    sig = [tag for tag in ("tcav", "tcavmean") if p_values[tag] < TCAV_ALPHA]
    test = (f"pattern bank vs random CAVs p = {p_values['tcav']:.2g} per position, "
            f"{p_values['tcavmean']:.2g} position-averaged ({len(res)} seeds x {n_bank} CAVs each)")
    if not decide:
        return Finding.deferred("tcav_fidelity", f"{len(res)} seed: {test}", **measured)
    if not sig:
        return Finding.not_testable(
            "tcav_fidelity", f"not testable at this power: the concept's TCAV never differs from random "
            f"CAVs' ({test}; needs p < {TCAV_ALPHA}), so no CAV's TCAV carries the concept to compare",
            **measured)
    tag = sig[0]
    gt = f"{tag}_gt"
    errs = {k: [abs(r[f"{tag}_{k}"] - r[gt]) for r in res] for k in ALL_METHODS}
    best_f = min(FILTER_METHODS, key=lambda k: float(np.mean(errs[k])))
    mean_f = [float(np.mean([errs[k][i] for k in FILTER_METHODS])) for i in range(len(res))]
    verdict = fidelity_verdict(errs["pattern"], errs[best_f], mean_f)
    diff = paired_ci(errs[best_f], errs["pattern"])
    measured.update(diff.to_measured("err_best_filter_minus_pattern"))
    measured["judged_aggregation"] = "per position" if tag == "tcav" else "position-averaged"
    return Finding("tcav_fidelity", verdict, measured,
                   f"{test}; judged {measured['judged_aggregation']}: TCAV_gt {m[gt]:.3f}; |TCAV - gt| "
                   f"pattern {np.mean(errs['pattern']):.3f} vs best filter {best_f} "
                   f"{np.mean(errs[best_f]):.3f}; paired gap {diff}")


# ---- the run ------------------------------------------------------------------------------------

def run(profile: str, ctx: RunContext) -> list[Finding]:
    """All four claims; sizes from the profile (smoke: seconds, quick: about a minute, full: minutes)."""
    # Paper grid 10^-5..10^4 with 5-fold CV in full; a coarser grid with 3 folds keeps quick under a minute.
    fcfg = ctx.pick(smoke=FilterConfig(grid=(1e-2, 1.0), folds=2),
                    quick=FilterConfig(grid=(1e-4, 1e-2, 1.0, 1e2), folds=3),
                    full=FilterConfig())
    toy, _ = _toy(ctx, fcfg)
    high = _high_dim(ctx, fcfg)
    shortcut, tcav_f = _digits(ctx, fcfg)
    return [toy, high, shortcut, tcav_f]
