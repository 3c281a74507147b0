"""Reproduction of the paper's simulation claims (§4) on SmolLM2-135M-Instruct and real distortions of
its weights, the model-swap claim on two same-size TinyGPTs trained here, and the §5 audit code path on
simulated endpoints. This module only measures: the rules are in claims.py. Profiles change sizes (and
the quick profile's reference model is a small TinyGPT trained here, to fit 90 s cold)."""

from __future__ import annotations

import numpy as np

from iclr25.core.claims import Finding
from iclr25.core.models.config import TinyGPTConfig, TrainConfig
from iclr25.core.runtime import RunContext
from iclr25.model_equality.claims import HALF, N_PER_PROMPT, PAPER_SWAP_POWER, TESTS
from iclr25.model_equality.endpoints import LOCAL, ModelConfig
from iclr25.model_equality.study import Study, StudyConfig, run_study

PAPER_MEDIAN_POWER_HAMMING = 0.774  # §4 / Fig. 2 left: median power at N = 10m, m = 25, L = 50 tokens
PAPER_AUDIT_FAILING, PAPER_AUDIT_ENDPOINTS = 11, 31  # Table 1
SMOL_DISTORTIONS = ("fp16", "bf16", "int8", "nf4", "watermark", "finetune")  # no other SmolLM2 exists offline
N_LO, N_HI = N_PER_PROMPT[0], N_PER_PROMPT[-1]

_TINY = ModelConfig(
    reference="tinygpt", gpt_verses=3000, finetune_block=16, finetune_chars=5000,
    gpt=TinyGPTConfig(vocab_size=300, block_size=32, n_layer=1, n_head=2, d_model=16),
    gpt_train=TrainConfig(steps=20, batch=8, lr=1e-2, warmup=2),
    finetune=TrainConfig(steps=2, batch=2, lr=1e-3, warmup=1, weight_decay=0.0))
_SMALL = ModelConfig(  # quick: a small TinyGPT (0.17M parameters), trained in seconds
    reference="tinygpt", finetune_block=32, finetune_chars=20_000,
    gpt=TinyGPTConfig(vocab_size=1024, block_size=64, n_layer=2, n_head=2, d_model=64),
    gpt_train=TrainConfig(steps=400, batch=16, lr=3e-3, warmup=40))

PROFILES: dict[str, tuple[tuple[str, StudyConfig], ...]] = {
    # smoke: a tiny TinyGPT as the reference; every code path, nothing decided
    "smoke": (("tinygpt", StudyConfig(m=3, L=4, L_sweep=(1, 4), n_per_prompt=N_PER_PROMPT, pool=100, sims=10,
                                      fpr_sims=20, b=50, perm_sims=5, perm_b=20, audit_reps=2, gen_batch=300,
                                      models=_TINY)),),
    # quick: one study on a small TinyGPT, with its same-size swap (seed 1) among the distortions
    "quick": (("tinygpt", StudyConfig(L_sweep=(1, 10), fpr_sims=200, b=500, perm_sims=100, perm_b=100,
                                      audit_reps=5, gen_batch=500, denominators=("pairs",), models=_SMALL)),),
    # full: SmolLM2 and its distortions (decides all but the swap), then the TinyGPT pair (the swap)
    "full": (("smollm2", StudyConfig(distortions=SMOL_DISTORTIONS, perm_sims=200, perm_b=200)),
             ("tinygpt", StudyConfig(distortions=(*LOCAL, "swap"), L_sweep=(1, 10), denominators=("pairs",),
                                     gen_batch=500))),
}


def profile_study(profile: str, reference: str | None = None) -> tuple[str, StudyConfig]:
    """(reference, study config) of a profile: its first study, or the one of `reference`."""
    studies = PROFILES[profile]
    for ref, cfg in studies:
        if reference in (None, ref):
            return ref, cfg
    return reference, studies[0][1]  # another reference with the profile's sizes


