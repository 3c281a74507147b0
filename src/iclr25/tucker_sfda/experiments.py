"""Reproduction of SFT (Tucker-decomposed source-free adaptation, ICLR 2025) at CPU scale, on the issue's
protocol: Data A (the synthetic multi-domain generator, scenarios 0→2, 1→3, 0→4, 3→1) and Data B (UEA
BasicMotions with the watch turned 60° or worn on the other wrist). Criteria fixed in issue #21.

Quick: SHOT on 0→2 and the rotation, one seed, RF 4 and 8: decides the first four claims (the issue's
protocol; its F1 verdict rests on two runs, the full profile's on twelve per host); the target-subsample
study is deferred to the full profile (4 hosts × 6 scenarios × 2 seeds; SHOT also at RF 2 and 16, with
the BN-only and LoRA baselines and 5% / 10% target subsamples)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from iclr25.core.claims import Claim, Finding, Verdict, all_of, at_most, fraction_at_least
from iclr25.core.runtime import RunContext, child_seeds
from iclr25.core.stats import binomial_pass_rate, paired_ci, proportion_ci
from iclr25.tucker_sfda.data import SCENARIOS_A, SHIFT, TEMPO
from iclr25.tucker_sfda.protocol import DATA_B_SHIFTS, run_cell

HOSTS = ("shot", "nrc", "aad", "mapu")
MAIN_RF, PARTIAL_RF, FRACTION_RF = 8, 4, 4
F1_MARGIN = 0.03  # 3 macro-F1 points
BACKBONES = {"synthetic (3×128, 5 classes)": (3, 128, 5), "BasicMotions (6×100, 4 classes)": (6, 100, 4)}

CLAIMS = [
    Claim(key="param_reduction",
          statement="Adapting only the Tucker cores fine-tunes over 90% fewer parameters than full "
                    "fine-tuning of the feature extractor.",
          paper="> 90% fewer fine-tuned parameters (AdaTime CNN on SSC, MFD, HHAR, WISDM, UCIHAR)",
          setup="core parameters at RF 8 ≤ 10% of the dense extractor's trainable parameters (convs + "
                    "BN), exact counts, on both backbones (synthetic 3×128; BasicMotions 6×100)"),
    Claim(key="mac_reduction",
          statement="The decomposed model needs over 90% fewer inference MACs and is smaller.",
          paper="> 90% fewer inference MACs, smaller model size",
          setup="at RF 8, MACs of one series ≤ 10% of the dense model's (formula, equal to the hook "
                    "count) and fewer bytes, on both backbones"),
    Claim(key="maintains_f1",
          statement="SFT keeps the target macro-F1 of full fine-tuning under the SHOT, NRC, AaD and MAPU "
                    "hosts.",
          paper="F1 maintained (SSC, MFD, HHAR, WISDM, UCIHAR × SHOT, NRC, AaD, MAPU; tables not quoted: "
                "not retrievable offline)",
          setup="per host, mean macro-F1 of SFT at RF 8 ≥ FT − 3 points (6 scenarios × 2 seeds); "
                    "PARTIAL for a host that passes only at RF 4; hosts combined with all_of"),
    Claim(key="implicit_regularization",
          statement="Restricting the update to the cores keeps the adapted weights closer to the source "
                    "(the PAC-Bayes KL term ‖W_trg − W_src‖²/2σ²).",
          paper="PAC-Bayes bound: selective fine-tuning constrains the distance to the source weights",
          setup="‖ΔW‖_F(SFT) < ‖ΔW‖_F(FT), dense weights, in ≥ 90% of paired runs (every host, "
                    "scenario, seed, RF 4 and 8)"),
    Claim(key="sample_efficiency",
          statement="With few target samples, SFT overfits less than full fine-tuning.",
          paper="better sample efficiency: less overfitting with few target samples (sample-ratio curves)",
          setup="SHOT on 5% and 10% of the target training series (3 subsamples each, Data A "
                    "scenarios × 2 seeds): mean F1 of SFT (RF 4) ≥ FT at both fractions; PARTIAL at one"),
]


# ---- verdict rules (pure functions of the measurements) -------------------------------------------

def decide_param_reduction(counts: dict[str, tuple[int, int]], bound: float = 0.10) -> Verdict:
    """`counts`: backbone → (core params at RF 8, dense extractor trainable params)."""
    return all_of(*(at_most(core / dense, bound) for core, dense in counts.values()))


def decide_mac_reduction(rows: dict[str, dict[str, int]], bound: float = 0.10) -> Verdict:
    """`rows`: backbone → {macs_dec, macs_dense, hooks_dec, hooks_dense, bytes_dec, bytes_dense}."""
    checks = []
    for r in rows.values():
        checks += [at_most(r["macs_dec"] / r["macs_dense"], bound),
                   at_most(r["bytes_dec"] / r["bytes_dense"], 1.0 - 1e-12),
                   at_most(abs(r["hooks_dec"] - r["macs_dec"]) + abs(r["hooks_dense"] - r["macs_dense"]), 0)]
    return all_of(*checks)


def decide_host_f1(sft_main: list[float], sft_partial: list[float], ft: list[float],
                   margin: float = F1_MARGIN) -> Verdict:
    """One host: REPRODUCED if mean SFT at RF 8 ≥ mean FT − margin, PARTIAL if only at RF 4."""
    if np.mean(sft_main) >= np.mean(ft) - margin:
        return Verdict.REPRODUCED
    if np.mean(sft_partial) >= np.mean(ft) - margin:
        return Verdict.PARTIAL
    return Verdict.NOT_REPRODUCED


def decide_maintains_f1(per_host: dict[str, tuple[list[float], list[float], list[float]]]) -> Verdict:
    """`per_host`: host → (SFT RF 8 F1s, SFT RF 4 F1s, FT F1s)."""
    return all_of(*(decide_host_f1(*v) for v in per_host.values()))


def decide_implicit_regularization(pairs: list[tuple[float, float]], share: float = 0.9) -> Verdict:
    """`pairs`: (‖ΔW‖ SFT, ‖ΔW‖ FT) of paired runs."""
    return fraction_at_least([s < f for s, f in pairs], share)


def decide_sample_efficiency(per_fraction: dict[float, tuple[list[float], list[float]]]) -> Verdict:
    """`per_fraction`: fraction → (SFT F1s, FT F1s). REPRODUCED at every fraction, PARTIAL at some."""
    return all_of(*(Verdict.REPRODUCED if np.mean(s) >= np.mean(f) else Verdict.NOT_REPRODUCED
                    for s, f in per_fraction.values()))


# ---- the run ---------------------------------------------------------------------------------------

def _tasks(ctx: RunContext) -> tuple[list[dict], int]:
    n_seeds = ctx.pick(smoke=1, quick=1, full=2)
    shifts_a = ctx.pick(smoke=SCENARIOS_A[:1], quick=SCENARIOS_A[:1], full=SCENARIOS_A)
    shifts_b = ctx.pick(smoke=DATA_B_SHIFTS[:1], quick=DATA_B_SHIFTS[:1], full=DATA_B_SHIFTS)
    common = {
        "hosts": ctx.pick(smoke=HOSTS, quick=("shot",), full=HOSTS),
        "rfs": (PARTIAL_RF, MAIN_RF),
        "extra_rfs": ctx.pick(smoke=(2,), quick=(), full=(2, 16)),
        "baselines": ctx.pick(smoke=True, quick=False, full=True),
        "lora_rf": MAIN_RF, "fraction_rf": FRACTION_RF,
        "source_epochs": ctx.pick(smoke=1, quick=15, full=15),
        "finetune_epochs": ctx.pick(smoke=1, quick=2, full=2),
        "adapt_epochs": ctx.pick(smoke=1, quick=10, full=10),
        "n_train": ctx.pick(smoke=40, quick=600, full=600),
        "n_test": ctx.pick(smoke=20, quick=200, full=200),
        "shift_scale": SHIFT, "tempo": TEMPO,
        "subsamples": ctx.pick(smoke=1, quick=3, full=3),
    }
    fractions = ctx.pick(smoke=(0.1,), quick=(), full=(0.05, 0.10))
    tasks = []
    for seed in child_seeds(ctx.seed, n_seeds):  # Data A first: the heavy cells start first
        tasks += [{**common, "dataset": "A", "shift": s, "seed": seed, "fractions": fractions}
                  for s in shifts_a]
    for seed in child_seeds(ctx.seed, n_seeds):
        tasks += [{**common, "dataset": "B", "shift": s, "seed": seed, "fractions": ()} for s in shifts_b]
    return tasks, n_seeds


def run(profile: str, ctx: RunContext) -> list[Finding]:
    from iclr25.tucker_sfda.figures import plot_f1_vs_fraction, plot_f1_vs_rf, plot_hosts

    tasks, n_seeds = _tasks(ctx)
    cells = ctx.map(run_cell, tasks, "tucker_sfda scenarios × seeds")
    runs = [r for c in cells for r in c["runs"]]
    infos = [c["info"] for c in cells]
    write_runs(runs, ctx.out_dir / "runs.csv")
    counts = count_rows()
    rf_fig = plot_f1_vs_rf(runs, counts, ctx.out_dir)
    host_fig = plot_hosts(runs, ctx.out_dir)
    frac_fig = plot_f1_vs_fraction(runs, ctx.out_dir)
    return [param_finding(counts, [rf_fig]), mac_finding(counts, [rf_fig]),
            maintains_finding(runs, infos, n_seeds, [host_fig, rf_fig]),
            implicit_finding(runs, [host_fig]),
            sample_finding(runs, n_seeds, [frac_fig] if frac_fig else [])]


def write_runs(runs: list[dict], path) -> None:
    """Every adaptation run (scenario, seed, host, variant, RF, fraction, F1, ‖ΔW‖) as a CSV beside the
    findings, for readers who want more than the means."""
    import csv
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(runs[0]))
        w.writeheader()
        w.writerows(runs)


def count_rows(rfs: tuple[int, ...] = (2, 4, 8, 16)) -> dict[str, dict]:
    """Exact parameter / MAC / byte counts of each backbone, dense and decomposed at each RF."""
    from iclr25.tucker_sfda.efficiency import efficiency
    from iclr25.tucker_sfda.model import AdaTimeCNN
    from iclr25.tucker_sfda.training import select_trainable
    from iclr25.tucker_sfda.tucker import tucker_reparameterize

    out = {}
    for name, (C, T, K) in BACKBONES.items():
        dense = AdaTimeCNN(C, T, K)
        select_trainable(dense, "all")
        e_dense = efficiency(dense, (C, T))
        row = {"dense": e_dense.to_dict(), "rf": {}}
        for rf in rfs:
            dec = tucker_reparameterize(dense, rf)
            select_trainable(dec, "core")
            row["rf"][rf] = efficiency(dec, (C, T)).to_dict()
        out[name] = row
    return out


def _short(name: str) -> str:
    return name.split(" ")[0]


def param_finding(counts: dict, figures: list[str]) -> Finding:
    pairs = {n: (r["rf"][MAIN_RF]["trainable"], r["dense"]["trainable"]) for n, r in counts.items()}
    measured: dict = {}
    for n, (core, dense) in pairs.items():
        s = _short(n)
        measured.update({f"core_params_rf8_{s}": core, f"dense_extractor_params_{s}": dense,
                         f"ratio_rf8_{s}": core / dense, f"reduction_pct_rf8_{s}": 100 * (1 - core / dense)})
        for rf, e in counts[n]["rf"].items():
            measured[f"core_params_rf{rf}_{s}"] = e["trainable"]
    parts = [f"{_short(n)}: {c:,} of {d:,} ({100 * (1 - c / d):.1f}% fewer)" for n, (c, d) in pairs.items()]
    return Finding("param_reduction", decide_param_reduction(pairs), measured,
                   "core parameters at RF 8 vs dense extractor: " + "; ".join(parts) + "; paper > 90% fewer",
                   figures)


def mac_finding(counts: dict, figures: list[str]) -> Finding:
    rows, measured, parts = {}, {}, []
    for n, r in counts.items():
        d, e = r["dense"], r["rf"][MAIN_RF]
        rows[n] = {"macs_dec": e["macs"], "macs_dense": d["macs"], "hooks_dec": e["macs_hooks"],
                   "hooks_dense": d["macs_hooks"], "bytes_dec": e["bytes"], "bytes_dense": d["bytes"]}
        s = _short(n)
        measured.update({f"macs_dense_{s}": d["macs"], f"macs_rf8_{s}": e["macs"],
                         f"macs_hooks_rf8_{s}": e["macs_hooks"], f"mac_ratio_rf8_{s}": e["macs"] / d["macs"],
                         f"bytes_dense_{s}": d["bytes"], f"bytes_rf8_{s}": e["bytes"],
                         f"bytes_ratio_rf8_{s}": e["bytes"] / d["bytes"]})
        parts.append(f"{s}: {e['macs']:,} vs {d['macs']:,} MACs ({100 * (1 - e['macs'] / d['macs']):.1f}% "
                     f"fewer), {e['bytes'] / 1024:.0f} vs {d['bytes'] / 1024:.0f} KiB")
    return Finding("mac_reduction", decide_mac_reduction(rows), measured,
                   "RF 8: " + "; ".join(parts) + " (formula = hooks); paper > 90% fewer MACs", figures)


def _f1s(runs: list[dict], host: str, variant: str, rf: int | None = None,
         fraction: float = 1.0) -> list[float]:
    """F1s in a fixed (scenario, seed, sub) order, so two arms pair up."""
    sel = [r for r in runs if r["host"] == host and r["variant"] == variant and r["rf"] == rf
           and r["fraction"] == fraction]
    return [r["f1"] for r in sorted(sel, key=lambda r: (r["scenario"], r["seed"], r["sub"]))]


def _scenario_means(runs: list[dict], host: str) -> dict[str, float]:
    """Mean F1 over seeds of source-only, FT and SFT RF 4 / 8 in each scenario, for the README's table."""
    groups: dict[str, list[float]] = defaultdict(list)
    source_host = "mapu" if host == "mapu" else "none"
    for r in runs:
        if r["fraction"] != 1.0:
            continue
        if r["host"] == source_host and r["variant"] == "source_only":
            arm = "source_only"
        elif r["host"] == host and r["variant"] == "ft":
            arm = "ft"
        elif r["host"] == host and r["variant"] == "sft" and r["rf"] in (PARTIAL_RF, MAIN_RF):
            arm = f"sft_rf{r['rf']}"
        else:
            continue
        groups[f"{host}_f1_{arm}_{r['scenario']}"].append(r["f1"])
    return {k: float(np.mean(v)) for k, v in groups.items()}


