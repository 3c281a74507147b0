"""The two steps of SoftMatcha as pure functions on arrays (paper §3; spec §2).

Step 1 (vocabulary only): V_i = {w : max(0, cos(e(w), e(p_i))) >= alpha_i} over the corpus types, as the
prefix of p_i's neighbour list sorted by score (computed once per pattern word and index, then reused).
Step 2 (inverted index): candidates from the postings of the rarest slot, verified against the other
slots by looking up the forward token array (mask_i[t[c + i]]), which is O(|cand|) per slot."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SEP = 0  # type id of the line separator: in no soft set, so no match crosses a line


@dataclass(frozen=True)
class Slot:
    """One pattern position: its soft set as a boolean mask over types and the scores behind it."""

    token: str
    threshold: float
    mask: np.ndarray  # (n_types,) bool; mask[SEP] is always False
    scores: np.ndarray  # (n_types,) float32: s(w, p_i), 1.0 on the exact type in exact mode
    exact: bool  # exact mode (alpha >= 1 or OOV pattern token): V_i = {p_i}
    oov: bool  # the pattern token has no embedding
    ids: np.ndarray | None = None  # the type ids of V_i (so costs stay O(|V_i|), not O(n_types))


def soft_scores(pattern_vecs: np.ndarray, type_vecs: np.ndarray) -> np.ndarray:
    """S[i, w] = max(0, cos(e(w), e(p_i))) in float32 for k pattern tokens at once: (k, n_types).
    Rows are unit-norm so cos is a dot product; one matrix product reads the (n_types, d) type table
    once for all k tokens (k matrix-vector products would read it k times: Step 1 is memory-bound).
    This is the fast screen; membership is decided by `exact_scores` (see `neighbour_list`)."""
    with _one_blas_thread():
        s = type_vecs @ np.asarray(pattern_vecs, dtype=np.float32).T  # (n_types, k)
    return np.ascontiguousarray(np.maximum(s, 0.0, out=s).T)


_BLAS: list = []  # the threadpoolctl controller, made once


def _one_blas_thread():
    """One BLAS thread for Step 1's product (the project's rule): the CLI pins it before numpy loads, but a
    library user who imported numpy first has a multi-threaded BLAS, and waiting for a second thread on a
    busy machine made Step 1 ~35 ms instead of ~0.5 ms (measured: 9.3 vs 0.7 ms for 12k types under load)."""
    import contextlib
    import os
    if os.environ.get("OPENBLAS_NUM_THREADS") == "1" and os.environ.get("OMP_NUM_THREADS") == "1":
        return contextlib.nullcontext()
    if not _BLAS:
        try:
            from threadpoolctl import ThreadpoolController
            _BLAS.append(ThreadpoolController())
        except ImportError:  # an optional dependency: without it, BLAS keeps its threads
            _BLAS.append(None)
    return _BLAS[0].limit(limits=1, user_api="blas") if _BLAS[0] is not None else contextlib.nullcontext()


def exact_scores(rows: np.ndarray, p: np.ndarray) -> np.ndarray:
    """s(w, p) = max(0, e(w) . e(p)) in float64 for the (n, d) rows: the products of float32 inputs are
    exact in float64 and each row is summed by the same pairwise reduction whatever n is, so a word's
    score does not depend on which other words it is computed with (a BLAS product's last bit does).
    This is the score a soft set is decided by, in every path."""
    prod = np.asarray(rows, dtype=np.float64) * np.asarray(p, dtype=np.float64)[None, :]
    return np.maximum(prod.sum(axis=1), 0.0)


def screen_margin(dim: int) -> float:
    """A bound on |float32 dot - exact dot| for unit vectors of `dim` components (gamma_d = d u / (1 - d u),
    u = 2^-24, doubled): a float32 score below alpha - margin cannot reach alpha exactly."""
    u = 2.0**-24
    return 2.0 * dim * u / (1.0 - dim * u)


def neighbour_list(screen: np.ndarray, type_vecs: np.ndarray, p: np.ndarray, floor: float
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Every type w with s(w, p) >= floor, best first: (ids int64, scores float64), ties by type id.
    `screen` is p's float32 row of `soft_scores`; only types within the margin of `floor` are rescored
    exactly, so the answer is `exact_scores >= floor` over the whole vocabulary."""
    cand = np.flatnonzero(screen >= floor - screen_margin(type_vecs.shape[1]))
    sims = exact_scores(type_vecs[cand], p)
    keep = sims >= floor
    cand, sims = cand[keep], sims[keep]
    order = np.lexsort((cand, -sims))
    return cand[order], sims[order]


def slot_from_list(token: str, threshold: float, ids: np.ndarray, sims: np.ndarray, n_types: int,
                   literal_id: int | None) -> Slot:
    """Step 1 as a prefix lookup: V = the prefix of the neighbour list (sorted by score) with score >=
    alpha. The list must hold every type scoring >= alpha (its floor <= alpha)."""
    n = int(np.searchsorted(-sims, -threshold, side="right"))  # sims[:n] >= threshold
    mask = np.zeros(n_types, dtype=bool)  # calloc'd: untouched pages cost nothing
    scores = np.zeros(n_types, dtype=np.float32)
    chosen = ids[:n]
    mask[chosen] = True
    scores[chosen] = sims[:n]
    if literal_id is not None:
        if not mask[literal_id]:
            chosen = np.append(chosen, literal_id)
        mask[literal_id] = True
        scores[literal_id] = 1.0  # cos(e, e) = 1 exactly, whatever rounding says
    if mask[SEP]:  # alpha = 0 takes every type, but a line end matches nothing
        mask[SEP] = False
        chosen = chosen[chosen != SEP]
    return Slot(token, float(threshold), mask, scores, False, False, chosen)


def exact_slot(token: str, threshold: float, n_types: int, literal_id: int | None, oov: bool = False) -> Slot:
    """Exact mode (alpha >= 1) and pattern tokens without a vector: V = {p} (the literal type, if in the
    corpus). alpha = 1 must not go through cosines: a float32 self-cosine can be 0.99999994."""
    mask = np.zeros(n_types, dtype=bool)
    scores = np.zeros(n_types, dtype=np.float32)
    ids = np.empty(0, dtype=np.int64)
    if literal_id is not None and literal_id != SEP:
        mask[literal_id] = True
        scores[literal_id] = 1.0
        ids = np.array([literal_id], dtype=np.int64)
    return Slot(token, float(threshold), mask, scores, True, oov, ids)


def slot_cost(mask: np.ndarray, freq: np.ndarray, ids: np.ndarray | None = None) -> int:
    """Sum of the frequencies of the types in a soft set: the size of C_i (official ordering). With the
    set's `ids` this is O(|V_i|) instead of a pass over every type."""
    return int(freq[ids].sum()) if ids is not None else int(freq[mask].sum())


def gather_postings(type_ids: np.ndarray, indptr: np.ndarray, postings: np.ndarray) -> np.ndarray:
    """Concatenated postings of `type_ids` as int64 (unsorted across types)."""
    if type_ids.size == 1:
        t = int(type_ids[0])
        return np.asarray(postings[indptr[t]:indptr[t + 1]], dtype=np.int64)
    starts = np.asarray(indptr[type_ids], dtype=np.int64)
    lens = np.asarray(indptr[type_ids + 1], dtype=np.int64) - starts
    keep = lens > 0
    starts, lens = starts[keep], lens[keep]
    total = int(lens.sum())
    if total == 0:
        return np.empty(0, dtype=np.int64)
    if starts.size < 64:  # few lists: slicing is cheaper than building an index array
        return np.concatenate([np.asarray(postings[s:s + n], dtype=np.int64) for s, n in zip(starts, lens,
                                                                                           strict=True)])
    offs = np.repeat(starts - (np.cumsum(lens) - lens), lens) + np.arange(total, dtype=np.int64)
    return np.asarray(postings[offs], dtype=np.int64)


def find_positions(masks: list[np.ndarray], tokens: np.ndarray, indptr: np.ndarray,
                   postings: np.ndarray, dense_fraction: float = 0.08, freq: np.ndarray | None = None,
                   ids: list[np.ndarray | None] | None = None) -> tuple[np.ndarray, dict[str, int]]:
    """Step 2: every start j with mask_i[t[j + i]] for all i (sorted), and the work done.

    The rarest slot r (smallest sum of frequencies, the paper's ordering) seeds the candidates
    cand = postings(V_r) - r; each other slot, cheapest first, keeps c iff mask_i[t[c + i]]
    (the forward-array check; equivalent to intersecting with postings(V_i) - i). `ids[i]`, the type
    ids of V_i when known, keep the work proportional to the soft sets and candidates, not to n_types.
    When even the rarest slot covers more than `dense_fraction` of the corpus (stop-word patterns at
    a low threshold), reading its postings costs more than one sequential pass, so the candidates
    come from a scan of the forward array instead (same answer, better locality)."""
    m = len(masks)
    n_pos = tokens.shape[0]
    if freq is None:
        freq = np.diff(np.asarray(indptr))
    ids = ids or [None] * m
    costs = [slot_cost(mk, freq, ix) for mk, ix in zip(masks, ids, strict=True)]
    stats = {"candidates": 0, "rarest_slot": 0, "dense": 0}
    if min(costs) == 0:
        return np.empty(0, dtype=np.int64), stats
    r = int(np.argmin(costs))
    stats["rarest_slot"] = r
    stats["candidates"] = costs[r]
    n_win = n_pos - m + 1
    if n_win <= 0:
        return np.empty(0, dtype=np.int64), stats
    if costs[r] > dense_fraction * n_pos:
        stats["dense"] = 1
        cand = np.flatnonzero(masks[r][tokens[r:r + n_win]]).astype(np.int64)
    else:
        rarest = ids[r] if ids[r] is not None else np.flatnonzero(masks[r])
        cand = gather_postings(np.sort(rarest), indptr, postings) - r
        cand = cand[(cand >= 0) & (cand < n_win)]
    for i in sorted((i for i in range(m) if i != r), key=lambda i: costs[i]):
        if cand.size == 0:
            break
        cand = cand[masks[i][tokens[cand + i]]]
    if not stats["dense"]:
        cand.sort()
    return cand, stats


def scan_positions(masks: list[np.ndarray], tokens: np.ndarray) -> np.ndarray:
    """The same answer without postings: test every window of the token array (vectorised scan)."""
    m = len(masks)
    n = tokens.shape[0] - m + 1
    if n <= 0:
        return np.empty(0, dtype=np.int64)
    ok = masks[0][tokens[:n]]
    for i in range(1, m):
        if not ok.any():
            break
        ok &= masks[i][tokens[i:i + n]]
    return np.flatnonzero(ok).astype(np.int64)


def iter_positions(masks: list[np.ndarray], tokens: np.ndarray, indptr: np.ndarray | None = None,
                   postings: np.ndarray | None = None, ids: list[np.ndarray | None] | None = None,
                   freq: np.ndarray | None = None, window: int = 1 << 22, dense_fraction: float = 0.08,
                   boundaries: np.ndarray | None = None):
    """`find_positions` in corpus order, window by window of the forward array (64k positions first, then
    doubling up to `window`): yields the sorted start positions of each window, so the first hits come
    after one small window's work
    and memory holds one window's hits, whatever the total (grep-like streaming; `| head -1` stops it).
    Within a window the candidates come from the rarest slot's postings sliced to the window (each type's
    postings are sorted: two binary searches per type), or from a scan of the window when that slot is
    dense or there are no postings (`soft_grep`). `boundaries` (the separators' positions, sorted): windows
    end on them, so no line's hits are split between two windows."""
    m = len(masks)
    n_pos = tokens.shape[0]
    n_win = n_pos - m + 1
    if n_win <= 0:
        return
    ids = ids or [None] * m
    if freq is None and indptr is not None:
        freq = np.diff(np.asarray(indptr))
    if freq is not None:
        costs = [slot_cost(mk, freq, ix) for mk, ix in zip(masks, ids, strict=True)]
        if min(costs) == 0:
            return
        r = int(np.argmin(costs))
        dense = postings is None or costs[r] > dense_fraction * n_pos
    else:
        r, dense, costs = 0, True, [0] * m
    rest = sorted((i for i in range(m) if i != r), key=lambda i: costs[i])
    if not dense:
        rarest = np.sort(ids[r] if ids[r] is not None else np.flatnonzero(masks[r]))
        starts = np.asarray(indptr[rarest], dtype=np.int64)
        ends = np.asarray(indptr[rarest + 1], dtype=np.int64)
        keep = ends > starts
        rarest, starts, ends = rarest[keep], starts[keep], ends[keep]
    a, step = 0, min(window, 1 << 16)  # small first windows: the first hits come fast; then doubling
    while a < n_win:
        b = min(n_win, a + step)
        step = min(window, 2 * step)
        if boundaries is not None and b < n_win:
            k = int(np.searchsorted(boundaries, b))
            b = min(n_win, int(boundaries[k]) if k < boundaries.size else n_win)
        lo_a, a = a, b
        if dense:
            cand = lo_a + np.flatnonzero(masks[r][tokens[lo_a + r:b + r]]).astype(np.int64)
        else:
            parts = []
            for s, e in zip(starts.tolist(), ends.tolist(), strict=True):
                lst = postings[s:e]
                lo, hi = np.searchsorted(lst, [lo_a + r, b + r])
                if hi > lo:
                    parts.append(np.asarray(lst[lo:hi], dtype=np.int64))
            if not parts:
                continue
            cand = np.concatenate(parts) - r
            cand.sort()
        for i in rest:
            if cand.size == 0:
                break
            cand = cand[masks[i][tokens[cand + i]]]
        if cand.size:
            yield cand
