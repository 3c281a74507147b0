"""MuSE task selection (TS: the predicted task set equals the gold set exactly) and flow of thought (FoT:
the chained data flow of the predicted tasks equals the gold DAG), with the routes' margins 2-fold
cross-fitted alike: each fold's margins maximise TS on the other fold. Every route's tasks go through
the same chaining step (the paper's comparison: only the route differs)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from iclr25.hive.chaining import chain
from iclr25.hive.muse import Query
from iclr25.hive.pddl import Domain
from iclr25.hive.routes import (
    ROUTES,
    Scores,
    _domain_actions,
    controlllm_actions,
    hive_select,
    hugginggpt_select,
)

GRID_POINTS = 8  # quantiles per margin: Hive has 3 margins (8³ settings), HuggingGPT 2, ControlLLM 1


def predict(
    route: str, s: Scores, params: tuple[float, ...], domains: dict[str, Domain], inputs: tuple[str, ...],
    by_domain: dict[str, list[str]] | None = None,
) -> list[str]:
    if route == "hive":
        return hive_select(s, domains, params[0], params[1], params[2], by_domain).actions
    if route == "hugginggpt":
        return hugginggpt_select(s, params[0], params[1]).actions
    if route == "controlllm":
        return controlllm_actions(s, params[0], inputs)
    raise ValueError(f"unknown route {route!r}")


def _grid(values: Sequence[float], hi: float = 0.6, n: int = GRID_POINTS, lo: float = 0.0) -> list[float]:
    v = np.asarray([x for x in values if np.isfinite(x)], float)
    if v.size == 0:
        return [0.0]
    return sorted({*np.round(np.quantile(v, np.linspace(lo, hi, n)), 6).tolist()})


def _gaps(d: dict[str, float], k: int = 4) -> list[float]:
    best = max(d.values())
    return sorted(best - x for x in d.values())[1 : k + 1]


def _zs(s: Scores) -> list[float]:
    out = []
    for p in s.parts:
        v = np.array(list(p.actions.values()))
        out.append(float((v.max() - v.mean()) / (v.std() + 1e-9)))
    return out


def param_grid(route: str, scores: Sequence[Scores]) -> list[tuple[float, ...]]:
    """Candidate margins from the scores themselves (quantiles of the gaps to the best option, of the
    parts' best scores); 0 (only the best) and −inf (keep every part) are always candidates."""
    parts = [p for s in scores for p in s.parts]
    keep = [float("-inf"), *_grid([max(p.actions.values()) for p in parts], hi=0.7)]
    if route == "hive":
        gd = [0.0, *_grid([g for p in parts for g in _gaps(p.domains)])]
        ga = [0.0, *_grid([g for p in parts for g in _gaps(p.actions)])]
        return [(a, b, c) for a in sorted(set(gd)) for b in sorted(set(ga)) for c in keep]
    if route == "hugginggpt":
        ga = [0.0, *_grid([g for p in parts for g in _gaps(p.actions)])]
        return [(t, c) for t in sorted(set(ga)) for c in keep]
    return [(z,) for z in _grid([z for s in scores for z in _zs(s)], hi=1.0, n=20)]


def ts_hit(pred: Sequence[str], q: Query) -> bool:
    return set(pred) == set(q.actions)


def fit(
    route: str,
    scores: Sequence[Scores],
    queries: Sequence[Query],
    domains: dict[str, Domain],
) -> tuple[float, ...]:
    """The margins with the best TS on these queries (the first on ties: the grid is sorted, smallest
    margins first)."""
    by_domain = _domain_actions(domains)
    best, best_ts = None, -1
    for p in param_grid(route, scores):
        ts = sum(
            ts_hit(predict(route, s, p, domains, q.input_type, by_domain), q)
            for s, q in zip(scores, queries, strict=True)
        )
        if ts > best_ts:
            best, best_ts = p, ts
    return best


def cross_fitted(
    scores: Sequence[Scores], queries: Sequence[Query], domains: dict[str, Domain], seed: int
) -> tuple[dict[str, list[list[str]]], dict[str, list[tuple[float, ...]]]]:
    """Each route's predicted action set per query, margins fitted on the other fold (random halves),
    and the two folds' fitted margins per route."""
    n = len(queries)
    perm = np.random.default_rng(seed).permutation(n)
    folds = [sorted(perm[: n // 2]), sorted(perm[n // 2 :])]
    by_domain = _domain_actions(domains)
    out: dict[str, list[list[str]]] = {r: [[] for _ in range(n)] for r in ROUTES}
    margins: dict[str, list[tuple[float, ...]]] = {r: [] for r in ROUTES}
    for r in ROUTES:
        for k in (0, 1):
            train, test = folds[1 - k], folds[k]
            params = fit(r, [scores[i] for i in train], [queries[i] for i in train], domains)
            margins[r].append(params)
            for i in test:
                out[r][i] = predict(r, scores[i], params, domains, queries[i].input_type, by_domain)
    return out, margins


_FLOWS: dict[tuple, frozenset] = {}


def flow_of(route: str, actions: Sequence[str], q: Query, domains: dict[str, Domain],
            planner: str = "pyperplan") -> frozenset:
    """The data-flow edges of a route's tasks after the shared chaining step; Hive's tasks are planned
    first (the PDDL problem of the merged domains), the others' are chained as listed. Memoised: the
    three splits repeat most predictions."""
    key = (route, tuple(actions), q.text, q.input_type, planner, id(domains))
    if key not in _FLOWS:
        order = list(actions)
        if route == "hive":
            from iclr25.hive.pddl import merge_domains
            from iclr25.hive.planners import plan
            from iclr25.hive.tasks import domains_of, problem_for

            merged = merge_domains([domains[n] for n in domains_of(order, domains)])
            order = plan(merged, problem_for(merged, order, "route"), planner).actions
        _FLOWS[key] = chain(order, inputs=q.input_type, query=q.text).edges
    return _FLOWS[key]


def fot_hit(route: str, actions: Sequence[str], q: Query, domains: dict[str, Domain]) -> bool:
    """FoT of a route on a multi-task query: the right tasks, chained into the gold flow."""
    return ts_hit(actions, q) and set(flow_of(route, actions, q, domains)) == set(q.gold_flow)