def maintains_finding(runs: list[dict], infos: list[dict], n_seeds: int, figures: list[str]) -> Finding:
    hosts = [h for h in HOSTS if _f1s(runs, h, "ft")]
    per_host, measured, parts = {}, {}, []
    for h in hosts:
        sft8, sft4 = _f1s(runs, h, "sft", MAIN_RF), _f1s(runs, h, "sft", PARTIAL_RF)
        ft = _f1s(runs, h, "ft")
        src = _f1s(runs, "mapu" if h == "mapu" else "none", "source_only")
        per_host[h] = (sft8, sft4, ft)
        measured.update({f"{h}_f1_source_only": float(np.mean(src)), f"{h}_f1_ft": float(np.mean(ft)),
                         f"{h}_f1_sft_rf8": float(np.mean(sft8)), f"{h}_f1_sft_rf4": float(np.mean(sft4)),
                         f"{h}_runs": len(ft)})
        # signal beside noise: what adaptation moves (FT − source-only) and the spread across runs
        gain = [f - s for f, s in zip(ft, src, strict=True)]
        measured[f"{h}_ft_gain_over_source_only"] = float(np.mean(gain))
        measured[f"{h}_ft_f1_sd_across_runs"] = float(np.std(ft, ddof=1)) if len(ft) > 1 else float("nan")
        if len(ft) > 1:
            measured.update(paired_ci(sft8, ft).to_measured(f"{h}_sft8_minus_ft"))
        measured.update(_scenario_means(runs, h))
        parts.append(f"{h}: FT {np.mean(ft):.3f}, SFT RF8 {np.mean(sft8):.3f}, RF4 {np.mean(sft4):.3f} "
                     f"(source-only {np.mean(src):.3f})")
    for rf in (2, 16):
        if _f1s(runs, "shot", "sft", rf):
            measured[f"shot_f1_sft_rf{rf}"] = float(np.mean(_f1s(runs, "shot", "sft", rf)))
    for v in ("bn", "lora"):
        f1s = _f1s(runs, "shot", v, MAIN_RF if v == "lora" else None)
        if f1s:
            measured[f"shot_f1_{v}"] = float(np.mean(f1s))
    lora = [r["trainable"] for r in runs if r["variant"] == "lora"]
    if lora:
        measured["lora_trainable"] = int(lora[0])
    for i in infos:
        measured[f"source_only_f1_{i['scenario']}_seed{i['seed']}"] = i["source_f1_on_target"]
        if "source_f1_unshifted" in i:
            measured[f"source_f1_unshifted_{i['scenario']}_seed{i['seed']}"] = i["source_f1_unshifted"]
    n_runs = len(per_host[hosts[0]][2]) if hosts else 0
    summary = "; ".join(parts) + f" (mean over {n_runs} run(s) per host: scenarios × {n_seeds} seed(s))"
    return Finding("maintains_f1", decide_maintains_f1(per_host), measured, summary, figures)


