"""The style-substance matrix of RM-Bench (§3.3): accuracy of "chosen in style i beats rejected in style
j", split into Easy (chosen more formatted), Normal (same style) and Hard (chosen plainer), and the
paper's averaging rules (safety pooled; Overall = mean of domains = mean of difficulties)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from iclr25.core.errors import UserError
from iclr25.rm_bench.data import STYLES, Item, pooled_domain

TIES = ("strict", "half")
LEVELS = ("easy", "normal", "hard")


def _scores(a: Any, name: str) -> np.ndarray:
    try:
        a = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError):
        raise UserError(f"{name} must be numbers") from None
    if a.ndim != 2 or a.shape[1] != len(STYLES):
        raise UserError(f"{name} must have shape (n, 3) (concise, plain, markdown), got {a.shape}")
    if a.shape[0] == 0:
        raise UserError(f"{name} holds no items")
    if not np.isfinite(a).all():
        raise UserError(f"{name} contains NaN or infinite scores")
    return a


def style_matrix(chosen: Any, rejected: Any, ties: str = "strict") -> np.ndarray:
    """M (3, 3) in percent: M[i, j] = 100 · mean over items of [r(x, y_c^i) > r(x, y_r^j)].

    Rows are the chosen response's style, columns the rejected one's (concise, plain, markdown).
    `ties="strict"` counts a tie as wrong (the paper; a constant scorer gets 0), `"half"` as 1/2.

    >>> style_matrix([[1, 2, 3]], [[0, 0, 0]]).tolist()[0]
    [100.0, 100.0, 100.0]
    """
    if ties not in TIES:
        raise UserError(f"ties must be one of {', '.join(TIES)}, got {ties!r}"[:200])
    c, r = _scores(chosen, "chosen scores"), _scores(rejected, "rejected scores")
    if c.shape != r.shape:
        raise UserError(f"chosen scores {c.shape} and rejected scores {r.shape} differ in shape")
    win = (c[:, :, None] > r[:, None, :]).astype(np.float64)  # (n, 3 chosen, 3 rejected)
    if ties == "half":
        win += 0.5 * (c[:, :, None] == r[:, None, :])
    return 100.0 * win.mean(axis=0)


def difficulty(m: Any) -> dict[str, float]:
    """Easy = mean of the lower triangle (chosen more formatted than rejected), Normal = the diagonal,
    Hard = the upper triangle (chosen plainer); avg = mean of all 9 cells = mean of the three.

    >>> difficulty([[50, 0, 0], [100, 50, 0], [100, 100, 50]])
    {'easy': 100.0, 'normal': 50.0, 'hard': 0.0, 'avg': 50.0}
    """
    m = np.asarray(m, dtype=np.float64)
    if m.shape != (3, 3):
        raise UserError(f"a style matrix is 3 x 3, got shape {m.shape}")
    easy = float(m[np.tril_indices(3, -1)].mean())
    normal = float(np.diag(m).mean())
    hard = float(m[np.triu_indices(3, 1)].mean())
    return {"easy": easy, "normal": normal, "hard": hard, "avg": float(m.mean())}


def aggregate(per_domain: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Domain and overall scores from per-file results {domain: {"matrix": M, "n": n}}.

    Both safety files pool into one "safety" matrix weighted by item counts (the paper computes Safety
    over the 441 pooled items); Overall and each of Easy / Normal / Hard are the mean over domains, so
    Overall = mean of domain scores = mean of the three difficulties."""
    if not per_domain:
        raise UserError("no domain results to aggregate")
    pooled: dict[str, tuple[np.ndarray, int]] = {}
    for dom, res in per_domain.items():
        n = int(res["n"])
        m = np.asarray(res["matrix"], dtype=np.float64)
        if n < 1 or m.shape != (3, 3):
            raise UserError(f"domain {dom!r}: need n >= 1 and a 3 x 3 matrix")
        key = pooled_domain(dom)
        if key in pooled:
            m0, n0 = pooled[key]
            pooled[key] = ((m0 * n0 + m * n) / (n0 + n), n0 + n)
        else:
            pooled[key] = (m, n)
    domains = {k: {"matrix": m.tolist(), "n": n, **difficulty(m)} for k, (m, n) in pooled.items()}
    overall = {lvl: float(np.mean([d[lvl] for d in domains.values()])) for lvl in (*LEVELS, "avg")}
    return {"domains": domains, "overall": overall}


