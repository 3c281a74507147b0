"""Reproduction of Hive (ICLR 2025) at CPU scale: the mechanism claims (constraint adherence, complex
chains, explainable plans, execution) and task selection against HuggingGPT and ControlLLM on the same
small backends. The paper's accuracy numbers need a GPT-class LLM and GPU models (spec §4); MuSE is read
in place from the shared data folder (no license)."""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from functools import cache

import numpy as np

from iclr25.core.claims import Claim, Finding, Verdict, all_of, at_least, at_most, graded
from iclr25.core.runtime import RunContext, child_seeds, progress
from iclr25.core.stats import mean_ci, proportion_ci
from iclr25.hive.muse import data_root, load_domains, load_queries

CLAIMS = [
    Claim(
        key="constraint_adherence",
        statement="Hive's model selection obeys the user's license and size constraints and picks the best "
        "feasible model by the preferred benchmark; prompt-driven baselines do not.",
        paper="full user-constraint adherence (the report's model-selection section; no rate given)",
        setup="C-KG excerpt + 500 generated models, 1,000 seeded preference sets, 3 seeds: Hive "
        "violations 0, pick = brute-force best feasible 100 %, every infeasible set reported "
        "naming a constraint; HuggingGPT's and ControlLLM's violation rates > 0",
    ),
    Claim(
        key="plans_complex_chains",
        statement="PDDL planning plus the chaining step turns a multi-task request into a correct flow of "
        "models (FoT) for 2- and 3-task chains.",
        paper="Hive best on FoT over MuSE (Table 2; exact cells not retrievable)",
        setup="75 multi-task MuSE queries, gold task sets -> paper-style problem -> plan -> chaining "
        "(outputs -> inputs by modality): REPRODUCED when the chained flow equals our gold DAG on "
        "100 % for every planner (quick: pyperplan; full: + LAPKT 1-BFWS, Fast Downward), "
        "NOT_REPRODUCED otherwise (the issue's rule). The raw planner order's FoT is reported beside it",
    ),
    Claim(
        key="explainable_plans",
        statement="Every step is a symbolic artefact: the plan is valid and the report alone reproduces it.",
        paper="explainability report with 7 sections (Report.pdf); plans from LAPKT 1-BFWS",
        setup="all 100 MuSE gold task sets: every plan passes unified-planning's sequential validator "
        "and ours, and the PDDL parsed back from its Markdown report re-plans to the identical "
        "plan: REPRODUCED iff 100 % (quick: pyperplan; full: all three planners)",
    ),
    Claim(
        key="task_selection_sota",
        statement="Hive selects the right set of tasks more often than HuggingGPT and ControlLLM.",
        paper="Hive SOTA on MuSE task selection (TS) vs HuggingGPT and ControlLLM (GPT-class LLM; Table 2)",
        setup="all 100 queries, TS = exact task set, margins 2-fold cross-fitted alike for all routes, "
        "3 random splits: per backend REPRODUCED when Hive's mean TS >= both baselines', PARTIAL "
        "when within 5 points of the better one, NOT_REPRODUCED otherwise; backends combined with "
        "all_of (quick: MiniLM; full: + SmolLM2-135M)",
    ),
    Claim(
        key="executes_plans",
        statement="Hive executes the chained plan and returns an artefact of the requested modality.",
        paper="self-executed instructions; trace: 6.89 s execution for a 2-task query",
        setup="each MuSE query whose media exist and whose gold tasks can yield its labelled output "
        "modality (exclusions listed), run end to end on its gold task set with the local "
        "executors (quick: audio cut to 5 s): the final artefact has the asked modality in "
        "100 % (REPRODUCED), else NOT_REPRODUCED",
    ),
    Claim(
        key="output_quality",
        statement="The final outputs are correct (metric O).",
        paper="O per modality setting (Table 2)",
        setup="not testable: MuSE ships no gold outputs and the selected generators need a GPU",
    ),
]

PAPER_TRACE_S = {"domain_classification": 1.22, "problem_and_plan": 0.91, "execution": 6.89}


def _absent(key: str) -> Finding:
    return Finding.not_testable(
        key,
        "needs ../shared/data/07-hive (MuSE and the PDDL domains; no license, never packaged), absent here",
    )