def _pairs(runs: list[dict]) -> list[tuple[float, float]]:
    ft = {(r["host"], r["scenario"], r["seed"]): r["delta"] for r in runs
          if r["variant"] == "ft" and r["fraction"] == 1.0}
    return [(r["delta"], ft[r["host"], r["scenario"], r["seed"]]) for r in runs
            if r["variant"] == "sft" and r["rf"] in (PARTIAL_RF, MAIN_RF) and r["fraction"] == 1.0]


def implicit_finding(runs: list[dict], figures: list[str]) -> Finding:
    pairs = _pairs(runs)
    k = sum(s < f for s, f in pairs)
    iv = proportion_ci(k, len(pairs))
    ratios = [s / f for s, f in pairs]
    need = int(np.ceil(0.9 * len(pairs)))
    measured = {"pairs": len(pairs), "sft_closer": k, **iv.to_measured("share_sft_closer"),
                "median_delta_ratio_sft_over_ft": float(np.median(ratios)),
                "max_delta_ratio_sft_over_ft": float(np.max(ratios)),
                "mean_delta_sft": float(np.mean([s for s, _ in pairs])),
                "mean_delta_ft": float(np.mean([f for _, f in pairs])),
                "coin_flip_pass_rate": binomial_pass_rate(len(pairs), 0.5, need)}
    return Finding("implicit_regularization", decide_implicit_regularization(pairs), measured,
                   f"SFT moved less than FT in {k}/{len(pairs)} paired runs; median ‖ΔW‖ ratio SFT/FT "
                   f"{np.median(ratios):.3f} (mean ‖ΔW‖ {measured['mean_delta_sft']:.2f} vs "
                   f"{measured['mean_delta_ft']:.2f}); a coin flip passes with p = "
                   f"{measured['coin_flip_pass_rate']:.3f}", figures)