def item_scores(scorer: Any, items: Sequence[Item]) -> tuple[np.ndarray, np.ndarray]:
    """(chosen (n, 3), rejected (n, 3)) scores of every response. A scorer is a callable
    `scorer(prompts, responses) -> scores` over flat lists, or has `score_items(items)` returning the two
    arrays itself (a reward model trained with cross-validation scores each item out of fold)."""
    if not items:
        raise UserError("no items to score")
    if hasattr(scorer, "score_items"):
        ch, rej = scorer.score_items(items)
    else:
        prompts = [it.prompt for it in items for _ in range(6)]
        responses = [y for it in items for y in (*it.chosen, *it.rejected)]
        flat = np.asarray(scorer(prompts, responses), dtype=np.float64)
        if flat.shape != (len(responses),):
            raise UserError(f"scorer returned {flat.shape} scores for {len(responses)} responses")
        ch, rej = flat.reshape(-1, 2, 3)[:, 0], flat.reshape(-1, 2, 3)[:, 1]
    return _scores(ch, "chosen scores"), _scores(rej, "rejected scores")


def evaluate_scores(items: Sequence[Item], chosen: Any, rejected: Any,
                    ties: str = "strict") -> dict[str, Any]:
    """Per-file matrices and the aggregate from given scores (rows in the order of `items`)."""
    ch, rej = _scores(chosen, "chosen scores"), _scores(rejected, "rejected scores")
    if len(ch) != len(items) or len(rej) != len(items):
        raise UserError(f"{len(ch)} score rows for {len(items)} items")
    per: dict[str, dict[str, Any]] = {}
    for dom in dict.fromkeys(it.domain for it in items):
        rows = [i for i, it in enumerate(items) if it.domain == dom]
        per[dom] = {"matrix": style_matrix(ch[rows], rej[rows], ties), "n": len(rows)}
    out = aggregate(per)
    out["files"] = {d: {"matrix": r["matrix"].tolist(), "n": r["n"]} for d, r in per.items()}
    out["ties"] = ties
    return out


def per_item(items: Sequence[Item], chosen: Any, rejected: Any, ties: str = "strict") -> list[dict[str, Any]]:
    """One record per item, to see which items a reward model gets wrong: its id and domain, the six
    scores (concise, plain, markdown), `correct` = how many of the 9 (chosen, rejected) style pairs it
    orders right (a tie counts 0, or ½ with ties="half"), and its own Easy / Normal / Hard in percent.

    >>> from iclr25.rm_bench.data import Item
    >>> it = Item("7", "chat", "q", ("a",) * 3, ("b",) * 3)
    >>> r = per_item([it], [[1, 2, 3]], [[2, 2, 2]])[0]
    >>> r["correct"], r["easy"], r["normal"], r["hard"]
    (3.0, 66.7, 33.3, 0.0)
    """
    if ties not in TIES:
        raise UserError(f"ties must be one of {', '.join(TIES)}, got {ties!r}"[:200])
    ch, rej = _scores(chosen, "chosen scores"), _scores(rejected, "rejected scores")
    if len(ch) != len(items) or len(rej) != len(items):
        raise UserError(f"{len(ch)} score rows for {len(items)} items")
    win = (ch[:, :, None] > rej[:, None, :]).astype(np.float64)
    if ties == "half":
        win += 0.5 * (ch[:, :, None] == rej[:, None, :])
    out = []
    for i, it in enumerate(items):
        lv = difficulty(100.0 * win[i])
        out.append({"id": it.id, "domain": it.domain, "chosen": ch[i].tolist(), "rejected": rej[i].tolist(),
                    "correct": float(win[i].sum()), **{k: round(lv[k], 1) for k in LEVELS}})
    return out