def run(profile: str, ctx: RunContext) -> list[Finding]:
    from iclr25.model_equality.corpus import prompts
    studies = [run_study(cfg, ref, prompts(cfg.m), ctx) for ref, cfg in PROFILES[profile]]
    main = studies[0]
    swap = next(s for s in studies if "swap" in s.cfg.distortions)
    figures = _figure(main, ctx)
    cfg = main.cfg
    return [
        _hamming_power_small_n(main, studies[1:], figures),
        _level_control(main),
        _power_grows(main),
        _robust_to_length(main),
        _half_hardest(main),
        _model_swap(swap),
        Finding.not_testable(
            "real_api_audit",
            "the paper's API completions (37 GB, Google Drive) are not obtainable offline; on our simulated "
            f"endpoints (N = {cfg.sweep_n}m, composite null {{reference, fp16}}, alpha = {cfg.audit_alpha}) "
            f"the audit flags {main.audit['failing']} of {main.audit['endpoints']} "
            f"({main.audit['flagged']}); "
            f"paper {PAPER_AUDIT_FAILING} of {PAPER_AUDIT_ENDPOINTS}",
            simulated_endpoints=main.audit["endpoints"], simulated_failing=main.audit["failing"],
            paper_failing=PAPER_AUDIT_FAILING, paper_endpoints=PAPER_AUDIT_ENDPOINTS),
    ]


def _common(s: Study) -> dict[str, float | int | str]:
    c = s.cfg
    out: dict[str, float | int | str] = {"reference": s.reference, "m": c.m, "L_tokens": c.L,
                                         "pool_per_prompt": c.pool, "sims": c.sims, "b": c.b}
    out |= {f"tv_per_token_{d}": v for d, v in s.tv.items() if np.isfinite(v)}
    out |= {k: round(v, 1) for k, v in s.timings.items()}
    return out


def _tv_text(s: Study, d: str) -> str:
    v = s.tv.get(d, float("nan"))
    return f"TV {v:.1e}" if np.isfinite(v) else "other vocabulary"


def _concat(s: Study, test: str, n: int, endpoints, L: int | None = None) -> list[int]:  # noqa: N803
    out = s.outcomes(test, n, L)
    return [x for e in endpoints for x in out[e]]


def _rate(xs: list[int]) -> float:
    return float(np.mean(xs)) if len(xs) else float("nan")


def _spread(s: Study, n: int) -> dict[str, float]:
    """Mean and sd of the Hamming statistic under the null and against each endpoint, in null-sd units:
    an alternative whose statistic is *narrower* than the null's rejects less often than alpha when its
    shift is small (the fine-tune's case in the last record)."""
    null_mean, null_sd = s.spread[n]["null"]
    out = {"stat_null_mean": null_mean, "stat_null_sd": null_sd}
    for e, (mean, sd) in s.spread[n].items():
        if e != "null":
            out[f"stat_shift_in_null_sd_{e}"] = (mean - null_mean) / null_sd if null_sd > 0 else float("nan")
            out[f"stat_sd_ratio_{e}"] = sd / null_sd if null_sd > 0 else float("nan")
    return out


def _hamming_power_small_n(s: Study, extra: list[Study], figures: list[str]) -> Finding:
    c = s.cfg
    n = c.headline_n
    measured: dict = {f"rejects_{t}_local": _concat(s, t, n, LOCAL) for t in TESTS}
    med = {t: float(np.median([s.at(t, n)[d] for d in LOCAL])) for t in TESTS}
    measured |= {f"median_power_{t}": v for t, v in med.items()}
    measured |= {f"power_{t}_{d}": s.at(t, n)[d] for t in TESTS for d in c.distortions}
    if "paper" in c.denominators:
        measured["median_power_hamming_eq4_denominator"] = float(
            np.median([s.at("hamming", n, denominator="paper")[d] for d in LOCAL]))
    measured |= {"n_per_prompt": n, "paper_median_power_hamming": PAPER_MEDIAN_POWER_HAMMING}
    for e in extra:  # the same study on another reference (the TinyGPT pair)
        measured |= {f"{e.reference}_power_hamming_{d}": e.at("hamming", e.cfg.headline_n)[d]
                     for d in e.cfg.distortions}
        measured |= {f"{e.reference}_tv_per_token_{d}": v for d, v in e.tv.items() if np.isfinite(v)}
    measured |= _common(s)
    table = ", ".join(f"{d} {s.at('hamming', n)[d]:.2f} ({_tv_text(s, d)})" for d in c.distortions)
    summary = (f"paper {PAPER_MEDIAN_POWER_HAMMING:.1%} vs ours: Hamming power over fp16/int8/NF4/"
               f"watermark {_rate(measured['rejects_hamming_local']):.1%} (median {med['hamming']:.1%}) at "
               f"N = {n}m ({s.reference}, m = {c.m}, L = {c.L} tokens); one-hot "
               f"{_rate(measured['rejects_onehot_local']):.1%}, L1 "
               f"{_rate(measured['rejects_l1_local']):.1%}, chi2 "
               f"{_rate(measured['rejects_chi2_local']):.1%}; Hamming by distortion: {table}")
    return Finding.measure("hamming_power_small_n", measured, summary, figures)


