"""Ranked variants with exact counts on the suffix array (issue 29; SoftMatcha 2's Rank | Score | #Match |
String), with wildcards, insertions and deletions.

A variant is a token sequence u of the corpus that matches the pattern p_1..p_m under an alignment:
every pattern token is either matched by one token of u (a soft token by a type in its soft set V_i, a
wildcard `_` or `*` by any token) or deleted; every token of u is either matching or inserted; at most D
deletions and I insertions; u's first and last tokens are matching ones (an insertion at an end would only
describe a longer string around the same match). No variant crosses a line.

Score (exposed as `score=`): the matched tokens' similarities s(u_j, p_i) combined by "min" (default: the
quantity alpha thresholds) or "product", times the edit penalty lambda^(#insertions + #deletions)
(lambda = 0.9 by default; wildcards score 1). A string reachable by several alignments takes its best.

Search: best-first over prefixes of u (a heap on the score so far). Extending a prefix never raises its
score (similarities <= 1, lambda <= 1), so variants come off the heap in score order and the top k are
exact after k of them (ties on the k-th score: all of them, ordered by count, then string). Each prefix
carries its suffix-array range, a prefix whose range is empty is never pushed, and a variant's count is its
range's size: counts are exact, and the cost follows the prefixes that exist, not the hits."""

from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np

from iclr25.core.errors import UserError
from iclr25.softmatcha.pattern import MAX_EDITS, WILDCARDS
from iclr25.softmatcha.suffix import SuffixRanges

SCORES = ("min", "product")
__all__ = ["MAX_EDITS", "WILDCARDS", "RankedVariant", "VariantConfig", "merge_ranked", "ranked_variants"]


@dataclass(frozen=True)
class VariantConfig:
    score: str = "min"
    max_insert: int = 0
    max_delete: int = 0
    penalty: float = 0.9  # lambda: each insertion or deletion multiplies the score by it
    max_states: int = 2_000_000  # prefixes expanded per query before it is refused as too broad
    max_seconds: float | None = None  # wall-clock budget: past it the search stops (OverBudget)


class OverBudget(UserError):
    """A ranked search ran past its time budget. The variants yielded before it are the best there are
    (they come in score order); what follows them was not looked at."""

    def __init__(self, seconds: float, expanded: int) -> None:
        super().__init__(f"the search ran past its budget of {seconds:g} s ({expanded:,} prefixes expanded); "
                         "raise the threshold, lower the edits or allow more time (--max-runtime)")
        self.seconds, self.expanded = seconds, expanded


@dataclass(frozen=True)
class Element:
    """One pattern position: a soft set (sorted type ids with their similarities) or a wildcard."""

    token: str
    ids: np.ndarray  # sorted type ids (empty for a wildcard)
    sims: np.ndarray  # float64 similarity of each id to the pattern token
    wildcard: bool = False


@dataclass(frozen=True)
class RankedVariant:
    """A distinct matching string: its score, its exact number of occurrences, and its edits."""

    string: str
    score: float
    count: int
    type_ids: tuple[int, ...]
    inserted: int
    deleted: int
    sa_range: tuple[int, int]  # its rows in the index's suffix array; (0, 0) once merged over shards

    def to_dict(self) -> dict:
        return {"string": self.string, "score": round(self.score, 6), "count": self.count,
                "inserted": self.inserted, "deleted": self.deleted}


def variant_config(k: int | None, **kw) -> VariantConfig:
    """The config of a top-k request, k checked at the door (None: every variant)."""
    if k is not None and (isinstance(k, bool) or k <= 0):
        raise UserError(f"k must be a positive number of variants, got {k}")
    return VariantConfig(**kw)


def check_config(cfg: VariantConfig, elements: Sequence[Element]) -> None:
    """Bad input at the door: one line each."""
    m = len(elements)
    if cfg.score not in SCORES:
        raise UserError(f"score must be min or product, got {cfg.score!r}")
    for name, v in (("max_insert", cfg.max_insert), ("max_delete", cfg.max_delete)):
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < 0:
            raise UserError(f"{name} must be a non-negative integer, got {v!r}")
        if v > MAX_EDITS:
            raise UserError(f"{name} must be <= {MAX_EDITS}, got {v}")
    if cfg.max_delete >= m:
        raise UserError(f"max_delete {cfg.max_delete} would delete the whole {m}-token pattern")
    if cfg.max_insert and m < 2:
        raise UserError(f"max_insert {cfg.max_insert} needs a pattern of >= 2 tokens (insertions go "
                        "between matched tokens)")
    if not 0.0 < cfg.penalty <= 1.0:  # also NaN
        raise UserError(f"edit penalty must be in (0, 1], got {cfg.penalty}")
    if all(e.wildcard for e in elements):
        raise UserError("the pattern has only wildcards; give at least one word")