def evaluate(scorer: Any, items: Sequence[Item], ties: str = "strict") -> dict[str, Any]:
    """Score every response of `items` with `scorer` and return {"domains": {name: {matrix, n, easy,
    normal, hard, avg}}, "overall": {easy, normal, hard, avg}, "files": ..., "ties": ...}."""
    ch, rej = item_scores(scorer, items)
    return evaluate_scores(items, ch, rej, ties)


def policy_correlation(benchmark: Sequence[float], policy: Sequence[float]) -> dict[str, float]:
    """Pearson and Spearman correlation between reward models' benchmark scores and the scores of the
    policies trained against them (the paper's PPO study, §5).

    >>> policy_correlation([60, 65, 70], [1.0, 2.0, 4.0])["spearman"]
    1.0
    """
    from scipy import stats
    b, p = np.asarray(benchmark, dtype=np.float64), np.asarray(policy, dtype=np.float64)
    if b.shape != p.shape or b.ndim != 1 or len(b) < 3:
        raise UserError(f"need two equal-length lists of >= 3 scores, got {b.shape} and {p.shape}")
    if not (np.isfinite(b).all() and np.isfinite(p).all()):
        raise UserError("scores must be finite")
    if np.ptp(b) == 0 or np.ptp(p) == 0:
        raise UserError("a constant list of scores has no correlation")
    return {"pearson": float(stats.pearsonr(b, p)[0]), "spearman": float(stats.spearmanr(b, p)[0])}


def item_contributions(items: Sequence[Item], chosen: Any, rejected: Any,
                       ties: str = "strict") -> dict[str, np.ndarray]:
    """Per item, its share of each overall level: the item's own Easy / Normal / Hard accuracy (points),
    weighted n / (D · n_domain) so that the mean over items is the paper's mean over domains (safety
    pooled). Their spread gives the standard error of an overall score over the benchmark's items.

    >>> from iclr25.rm_bench.data import Item
    >>> its = [Item(str(i), "chat", "q", ("a",) * 3, ("b",) * 3) for i in range(2)]
    >>> ch, rej = [[3, 2, 1], [1, 2, 3]], [[0, 0, 0], [9, 9, 9]]
    >>> c = item_contributions(its, ch, rej)
    >>> c["easy"].tolist(), float(c["easy"].mean()) == evaluate_scores(its, ch, rej)["overall"]["easy"]
    ([100.0, 0.0], True)
    """
    ch, rej = _scores(chosen, "chosen scores"), _scores(rejected, "rejected scores")
    win = (ch[:, :, None] > rej[:, None, :]).astype(np.float64)
    if ties == "half":
        win += 0.5 * (ch[:, :, None] == rej[:, None, :])
    win *= 100.0
    groups = [pooled_domain(it.domain) for it in items]
    counts = {g: groups.count(g) for g in set(groups)}
    w = np.array([len(items) / (len(counts) * counts[g]) for g in groups])
    levels = {"easy": win[:, [1, 2, 2], [0, 0, 1]].mean(axis=1),  # chosen more formatted
              "normal": win[:, [0, 1, 2], [0, 1, 2]].mean(axis=1),
              "hard": win[:, [0, 0, 1], [1, 2, 2]].mean(axis=1)}
    return {k: w * v for k, v in levels.items()}


def mean_se(values: np.ndarray) -> tuple[float, float]:
    """Mean and standard error over items."""
    v = np.asarray(values, dtype=np.float64)
    return float(v.mean()), float(v.std(ddof=1) / np.sqrt(len(v))) if len(v) > 1 else float("inf")
