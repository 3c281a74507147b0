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

    def variants(self) -> list[Variant]:
        """Each distinct matched token sequence, its count and min/mean of the per-match minimum score,
        most frequent first (as SoftMatcha 2 prints Rank / Score / #Match / String)."""
        if self.count == 0:
            return []
        ids = self.token_ids()
        score = self.score_matrix().min(axis=1)
        uniq, inv, counts = np.unique(ids, axis=0, return_inverse=True, return_counts=True)
        inv = inv.reshape(-1)
        mins = np.full(len(uniq), np.inf)
        np.minimum.at(mins, inv, score)
        sums = np.bincount(inv, weights=score, minlength=len(uniq))
        vocab = self.index.vocab
        out = [Variant(" ".join(vocab[int(t)] for t in row), int(c), float(mn), float(sm / c))
               for row, c, mn, sm in zip(uniq, counts, mins, sums, strict=True)]
        out.sort(key=lambda v: (-v.count, -v.mean_score, v.string))
        return out

    def kwic(self, width: int = 40, sort: str = "none", limit: int | None = None) -> list[str]:
        """Key-word-in-context lines: right-aligned left context | key | right context.
        `sort`: "none" (corpus order), "left" (by the words before, nearest first) or "right"."""
        if sort not in ("none", "left", "right"):
            from iclr25.core.errors import UserError
            raise UserError(f"kwic sort must be none, left or right, got {sort!r}")
        ms = list(self[:limit] if limit is not None else self)
        rows = []
        for m in ms:
            a, b = m.char_span
            left, key, right = m.text[:a], m.text[a:b], m.text[b:]
            rows.append((left, key, right))
        if sort == "left":
            rows.sort(key=lambda r: r[0].lower().split()[::-1])
        elif sort == "right":
            rows.sort(key=lambda r: r[2].lower().split())
        kw = max((len(k) for _, k, _ in rows), default=0)
        out = []
        for left, key, right in rows:
            lft = " ".join(left.split())[-width:]
            rgt = " ".join(right.split())[:width]
            out.append(f"{lft:>{width}} | {key:<{kw}} | {rgt}")
        return out

    def to_json(self, limit: int | None = None) -> str:
        ms = self[:limit] if limit is not None else list(self)
        return json.dumps({"pattern": list(self.pattern), "thresholds": list(self.thresholds),
                           "count": self.count, "seconds": self.seconds, "warnings": self.warnings,
                           "matches": [m.to_dict() for m in ms]}, ensure_ascii=False)

    def __repr__(self) -> str:
        return (f"SearchResult({' '.join(self.pattern)!r}, count={self.count}, "
                f"seconds={self.seconds:.4f})")
