"""Reproduction of SFT (Tucker-decomposed source-free adaptation, ICLR 2025) at CPU scale: the
measurements only; the rules that decide them are in claims.py (issue #21, second round #46).

Data A (the synthetic multi-domain generator, scenarios 0→2, 1→3, 0→4, 3→1) and Data B (UEA BasicMotions
with the watch turned 60° or worn on the other wrist). Full: 4 hosts × 6 scenarios × 3 seeds; SHOT also at
RF 2 and 16, against the matched-capacity baselines (BN-only, LoRA, a random weight subset) and on 5% / 10%
of the target series. Quick: the exact parameter and MAC counts decide the first two claims (no training);
the three trained claims need 18 cells of source training and adaptation, so quick defers them to the full
record."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

from iclr25.core.claims import Finding
from iclr25.core.runtime import RunContext, child_seeds
from iclr25.core.stats import paired_ci
from iclr25.tucker_sfda.claims import CLAIMS, FRACTION_RF, HOSTS, MAIN_RF
from iclr25.tucker_sfda.data import SCENARIOS_A, SHIFT, TEMPO
from iclr25.tucker_sfda.protocol import DATA_B_SHIFTS, run_cell

__all__ = ["CLAIMS", "count_rows", "run"]

PARTIAL_RF = 4
BACKBONES = {"synthetic": (3, 128, 5), "BasicMotions": (6, 100, 4)}
FRACTIONS = (0.05, 0.10)
PCT = {1.0: "100pct", 0.10: "10pct", 0.05: "5pct"}


# ---- the run ---------------------------------------------------------------------------------------

def _tasks(ctx: RunContext) -> tuple[list[dict], int]:
    n_seeds = ctx.pick(smoke=1, quick=0, full=3)
    shifts_a = ctx.pick(smoke=SCENARIOS_A[:1], quick=(), full=SCENARIOS_A)
    shifts_b = ctx.pick(smoke=DATA_B_SHIFTS[:1], quick=(), full=DATA_B_SHIFTS)
    common = {
        "hosts": ctx.pick(smoke=HOSTS, quick=("shot",), full=HOSTS),
        "rfs": (PARTIAL_RF, MAIN_RF),
        "extra_rfs": ctx.pick(smoke=(16,), quick=(), full=(2, 16)),
        "baselines": ctx.pick(smoke=True, quick=False, full=True),
        "lora_rf": MAIN_RF, "fraction_rf": FRACTION_RF,
        "source_epochs": ctx.pick(smoke=1, quick=15, full=15),
        "finetune_epochs": ctx.pick(smoke=1, quick=2, full=2),
        "adapt_epochs": ctx.pick(smoke=1, quick=10, full=10),
        "n_train": ctx.pick(smoke=40, quick=600, full=600),
        "n_test": ctx.pick(smoke=20, quick=200, full=200),
        "shift_scale": SHIFT, "tempo": TEMPO,
        "subsamples": ctx.pick(smoke=1, quick=3, full=3),
        "fractions": ctx.pick(smoke=(0.05,), quick=(), full=FRACTIONS),
    }
    seeds = child_seeds(ctx.seed, n_seeds)
    tasks = [{**common, "dataset": "A", "shift": s, "seed": seed} for seed in seeds for s in shifts_a]
    tasks += [{**common, "dataset": "B", "shift": s, "seed": seed} for seed in seeds for s in shifts_b]
    return tasks, n_seeds


def run(profile: str, ctx: RunContext) -> list[Finding]:
    from iclr25.tucker_sfda.figures import plot_f1_vs_fraction, plot_f1_vs_rf, plot_hosts, plot_matched

    counts = count_rows()
    tasks, n_seeds = _tasks(ctx)
    if not tasks:  # quick: exact counts only
        fig = plot_f1_vs_rf([], counts, ctx.out_dir)
        why = ("source training and adaptation over 4 hosts × 6 scenarios × 3 seeds: full profile only "
               "(docs/full/tucker_sfda.md)")
        return [param_finding(counts, [fig]), mac_finding(counts, [fig]),
                *(Finding.deferred(k, why) for k in ("maintains_f1", "implicit_regularization",
                                                     "sample_efficiency"))]
    cells = ctx.map(run_cell, tasks, "tucker_sfda scenarios × seeds")
    runs = [r for c in cells for r in c["runs"]]
    infos = [c["info"] for c in cells]
    write_runs(runs, ctx.out_dir / "runs.csv")
    rf_fig = plot_f1_vs_rf(runs, counts, ctx.out_dir)
    host_fig = plot_hosts(runs, ctx.out_dir)
    findings = [param_finding(counts, [rf_fig]), mac_finding(counts, [rf_fig])]
    matched_fig = plot_matched(runs, ctx.out_dir)
    frac_fig = plot_f1_vs_fraction(runs, ctx.out_dir)
    return findings + [maintains_finding(runs, infos, [host_fig, rf_fig]),
                       implicit_finding(runs, [matched_fig, host_fig]),
                       sample_finding(runs, [frac_fig] if frac_fig else [])]


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
        row = {"dense": efficiency(dense, (C, T)).to_dict(), "rf": {}}
        for rf in rfs:
            dec = tucker_reparameterize(dense, rf)
            select_trainable(dec, "core")
            row["rf"][rf] = efficiency(dec, (C, T)).to_dict()
        out[name] = row
    return out


# ---- exact counts ------------------------------------------------------------------------------------

def param_finding(counts: dict, figures: list[str]) -> Finding:
    measured: dict[str, Any] = {}
    parts = []
    for n, r in counts.items():
        core, dense = r["rf"][MAIN_RF]["trainable"], r["dense"]["trainable"]
        measured.update({f"core_params_rf8_{n}": core, f"dense_extractor_params_{n}": dense,
                         f"ratio_rf8_{n}": core / dense, f"reduction_pct_rf8_{n}": 100 * (1 - core / dense)})
        for rf, e in r["rf"].items():
            measured[f"core_params_rf{rf}_{n}"] = e["trainable"]
        parts.append(f"{n}: {core:,} of {dense:,} ({100 * (1 - core / dense):.1f}% fewer)")
    return Finding.measure("param_reduction", measured,
                           "core parameters at RF 8 vs dense extractor: " + "; ".join(parts)
                           + "; paper > 90% fewer", figures)


def mac_finding(counts: dict, figures: list[str]) -> Finding:
    measured: dict[str, Any] = {}
    parts = []
    for n, r in counts.items():
        d, e = r["dense"], r["rf"][MAIN_RF]
        measured.update({f"macs_dense_{n}": d["macs"], f"macs_rf8_{n}": e["macs"],
                         f"macs_hooks_rf8_{n}": e["macs_hooks"], f"mac_ratio_rf8_{n}": e["macs"] / d["macs"],
                         f"macs_formula_minus_hooks_abs_{n}": abs(e["macs"] - e["macs_hooks"])
                         + abs(d["macs"] - d["macs_hooks"]),
                         f"bytes_dense_{n}": d["bytes"], f"bytes_rf8_{n}": e["bytes"],
                         f"bytes_ratio_rf8_{n}": e["bytes"] / d["bytes"]})
        parts.append(f"{n}: {e['macs']:,} vs {d['macs']:,} MACs ({100 * (1 - e['macs'] / d['macs']):.1f}% "
                     f"fewer), {e['bytes'] / 1024:.0f} vs {d['bytes'] / 1024:.0f} KiB")
    return Finding.measure("mac_reduction", measured, "RF 8: " + "; ".join(parts)
                           + " (formula = hooks); paper > 90% fewer MACs", figures)


# ---- trained arms --------------------------------------------------------------------------------------

def _key(r: dict) -> tuple:
    return (r["dataset"], r["scenario"], r["seed"])


def _arm(runs: list[dict], host: str, variant: str, rf: int | None = None, fraction: float = 1.0,
         key: str = "f1", dataset: str | None = None) -> dict[tuple, float]:
    """(dataset, scenario, seed) → the arm's value, averaged over target subsamples."""
    acc: dict[tuple, list[float]] = defaultdict(list)
    for r in runs:
        if (r["host"] == host and r["variant"] == variant and r["rf"] == rf and r["fraction"] == fraction
                and (dataset is None or r["dataset"] == dataset)):
            acc[_key(r)].append(r[key])
    return {k: float(np.mean(v)) for k, v in sorted(acc.items())}