def _level_control(s: Study) -> Finding:
    c = s.cfg
    m: dict = {}
    for t in TESTS:
        den = "pairs" if t in ("hamming", "onehot") else "-"
        for n in c.n_per_prompt:
            m[f"fpr_{t}_n{n}"] = s.outcomes(t, n)["ref"]
            m[f"degenerate_{t}_n{n}"] = int(s.degenerate[(t, den, c.L)][n])
            m[f"fpr_crosspool_{t}_n{n}"] = _rate(s.outcomes(t, n)["same"])  # the pool pair's drift
    m["fpr_hamming_permutation"], m["degenerate_hamming_permutation"] = s.perm_rejects, 0
    m |= {"fpr_sims": c.fpr_sims, "alpha": c.alpha, "pool_per_prompt": c.pool}
    flagged = sorted({t for t in TESTS for n in c.n_per_prompt if m[f"degenerate_{t}_n{n}"]})
    per_n = "; ".join(f"N = {n}m: " + ", ".join(f"{t} {_rate(m[f'fpr_{t}_n{n}']):.3f}" for t in TESTS)
                      for n in c.n_per_prompt)
    cross = ", ".join(f"{m[f'fpr_crosspool_hamming_n{n}']:.3f}" for n in c.n_per_prompt)
    return Finding.measure(
        "level_control", m,
        f"FPR at alpha = {c.alpha} ({c.fpr_sims} sims, both samples from the reference pool), L = {c.L}: "
        f"{per_n}; Hamming permutation {_rate(s.perm_rejects):.3f}; across two independent reference "
        f"pools of {c.pool} per prompt Hamming rejects {cross} at N/m = "
        f"{', '.join(map(str, c.n_per_prompt))} (the pools' own difference); degenerate (cannot reject): "
        f"{', '.join(flagged) or 'none'}")


def _power_grows(s: Study) -> Finding:
    c = s.cfg
    ds = c.distortions
    m: dict = {f"rejects_hamming_all_n{n}": _concat(s, "hamming", n, ds) for n in (N_LO, N_HI)}
    m |= {f"rejects_hamming_{d}_n{n}": s.outcomes("hamming", n)[d] for d in ds for n in (N_LO, N_HI)}
    means = {n: float(np.mean([s.at("hamming", n)[d] for d in ds])) for n in c.n_per_prompt}
    m |= {f"mean_power_hamming_n{n}": v for n, v in means.items()}
    m |= {f"power_hamming_{d}_n{n}": s.at("hamming", n)[d] for d in ds for n in c.n_per_prompt}
    if "paper" in c.denominators:
        m |= {f"power_hamming_eq4_{d}_n{n}": s.at("hamming", n, denominator="paper")[d]
              for d in ds for n in c.n_per_prompt}
    worst = min((s.at("hamming", N_HI)[d] - s.at("hamming", N_LO)[d], d) for d in ds)
    summary = "mean Hamming power over distortions by N/m: " + ", ".join(
        f"{n}: {p:.2f}" for n, p in means.items()) + f"; smallest change N = {N_LO}m → {N_HI}m " \
        f"{worst[0]:+.2f} ({worst[1]})"
    return Finding.measure("power_grows_with_n", m, summary)


def _robust_to_length(s: Study) -> Finding:
    c = s.cfg
    n = c.sweep_n
    short, long_ = min(c.L_sweep), c.L
    m: dict = {}
    for t in TESTS:
        a, b = _concat(s, t, n, c.distortions, short), _concat(s, t, n, c.distortions, long_)
        m[f"drop_{t}"] = list(np.subtract(a, b).tolist())
    curves = {t: {L: float(np.mean([s.at(t, n, L)[d] for d in c.distortions])) for L in c.L_sweep}
              for t in TESTS}
    m |= {f"mean_power_{t}_L{L}": v for t, cv in curves.items() for L, v in cv.items()}
    m |= {"L_short": short, "L_long": long_, "n_per_prompt": n}
    return Finding.measure(
        "robust_to_length", m,
        f"mean power over distortions at N = {n}m by L (tokens): " + "; ".join(
            f"{t} " + " ".join(f"{curves[t][L]:.2f}" for L in c.L_sweep) for t in TESTS)
        + f" (L = {', '.join(map(str, c.L_sweep))}); drop L = {short} → {long_}: "
        + ", ".join(f"{t} {np.mean(m[f'drop_{t}']):+.2f}" for t in TESTS))