# ---- constraint_adherence ------------------------------------------------------------------------


def decide_constraints(
    hive_violations: int, best_rate: float, infeasible_unreported: int, baseline_rates: list[float]
) -> Verdict:
    return all_of(
        at_most(hive_violations, 0),
        at_least(best_rate, 1.0),
        at_most(infeasible_unreported, 0),
        *(at_least(r, 1e-12) for r in baseline_rates),
    )


def constraint_adherence(ctx: RunContext) -> Finding:
    from iclr25.hive.registry import Infeasible, Registry, violations
    from iclr25.hive.synthetic import (
        brute_force,
        controlllm_select,
        hugginggpt_select,
        random_preferences,
        synthetic_models,
    )

    n_models, n_prefs = ctx.pick(smoke=60, quick=500, full=500), ctx.pick(smoke=60, quick=1000, full=1000)
    root = data_root()
    kg = Registry.from_kg_files(root / "C-KG_excerpt" / "src").models if root else []
    totals: Counter = Counter()
    rates = defaultdict(list)
    for seed in child_seeds(ctx.seed, 3):
        rng = np.random.default_rng(seed)
        reg = Registry(kg + synthetic_models(n_models, rng))
        base_bad: Counter = Counter()
        for _ in range(n_prefs):
            task, prefs = random_preferences(rng, reg)
            ref = brute_force(reg, task, prefs)
            try:
                pick = reg.select(task, prefs).model
            except Infeasible as e:
                pick, reported = None, bool(e.constraint)
                totals["infeasible"] += 1
                totals["infeasible_unreported"] += int(ref is not None or not reported)
            if pick is not None:
                totals["hive_violations"] += int(bool(violations(pick, prefs)))
                totals["hive_best"] += int(ref is not None and pick.id == ref.id)
                totals["feasible"] += 1
            for name, sel in (("hugginggpt", hugginggpt_select), ("controlllm", controlllm_select)):
                m = sel(reg, task, prefs)
                base_bad[name] += int(m is not None and bool(violations(m, prefs)))
        for name in ("hugginggpt", "controlllm"):
            rates[name].append(base_bad[name] / n_prefs)
    best_rate = totals["hive_best"] / max(totals["feasible"], 1)
    hg, cl = mean_ci(rates["hugginggpt"]), mean_ci(rates["controlllm"])
    verdict = decide_constraints(
        totals["hive_violations"], best_rate, totals["infeasible_unreported"], [hg.mean, cl.mean]
    )
    fig = _bar(
        ctx,
        "violations.png",
        "constraint violations (share of preference sets)",
        {
            "Hive": 0.0 if not totals["feasible"] else totals["hive_violations"] / (3 * n_prefs),
            "HuggingGPT": hg.mean,
            "ControlLLM": cl.mean,
        },
    )
    measured = {
        "preference_sets": 3 * n_prefs,
        "registry_models": len(kg) + n_models,
        "ckg_models": len(kg),
        "hive_violations": totals["hive_violations"],
        "hive_best_feasible_rate": best_rate,
        "infeasible_sets": totals["infeasible"],
        "infeasible_unreported": totals["infeasible_unreported"],
        **hg.to_measured("hugginggpt_violation_rate"),
        **cl.to_measured("controlllm_violation_rate"),
    }
    return Finding(
        "constraint_adherence",
        verdict,
        measured,
        f"Hive: {totals['hive_violations']} violations, best feasible {best_rate:.0%}, "
        f"{totals['infeasible']} infeasible sets all reported; HuggingGPT violates {hg.mean:.1%}, "
        f"ControlLLM {cl.mean:.1%} of {3 * n_prefs} sets",
        [fig],
    )


# ---- plans_complex_chains and explainable_plans --------------------------------------------------


def decide_chains(chained: dict[str, float]) -> Verdict:
    """REPRODUCED iff every planner's chained flow equals the gold DAG on every query (FoT = 100 %)."""
    return Verdict.REPRODUCED if all(v >= 1.0 for v in chained.values()) else Verdict.NOT_REPRODUCED


