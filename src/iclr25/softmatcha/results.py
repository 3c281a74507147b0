"""What a search returns: `Match` (one occurrence) and `SearchResult` (all of them, materialised lazily),
with the concordancer views: KWIC (aligned left | key | right) and the variants table."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, overload

import numpy as np

if TYPE_CHECKING:
    from iclr25.softmatcha.index import Index


@dataclass(frozen=True)
class Match:
    """One occurrence of the pattern. `line` is 1-based within `source`; spans are half-open.

    `text[char_span[0]:char_span[1]]` is the matched text; `scores[i]` = s(t[j+i], p_i)."""

    source: str
    line: int
    token_span: tuple[int, int]  # token offsets within the line
    char_span: tuple[int, int]  # character offsets within `text`
    tokens: tuple[str, ...]
    scores: tuple[float, ...]
    text: str  # the original line
    position: int = -1  # global position in the index's token array

    @property
    def matched_text(self) -> str:
        return self.text[self.char_span[0]:self.char_span[1]]

    @property
    def min_score(self) -> float:
        return min(self.scores)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["matched_text"] = self.matched_text
        return d


@dataclass(frozen=True)
class Variant:
    """A distinct matched token sequence with its count and its min / mean per-match score."""

    string: str
    count: int
    min_score: float
    mean_score: float


def group_rows(rows: np.ndarray, values: Sequence[np.ndarray], ufuncs: Sequence[np.ufunc]
               ) -> tuple[np.ndarray, list[np.ndarray]]:
    """The distinct rows of the (n, m) integer array `rows` and, per group, each `values[k]` reduced with
    `ufuncs[k]` (np.add: sum, np.minimum: min). Rows are grouped by a 64-bit hash (one integer sort;
    np.unique(axis=0) took 3 s for 1e6 rows) and, if two distinct rows ever share a hash, by an exact
    column-wise lexsort instead."""
    rows = np.asarray(rows)
    mult = np.arange(1, rows.shape[1] + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    h = rows.astype(np.uint64) @ mult  # wraps modulo 2^64
    h ^= h >> np.uint64(31)
    order = np.argsort(h, kind="stable")
    ranked, hs = rows[order], h[order]
    row_change = (ranked[1:] != ranked[:-1]).any(axis=1)
    if (row_change & (hs[1:] == hs[:-1])).any():  # a collision: fall back to the exact sort
        order = np.lexsort(rows.T[::-1])
        ranked = rows[order]
        row_change = (ranked[1:] != ranked[:-1]).any(axis=1)
    starts = np.flatnonzero(np.r_[True, row_change])
    reduced = [u.reduceat(np.asarray(v)[order], starts) for v, u in zip(values, ufuncs, strict=True)]
    return ranked[starts], reduced


def variant_table(rows: np.ndarray, counts: np.ndarray, mins: np.ndarray, sums: np.ndarray,
                  vocab: Sequence[str], limit: int | None = None) -> list[Variant]:
    """Variants from distinct matched type-id `rows` with their counts, min and sum of scores, most
    frequent first, then by mean score and string; the first `limit`. Strings are only made for the rows
    that can reach the first `limit` (a broad query has ~1e6 distinct rows; making every string took s)."""
    counts = np.asarray(counts)
    means = np.asarray(sums) / counts
    keep = np.arange(len(rows))
    if limit is not None and limit < len(rows):
        if limit <= 0:
            return []
        last = np.lexsort((-means, -counts))[limit - 1]  # by count, then mean score, descending
        # every row ranked before the limit-th, plus its ties (the string decides among those)
        tied = (counts == counts[last]) & (means >= means[last])
        keep = np.flatnonzero((counts > counts[last]) | tied)
    out = [Variant(" ".join(vocab[int(t)] for t in rows[i]), int(counts[i]), float(mins[i]), float(means[i]))
           for i in keep]
    out.sort(key=lambda v: (-v.count, -v.mean_score, v.string))
    return out[:limit] if limit is not None else out


class SearchResult(Sequence[Match]):
    """All matches of one query (complete enumeration, in corpus order). Indexing materialises `Match`
    objects on demand, so a million hits cost nothing until looked at; `positions` holds them all."""

    def __init__(self, index: Index, pattern: tuple[str, ...], thresholds: tuple[float, ...],
                 positions: np.ndarray, slot_scores: list[np.ndarray], seconds: float,
                 stats: dict[str, int], warnings: list[str]) -> None:
        self.index = index
        self.pattern = pattern
        self.thresholds = thresholds
        self.positions = positions  # (count,) int64 start positions, ascending
        self._slot_scores = slot_scores  # per slot: (n_types,) scores
        self.seconds = seconds
        self.stats = stats
        self.warnings = warnings

    @property
    def count(self) -> int:
        return int(self.positions.size)

    def __len__(self) -> int:
        return self.count

    @overload
    def __getitem__(self, i: int) -> Match: ...
    @overload
    def __getitem__(self, i: slice) -> list[Match]: ...

    def __getitem__(self, i: int | slice) -> Match | list[Match]:
        if isinstance(i, slice):
            return self.index._matches(self, self.positions[i])
        if not -self.count <= i < self.count:
            raise IndexError(i)
        return self.index._matches(self, self.positions[i:i + 1] if i >= 0 else
                                   self.positions[self.count + i:self.count + i + 1])[0]

    def __iter__(self) -> Iterator[Match]:
        step = 4096
        for s in range(0, self.count, step):
            yield from self.index._matches(self, self.positions[s:s + step])

    def line_indices(self) -> np.ndarray:
        """(count,) 0-based line of every match over the whole index (vectorised, no text read)."""
        return np.searchsorted(self.index.line_starts, self.positions, side="right") - 1

    def token_ids(self) -> np.ndarray:
        """(count, m) type ids of every match (vectorised; no line text needed)."""
        m = len(self.pattern)
        return np.asarray(self.index.tokens[self.positions[:, None] + np.arange(m)[None, :]])

    def score_matrix(self) -> np.ndarray:
        """(count, m) per-token scores s(t[j+i], p_i) of every match."""
        ids = self.token_ids()
        return np.stack([s[ids[:, i]] for i, s in enumerate(self._slot_scores)], axis=1) if ids.size else \
            np.empty((0, len(self.pattern)), np.float32)

    def variants(self, limit: int | None = None) -> list[Variant]:
        """Each distinct matched token sequence, its count and min/mean of the per-match minimum score,
        most frequent first (as SoftMatcha 2 prints Rank / Score / #Match / String); the first `limit`."""
        if self.count == 0:
            return []
        ids = self.token_ids()
        score = self.score_matrix().min(axis=1)
        uniq, (counts, mins, sums) = group_rows(ids, (np.ones(len(ids)), score, score),
                                                (np.add, np.minimum, np.add))
        return variant_table(uniq, counts, mins, sums, self.index.vocab, limit)

    def collocates(self, left: int = 5, right: int = 5, min_count: int = 2, by: str = "g2",
                   top_k: int | None = None, punctuation: bool = False):
        """The collocation table of these hits (`collocates.collocates`)."""
        from iclr25.softmatcha.collocates import collocates
        return collocates(self.index, self.positions, len(self.pattern), left=left, right=right,
                          min_count=min_count, by=by, top_k=top_k, punctuation=punctuation,
                          pattern=" ".join(self.pattern))

    def dispersion(self, by: str = "file", labels: list[str] | None = None):
        """These hits per file, folder or KJV book, with Gries' DP and Juilland's D
        (`dispersion.dispersion`)."""
        from iclr25.softmatcha.dispersion import dispersion
        if by == "book" and labels is None and getattr(self.index, "kjv_refs", False):
            from iclr25.softmatcha.corpus import kjv_refs
            labels = kjv_refs()
        return dispersion(self.index, self.positions, by=by, pattern=" ".join(self.pattern), labels=labels)

    def context_order(self, side: str, words: int = 6) -> np.ndarray:
        """(count,) the order of the hits by their context on `side` ("left": the words before, nearest
        first; "right": the words after), compared word by word, case- and punctuation-blind as
        concordancers sort; a line end sorts first; ties keep corpus order. Computed from token ids, so
        sorting a million hits reads no text."""
        ix = self.index
        toks, m, n = ix.tokens, len(self.pattern), ix.tokens.shape[0]
        steps = np.arange(1, 3 * words + 1)  # room to skip punctuation
        at = self.positions[:, None] + (m - 1 + steps if side == "right" else -steps)[None, :]
        ids = np.asarray(toks[np.clip(at, 0, n - 1)]).astype(np.int64)
        inside = np.cumprod(ids != 0, axis=1).astype(bool) & (at >= 0) & (at < n)  # up to the line end
        rank = np.where(inside, ix.word_rank[ids], 0)
        first = np.argsort(rank == 0, axis=1, kind="stable")[:, :words]  # words first, in order
        keys = np.take_along_axis(rank, first, axis=1)  # (count, words); 0 past the line's last word
        return np.lexsort((np.arange(self.count), *keys.T[::-1]))

    def kwic(self, width: int = 40, sort: str = "none", limit: int | None = None) -> list[str]:
        """Key-word-in-context lines: right-aligned left context | key | right context, `width` characters
        each side (0: none). `sort`: "none" (corpus order), "left" or "right" (by the context words, see
        `context_order`); the whole concordance is sorted before the first `limit` rows are cut."""
        from iclr25.core.errors import UserError
        if sort not in ("none", "left", "right"):
            raise UserError(f"kwic sort must be none, left or right, got {sort!r}")
        if width < 0:
            raise UserError(f"kwic width must be >= 0, got {width}")
        order = np.arange(self.count) if sort == "none" else self.context_order(sort)
        ms = self.index._matches(self, self.positions[order[:limit]])
        rows = []
        for m in ms:
            a, b = m.char_span
            rows.append((m.text[:a], m.text[a:b], m.text[b:]))
        kw = max((len(k) for _, k, _ in rows), default=0)
        out = []
        for left, key, right in rows:
            lft = " ".join(left.split())[-width:] if width else ""
            rgt = " ".join(right.split())[:width]
            out.append(f"{lft:>{width}} | {key:<{kw}} | {rgt}" if width else f"| {key:<{kw}} |")
        return out

    def to_json(self, limit: int | None = None) -> str:
        ms = self[:limit] if limit is not None else list(self)
        return json.dumps({"pattern": list(self.pattern), "thresholds": list(self.thresholds),
                           "count": self.count, "seconds": self.seconds, "warnings": self.warnings,
                           "matches": [m.to_dict() for m in ms]}, ensure_ascii=False)

    def __repr__(self) -> str:
        return (f"SearchResult({' '.join(self.pattern)!r}, count={self.count}, "
                f"seconds={self.seconds:.4f})")


@dataclass(frozen=True)
class OccurrencePage:
    """One page of occurrences from the ranked path (`Index.occurrences`): `more` says whether any follow."""

    matches: list[Match]
    offset: int
    more: bool
    seconds: float