def _half_hardest(s: Study) -> Finding:
    n = s.cfg.n_per_prompt[-1]
    out = s.outcomes("hamming", n)
    m: dict = {f"rejects_hamming_{d}": out[d] for d in s.cfg.distortions}
    m["fpr_hamming"] = out["ref"]
    p = {d: _rate(out[d]) for d in s.cfg.distortions}
    m |= {f"power_hamming_{d}": x for d, x in p.items()} | {"n_per_prompt": n, "fpr": _rate(out["ref"])}
    m |= _spread(s, n)
    hardest = min(p, key=p.get)
    ft = (f"; fine-tune: statistic shifted {m['stat_shift_in_null_sd_finetune']:+.2f} null sd, spread "
          f"{m['stat_sd_ratio_finetune']:.2f}× the null's" if "finetune" in p else "")
    return Finding.measure(
        "half_precision_hardest", m,
        f"at N = {n}m the hardest is {hardest} ({p[hardest]:.2f}); " + ", ".join(
            f"{d} {x:.2f}" for d, x in sorted(p.items(), key=lambda kv: kv[1]))
        + f"; same-model FPR {m['fpr']:.3f} (half precision: {', '.join(d for d in HALF if d in p)}){ft}")


def _model_swap(s: Study) -> Finding:
    n = s.cfg.headline_n
    rejects = s.outcomes("hamming", n)["swap"]
    m = {"rejects_hamming_swap": rejects, "power_hamming_swap": _rate(rejects),
         "power_onehot_swap": s.at("onehot", n)["swap"], "paper_power": PAPER_SWAP_POWER, "n_per_prompt": n,
         "tv_per_token_swap": s.tv.get("swap", float("nan")),
         "fpr_hamming": _rate(s.outcomes("hamming", n)["ref"]), "reference": s.reference}
    return Finding.measure(
        "model_swap", m,
        f"Hamming power {_rate(rejects):.2f} against a TinyGPT of the same shape trained with another seed "
        f"(per-token TV {m['tv_per_token_swap']:.3f}) at N = {n}m, same-model FPR {m['fpr_hamming']:.2f} "
        f"(paper {PAPER_SWAP_POWER} for Llama-3 vs 3.1 8B)")


def _figure(s: Study, ctx: RunContext) -> list[str]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    c = s.cfg
    fig, ax = plt.subplots(1, 3, figsize=(13, 3.6))
    for t in TESTS:
        ax[0].plot(c.n_per_prompt, [np.mean([s.at(t, n)[d] for d in c.distortions]) for n in c.n_per_prompt],
                   "o-", label=t)
        ax[2].plot(c.L_sweep, [np.mean([s.at(t, c.sweep_n, L)[d] for d in c.distortions]) for L in c.L_sweep],
                   "o-", label=t)
    ax[0].set(xlabel="samples per prompt (N/m)", ylabel="mean power over distortions", ylim=(-0.02, 1.02),
              title=f"{s.reference}, L = {c.L} tokens")
    ax[2].set(xscale="log", xlabel="completion length L (tokens)", ylim=(-0.02, 1.02),
              title=f"N = {c.sweep_n}m")
    ax[2].set_xticks(c.L_sweep, [str(L) for L in c.L_sweep])
    ax[2].minorticks_off()
    n = c.n_per_prompt[-1]
    ax[1].bar(range(len(c.distortions)), [s.at("hamming", n)[d] for d in c.distortions])
    tv = [_tv_text(s, d).replace("other vocabulary", "other vocab.") for d in c.distortions]
    ax[1].set_xticks(range(len(c.distortions)), [f"{d}\n{t}" for d, t in zip(c.distortions, tv, strict=True)],
                     fontsize=7, rotation=45, ha="right")
    ax[1].set(ylabel="Hamming power", title=f"N = {n}m (per-token TV below each name)", ylim=(0, 1.02))
    for a in ax:
        a.axhline(c.alpha, color="grey", ls="--", lw=1)
    ax[0].legend()
    fig.tight_layout()
    name = "power.png"
    fig.savefig(ctx.figure_path(name), dpi=110)
    plt.close(fig)
    return [name]