@cache
def _muse() -> tuple[list, dict]:
    return load_queries(), load_domains()


def _gold_problem(q, domains):
    from iclr25.hive.pddl import merge_domains
    from iclr25.hive.tasks import domains_of, problem_for
    dom = merge_domains([domains[d] for d in domains_of(q.actions, domains)])
    return dom, problem_for(dom, q.actions, f"muse-{q.idx}")


def _plan_one(item: tuple[str, int]):
    """(planner, MuSE idx) -> the plan of that query's gold task set (a worker of ctx.map)."""
    from iclr25.hive.planners import plan
    planner, idx = item
    queries, domains = _muse()
    return plan(*_gold_problem(queries[idx], domains), planner)


def plan_gold(ctx: RunContext, queries, domains, planner: str):
    """Per query: (merged domain, problem, plan) for its gold task set."""
    plans = ctx.map(_plan_one, [(planner, q.idx) for q in queries], f"planning ({planner})")
    return [(*_gold_problem(q, domains), p) for q, p in zip(queries, plans, strict=True)]


def chains(ctx: RunContext, queries, plans: dict) -> Finding:
    from iclr25.hive.chaining import chain, fot_flow, fot_order, mention_order

    multi = [i for i, q in enumerate(queries) if len(q.tasks) > 1]
    chained, raw, failures = {}, {}, {}
    for planner, results in plans.items():
        ok_c = ok_r = 0
        bad = []
        for i in multi:
            q, p = queries[i], results[i][2]
            flow = chain(
                p.actions,
                output=q.output_type,
                inputs=q.input_type,
                order_hint=mention_order(q.text, p.actions),
            )
            ok_c += fot_flow(flow, q.gold_flow)
            ok_r += fot_order(p.actions, q.gold_flow)
            if not fot_flow(flow, q.gold_flow):
                bad.append(q.idx)
        chained[planner], raw[planner] = ok_c / len(multi), ok_r / len(multi)
        failures[planner] = bad
    by_k = {}
    first = next(iter(plans))
    for k in (2, 3):
        idx = [i for i in multi if len(queries[i].tasks) == k]
        by_k[k] = sum(
            fot_flow(
                chain(
                    plans[first][i][2].actions,
                    output=queries[i].output_type,
                    inputs=queries[i].input_type,
                    order_hint=mention_order(queries[i].text, plans[first][i][2].actions),
                ),
                queries[i].gold_flow,
            )
            for i in idx
        ) / max(len(idx), 1)
    verdict = decide_chains(chained)
    figs = [_fot_figure(ctx, chained, raw), _dag_figure(ctx, queries, plans[first])]
    measured = {
        "multi_task_queries": len(multi),
        **{f"fot_chained_{p}": v for p, v in chained.items()},
        **{f"fot_raw_order_{p}": v for p, v in raw.items()},
        f"fot_chained_2_task_{first}": by_k[2],
        f"fot_chained_3_task_{first}": by_k[3],
        "failed_idx": " ".join(map(str, failures[first])),
        **proportion_ci(round(chained[first] * len(multi)), len(multi)).to_measured(f"fot_ci_{first}"),
    }
    summary = "; ".join(f"{p}: chained FoT {chained[p]:.0%} (raw order {raw[p]:.0%})" for p in chained)
    return Finding(
        "plans_complex_chains",
        verdict,
        measured,
        f"{summary} on {len(multi)} multi-task queries; misses: idx {measured['failed_idx'] or 'none'}",
        figs,
    )


def _check_report(item: tuple[str, str, tuple]) -> tuple[bool, bool, bool]:
    """(planner, report Markdown, plan steps) -> (unified-planning valid, ours valid, re-plans identically)
    with the domain and problem parsed back from the report alone (a worker of ctx.map)."""
    from iclr25.hive.pddl import parse_domain, parse_problem
    from iclr25.hive.planners import Plan, plan, up_validate, validate
    from iclr25.hive.report import pddl_from_markdown
    planner, md, steps = item
    d_txt, p_txt = pddl_from_markdown(md)
    dom, prob = parse_domain(d_txt, "report"), parse_problem(p_txt, "report")
    p = Plan(steps, planner)
    return up_validate(dom, prob, p), validate(dom, prob, p), plan(dom, prob, planner).steps == steps


