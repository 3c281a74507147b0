"""Reproduction of Nishikawa & Suzuki (ICLR 2025) at CPU scale: the measurements only. The rules that
decide them are in claims.py, fixed before the runs (issue #20, second round #44).

Every run is one task dict trained by `runs.fit_eval_cached` (cached by task and code version), one per
(model, size, seed); all runs of a profile are known up front and go to `ctx.map` in one batch, the most
expensive first. Nothing here fits the quick profile's 90 s of CPU cold (3 seeds of SSM+FNN on associative
recall alone take ~80 s at width 32), so quick defers every claim to the committed full record; the full
profile runs them all. Profiles change sizes only; smoke runs every code path tiny."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from iclr25.core.claims import Finding
from iclr25.core.runtime import RunContext
from iclr25.ssm_selection import plots
from iclr25.ssm_selection.claims import (
    CLAIMS,
    COPY_L,
    LEARNS_SHARE_OF_VAR_F,
    MLP,
    REG_NS,
    SINGLE,
    SSMFNN,
    TRANSFORMER,
    TRANSFORMER_BI,
)
from iclr25.ssm_selection.runs import COPY_SYMBOLS, N_VALUES, SPLICE_TOP_K, fit_eval_cached

__all__ = ["CLAIMS", "loglog_slope", "run"]

NOISE_VAR = 0.01  # the regression's noise variance (0.1 ε)
# A motif is a local pattern: 2 × [SSM + FNN] with a 16-lag two-sided window and mean pooling learns it
# in ~500 steps; with a whole-sequence window it had not learnt it after 800 (calibration, seed 0).
MOTIF_MODEL, MOTIF_WINDOW, MOTIF_LENGTH_NT = "ssmfnn2", 16, 200
SPLICE_LENGTH_NT = 60


def loglog_slope(ns: Sequence[float], risks: Sequence[float]) -> float:
    """Least-squares slope of log risk against log n (NaN with fewer than two finite points).

    >>> round(loglog_slope([1e3, 1e4], [1e-1, 1e-2]), 6)
    -1.0
    """
    pts = [(n, r) for n, r in zip(ns, risks, strict=True) if r > 0 and math.isfinite(r)]
    if len(pts) < 2:
        return math.nan
    x, y = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    return float(np.polyfit(x, y, 1)[0])


def learnt_sizes(val_mse: dict[str, dict[int, list[float]]], var_f: float) -> list[int]:
    """The sizes n where every model learns: mean over seeds of (validation MSE − noise variance) at most
    LEARNS_SHARE_OF_VAR_F × Var F° (the constant predictor's risk). Validation data only.

    >>> learnt_sizes({"a": {1: [0.5], 2: [0.1]}, "b": {1: [0.1], 2: [0.2]}}, var_f=0.5)
    [2]
    """
    sizes = sorted(set.intersection(*(set(v) for v in val_mse.values())))
    bound = LEARNS_SHARE_OF_VAR_F * var_f
    return [n for n in sizes if all(np.mean(v[n]) - NOISE_VAR <= bound for v in val_mse.values())]


# ---- helpers ------------------------------------------------------------------------------------

def _seeds(ctx: RunContext, n: int) -> list[int]:
    return [ctx.seed * 1000 + i for i in range(n)]


def _vals(rows: list[dict], key: str, **match: Any) -> list[float]:
    """`key` of the matching runs in seed order: one value per seed, what the rules read."""
    sel = sorted((r for r in rows if all(r.get(k) == v for k, v in match.items())), key=lambda r: r["seed"])
    return [float(r[key]) for r in sel]


def _mean(rows: list[dict], key: str, **match: Any) -> float:
    v = _vals(rows, key, **match)
    return float(np.mean(v)) if v else math.nan


def _sd(values: Sequence[float]) -> float:
    return float(np.std(values, ddof=1)) if len(values) > 1 else 0.0


def _cost(model: str, length: int, steps: int, d: int = 64) -> float:
    """Relative cost of a run (for scheduling only): steps × tokens × d(d + 96), the single SSM ~10× cheaper.
    Per-step CPU times measured on the 2-core machine grow ~2× from d = 32 to 64 and ~2.8× from 64 to 128
    (small matrices run below peak), not 4×; d(d + 96) gives 2.5× and 2.8×."""
    return steps * length * d * (d + 96) * (0.1 if model.startswith(SINGLE) else 1.0)


def _run(ctx: RunContext, tasks: list[dict], what: str) -> list[dict]:
    """ctx.map over tasks, the most expensive first (so the workers finish together), in task order."""
    order = sorted(range(len(tasks)), key=lambda i: -tasks[i].get("cost", 0))
    done = ctx.map(fit_eval_cached, [tasks[i] for i in order], what)
    out: list[dict] = [{}] * len(tasks)
    for i, r in zip(order, done, strict=True):
        out[i] = r
    return out


def _sizes(ctx: RunContext) -> dict[str, Any]:
    """Profiles change sizes only. Smoke runs every code path (also the full-profile claims) tiny."""
    return {
        "seeds": ctx.pick(smoke=1, quick=3, full=3),
        "n_test": ctx.pick(smoke=64, quick=2000, full=2000),
        "ar_pairs": 8,
        "ar_d": ctx.pick(smoke=16, quick=64, full=64),
        "ar_steps": ctx.pick(smoke=6, quick=3000, full=3000),  # SSM+FNN, stops at validation 0.99
        "ar_baseline_steps": ctx.pick(smoke=4, quick=1000, full=1000),  # single SSM, Transformer
        "full_claims": ctx.pick(smoke=True, quick=False, full=True),
        "splice_steps": ctx.pick(smoke=4, quick=600, full=600),  # early stopping, patience 4 × 50 steps
        "motif_steps": ctx.pick(smoke=4, quick=800, full=800),  # stops once validation reaches 0.99
        "motif_n": ctx.pick(smoke=64, quick=4000, full=4000),
        "motif_length": ctx.pick(smoke=40, quick=MOTIF_LENGTH_NT, full=MOTIF_LENGTH_NT),
        "copy_lengths": ctx.pick(smoke=(8,), quick=(16, COPY_L), full=(16, COPY_L)),
        "copy_steps": ctx.pick(smoke=4, quick=3000, full=3000),  # stops once validation reaches 0.99
        "ladder_pairs": ctx.pick(smoke=(2, 4), quick=(4, 8, 16), full=(4, 8, 16)),
        "ladder_small": ctx.pick(smoke=8, quick=32, full=32),
        "ladder_large": ctx.pick(smoke=16, quick=64, full=64),
        "ladder_steps": ctx.pick(smoke=4, quick=12000, full=12000),  # issue #44: 12k cap
        "reg_ns": ctx.pick(smoke=(64, 128), quick=REG_NS, full=REG_NS),
        "reg_steps": ctx.pick(smoke=4, quick=3000, full=3000),  # early stopping, patience 8 × 100 steps
    }


# ---- the run ------------------------------------------------------------------------------------

def run(profile: str, ctx: RunContext) -> list[Finding]:
    sizes = _sizes(ctx)
    if not sizes["full_claims"]:
        return [_deferred(sizes)[c.key] for c in CLAIMS]
    groups = {"ar": _ar_tasks(ctx, sizes), "copy": _copy_tasks(ctx, sizes),
              "ladder": _ladder_tasks(ctx, sizes), "regression": _regression_tasks(ctx, sizes),
              "dna": _dna_tasks(ctx, sizes)}
    flat = [t for ts in groups.values() for t in ts]
    flat_rows = _run(ctx, flat, "ssm_selection runs")
    rows, i = {}, 0
    for name, ts in groups.items():
        rows[name], i = flat_rows[i:i + len(ts)], i + len(ts)
    ar = _ar_finding(rows["ar"], sizes)
    ar.figures.append(plots.ar_accuracy(ctx.figure_path("ar_accuracy.png"), rows["ar"], rows["ladder"]))
    findings = {"associative_recall": ar, "input_copying": _copy_finding(ctx, rows["copy"], sizes),
                "efficient_in_size": _ladder_finding(rows["ladder"], sizes),
                "sparse_dynamic_importance": _dna_finding(ctx, rows["dna"])}
    findings["efficient_in_size"].figures.append(ar.figures[0])
    findings["selection_regression"], findings["same_rate_as_transformer"] = _regression_findings(
        ctx, rows["regression"], sizes)
    return [findings[c.key] for c in CLAIMS]


def _deferred(sizes: dict) -> dict[str, Finding]:
    s = sizes
    why = {
        "associative_recall": f"N = {s['ar_pairs']}, d = {s['ar_d']}, 3 seeds × up to {s['ar_steps']:,} "
                              "SSM+FNN steps (~80 s of CPU at d = 32 alone)",
        "input_copying": f"copying at L ∈ {set(s['copy_lengths'])}, 3 seeds × up to {s['copy_steps']:,} "
                         "steps",
        "efficient_in_size": f"widths {s['ladder_small']} and {s['ladder_large']} at N ∈ "
                             f"{set(s['ladder_pairs'])}, 3 seeds × up to {s['ladder_steps']:,} steps",
        "selection_regression": f"n ∈ {set(s['reg_ns'])} × 4 models × 3 seeds",
        "same_rate_as_transformer": "the regression sweep over n of selection_regression",
        "sparse_dynamic_importance": "planted motifs (200 nt) and KEEL splice, 3 seeds each",
    }
    why = {k: f"{v}: full profile only (docs/full/ssm_selection.md)" for k, v in why.items()}
    return {k: Finding.deferred(k, v) for k, v in why.items()}


# ---- associative recall ---------------------------------------------------------------------------

def _ar_tasks(ctx: RunContext, sizes: dict) -> list[dict]:
    base = {"task": "ar", "n_pairs": sizes["ar_pairs"], "n_test": sizes["n_test"]}
    length = 2 * sizes["ar_pairs"] + 1
    tasks = []
    for seed in _seeds(ctx, sizes["seeds"]):
        for m, steps, d, stop in ((SSMFNN, sizes["ar_steps"], sizes["ar_d"], 0.99),
                                  (SINGLE, sizes["ar_baseline_steps"], 64, None),
                                  (TRANSFORMER, sizes["ar_baseline_steps"], sizes["ar_d"], 0.99)):
            t = {**base, "model": m, "steps": steps, "seed": seed, "d": d, "cost": _cost(m, length, steps, d)}
            if stop:
                t.update(stop_at=stop, eval_every=100)
            tasks.append(t)
    return tasks


def _ar_finding(rows: list[dict], sizes: dict) -> Finding:
    measured: dict[str, Any] = {"n_pairs": sizes["ar_pairs"], "n_keys": 32, "n_values": N_VALUES,
                                "d_ssmfnn_transformer": sizes["ar_d"], "seeds": sizes["seeds"],
                                "test_instances": sizes["n_test"], "chance_acc": 1 / N_VALUES,
                                "one_of_present_values_acc": 1 / sizes["ar_pairs"]}
    for m in (SSMFNN, SINGLE, TRANSFORMER):
        accs = _vals(rows, "accuracy", model=m)
        measured[f"acc_{m}"] = accs
        measured[f"acc_sd_across_seeds_{m}"] = _sd(accs)
        measured[f"params_{m}"] = int(_mean(rows, "params", model=m))
        measured[f"steps_run_{m}"] = _vals(rows, "steps_run", model=m)
    # signal beside noise: the gap the claim rests on against the seed-to-seed spread
    measured["gap_ssmfnn_minus_single"] = _mean(rows, "accuracy", model=SSMFNN) - _mean(rows, "accuracy",
                                                                                       model=SINGLE)
    acc = {m: _mean(rows, "accuracy", model=m) for m in (SSMFNN, SINGLE, TRANSFORMER)}
    return Finding.measure(
        "associative_recall", measured,
        f"test accuracy at N = {sizes['ar_pairs']}, d = {sizes['ar_d']} ({sizes['seeds']} seeds): "
        f"3×[SSM+FNN] {acc[SSMFNN]:.3f}, single SSM {acc[SINGLE]:.3f}, causal Transformer "
        f"{acc[TRANSFORMER]:.3f}; chance {1 / N_VALUES:.3f}, 'a value present' {1 / sizes['ar_pairs']:.3f}")


# ---- input copying --------------------------------------------------------------------------------

def _copy_tasks(ctx: RunContext, sizes: dict) -> list[dict]:
    tasks = []
    top = sizes["copy_lengths"][-1]
    for length in sizes["copy_lengths"]:
        for seed in _seeds(ctx, sizes["seeds"]):
            models = [SSMFNN, SINGLE] + ([TRANSFORMER] if length == top else [])  # the Transformer: context
            for m in models:
                tasks.append({"task": "copy", "model": m, "length": length, "steps": sizes["copy_steps"],
                              "seed": seed, "n_test": sizes["n_test"], "eval_every": 200, "stop_at": 0.99,
                              "cost": _cost(m, 2 * length, sizes["copy_steps"])})
    return tasks


def _copy_finding(ctx: RunContext, rows: list[dict], sizes: dict) -> Finding:
    lengths = sizes["copy_lengths"]
    at = lengths[-1]
    measured: dict[str, Any] = {"symbols": COPY_SYMBOLS, "chance_acc": 1 / COPY_SYMBOLS,
                                "seeds": sizes["seeds"], "decided_at_L": at,
                                "correction": "decided at L = 24, not 16 (issue #44: the single-SSM bound "
                                              "≤ 0.50 was mis-set at L = 16)"}
    for m, length in sorted({(r["model"], r["length"]) for r in rows}):
        # smoke decides at its one length under the quick/full key names, so the rule runs on it
        key = f"acc_{m}_L{COPY_L if length == at else length}"
        measured[key] = _vals(rows, "accuracy", model=m, length=length)
        measured[f"steps_run_{m}_L{length}"] = _vals(rows, "steps_run", model=m, length=length)
    gap = [a - b for a, b in zip(measured[f"acc_{SSMFNN}_L{COPY_L}"], measured[f"acc_{SINGLE}_L{COPY_L}"],
                                 strict=True)]
    measured["gap_ssmfnn_minus_single_L_decided"] = gap
    measured["acc_sd_across_seeds_ssmfnn"] = _sd(measured[f"acc_{SSMFNN}_L{COPY_L}"])
    fig = plots.copy_accuracy(ctx.figure_path("copy_accuracy.png"), rows, lengths)
    m = {k: _mean(rows, "accuracy", model=k, length=at) for k in (SSMFNN, SINGLE, TRANSFORMER)}
    return Finding.measure(
        "input_copying", measured,
        f"per-token copy accuracy at L = {at} (prefix-two-sided, {sizes['seeds']} seeds): 3×[SSM+FNN] "
        f"{m[SSMFNN]:.3f}, single SSM {m[SINGLE]:.3f}, causal Transformer {m[TRANSFORMER]:.3f}; chance "
        f"{1 / COPY_SYMBOLS:.3f}", figures=[fig])


# ---- parameters against N (the width ladder, every width × every seed) ------------------------------

def _ladder_tasks(ctx: RunContext, sizes: dict) -> list[dict]:
    small, large = sizes["ladder_small"], sizes["ladder_large"]
    top = sizes["ladder_pairs"][-1]
    cells = [(SSMFNN, n, small) for n in sizes["ladder_pairs"]] + [(SSMFNN, top, large)]
    cells += [(TRANSFORMER, n, small) for n in (sizes["ladder_pairs"][0], top)]  # shown beside
    return [{"task": "ar", "model": m, "n_pairs": n, "d": d, "steps": sizes["ladder_steps"], "seed": seed,
             "n_test": sizes["n_test"], "eval_every": 200, "stop_at": 0.95,
             "cost": _cost(m, 2 * n + 1, sizes["ladder_steps"], d)}
            for m, n, d in cells for seed in _seeds(ctx, sizes["seeds"])]


def _ladder_finding(rows: list[dict], sizes: dict) -> Finding:
    small, large = sizes["ladder_small"], sizes["ladder_large"]
    lo, hi = sizes["ladder_pairs"][0], sizes["ladder_pairs"][-1]
    measured: dict[str, Any] = {"steps_max": sizes["ladder_steps"], "seeds": sizes["seeds"],
                                "widths": f"{small},{large}", "runs": len(rows)}
    for m, n, d in sorted({(r["model"], r["n_pairs"], r["d"]) for r in rows}):
        # smoke's sizes stand in under the full profile's names, so the rule runs on them
        name = f"N{ {lo: 4, hi: 16}.get(n, n) }_d{ {small: 32, large: 64}[d] }".replace(" ", "")
        measured[f"acc_{m}_{name}"] = _vals(rows, "accuracy", model=m, n_pairs=n, d=d)
        measured[f"params_{m}_{name}"] = int(_mean(rows, "params", model=m, n_pairs=n, d=d))
        measured[f"steps_run_{m}_{name}"] = _vals(rows, "steps_run", model=m, n_pairs=n, d=d)
    base = measured[f"params_{SSMFNN}_N4_d32"]
    measured["params_ratio_N16_d32_over_N4_d32"] = measured[f"params_{SSMFNN}_N16_d32"] / base
    measured["params_ratio_N16_d64_over_N4_d32"] = measured[f"params_{SSMFNN}_N16_d64"] / base
    acc = {k[4:]: float(np.mean(v)) for k, v in measured.items() if k.startswith("acc_")}
    m = measured
    return Finding.measure(
        "efficient_in_size", measured,
        f"3×[SSM+FNN] mean test accuracy (3 seeds, ≤ {sizes['ladder_steps']:,} steps): N=4 d=32 "
        f"{acc[f'{SSMFNN}_N4_d32']:.3f} ({base:,} params), N=16 d=32 {acc[f'{SSMFNN}_N16_d32']:.3f} "
        f"({m[f'params_{SSMFNN}_N16_d32']:,}, ratio {m['params_ratio_N16_d32_over_N4_d32']:.2f}), "
        f"N=16 d=64 {acc[f'{SSMFNN}_N16_d64']:.3f} (ratio {m['params_ratio_N16_d64_over_N4_d32']:.2f}); "
        f"Transformer d=32: N=4 {acc[f'{TRANSFORMER}_N4_d32']:.3f}, N=16 {acc[f'{TRANSFORMER}_N16_d32']:.3f}")


# ---- dynamic token selection regression ------------------------------------------------------------

def _regression_tasks(ctx: RunContext, sizes: dict) -> list[dict]:
    tasks = []
    top = sizes["reg_ns"][-1]
    for n in sizes["reg_ns"]:
        for seed in _seeds(ctx, sizes["seeds"]):
            for m in (SSMFNN, TRANSFORMER_BI) + ((SINGLE, MLP) if n == top else ()):
                tasks.append({"task": "regression", "model": m, "n": n, "steps": sizes["reg_steps"],
                              "seed": seed, "n_test": sizes["n_test"], "pool": "mean", "patience": 8,
                              "eval_every": max(1, sizes["reg_steps"] // 30),
                              "cost": _cost(m, 32, sizes["reg_steps"])})
    return tasks


def _regression_findings(ctx: RunContext, rows: list[dict], sizes: dict) -> tuple[Finding, Finding]:
    from iclr25.ssm_selection.tasks import make_selection_regression

    ns, top = list(sizes["reg_ns"]), sizes["reg_ns"][-1]
    full_top = REG_NS[-1]  # smoke's largest n stands in under the full profile's key name
    var_f = float(make_selection_regression(20_000, seed=12345).y_clean.var())
    measured: dict[str, Any] = {"seeds": sizes["seeds"], "var_F_constant_predictor_risk": var_f,
                                "noise_var": NOISE_VAR, "n_max": top}
    for m, n in sorted({(r["model"], r["n"]) for r in rows}):
        name = full_top if n == top else n
        measured[f"excess_risk_{m}_n{name}"] = _vals(rows, "excess_risk", model=m, n=n)
        measured[f"val_excess_{m}_n{name}"] = [v - NOISE_VAR for v in _vals(rows, "val_mse", model=m, n=n)]
        measured[f"steps_run_{m}_n{name}"] = _vals(rows, "steps_run", model=m, n=n)
    risk = {m: _mean(rows, "excess_risk", model=m, n=top) for m in (SSMFNN, TRANSFORMER_BI, SINGLE, MLP)}
    reg = Finding.measure(
        "selection_regression", dict(measured),
        f"excess risk at n = {top:,} ({sizes['seeds']} seeds): 3×[SSM+FNN] {risk[SSMFNN]:.3f}, Transformer "
        f"{risk[TRANSFORMER_BI]:.3f}, single SSM {risk[SINGLE]:.3f}, MLP on the first 4 tokens "
        f"{risk[MLP]:.3f}; Var F° = {var_f:.3f} (the constant predictor's risk)")
    val = {m: {n: _vals(rows, "val_mse", model=m, n=n) for n in ns} for m in (SSMFNN, TRANSFORMER_BI)}
    fit = learnt_sizes(val, var_f)
    seeds = _seeds(ctx, sizes["seeds"])
    slopes = {m: [loglog_slope(fit, [_mean(rows, "excess_risk", model=m, n=n, seed=s) for n in fit])
                  for s in seeds] for m in (SSMFNN, TRANSFORMER_BI)}
    rate: dict[str, Any] = {"seeds": sizes["seeds"], "sizes": ",".join(map(str, ns)),
                            "sizes_in_fit": ",".join(map(str, fit)) or "none", "n_sizes_in_fit": len(fit),
                            "learns_bound_val_excess": LEARNS_SHARE_OF_VAR_F * var_f,
                            "slope_ssmfnn3": slopes[SSMFNN], "slope_tf2": slopes[TRANSFORMER_BI],
                            f"excess_risk_{TRANSFORMER_BI}_n{full_top}": measured[
                                f"excess_risk_{TRANSFORMER_BI}_n{full_top}"]}
    for m in (SSMFNN, TRANSFORMER_BI):
        for n in ns:
            rate[f"mean_val_excess_{m}_n{n}"] = float(np.mean(val[m][n])) - NOISE_VAR
    mean_slope = {m: float(np.mean(v)) for m, v in slopes.items()}
    fig = plots.regression_rate(ctx.figure_path("regression_rate.png"), rows, ns, mean_slope, var_f, fit)
    reg.figures.append(fig)
    same = Finding.measure(
        "same_rate_as_transformer", rate,
        f"sizes where both learn: {rate['sizes_in_fit']}; mean per-seed log-log slopes 3×[SSM+FNN] "
        f"{mean_slope[SSMFNN]:.2f}, Transformer {mean_slope[TRANSFORMER_BI]:.2f}; Transformer at "
        f"n = {top:,}: {risk[TRANSFORMER_BI]:.3f}", figures=[fig])
    return reg, same


# ---- DNA: planted motifs and splice junctions ----------------------------------------------------------

def _dna_tasks(ctx: RunContext, sizes: dict) -> list[dict]:
    tasks = []
    for seed in _seeds(ctx, sizes["seeds"]):
        tasks.append({"task": "splice", "model": SSMFNN, "steps": sizes["splice_steps"], "seed": seed,
                      "eval_every": 50, "patience": 4,
                      "cost": _cost(SSMFNN, SPLICE_LENGTH_NT, sizes["splice_steps"])})
        tasks.append({"task": "motif", "model": MOTIF_MODEL, "window": MOTIF_WINDOW, "pool": "mean",
                      "steps": sizes["motif_steps"], "seed": seed, "n": sizes["motif_n"],
                      "length": sizes["motif_length"], "n_test": sizes["n_test"] // 2, "eval_every": 50,
                      "stop_at": 0.99, "cost": _cost(SSMFNN, sizes["motif_length"], sizes["motif_steps"])})
    return tasks


def _dna_finding(ctx: RunContext, rows: list[dict]) -> Finding:
    splice = [r for r in rows if r["task"] == "splice"]
    motif = [r for r in rows if r["task"] == "motif"]
    measured: dict[str, Any] = {
        "seeds": len(splice),
        "motif_argmax_in_motif": _vals(motif, "argmax_in_motif"),
        "motif_argmax_in_motif_untrained": _vals(motif, "untrained_argmax_in_motif"),
        "motif_argmax_in_motif_chance": _mean(motif, "motif_uniform_share"),
        "motif_argmax_std": _vals(motif, "argmax_std"),
        "motif_test_acc": _vals(motif, "accuracy"),
        "motif_saliency_share": _vals(motif, "motif_share"),
        "motif_uniform_share": _mean(motif, "motif_uniform_share"),
        "splice_test_acc": _vals(splice, "accuracy"),
        "splice_majority_class_acc": 1655 / 3190,
        "splice_top6_share": _vals(splice, "top_k_share"),
        "splice_uniform_top6_share": SPLICE_TOP_K / SPLICE_LENGTH_NT,
        "splice_argmax_std": _vals(splice, "argmax_std"),
    }
    fig = plots.saliency_figure(ctx.figure_path("saliency.png"), splice[0], motif[0])
    inside = _mean(motif, "argmax_in_motif")
    return Finding.measure(
        "sparse_dynamic_importance", measured,
        f"planted motif: the saliency argmax lies inside the 8-nt motif in {inside:.2f} of test sequences "
        f"(the untrained network {_mean(motif, 'untrained_argmax_in_motif'):.2f}, chance "
        f"{measured['motif_uniform_share']:.2f}), argmax std {_mean(motif, 'argmax_std'):.0f} nt, "
        f"{_mean(motif, 'motif_share'):.2f} of the mass inside, test accuracy "
        f"{_mean(motif, 'accuracy'):.3f}; "
        f"splice: test accuracy {_mean(splice, 'accuracy'):.3f}, top-6-of-60 share "
        f"{_mean(splice, 'top_k_share'):.2f} (uniform 0.10), argmax std {_mean(splice, 'argmax_std'):.1f} "
        f"(fixed junctions) ({len(splice)} seeds)", figures=[fig])