def ranked_variants(ranges: SuffixRanges, elements: Sequence[Element], cfg: VariantConfig,
                    vocab: Sequence[str]) -> Iterator[RankedVariant]:
    """Every variant, best first: by score, then count, then string (see the module docstring)."""
    check_config(cfg, elements)
    m = len(elements)
    lam = float(cfg.penalty)
    use_min = cfg.score == "min"
    tick = itertools.count()
    # heap entry: (-priority, tie, base, i, d, lo, hi, ins, dele, last_ins, done)
    heap: list[tuple] = [(-1.0, next(tick), 1.0, 0, 0, 0, int(ranges.sa.shape[0]), 0, 0, False, False)]
    seen: set[tuple] = set()
    emitted: set[tuple[int, int]] = set()
    pending: list[RankedVariant] = []
    pending_score = None
    expanded = 0
    deadline = None if cfg.max_seconds is None else time.monotonic() + cfg.max_seconds

    def push(base: float, i: int, d: int, lo: int, hi: int, ins: int, dele: int, last_ins: bool) -> None:
        prio = base * lam ** (ins + dele)
        done = i == m
        if done and (d == 0 or last_ins):
            return  # nothing matched, or the string would end with an inserted token
        heapq.heappush(heap, (-prio, next(tick), base, i, d, lo, hi, ins, dele, last_ins, done))

    while heap:
        neg, _, base, i, d, lo, hi, ins, dele, last_ins, done = heapq.heappop(heap)
        if pending and -neg < pending_score:
            yield from _flush(pending)
            pending = []
        if done:
            if (lo, d) in emitted:
                continue
            emitted.add((lo, d))
            ids = ranges.string(lo, d)
            pending.append(RankedVariant(" ".join(vocab[t] for t in ids), -neg, hi - lo,
                                         tuple(int(t) for t in ids), ins, dele, (lo, hi)))
            pending_score = -neg
            continue
        key = (lo, d, i, ins, dele, last_ins)
        if key in seen:
            continue
        seen.add(key)
        expanded += 1
        if deadline is not None and expanded % 256 == 0 and time.monotonic() > deadline:
            yield from _flush(pending)  # scored >= everything still on the heap
            raise OverBudget(float(cfg.max_seconds), expanded)  # type: ignore[arg-type]
        if expanded > cfg.max_states:
            raise UserError(f"the query expands more than {cfg.max_states} prefixes; raise the threshold "
                            "or lower the edits")
        el = elements[i]
        if el.wildcard:  # any one token
            types, a, b = ranges.children(lo, hi, d)
            for ta, tb in zip(a.tolist(), b.tolist(), strict=True):
                push(base, i + 1, d + 1, ta, tb, ins, dele, False)
        elif el.ids.size:
            a, b = ranges.split(lo, hi, d, el.ids)
            for j in np.flatnonzero(b > a).tolist():
                s = float(el.sims[j])
                push(min(base, s) if use_min else base * s, i + 1, d + 1, int(a[j]), int(b[j]), ins, dele,
                     False)
        if dele < cfg.max_delete:
            push(base, i + 1, d, lo, hi, ins, dele + 1, last_ins)
        if ins < cfg.max_insert and d > 0:
            types, a, b = ranges.children(lo, hi, d)
            for ta, tb in zip(a.tolist(), b.tolist(), strict=True):
                push(base, i, d + 1, ta, tb, ins + 1, dele, True)
    yield from _flush(pending)


def _flush(group: list[RankedVariant]) -> list[RankedVariant]:
    return sorted(group, key=lambda v: (-v.count, v.string))


def top_k(it: Iterator[RankedVariant], k: int | None) -> list[RankedVariant]:
    """The first k variants (all with k None). Ties on the k-th score are broken by count, then string."""
    return list(it) if k is None else list(itertools.islice(it, k))