def explainable(ctx: RunContext, queries, plans: dict) -> Finding:
    from iclr25.hive.chaining import chain, mention_order
    from iclr25.hive.report import Report
    items = []
    for planner, results in plans.items():
        for q, (dom, prob, p) in zip(queries, results, strict=True):
            flow = chain(p.actions, output=q.output_type, inputs=q.input_type,
                         order_hint=mention_order(q.text, p.actions))
            rep = Report(q.text, {"instruction": q.text}, list(q.domains), dom.to_pddl(), prob.to_pddl(),
                         planner, p.raw, [" ".join((a, *x)) for a, x in p.steps], sorted(flow.edges), {},
                         [], [], [])
            items.append((planner, rep.to_markdown(), p.steps))
    checks = ctx.map(_check_report, items, "re-planning from reports")
    n = len(checks)
    ok_up, ok_ours, ok_replan = (sum(c[k] for c in checks) for k in range(3))
    rate = min(ok_up, ok_ours, ok_replan) / n
    return Finding("explainable_plans", at_least(rate, 1.0),
                   {"plans": n, "planners": len(plans), "up_valid": ok_up, "our_valid": ok_ours,
                    "replanned_identically": ok_replan, "pass_rate": rate},
                   f"{ok_up}/{n} plans valid for unified-planning ({ok_ours} for ours), {ok_replan}/{n} "
                   f"re-planned identically from their reports ({', '.join(plans)})")


# ---- task_selection_sota -------------------------------------------------------------------------


def decide_ts(hive: float, baselines: list[float]) -> Verdict:
    """REPRODUCED when Hive >= every baseline, PARTIAL within 5 points of the best one."""
    return graded(hive - max(baselines), 0.0, -0.05)


@cache
def _backend(name: str):
    from iclr25.hive.backends import make_backend
    return make_backend(name)


def _score_chunk(item: tuple[str, list[int]]) -> list:
    """(backend name, MuSE idx list) -> their Scores (a ctx.map worker; the model loads once per worker)."""
    from iclr25.hive.routes import score_query
    name, idx = item
    queries, domains = _muse()
    by = {q.idx: q for q in queries}
    return [score_query(_backend(name), by[i].text, domains) for i in progress(idx, f"scoring ({name})")]


def task_selection(ctx: RunContext, queries, domains) -> Finding:
    from iclr25.hive.evaluation import cross_fitted, ts_hit
    from iclr25.hive.routes import ROUTES

    qs = queries
    backends = [_backend(n) for n in ctx.pick(smoke=["minilm"], quick=["minilm"], full=["minilm", "smollm2"])]
    measured: dict = {"queries": len(qs)}
    verdicts, parts, table = [], [], {}
    for b in backends:
        t0 = time.perf_counter()
        chunks = [[q.idx for q in qs[i::2]] for i in range(2)]
        parts_ = ctx.map(_score_chunk, [(b.name, c) for c in chunks], f"scoring ({b.name})")
        by_idx = {i: s for c, ss in zip(chunks, parts_, strict=True) for i, s in zip(c, ss, strict=True)}
        scores = [by_idx[q.idx] for q in qs]
        measured[f"wall_s_scoring_{b.name}"] = time.perf_counter() - t0
        per_split = defaultdict(list)
        hits_all = defaultdict(list)
        for seed in child_seeds(ctx.seed, 3):
            preds = cross_fitted(scores, qs, domains, seed)
            for r in ROUTES:
                hits = [ts_hit(p, q) for p, q in zip(preds[r], qs, strict=True)]
                per_split[r].append(float(np.mean(hits)))
                hits_all[r].append(hits)
        for r in ROUTES:
            measured.update(mean_ci(per_split[r]).to_measured(f"ts_{r}_{b.name}"))
            for k in (1, 2, 3):
                idx = [i for i, q in enumerate(qs) if len(q.tasks) == k]
                if idx:
                    measured[f"ts_{r}_{b.name}_{k}task"] = float(
                        np.mean([h[i] for h in hits_all[r] for i in idx])
                    )
            for setting in sorted({q.setting for q in qs}):
                idx = [i for i, q in enumerate(qs) if q.setting == setting]
                measured[f"ts_{r}_{b.name}_{setting}"] = float(
                    np.mean([h[i] for h in hits_all[r] for i in idx])
                )
        table[b.name] = {r: float(np.mean(per_split[r])) for r in ROUTES}
        v = decide_ts(table[b.name]["hive"], [table[b.name]["hugginggpt"], table[b.name]["controlllm"]])
        measured[f"hive_minus_best_baseline_{b.name}"] = table[b.name]["hive"] - max(
            table[b.name]["hugginggpt"], table[b.name]["controlllm"]
        )
        verdicts.append(v)
        parts.append(
            f"{b.name}: Hive {table[b.name]['hive']:.1%}, HuggingGPT {table[b.name]['hugginggpt']:.1%}, "
            f"ControlLLM {table[b.name]['controlllm']:.1%}"
        )
    fig = _ts_figure(ctx, table)
    return Finding(
        "task_selection_sota",
        all_of(*verdicts),
        measured,
        "TS (exact task set, cross-fitted, 3 splits) " + "; ".join(parts),
        [fig],
    )


