"""Reproduction of Hive (ICLR 2025) at CPU scale: the mechanism claims (constraint adherence, explainable
plans, execution) and task selection (TS) and flow of thought (FoT) against HuggingGPT and ControlLLM on
the same small backends, the same decomposition of requests and the same chaining step. The paper's
accuracy numbers need a GPT-class LLM and GPU models (spec §4); MuSE is read in place from the shared
data folder (no license). The rules are in claims.py; this module only measures."""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from functools import cache

import numpy as np

from iclr25.core.claims import Finding
from iclr25.core.runtime import RunContext, child_seeds, progress
from iclr25.core.stats import mean_ci
from iclr25.hive.claims import CLAIMS
from iclr25.hive.muse import data_root, load_domains, load_queries

__all__ = ["CLAIMS", "run"]

PAPER_TRACE_S = {"domain_classification": 1.22, "problem_and_plan": 0.91, "execution": 6.89}


def _absent(key: str) -> Finding:
    return Finding.not_testable(
        key,
        "needs ../shared/data/07-hive (MuSE and the PDDL domains; no license, never packaged), absent here",
    )


# ---- constraint_adherence ------------------------------------------------------------------------


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
        "hugginggpt_violation_rate": rates["hugginggpt"],  # one rate per seed: the rule's units
        "controlllm_violation_rate": rates["controlllm"],
    }
    return Finding.measure(
        "constraint_adherence",
        measured,
        f"Hive: {totals['hive_violations']} violations, best feasible {best_rate:.0%}, "
        f"{totals['infeasible']} infeasible sets all reported; HuggingGPT violates {hg.mean:.1%}, "
        f"ControlLLM {cl.mean:.1%} of {3 * n_prefs} sets",
        [fig],
    )


# ---- plans_complex_chains and explainable_plans --------------------------------------------------


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
    by = {q.idx: q for q in queries}
    return plan(*_gold_problem(by[idx], domains), planner)


def plan_gold(ctx: RunContext, queries, domains, planner: str):
    """Per query: (merged domain, problem, plan) for its gold task set."""
    plans = ctx.map(_plan_one, [(planner, q.idx) for q in queries], f"planning ({planner})")
    return [(*_gold_problem(q, domains), p) for q, p in zip(queries, plans, strict=True)]


def gold_chaining(queries, plans: dict) -> dict:
    """The chaining step on the gold task sets (oracle parse), per planner: the share of multi-task
    queries whose chained flow equals our gold DAG, beside the raw planner order's. In-sample: the
    chaining rules and the gold DAGs were both written by us from MuSE's queries."""
    from iclr25.hive.chaining import chain, fot_flow, fot_order

    multi = [i for i, q in enumerate(queries) if len(q.tasks) > 1]
    m: dict = {"multi_task_queries": len(multi)}
    for planner, results in plans.items():
        hits, raw, bad = [], [], []
        for i in multi:
            q, p = queries[i], results[i][2]
            ok = fot_flow(chain(p.actions, inputs=q.input_type, query=q.text), q.gold_flow)
            hits.append(ok)
            raw.append(fot_order(p.actions, q.gold_flow))
            if not ok:
                bad.append(q.idx)
        m[f"fot_gold_tasks_{planner}"] = float(np.mean(hits)) if hits else float("nan")
        m[f"fot_raw_order_{planner}"] = float(np.mean(raw)) if raw else float("nan")
        m[f"fot_gold_tasks_missed_{planner}"] = " ".join(map(str, bad))
    return m


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
    from iclr25.hive.chaining import chain
    from iclr25.hive.report import Report
    items = []
    for planner, results in plans.items():
        for q, (dom, prob, p) in zip(queries, results, strict=True):
            flow = chain(p.actions, inputs=q.input_type, query=q.text)
            rep = Report(q.text, {"instruction": q.text}, list(q.domains), dom.to_pddl(), prob.to_pddl(),
                         planner, p.raw, [" ".join((a, *x)) for a, x in p.steps], sorted(flow.edges), {},
                         [], [], [])
            items.append((planner, rep.to_markdown(), p.steps))
    checks = ctx.map(_check_report, items, "re-planning from reports")
    m: dict = {"plans": len(checks), "planners": len(plans)}
    parts = []
    for planner in plans:
        mine = [c for c, it in zip(checks, items, strict=True) if it[0] == planner]
        n = len(mine)
        for k, name in enumerate(("up_valid", "our_valid", "replanned")):
            m[f"{name}_{planner}"] = sum(c[k] for c in mine)
            m[f"{name}_rate_{planner}"] = sum(c[k] for c in mine) / n
        parts.append(f"{planner}: {m[f'up_valid_{planner}']}/{n} valid for unified-planning "
                     f"({m[f'our_valid_{planner}']} for ours), {m[f'replanned_{planner}']}/{n} re-planned "
                     "identically from their reports")
    return Finding.measure("explainable_plans", m, "; ".join(parts))


