"""MuSE task selection (TS: the predicted task set equals the gold set exactly), with the routes'
margins 2-fold cross-fitted alike: each fold's margins maximise TS on the other fold."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from iclr25.hive.muse import Query
from iclr25.hive.pddl import Domain
from iclr25.hive.routes import ROUTES, Scores, controlllm_actions, hive_actions, hugginggpt_actions


def predict(
    route: str, s: Scores, params: tuple[float, ...], domains: dict[str, Domain], inputs: tuple[str, ...]
) -> list[str]:
    if route == "hive":
        return hive_actions(s, domains, params[0], params[1])[0]
    if route == "hugginggpt":
        return hugginggpt_actions(s, params[0])
    if route == "controlllm":
        return controlllm_actions(s, params[0], inputs)
    raise ValueError(f"unknown route {route!r}")


def _grid(values: Sequence[float], hi: float = 0.6, n: int = 14) -> list[float]:
    v = np.asarray([x for x in values if np.isfinite(x)], float)
    if v.size == 0:
        return [0.0]
    return sorted({0.0, *np.round(np.quantile(v, np.linspace(0.0, hi, n)), 6).tolist()})


def _gaps(d: dict[str, float], k: int = 4) -> list[float]:
    best = max(d.values())
    return sorted(best - x for x in d.values())[1 : k + 1]


def _zs(s: Scores) -> list[float]:
    out = []
    for c in s.clauses:
        v = np.array(list(c.values()))
        out.append(float((v.max() - v.mean()) / (v.std() + 1e-9)))
    return out


def param_grid(route: str, scores: Sequence[Scores]) -> list[tuple[float, ...]]:
    if route == "hive":
        gd = _grid([g for s in scores for g in _gaps(s.domains)])
        ga = _grid([g for s in scores for g in _gaps(s.actions)])
        return [(a, b) for a in gd for b in ga]
    if route == "hugginggpt":
        return [(t,) for t in _grid([g for s in scores for g in _gaps(s.actions)])]
    return [(z,) for z in _grid([z for s in scores for z in _zs(s)], hi=1.0, n=20)]


def ts_hit(pred: Sequence[str], q: Query) -> bool:
    return set(pred) == set(q.actions)


def fit(
    route: str,
    scores: Sequence[Scores],
    queries: Sequence[Query],
    domains: dict[str, Domain],
) -> tuple[float, ...]:
    """The margins with the best TS on these queries (the smallest on ties)."""
    best, best_ts = None, -1
    for p in param_grid(route, scores):
        ts = sum(
            ts_hit(predict(route, s, p, domains, q.input_type), q)
            for s, q in zip(scores, queries, strict=True)
        )
        if ts > best_ts:
            best, best_ts = p, ts
    return best


def cross_fitted(
    scores: Sequence[Scores], queries: Sequence[Query], domains: dict[str, Domain], seed: int
) -> dict[str, list[list[str]]]:
    """Each route's predicted action set per query, margins fitted on the other fold (random halves)."""
    n = len(queries)
    perm = np.random.default_rng(seed).permutation(n)
    folds = [sorted(perm[: n // 2]), sorted(perm[n // 2 :])]
    out: dict[str, list[list[str]]] = {r: [[] for _ in range(n)] for r in ROUTES}
    for r in ROUTES:
        for k in (0, 1):
            train, test = folds[1 - k], folds[k]
            params = fit(r, [scores[i] for i in train], [queries[i] for i in train], domains)
            for i in test:
                out[r][i] = predict(r, scores[i], params, domains, queries[i].input_type)
    return out
