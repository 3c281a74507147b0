"""Reproduction of RM-Bench (ICLR 2025) on the three shipped domains: chat (129), code (228) and safety
(441, pooled). The math file is not shipped (> 4 MiB), so every finding covers 3 of 4 domains.

The rules are in claims.py, fixed before measuring; this module only measures. Profiles change sizes
only: smoke uses a few items per file; quick scores every item with the heuristics and the TF-IDF reward
model; full adds the MiniLM reward model and SmolLM2's implicit reward."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from iclr25.core.claims import Finding
from iclr25.core.data import shared_data
from iclr25.core.runtime import RunContext, timer
from iclr25.rm_bench.bt import BTRewardModel
from iclr25.rm_bench.claims import CLAIMS, MATH_NOTE
from iclr25.rm_bench.data import Item, load_rmbench
from iclr25.rm_bench.metric import evaluate_scores, item_contributions, item_scores, mean_se
from iclr25.rm_bench.plots import PAPER_BEST, difficulty_bars, heatmaps
from iclr25.rm_bench.scorers import Length, Markdown, MiniLMRelevance, Random

DATA = "03-rm-bench"
__all__ = ["CLAIMS", "run"]

LM_IDS_PER_DOMAIN = 12


def _levels(result: dict[str, Any]) -> dict[str, float]:
    return {k: result["overall"][k] for k in ("easy", "normal", "hard", "avg")}


def _scored(scorer: Any, items: Sequence[Item]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The benchmark's result for `scorer` and each item's share of every overall level."""
    ch, rej = item_scores(scorer, items)
    return evaluate_scores(items, ch, rej), item_contributions(items, ch, rej)


def _with_se(measured: dict[str, Any], name: str, values: np.ndarray) -> None:
    """`name` (an overall score, or a difference of two) and `name_se`, its standard error over items."""
    measured[name], measured[f"{name}_se"] = mean_se(values)


def subsample(items: Sequence[Item], per_file: int | None) -> list[Item]:
    """The first `per_file` items of each file in id order (all when None): fixed, seed-free."""
    if per_file is None:
        return list(items)
    out: list[Item] = []
    for dom in dict.fromkeys(it.domain for it in items):
        rows = sorted((it for it in items if it.domain == dom), key=_id_key)
        out += rows[:per_file]
    return out


def _id_key(it: Item) -> tuple[int, str]:
    return (int(it.id), it.id) if it.id.isdigit() else (10**12, it.id)


def lm_items(items: Sequence[Item], per_domain: int) -> list[Item]:
    """`per_domain` items evenly spaced in (file, id) order within each reported domain (safety pooled)."""
    out: list[Item] = []
    for group in ("chat", "code", "safety"):
        rows = sorted((it for it in items if it.group == group), key=lambda it: (it.domain, *_id_key(it)))
        if rows:
            take = np.unique(np.linspace(0, len(rows) - 1, min(per_domain, len(rows))).round().astype(int))
            out += [rows[k] for k in take]
    return out


# ---- claims -------------------------------------------------------------------------------------------

def _style_probe(items: list[Item], ctx: RunContext, results: dict[str, Any],
                 parts: dict[str, dict[str, np.ndarray]]) -> Finding:
    lv = {name: _levels(r) for name, r in results.items()}
    noise = max(abs(lv["random (seed 0)"][k] - 50) for k in ("easy", "normal", "hard"))
    measured: dict[str, Any] = {"items": len(items), "domains": MATH_NOTE, "random_max_dev_pts": noise}
    length, md = parts["length"], parts["markdown"]
    _with_se(measured, "length_easy_minus_hard", length["easy"] - length["hard"])
    _with_se(measured, "length_hard", length["hard"])
    _with_se(measured, "markdown_easy_minus_normal", md["easy"] - md["normal"])
    _with_se(measured, "markdown_normal_minus_hard", md["normal"] - md["hard"])
    for name, levels in lv.items():
        for k, v in levels.items():
            measured[f"{name.split(' ')[0]}_{k}"] = v
    figs = [heatmaps(results, ctx.out_dir / "style_heatmaps.png").name,
            difficulty_bars({n: lv[n] for n in lv}, ctx.out_dir / "style_bars.png").name]
    L, M, R = lv["length"], lv["markdown"], lv["random (seed 0)"]  # noqa: N806
    gap, gap_se = measured["length_easy_minus_hard"], measured["length_easy_minus_hard_se"]
    summary = (f"length E/N/H {L['easy']:.1f}/{L['normal']:.1f}/{L['hard']:.1f} (E−H {gap:.1f} ± "
               f"{1.96 * gap_se:.1f}); markdown {M['easy']:.1f}/{M['normal']:.1f}/{M['hard']:.1f}; random "
               "(the "
               f"control) {R['easy']:.1f}/{R['normal']:.1f}/{R['hard']:.1f}; paper best RM 89.0/74.7/46.6; "
               f"{MATH_NOTE}")
    return Finding.measure("style_probe", measured, summary, figs)