def sample_finding(runs: list[dict], n_seeds: int, figures: list[str]) -> Finding:
    fractions = sorted({r["fraction"] for r in runs if r["fraction"] < 1.0})
    per_fraction, measured, parts = {}, {}, []
    for fr in fractions:
        sft, ft = _f1s(runs, "shot", "sft", FRACTION_RF, fr), _f1s(runs, "shot", "ft", None, fr)
        per_fraction[fr] = (sft, ft)
        pct = f"{100 * fr:g}pct"
        measured.update({f"f1_sft_rf4_{pct}": float(np.mean(sft)), f"f1_ft_{pct}": float(np.mean(ft)),
                         f"runs_{pct}": len(ft)})
        if len(ft) > 1:
            measured.update(paired_ci(sft, ft).to_measured(f"sft_minus_ft_{pct}"))
            measured[f"ft_f1_sd_{pct}"] = float(np.std(ft, ddof=1))
        parts.append(f"{100 * fr:g}%: SFT {np.mean(sft):.3f} vs FT {np.mean(ft):.3f} ({len(ft)} runs)")
    full = {"sft": _f1s(runs, "shot", "sft", FRACTION_RF), "ft": _f1s(runs, "shot", "ft")}
    if full["ft"]:
        measured.update({"f1_sft_rf4_100pct": float(np.mean(full["sft"])),
                         "f1_ft_100pct": float(np.mean(full["ft"]))})
    if n_seeds < 2 or not fractions:
        f = Finding.deferred("sample_efficiency", "the target-subsample study runs in the full profile"
                             + (f"; measured {'; '.join(parts)}" if parts else ""), **measured)
        f.figures = figures
        return f
    return Finding("sample_efficiency", decide_sample_efficiency(per_fraction), measured,
                   "; ".join(parts) + f" (SHOT, RF {FRACTION_RF}, scored on the full target test set)",
                   figures)