def top_k_with_ties(it: Iterator[RankedVariant], k: int | None) -> list[RankedVariant]:
    """The first k variants and every later one whose score ties the k-th: one shard's share of a merged
    top k (see `merge_ranked`)."""
    out: list[RankedVariant] = []
    for v in it:
        if k is not None and len(out) >= k and v.score < out[k - 1].score:
            break
        out.append(v)
    return out


def merge_ranked(parts: Iterable[Sequence[RankedVariant]], k: int | None) -> list[RankedVariant]:
    """The top k over shards from each shard's `top_k_with_ties` (type ids global): counts of a string
    add up; ranked by score, count, string as on one index. Exact: a string's score depends on the
    pattern only, and a shard's k-th score is at most the corpus's k-th score s*, so every shard returns
    all of its strings scoring >= s*; each such string arrives with its every shard's count."""
    merged: dict[tuple[int, ...], RankedVariant] = {}
    for part in parts:
        for v in part:
            old = merged.get(v.type_ids)
            merged[v.type_ids] = replace(v if old is None else old,
                                         count=v.count + (old.count if old else 0), sa_range=(0, 0))
    ranked = sorted(merged.values(), key=lambda v: (-v.score, -v.count, v.string))
    return ranked if k is None else ranked[:k]


def page_occurrences(ranges: SuffixRanges, it: Iterator[RankedVariant], offset: int, limit: int,
                     dedupe: bool = False) -> tuple[list[tuple[RankedVariant, int]], bool]:
    """Occurrences [offset, offset + limit) in rank order (variant by variant; within a variant in
    suffix-array order, i.e. sorted by the text that follows). Walks only the variants up to the page:
    O(variants before it + page), not O(all hits). `dedupe` (searches with insertions or deletions): a
    position already taken by a better-ranked variant is not a hit again (`distinct_hits`), which costs
    O(hits before the page). Returns ((variant, position) pairs, more_after)."""
    out: list[tuple[RankedVariant, int]] = []
    seen = 0
    taken: set[int] = set()
    for v in it:
        if len(out) >= limit:
            return out, True
        if dedupe:
            fresh = [int(p) for p in ranges.positions(*v.sa_range) if int(p) not in taken]
            taken.update(fresh)
            if seen + len(fresh) > offset:
                start = max(0, offset - seen)
                take = fresh[start:start + limit - len(out)]
                out += [(v, p) for p in take]
                if start + len(take) < len(fresh) and len(out) >= limit:
                    return out, True
            seen += len(fresh)
            continue
        if seen + v.count > offset:
            a = v.sa_range[0] + max(0, offset - seen)
            b = min(v.sa_range[1], a + limit - len(out))
            out += [(v, int(p)) for p in ranges.positions(a, b)]
            if b < v.sa_range[1] and len(out) >= limit:
                return out, True
        seen += v.count
    return out, False


@dataclass(frozen=True)
class Hits:
    """The hits of a ranked (edit or wildcard) search, one per start position: of the variants that match
    at a position, the hit is the best-ranked one (highest score; then more occurrences, then the string),
    and its matched span is that variant's length. Arrays in corpus order."""

    positions: np.ndarray  # (n,) int64 start positions, ascending
    lengths: np.ndarray  # (n,) int64 matched tokens
    variant: np.ndarray  # (n,) int64 index into `variants` (rank order)
    variants: list[RankedVariant]

    @property
    def count(self) -> int:
        return int(self.positions.size)


def distinct_hits(ranges: SuffixRanges, ranked: Sequence[RankedVariant]) -> Hits:
    """One hit per start position over `ranked` (all variants, best first): the first variant in rank
    order that occurs at a position takes it. Distinct strings of one length never share a start, so only
    insertions and deletions (strings of several lengths) can put two variants at one position."""
    if not ranked:
        e = np.empty(0, np.int64)
        return Hits(e, e, e, [])
    pos = np.concatenate([ranges.positions(*v.sa_range) for v in ranked])
    which = np.repeat(np.arange(len(ranked)), [v.count for v in ranked])
    uniq, first = np.unique(pos, return_index=True)  # `first`: the best-ranked variant at each position
    which = which[first]
    lengths = np.array([len(v.type_ids) for v in ranked], dtype=np.int64)[which]
    return Hits(uniq.astype(np.int64), lengths, which.astype(np.int64), list(ranked))