# ---- task_selection_sota and plans_complex_chains ----------------------------------------------------


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


def routes(ctx: RunContext, queries, domains, gold: dict) -> tuple[Finding, Finding]:
    """TS and FoT of the three routes per backend, paired over queries: each query's hit averaged over
    the 3 random splits of the cross-fitting."""
    from iclr25.hive.evaluation import cross_fitted, fot_hit, ts_hit
    from iclr25.hive.routes import ROUTES

    qs = queries
    multi = [i for i, q in enumerate(qs) if len(q.tasks) > 1]
    names = ctx.pick(smoke=["minilm"], quick=["minilm"], full=["minilm", "smollm2"])
    ts_m: dict = {"queries": len(qs), "splits": 3}
    fot_m: dict = {"multi_task_queries": len(multi), "splits": 3, **gold}
    ts_table, fot_table = {}, {}
    for name in names:
        t0 = time.perf_counter()
        chunks = [[q.idx for q in qs[i::2]] for i in range(2)]
        parts_ = ctx.map(_score_chunk, [(name, c) for c in chunks], f"scoring ({name})")
        by_idx = {i: s for c, ss in zip(chunks, parts_, strict=True) for i, s in zip(c, ss, strict=True)}
        scores = [by_idx[q.idx] for q in qs]
        ts_m[f"wall_s_scoring_{name}"] = time.perf_counter() - t0
        ts_hits = {r: np.zeros(len(qs)) for r in ROUTES}
        fot_hits = {r: np.zeros(len(multi)) for r in ROUTES}
        margins = defaultdict(list)
        for seed in child_seeds(ctx.seed, 3):
            preds, fitted = cross_fitted(scores, qs, domains, seed)
            for r in ROUTES:
                margins[r] += fitted[r]
                ts_hits[r] += [ts_hit(p, q) for p, q in zip(preds[r], qs, strict=True)]
                fot_hits[r] += [fot_hit(r, preds[r][i], qs[i], domains) for i in multi]
        for r in ROUTES:
            ts = ts_hits[r] / 3
            fot = fot_hits[r] / 3
            ts_m[f"ts_{r}_{name}"] = ts.tolist()  # one value per query: the rule's units
            fot_m[f"fot_{r}_{name}"] = fot.tolist()
            ts_m[f"ts_{r}_{name}_mean"] = float(ts.mean())
            fot_m[f"fot_{r}_{name}_mean"] = float(fot.mean())
            ts_m[f"margins_{r}_{name}"] = "; ".join(",".join(f"{x:.3g}" for x in p) for p in margins[r])
            for k in (1, 2, 3):
                idx = [i for i, q in enumerate(qs) if len(q.tasks) == k]
                if idx:
                    ts_m[f"ts_{r}_{name}_{k}task"] = float(ts[idx].mean())
                if k > 1:
                    sub = [j for j, i in enumerate(multi) if len(qs[i].tasks) == k]
                    if sub:
                        fot_m[f"fot_{r}_{name}_{k}task"] = float(fot[sub].mean())
            for setting in sorted({q.setting for q in qs}):
                idx = [i for i, q in enumerate(qs) if q.setting == setting]
                ts_m[f"ts_{r}_{name}_{setting}"] = float(ts[idx].mean())
        ts_table[name] = {r: ts_m[f"ts_{r}_{name}_mean"] for r in ROUTES}
        fot_table[name] = {r: fot_m[f"fot_{r}_{name}_mean"] for r in ROUTES}
    ts_fig = _route_figure(ctx, ts_table, "TS (exact task set)", "task_selection.png")
    fot_fig = _route_figure(ctx, fot_table, "FoT (multi-task queries)", "fot.png")
    p0 = _planners(fot_m)[0]

    def line(table: dict) -> str:
        return "; ".join(f"{b}: Hive {t['hive']:.1%}, HuggingGPT {t['hugginggpt']:.1%}, ControlLLM "
                         f"{t['controlllm']:.1%}" for b, t in table.items())

    ts_f = Finding.measure("task_selection_sota", ts_m,
                           f"TS (exact task set, parts matched, cross-fitted, 3 splits) {line(ts_table)}",
                           [ts_fig])
    fot_f = Finding.measure(
        "plans_complex_chains", fot_m,
        f"FoT on {len(multi)} multi-task queries, the same chaining for every route: {line(fot_table)}; "
        f"with the gold task sets the chaining reaches {fot_m[f'fot_gold_tasks_{p0}']:.0%} ({p0}; in-sample; "
        f"raw planner order {fot_m[f'fot_raw_order_{p0}']:.0%})", [fot_fig, "plan_dag.png"])
    return ts_f, fot_f


def _planners(m: dict) -> list[str]:
    return [k[len("fot_raw_order_"):] for k in m if k.startswith("fot_raw_order_")]


# ---- executes_plans ------------------------------------------------------------------------------


