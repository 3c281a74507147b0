"""Reproduction of RM-Bench (ICLR 2025) on the three shipped domains: chat (129), code (228) and safety
(441, pooled). The math file is not shipped (> 4 MiB), so every finding covers 3 of 4 domains.

Criteria are the issue's (#23), fixed before measuring. Profiles change sizes only: smoke uses a few
items per file; quick scores every item with the heuristics and the TF-IDF reward model; full adds the
MiniLM reward model and SmolLM2's implicit reward."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from iclr25.core.claims import Claim, Finding, Verdict, all_of
from iclr25.core.data import shared_data
from iclr25.core.runtime import RunContext, timer
from iclr25.core.stats import mean_ci
from iclr25.rm_bench.bt import BTRewardModel
from iclr25.rm_bench.data import Item, load_rmbench
from iclr25.rm_bench.metric import evaluate, evaluate_scores
from iclr25.rm_bench.plots import PAPER_BEST, difficulty_bars, heatmaps
from iclr25.rm_bench.scorers import Length, Markdown, MiniLMRelevance, Random

DATA = "03-rm-bench"
MATH_NOTE = "3 of 4 domains (chat, code, safety); math_filtered.json is not shipped"

CLAIMS = [
    Claim(key="style_probe",
          statement="Reward models prefer style over substance: accuracy falls from Easy (chosen answer more "
                    "formatted) to Normal (same style) to Hard (chosen answer plainer); a pure style scorer "
                    "shows the pattern in its extreme form.",
          paper="Easy ≫ Normal ≫ Hard for nearly every one of ~40 RMs; the best RM has Hard 46.6 < 50 "
                "(random)",
          criterion="all items of chat, code, safety (3-domain mean): length scorer Easy − Hard ≥ 60 "
                    "points and Hard < 50; markdown-count scorer Easy > Normal > Hard; random scorer "
                    "(seed 0) within 50 ± 4 at each level. REPRODUCED when all three hold; PARTIAL when "
                    "some do"),
    Claim(key="subtle_content_hard",
          statement="Subtle content errors are hard to detect: RMs are near chance on code, while safety "
                    "(refusal vs compliance) is easy.",
          paper="best RM: Chat 69.5, Code 54.5, Safety 95.7; code and math near chance for nearly all RMs",
          criterion="for each Bradley–Terry reward model trained here on same-style pairs (5-fold CV by "
                    "prompt, 3 fold seeds, decided on the seed mean): Normal(safety) ≥ Normal(chat) + 10 "
                    "and ≥ Normal(code) + 10, with Normal(code) in 50 ± 10. Quick: TF-IDF features; full: "
                    "TF-IDF and MiniLM, combined with all_of"),
    Claim(key="style_bias_real_lm",
          statement="A preference-tuned language model used as an implicit (reference-free) reward model "
                    "shows the same style bias: Easy > Normal > Hard, with Hard below chance.",
          paper="best RM (Skywork-Reward-Llama-3.1-8B): Easy 89.0, Normal 74.7, Hard 46.6",
          criterion="SmolLM2-135M-Instruct, reference-free mean token log-prob of the response (cut to 256 "
                    "tokens) after the chat-templated prompt, 12 fixed ids per domain (36 items): "
                    "REPRODUCED when Easy > Normal > Hard and Hard < 50 (3-domain mean); PARTIAL when only "
                    "the order holds. The summed log-prob is reported too. Full profile only"),
    Claim(key="leaderboard",
          statement="Across ~40 reward models the best reaches only 70.1 average accuracy on RM-Bench.",
          paper="Skywork-Reward-Llama-3.1-8B Avg 70.1 (Chat 69.5, Math 60.6, Code 54.5, Safety 95.7)",
          criterion="needs the 8B–340B reward models' weights: not testable here; the scoring path "
                    "(HFSequenceClassifierScorer -> evaluate) is tested on a tiny local model"),
    Claim(key="dpo_vs_classifier",
          statement="DPO models used as implicit reward models beat sequence classifiers trained on the same "
                    "preference data, and lose much of that edge without their reference model.",
          paper="tulu-v2.5 13B DPO vs classifier RMs on the same data (Table 4)",
          criterion="needs the tulu-2.5 13B DPO, reference and classifier models: not testable here; the "
                    "implicit reward with and without reference is tested on tiny inputs"),
    Claim(key="policy_correlation",
          statement="RM-Bench accuracy correlates with the downstream performance of policies trained with "
                    "those reward models (PPO).",
          paper="positive correlation between RM-Bench scores and PPO policy scores (8B policies)",
          criterion="needs PPO on 8B policies (GPU-days): not testable here; the correlation of benchmark "
                    "and policy scores is tested on tiny inputs"),
]

LM_IDS_PER_DOMAIN = 12


def _levels(result: dict[str, Any]) -> dict[str, float]:
    return {k: result["overall"][k] for k in ("easy", "normal", "hard", "avg")}


def decide_style_probe(length: dict[str, float], markdown: dict[str, float],
                       random: dict[str, float]) -> tuple[Verdict, dict[str, bool]]:
    """The three style-probe checks on 3-domain means and their combined verdict."""
    checks = {
        "length": length["easy"] - length["hard"] >= 60 and length["hard"] < 50,
        "markdown": markdown["easy"] > markdown["normal"] > markdown["hard"],
        "random": all(abs(random[k] - 50) <= 4 for k in ("easy", "normal", "hard")),
    }
    return all_of(*(Verdict.REPRODUCED if ok else Verdict.NOT_REPRODUCED for ok in checks.values())), checks


def decide_subtle(normal: dict[str, float]) -> Verdict:
    """One reward model: Normal(safety) ≥ Normal(chat) + 10 and ≥ Normal(code) + 10, and Normal(code)
    in 50 ± 10."""
    ok = (normal["safety"] >= normal["chat"] + 10 and normal["safety"] >= normal["code"] + 10
          and abs(normal["code"] - 50) <= 10)
    return Verdict.REPRODUCED if ok else Verdict.NOT_REPRODUCED


def decide_real_lm(levels: dict[str, float]) -> Verdict:
    """REPRODUCED: Easy > Normal > Hard and Hard < 50; PARTIAL: the order only."""
    order = levels["easy"] > levels["normal"] > levels["hard"]
    if order and levels["hard"] < 50:
        return Verdict.REPRODUCED
    return Verdict.PARTIAL if order else Verdict.NOT_REPRODUCED


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

def _style_probe(items: list[Item], ctx: RunContext, results: dict[str, Any]) -> Finding:
    lv = {name: _levels(r) for name, r in results.items()}
    verdict, checks = decide_style_probe(lv["length"], lv["markdown"], lv["random (seed 0)"])
    noise = max(abs(lv["random (seed 0)"][k] - 50) for k in ("easy", "normal", "hard"))
    signal = lv["length"]["easy"] - lv["length"]["hard"]
    measured: dict[str, Any] = {"items": len(items), "domains": MATH_NOTE, "noise_random_max_dev_pts": noise,
                                "signal_length_easy_minus_hard_pts": signal}
    for name, levels in lv.items():
        for k, v in levels.items():
            measured[f"{name.split(' ')[0]}_{k}"] = v
    for k, ok in checks.items():
        measured[f"check_{k}"] = int(ok)
    figs = [heatmaps(results, ctx.out_dir / "style_heatmaps.png").name,
            difficulty_bars({n: lv[n] for n in lv}, ctx.out_dir / "style_bars.png").name]
    L, M, R = lv["length"], lv["markdown"], lv["random (seed 0)"]  # noqa: N806
    summary = (f"length E/N/H {L['easy']:.1f}/{L['normal']:.1f}/{L['hard']:.1f} (E−H {signal:.1f}); "
               f"markdown {M['easy']:.1f}/{M['normal']:.1f}/{M['hard']:.1f}; random "
               f"{R['easy']:.1f}/{R['normal']:.1f}/{R['hard']:.1f}; paper best RM 89.0/74.7/46.6; "
               f"{MATH_NOTE}")
    return Finding("style_probe", verdict, measured, summary, figs)


def _bt_runs(items: list[Item], features: str, seeds: list[int], ctx: RunContext) -> dict[str, Any]:
    """Normal per domain and E/N/H for BT-diagonal over fold seeds, and BT-all (style-augmented)."""
    runs = {"diagonal": [], "all": []}
    for pairs in runs:
        for s in seeds:
            runs[pairs].append(evaluate(BTRewardModel(features, pairs, seed=s, mapper=ctx.map), items))
    return runs


def _subtle(items: list[Item], ctx: RunContext, features: list[str], seeds: list[int],
            results: dict[str, Any]) -> Finding:
    verdicts, measured, parts = [], {"items": len(items), "fold_seeds": len(seeds), "domains": MATH_NOTE}, []
    for feat in features:
        with timer() as t:
            runs = _bt_runs(items, feat, seeds, ctx)
        diag = runs["diagonal"]
        normal = {d: float(np.mean([r["domains"][d]["normal"] for r in diag]))
                  for d in ("chat", "code", "safety")}
        v = decide_subtle(normal)
        verdicts.append(v)
        for d in normal:
            iv = mean_ci([r["domains"][d]["normal"] for r in diag])
            measured |= iv.to_measured(f"{feat}_normal_{d}")
        gap = normal["safety"] - max(normal["chat"], normal["code"])
        spread = max(np.ptp([r["domains"][d]["normal"] for r in diag]) for d in normal)
        measured |= {f"{feat}_signal_safety_gap_pts": gap, f"{feat}_noise_seed_range_pts": float(spread),
                     f"{feat}_fit_s": t["s"], f"{feat}_verdict": str(v)}
        for pairs, rs in runs.items():
            lv = {k: float(np.mean([r["overall"][k] for r in rs])) for k in ("easy", "normal", "hard", "avg")}
            for k, x in lv.items():
                measured[f"{feat}_{pairs}_{k}"] = x
            results[f"bt-{feat}-{pairs}"] = rs[0]
        narrowing = (measured[f"{feat}_diagonal_easy"] - measured[f"{feat}_diagonal_hard"]) - \
                    (measured[f"{feat}_all_easy"] - measured[f"{feat}_all_hard"])
        measured[f"{feat}_all_pairs_narrows_easy_minus_hard_pts"] = narrowing
        parts.append(f"{feat}: Normal chat {normal['chat']:.1f}, code {normal['code']:.1f}, "
                     f"safety {normal['safety']:.1f}")
    summary = "; ".join(parts) + (f" (seed means); paper best RM Chat 69.5, Code 54.5, Safety 95.7; "
                                  f"{MATH_NOTE}")
    return Finding("subtle_content_hard", all_of(*verdicts), measured, summary)


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
    for g in ("chat", "code", "safety"):
        measured[f"ids_{g}"] = ",".join(it.id for it in chosen if it.group == g)
    verdict = decide_real_lm(levels["avg"])
    a, s = levels["avg"], levels["sum"]
    fig = difficulty_bars({"SmolLM2 avg": a, "SmolLM2 sum": s}, ctx.out_dir / "smollm2_bars.png").name
    summary = (f"SmolLM2 ref-free avg E/N/H {a['easy']:.1f}/{a['normal']:.1f}/{a['hard']:.1f}, sum "
               f"{s['easy']:.1f}/{s['normal']:.1f}/{s['hard']:.1f} on {len(chosen)} items; paper best RM "
               f"{PAPER_BEST['easy']}/{PAPER_BEST['normal']}/{PAPER_BEST['hard']}; {MATH_NOTE}")
    return Finding("style_bias_real_lm", verdict, measured, summary, [fig])


def run(profile: str, ctx: RunContext) -> list[Finding]:
    folder = shared_data(DATA)
    if folder is None:
        reason = f"needs the RM-Bench data folder shared/data/{DATA}, which is absent"
        return [Finding.not_testable(c.key, reason) for c in CLAIMS]
    items = subsample(load_rmbench(folder, ["chat", "code", "safety"]), ctx.pick(12, None, None))
    seeds = [ctx.seed + k for k in range(3)]
    results: dict[str, Any] = {"length": evaluate(Length(), items), "markdown": evaluate(Markdown(), items),
                               "random (seed 0)": evaluate(Random(0), items)}
    if profile == "full":
        results["minilm relevance"] = evaluate(MiniLMRelevance(128, mapper=ctx.map), items)
    findings = [_style_probe(items, ctx, dict(results))]
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
