"""The two steps of SoftMatcha as pure functions on arrays (paper §3; spec §2).

Step 1 (vocabulary only): V_i = {w : max(0, cos(e(w), e(p_i))) >= alpha_i} over the corpus types.
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


def soft_scores(pattern_vecs: np.ndarray, type_vecs: np.ndarray) -> np.ndarray:
    """S[i, w] = max(0, cos(e(w), e(p_i))) for k pattern tokens at once: (k, n_types) float32.
    Rows are unit-norm so cos is a dot product; one matrix product reads the (n_types, d) type table
    once for all k tokens (k matrix-vector products would read it k times: Step 1 is memory-bound)."""
    s = type_vecs @ np.asarray(pattern_vecs, dtype=np.float32).T  # (n_types, k)
    return np.ascontiguousarray(np.maximum(s, 0.0, out=s).T)


def soft_slot(token: str, threshold: float, scores: np.ndarray | None, n_types: int,
              literal_id: int | None, oov: bool = False) -> Slot:
    """Step 1 for one slot from its row of `soft_scores` (modified in place); None in exact mode
    (alpha >= 1) and for a token without embedding (`oov`), which match the literal token only.
    `literal_id` is the token's type id in the corpus (None if absent)."""
    if threshold >= 1.0 or oov or scores is None:
        # exact mode: float32 self-cosine can be 0.99999994, so alpha = 1 must not go through cosines
        mask = np.zeros(n_types, dtype=bool)
        scores = np.zeros(n_types, dtype=np.float32)
        if literal_id is not None and literal_id != SEP:
            mask[literal_id] = True
            scores[literal_id] = 1.0
        return Slot(token, float(threshold), mask, scores, True, oov)
    if literal_id is not None:
        scores[literal_id] = 1.0  # cos(e, e) = 1 exactly, whatever float32 rounding says
    mask = scores >= threshold
    mask[SEP] = False
    return Slot(token, float(threshold), mask, scores, False, oov)


def slot_cost(mask: np.ndarray, freq: np.ndarray) -> int:
    """Sum of the frequencies of the types in a soft set: the size of C_i (official ordering)."""
    return int(freq[mask].sum())


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
                   postings: np.ndarray, dense_fraction: float = 0.08, freq: np.ndarray | None = None
                   ) -> tuple[np.ndarray, dict[str, int]]:
    """Step 2: every start j with mask_i[t[j + i]] for all i (sorted), and the work done.

    The rarest slot r (smallest sum of frequencies, the paper's ordering) seeds the candidates
    cand = postings(V_r) - r; each other slot, cheapest first, keeps c iff mask_i[t[c + i]]
    (the forward-array check; equivalent to intersecting with postings(V_i) - i).
    When even the rarest slot covers more than `dense_fraction` of the corpus (stop-word patterns at
    a low threshold), reading its postings costs more than one sequential pass, so the candidates
    come from a scan of the forward array instead (same answer, better locality)."""
    m = len(masks)
    n_pos = tokens.shape[0]
    if freq is None:
        freq = np.diff(np.asarray(indptr))
    costs = [slot_cost(mk, freq) for mk in masks]
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
        cand = gather_postings(np.flatnonzero(masks[r]), indptr, postings) - r
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