def gold_sink_outputs(q) -> set[str]:
    """The modalities the last steps of a query's gold flow make (its sinks: no gold edge leaves them)."""
    from iclr25.hive.tasks import ACTION_IO
    sinks = [a for a in q.actions if not any(x == a for x, _ in q.gold_flow)]
    return {ACTION_IO[a][1] for a in sinks}


def executes(ctx: RunContext, queries, domains) -> Finding:
    from iclr25.core.errors import UserError
    from iclr25.hive.backends import MiniLM
    from iclr25.hive.executors import local_cards
    from iclr25.hive.hive import Hive, HiveConfig
    from iclr25.hive.muse import media_in
    from iclr25.hive.registry import Registry

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
    hits, missing, mislabelled, wrong = [], [], [], []
    exec_s, plan_s = [], []
    for q in progress(qs, "executing"):
        try:
            media_in(q.text, base)
        except UserError:
            missing.append(q.idx)
            continue
        if q.output_type not in gold_sink_outputs(q):  # data correction: the label is the flow's sink
            mislabelled.append(q.idx)
            continue
        res = hive.run(
            q.text, base_dir=base, out_dir=ctx.out_dir / "artefacts" / f"q{q.idx}", actions=q.actions
        )
        hit = res.final.modality == q.output_type
        hits.append(int(hit))
        if not hit:
            wrong.append(q.idx)
        exec_s.append(res.timings["execution_s"])
        plan_s.append(res.timings["problem_and_plan_s"])
    measured = {
        "queries_run": len(hits),
        "right_modality": hits,  # one 0/1 per query run: the rule's units
        "n_right_modality": sum(hits),
        "missing_media_idx": " ".join(map(str, missing)),
        "label_not_gold_sink_idx": " ".join(map(str, mislabelled)),
        "wrong_idx": " ".join(map(str, wrong)),
        "execution_s_median": float(np.median(exec_s)) if exec_s else 0.0,
        "problem_and_plan_s_median": float(np.median(plan_s)) if plan_s else 0.0,
    }
    return Finding.measure(
        "executes_plans",
        measured,
        f"{sum(hits)}/{len(hits)} queries ended in an artefact of the asked modality; excluded: missing "
        f"media {missing}, label not the gold flow's sink {mislabelled}",
    )


# ---- run -------------------------------------------------------------------------------------------


def run(profile: str, ctx: RunContext) -> list[Finding]:
    findings = [constraint_adherence(ctx)]
    if data_root() is None:
        return findings + [_absent(c.key) for c in CLAIMS[1:5]] + [
            Finding.not_testable("output_quality", CLAIMS[5].not_testable)]
    queries, domains = load_queries(), load_domains()
    if profile == "smoke":
        queries = [q for q in queries if q.idx in (1, 3, 25, 40, 85, 86, 93, 96)]
    planners = ctx.pick(
        smoke=["pyperplan"], quick=["pyperplan"], full=["pyperplan", "lapkt-bfws", "fast-downward"]
    )
    plans = {p: plan_gold(ctx, queries, domains, p) for p in planners}
    gold = gold_chaining(queries, plans)
    _dag_figure(ctx, queries, plans[planners[0]])
    ts_f, fot_f = routes(ctx, queries, domains, gold)
    findings += [fot_f, explainable(ctx, queries, plans), ts_f, executes(ctx, queries, domains),
                 Finding.not_testable("output_quality", CLAIMS[5].not_testable)]
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


def _dag_figure(ctx: RunContext, queries, results) -> str:
    """The plan of the longest chain: raw planner order above, the chained data flow below."""
    from iclr25.hive.chaining import chain

    i = max(range(len(queries)), key=lambda j: (len(queries[j].tasks), -queries[j].idx))
    q, p = queries[i], results[i][2]
    flow = chain(p.actions, inputs=q.input_type, query=q.text)
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
            for a, b in flow.edges:  # arcs: a parallel flow skips over the steps between
                ax.annotate("", (pos[b] - 0.45, y), (pos[a] + 0.45, y),
                            arrowprops={"arrowstyle": "->", "connectionstyle": "arc3,rad=-0.3"})
    ax.set_xlim(-2.5, 1.6 * max(len(p.actions), 1))
    ax.set_ylim(-0.6, 1.6)
    ax.set_title(f"MuSE idx {q.idx}: {q.text[:70]}...", fontsize=8)
    fig.savefig(ctx.out_dir / "plan_dag.png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return "plan_dag.png"


def _route_figure(ctx: RunContext, table: dict[str, dict[str, float]], ylabel: str, name: str) -> str:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.5, 3))
    routes = ["hive", "hugginggpt", "controlllm"]
    x = np.arange(len(routes))
    w = 0.8 / max(len(table), 1)
    for k, (b, row) in enumerate(table.items()):
        ax.bar(x + k * w - 0.4 + w / 2, [row[r] for r in routes], w, label=b)
    ax.set_xticks(x, ["Hive", "HuggingGPT", "ControlLLM"])
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(ctx.out_dir / name, dpi=110)
    plt.close(fig)
    return name