# ---- executes_plans ------------------------------------------------------------------------------


def decide_execution(ok: int, n: int) -> Verdict:
    return at_least(ok / n if n else float("nan"), 1.0)


def executes(ctx: RunContext, queries, domains) -> Finding:
    from iclr25.core.errors import UserError
    from iclr25.hive.backends import MiniLM
    from iclr25.hive.executors import local_cards
    from iclr25.hive.hive import Hive, HiveConfig
    from iclr25.hive.muse import media_in
    from iclr25.hive.registry import Registry
    from iclr25.hive.tasks import ACTION_IO

    root = data_root()
    base = root / "MuSE_Benchmark"
    registry = Registry(Registry.from_kg_files(root / "C-KG_excerpt" / "src").models + local_cards())
    hive = Hive(
        MiniLM(),
        registry,
        domains,
        config=HiveConfig(planner="pyperplan", max_seconds=ctx.pick(smoke=2.0, quick=5.0, full=60.0)),
    )
    qs = queries if ctx.profile != "smoke" else [q for q in queries if q.idx in (1, 25)]
    ok, n, missing, mislabelled, wrong = 0, 0, [], [], []
    exec_s, plan_s = [], []
    for q in progress(qs, "executing"):
        try:
            media_in(q.text, base)
        except UserError:
            missing.append(q.idx)
            continue
        if q.output_type not in {ACTION_IO[a][1] for a in q.actions}:
            mislabelled.append(q.idx)
            continue
        res = hive.run(
            q.text, base_dir=base, out_dir=ctx.out_dir / "artefacts" / f"q{q.idx}", actions=q.actions
        )
        n += 1
        hit = res.final.modality == q.output_type
        ok += hit
        if not hit:
            wrong.append(q.idx)
        exec_s.append(res.timings["execution_s"])
        plan_s.append(res.timings["problem_and_plan_s"])
    verdict = decide_execution(ok, n)
    measured = {
        "queries_run": n,
        "right_modality": ok,
        "missing_media_idx": " ".join(map(str, missing)),
        "label_inconsistent_idx": " ".join(map(str, mislabelled)),
        "wrong_idx": " ".join(map(str, wrong)),
        "execution_s_median": float(np.median(exec_s)) if exec_s else 0.0,
        "problem_and_plan_s_median": float(np.median(plan_s)) if plan_s else 0.0,
    }
    return Finding(
        "executes_plans",
        verdict,
        measured,
        f"{ok}/{n} queries ended in an artefact of the asked modality; excluded: missing media "
        f"{missing}, label cannot match the tasks {mislabelled}",
    )


# ---- run -------------------------------------------------------------------------------------------