def _paired(a: dict[tuple, float], b: dict[tuple, float]) -> tuple[list[float], list[float]]:
    """The two arms' values over the runs both have, in one order: what a paired rule reads."""
    keys = sorted(set(a) & set(b))
    return [a[k] for k in keys], [b[k] for k in keys]


def _mean(xs: list[float]) -> float:
    return float(np.mean(xs)) if xs else float("nan")


def maintains_finding(runs: list[dict], infos: list[dict], figures: list[str]) -> Finding:
    measured: dict[str, Any] = {}
    parts = []
    for h in HOSTS:
        ft = _arm(runs, h, "ft")
        if not ft:
            continue
        src = _arm(runs, "mapu" if h == "mapu" else "none", "source_only")
        sft8, ft8 = _paired(_arm(runs, h, "sft", MAIN_RF), ft)
        sft4, _ = _paired(_arm(runs, h, "sft", PARTIAL_RF), ft)
        srcs, fts = _paired(src, ft)
        measured.update({f"{h}_f1_sft_rf8": sft8, f"{h}_f1_ft": ft8, f"{h}_f1_sft_rf4": sft4,
                         f"{h}_f1_source_only": srcs, f"{h}_runs": len(ft8),
                         # signal beside noise: what adaptation moves, and the spread across runs
                         f"{h}_ft_gain_over_source_only": _mean([f - s for f, s in
                                                                 zip(fts, srcs, strict=True)]),
                         f"{h}_ft_f1_sd_across_runs": float(np.std(ft8, ddof=1)) if len(ft8) > 1 else 0.0})
        if len(ft8) > 1:
            measured.update(paired_ci(sft8, ft8).to_measured(f"{h}_sft8_minus_ft"))
        measured.update(_scenario_means(runs, h))
        parts.append(f"{h}: FT {_mean(ft8):.3f}, SFT RF8 {_mean(sft8):.3f}, RF4 {_mean(sft4):.3f} "
                     f"(source-only {_mean(srcs):.3f})")
    for i in infos:
        measured[f"source_only_f1_{i['scenario']}_seed{i['seed']}"] = i["source_f1_on_target"]
        if "source_f1_unshifted" in i:
            measured[f"source_f1_unshifted_{i['scenario']}_seed{i['seed']}"] = i["source_f1_unshifted"]
    n_runs = measured.get("shot_runs", 0)
    return Finding.measure("maintains_f1", measured,
                           "; ".join(parts) + f" (paired over {n_runs} run(s) per host: scenarios × seeds)",
                           figures)


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