def _bt_runs(items: list[Item], features: str, seeds: list[int], ctx: RunContext) -> dict[str, Any]:
    """Normal per domain and E/N/H for BT-diagonal over fold seeds, and BT-all (style-augmented)."""
    from iclr25.rm_bench.metric import evaluate
    runs = {"diagonal": [], "all": []}
    for pairs in runs:
        for s in seeds:
            runs[pairs].append(evaluate(BTRewardModel(features, pairs, seed=s, mapper=ctx.map), items))
    return runs


def _subtle(items: list[Item], ctx: RunContext, features: list[str], seeds: list[int],
            results: dict[str, Any]) -> Finding:
    measured: dict[str, Any] = {"items": len(items), "fold_seeds": len(seeds), "domains": MATH_NOTE}
    parts = []
    for feat in features:
        with timer() as t:
            runs = _bt_runs(items, feat, seeds, ctx)
        diag = runs["diagonal"]
        per_seed = {d: [float(r["domains"][d]["normal"]) for r in diag] for d in ("chat", "code", "safety")}
        for d, xs in per_seed.items():
            measured[f"{feat}_normal_{d}"] = xs  # one value per fold seed: the rule's units
        normal = {d: float(np.mean(xs)) for d, xs in per_seed.items()}
        measured[f"{feat}_fit_s"] = t["s"]
        for pairs, rs in runs.items():
            for k in ("easy", "normal", "hard", "avg"):
                measured[f"{feat}_{pairs}_{k}"] = float(np.mean([r["overall"][k] for r in rs]))
            results[f"bt-{feat}-{pairs}"] = rs[0]
        narrowing = (measured[f"{feat}_diagonal_easy"] - measured[f"{feat}_diagonal_hard"]) - \
                    (measured[f"{feat}_all_easy"] - measured[f"{feat}_all_hard"])
        measured[f"{feat}_all_pairs_narrows_easy_minus_hard_pts"] = narrowing
        parts.append(f"{feat}: Normal chat {normal['chat']:.1f}, code {normal['code']:.1f}, "
                     f"safety {normal['safety']:.1f}")
    summary = "; ".join(parts) + (f" (means over {len(seeds)} fold seeds); paper best RM Chat 69.5, Code "
                                  f"54.5, Safety 95.7; {MATH_NOTE}")
    return Finding.measure("subtle_content_hard", measured, summary)