def run(profile: str, ctx: RunContext) -> list[Finding]:
    findings = [constraint_adherence(ctx)]
    if data_root() is None:
        return (
            findings
            + [_absent(c.key) for c in CLAIMS[1:5]]
            + [Finding.not_testable("output_quality", CLAIMS[5].criterion)]
        )
    queries, domains = load_queries(), load_domains()
    if profile == "smoke":
        queries = [q for q in queries if q.idx in (1, 25, 40, 85, 86)]
    planners = ctx.pick(
        smoke=["pyperplan"], quick=["pyperplan"], full=["pyperplan", "lapkt-bfws", "fast-downward"]
    )
    plans = {p: plan_gold(ctx, queries, domains, p) for p in planners}
    findings.append(chains(ctx, queries, plans))
    findings.append(explainable(ctx, queries, plans))
    findings.append(task_selection(ctx, load_queries() if profile != "smoke" else queries, domains))
    findings.append(executes(ctx, load_queries() if profile != "smoke" else queries, domains))
    findings.append(
        Finding.not_testable(
            "output_quality",
            "MuSE ships no gold outputs (metric O has no automatic "
            "scorer) and the selected generators need a GPU",
        )
    )
    return findings


# ---- figures -------------------------------------------------------------------------------------


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _bar(ctx: RunContext, name: str, title: str, values: dict[str, float]) -> str:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.bar(list(values), list(values.values()), color=["#2a7", "#c84", "#48c"][: len(values)])
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(ctx.out_dir / name, dpi=110)
    plt.close(fig)
    return name


def _fot_figure(ctx: RunContext, chained: dict[str, float], raw: dict[str, float]) -> str:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.5, 3))
    x = np.arange(len(chained))
    ax.bar(x - 0.2, [raw[p] for p in chained], 0.4, label="raw planner order", color="#c84")
    ax.bar(x + 0.2, list(chained.values()), 0.4, label="after chaining", color="#2a7")
    ax.set_xticks(x, list(chained))
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("FoT (multi-task queries)")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(ctx.out_dir / "fot.png", dpi=110)
    plt.close(fig)
    return "fot.png"


def _dag_figure(ctx: RunContext, queries, results) -> str:
    """The plan of the longest chain: raw planner order above, the chained data flow below."""
    from iclr25.hive.chaining import chain, mention_order

    i = max(range(len(queries)), key=lambda j: (len(queries[j].tasks), -queries[j].idx))
    q, p = queries[i], results[i][2]
    flow = chain(
        p.actions, output=q.output_type, inputs=q.input_type, order_hint=mention_order(q.text, p.actions)
    )
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 3))
    ax.axis("off")
    for row, (label, order) in enumerate((("planner order", p.actions), ("chained flow", list(flow.order)))):
        y = 1 - row
        ax.text(-0.4, y, label, ha="right", va="center", fontsize=9)
        for k, a in enumerate(order):
            ax.text(
                k * 1.6,
                y,
                a.replace("_", "\n"),
                ha="center",
                va="center",
                fontsize=7,
                bbox={"boxstyle": "round", "fc": "#eef", "ec": "#446"},
            )
        if row == 1:
            pos = {a: k * 1.6 for k, a in enumerate(order)}
            for a, b in flow.edges:
                ax.annotate("", (pos[b] - 0.45, y), (pos[a] + 0.45, y), arrowprops={"arrowstyle": "->"})
    ax.set_xlim(-2.5, 1.6 * max(len(p.actions), 1))
    ax.set_ylim(-0.6, 1.6)
    ax.set_title(f"MuSE idx {q.idx}: {q.text[:70]}...", fontsize=8)
    fig.savefig(ctx.out_dir / "plan_dag.png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return "plan_dag.png"


def _ts_figure(ctx: RunContext, table: dict[str, dict[str, float]]) -> str:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.5, 3))
    routes = ["hive", "hugginggpt", "controlllm"]
    x = np.arange(len(routes))
    w = 0.8 / max(len(table), 1)
    for k, (b, row) in enumerate(table.items()):
        ax.bar(x + k * w - 0.4 + w / 2, [row[r] for r in routes], w, label=b)
    ax.set_xticks(x, ["Hive", "HuggingGPT", "ControlLLM"])
    ax.set_ylabel("TS (exact task set)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(ctx.out_dir / "task_selection.png", dpi=110)
    plt.close(fig)
    return "task_selection.png"