MATCHED_ARMS = {  # condition → (SFT arm's RF, the baseline's variant and RF)
    "random": (MAIN_RF, ("random", MAIN_RF)), "lora": (MAIN_RF, ("lora", MAIN_RF)), "bn": (16, ("bn", None)),
}


def _trainable(runs: list[dict], variant: str, rf: int | None) -> int:
    counts = {r["trainable"] for r in runs
              if r["host"] == "shot" and r["variant"] == variant and r["rf"] == rf and r["fraction"] == 1.0}
    return int(max(counts)) if counts else 0


def implicit_finding(runs: list[dict], figures: list[str]) -> Finding:
    measured: dict[str, Any] = {}
    parts = []
    for cond, (sft_rf, (variant, rf)) in MATCHED_ARMS.items():
        base = _arm(runs, "shot", variant, rf)
        if not base:
            continue
        sft, other = _paired(_arm(runs, "shot", "sft", sft_rf), base)
        d_sft, d_other = _paired(_arm(runs, "shot", "sft", sft_rf, key="delta"),
                                 _arm(runs, "shot", variant, rf, key="delta"))
        n_sft, n_other = _trainable(runs, "sft", sft_rf), _trainable(runs, variant, rf)
        measured.update({f"f1_sft_vs_{cond}": sft, f"f1_{cond}": other,
                         f"trainable_sft_rf{sft_rf}": n_sft, f"trainable_{cond}": n_other,
                         f"delta_sft_rf{sft_rf}_mean": _mean(d_sft), f"delta_{cond}_mean": _mean(d_other)})
        parts.append(f"SFT RF {sft_rf} ({n_sft:,}) {_mean(sft):.3f} vs {cond} ({n_other:,}) "
                     f"{_mean(other):.3f}")
    ft = _arm(runs, "shot", "ft", key="delta")
    if ft:
        measured["delta_ft_mean"] = _mean(list(ft.values()))
        measured["f1_ft_shot"] = _mean(list(_arm(runs, "shot", "ft").values()))
    return Finding.measure("implicit_regularization", measured,
                           "SHOT, target test macro-F1 at matched trainable counts: " + "; ".join(parts)
                           + f" (FT {measured.get('f1_ft_shot', float('nan')):.3f})", figures)


def sample_finding(runs: list[dict], figures: list[str]) -> Finding:
    measured: dict[str, Any] = {"fraction_rf": FRACTION_RF}
    parts = []
    for ds in ("A", "B"):
        gaps = {}
        for frac, pct in PCT.items():
            sft = _arm(runs, "shot", "sft", FRACTION_RF, frac, dataset=ds)
            ft = _arm(runs, "shot", "ft", None, frac, dataset=ds)
            if not sft or not ft:
                continue
            s, f = _paired(sft, ft)
            gaps[pct] = [a - b for a, b in zip(s, f, strict=True)]
            measured.update({f"f1_sft_rf{FRACTION_RF}_{pct}_{ds}": s, f"f1_ft_{pct}_{ds}": f,
                             f"gap_{pct}_{ds}": gaps[pct]})
        if "5pct" in gaps and "100pct" in gaps:
            measured[f"runs_{ds}"] = len(gaps["100pct"])
            parts.append(f"data set {ds}: SFT − FT {_mean(gaps['100pct']):+.3f} at 100%, "
                         + (f"{_mean(gaps['10pct']):+.3f} at 10%, " if "10pct" in gaps else "")
                         + f"{_mean(gaps['5pct']):+.3f} at 5% ({len(gaps['100pct'])} runs)")
    summary = ("; ".join(parts) + f" (SHOT, SFT at RF {FRACTION_RF}, scored on the full target test set)"
               if parts else "no target subsamples in this profile")
    return Finding.measure("sample_efficiency", measured, summary, figures)