def _real_lm(items: list[Item], ctx: RunContext, per_domain: int = LM_IDS_PER_DOMAIN) -> Finding:
    from iclr25.rm_bench.implicit import SmolLM2Scorer, implicit_reward
    chosen = lm_items(items, per_domain)
    scorer = SmolLM2Scorer("avg", 256, mapper=ctx.map)
    prompts = [it.prompt for it in chosen for _ in range(6)]
    responses = [y for it in chosen for y in (*it.chosen, *it.rejected)]
    with timer() as t:
        lps = scorer.token_logprobs(prompts, responses)
    measured: dict[str, Any] = {"items": len(chosen), "sequences": len(lps), "logprob_s": t["s"],
                                "domains": MATH_NOTE,
                                "mean_response_tokens": float(np.mean([len(a) for a in lps]))}
    levels = {}
    for kind in ("avg", "sum"):
        flat = implicit_reward(lps, None, kind).reshape(-1, 2, 3)
        res = evaluate_scores(chosen, flat[:, 0], flat[:, 1])
        levels[kind] = _levels(res)
        for k, v in levels[kind].items():
            measured[f"{kind}_{k}"] = v
        for d, r in res["domains"].items():
            measured[f"{kind}_{d}_avg"] = r["avg"]
        if kind == "avg":
            c = item_contributions(chosen, flat[:, 0], flat[:, 1])
            _with_se(measured, "avg_easy_minus_normal", c["easy"] - c["normal"])
            _with_se(measured, "avg_normal_minus_hard", c["normal"] - c["hard"])
            _with_se(measured, "avg_hard", c["hard"])
    for g in ("chat", "code", "safety"):
        measured[f"ids_{g}"] = ",".join(it.id for it in chosen if it.group == g)
    a, s = levels["avg"], levels["sum"]
    fig = difficulty_bars({"SmolLM2 avg": a, "SmolLM2 sum": s}, ctx.out_dir / "smollm2_bars.png").name
    summary = (f"SmolLM2 ref-free avg E/N/H {a['easy']:.1f}/{a['normal']:.1f}/{a['hard']:.1f} (Hard ± "
               f"{1.96 * measured['avg_hard_se']:.1f}), sum "
               f"{s['easy']:.1f}/{s['normal']:.1f}/{s['hard']:.1f} "
               f"on {len(chosen)} items; paper best RM {PAPER_BEST['easy']}/{PAPER_BEST['normal']}/"
               f"{PAPER_BEST['hard']}; {MATH_NOTE}")
    return Finding.measure("style_bias_real_lm", measured, summary, [fig])


def run(profile: str, ctx: RunContext) -> list[Finding]:
    folder = shared_data(DATA)
    if folder is None:
        reason = f"needs the RM-Bench data folder shared/data/{DATA}, which is absent"
        return [Finding.not_testable(c.key, reason) for c in CLAIMS]
    items = subsample(load_rmbench(folder, ["chat", "code", "safety"]), ctx.pick(12, None, None))
    seeds = [ctx.seed + k for k in range(3)]
    scorers = {"length": Length(), "markdown": Markdown(), "random (seed 0)": Random(0)}
    scored = {name: _scored(sc, items) for name, sc in scorers.items()}
    results = {name: r for name, (r, _) in scored.items()}
    parts = {name.split(" ")[0]: c for name, (_, c) in scored.items()}
    if profile == "full":
        results["minilm relevance"] = _scored(MiniLMRelevance(128, mapper=ctx.map), items)[0]
    findings = [_style_probe(items, ctx, dict(results), parts)]
    extra: dict[str, Any] = {}
    features = ["tfidf", "minilm"] if profile == "full" else ["tfidf"]
    findings.append(_subtle(items, ctx, features, seeds, extra))
    heatmaps({**results, **extra}, ctx.out_dir / "all_scorers_heatmaps.png")
    findings[-1].figures.append("all_scorers_heatmaps.png")
    if profile == "full":
        findings.append(_real_lm(items, ctx))
    else:
        findings.append(Finding.deferred(
            "style_bias_real_lm", f"SmolLM2 scores {6 * 3 * LM_IDS_PER_DOMAIN} sequences (~8 min): full "
                                  f"profile only; this profile scored {len(items)} items with heuristics "
                                  "and TF-IDF"))
    findings += [
        Finding.not_testable("leaderboard", "no reward-model weights (8B–340B) ship on PyPI and nothing is "
                                            f"downloaded at run time; {MATH_NOTE}"),
        Finding.not_testable("dpo_vs_classifier", "needs the tulu-2.5 13B DPO, reference and classifier "
                                                  "models (hub weights, GPU)"),
        Finding.not_testable("policy_correlation", "needs PPO training of 8B policies against each reward "
                                                   "model (GPU-days)"),
    ]
    return findings
