"""Word and n-gram frequency lists of an index (AntConc's Word List and N-Grams).

An n-gram is n consecutive tokens of one line (never across a line end). Unless `punctuation=True`,
punctuation tokens are left out of unigram lists and an n-gram containing one is not counted (the lists
are lists of words, as AntConc's default token definition makes them). Each row has its count, its
count per million n-grams of the same kind (the population: every n-gram counted), and its range: the
number of source files it occurs in. Ties are ordered by the string."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import numpy as np

from iclr25.core.errors import UserError

MAX_N = 8


@dataclass(frozen=True)
class FreqRow:
    string: str
    count: int
    per_million: float
    files: int  # range: source files it occurs in


@dataclass(frozen=True)
class FrequencyList:
    n: int
    population: int  # n-grams counted (per-million base)
    distinct: int  # distinct n-grams counted (before min_count and top_k)
    n_files: int
    rows: list[FreqRow]

    def to_csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["rank", "count", "per_million", "files", "string"])
        for i, r in enumerate(self.rows, 1):
            w.writerow([i, r.count, f"{r.per_million:.4f}", r.files, r.string])
        return buf.getvalue()

    def format(self) -> list[str]:
        head = "n-gram" if self.n > 1 else "word"
        out = [f"{'rank':>6}  {'count':>9}  {'per_million':>11}  {'files':>5}  {head}"]
        for i, r in enumerate(self.rows, 1):
            out.append(f"{i:>6}  {r.count:>9}  {r.per_million:>11.1f}  {r.files:>5}  {r.string}")
        return out


def _grams(index, n: int, punctuation: bool, chunk: int = 1 << 22) -> tuple[np.ndarray, np.ndarray, int]:
    """(distinct n-grams as (k, n) type ids, their counts, n-grams counted)."""
    from iclr25.softmatcha.results import group_rows
    tokens = index.tokens
    keep = np.ones(len(index.vocab), dtype=bool) if punctuation else np.asarray(index.is_word, bool).copy()
    keep[0] = False
    if n == 1:
        counts = np.where(keep, np.asarray(index.frequencies, dtype=np.int64), 0)
        ids = np.flatnonzero(counts)
        return ids[:, None], counts[ids], int(counts.sum())
    n_win = int(tokens.shape[0]) - n + 1
    parts_rows, parts_counts, total = [], [], 0
    for a in range(0, max(n_win, 0), chunk):
        b = min(n_win, a + chunk)
        block = np.asarray(tokens[a:b + n - 1]).astype(np.int64)
        ok = np.ones(b - a, dtype=bool)
        for i in range(n):
            ok &= keep[block[i:i + b - a]]
        start = np.flatnonzero(ok)
        if start.size == 0:
            continue
        rows = np.stack([block[start + i] for i in range(n)], axis=1)
        total += int(start.size)
        uniq, (cnt,) = group_rows(rows, (np.ones(start.size, np.int64),), (np.add,))
        parts_rows.append(uniq)
        parts_counts.append(cnt)
    if not parts_rows:
        return np.empty((0, n), np.int64), np.empty(0, np.int64), 0
    if len(parts_rows) == 1:
        return parts_rows[0], parts_counts[0].astype(np.int64), total
    uniq, (cnt,) = group_rows(np.concatenate(parts_rows), (np.concatenate(parts_counts),), (np.add,))
    return uniq, cnt.astype(np.int64), total


def occurrences(index, type_ids: np.ndarray) -> np.ndarray:
    """Start positions of the exact token sequence `type_ids` (postings when the index has them)."""
    from iclr25.softmatcha.search import find_positions, scan_positions
    n_types = len(index.vocab)
    masks = []
    for t in type_ids.tolist():
        mk = np.zeros(n_types, dtype=bool)
        mk[int(t)] = True
        masks.append(mk)
    if getattr(index, "postings", None) is not None:
        ids = [np.array([int(t)], np.int64) for t in type_ids.tolist()]
        return find_positions(masks, index.tokens, index.indptr, index.postings, freq=index.frequencies,
                              ids=ids)[0]
    return scan_positions(masks, index.tokens)


def files_of(index, positions: np.ndarray) -> np.ndarray:
    """The source file index of each position."""
    lines = np.searchsorted(index.line_starts, positions, side="right") - 1
    firsts = np.array([s["first_line"] for s in index.meta["sources"]], dtype=np.int64)
    return np.searchsorted(firsts, lines, side="right") - 1


def frequency_list(index, n: int = 1, *, min_count: int = 1, top_k: int | None = None,
                   punctuation: bool = False) -> FrequencyList:
    """The n-gram frequency list of `index` (an `Index` or an in-memory corpus): rows with count >=
    `min_count`, most frequent first, ties by string, the first `top_k` (None: all). The range (files)
    of a row costs one exact lookup of its occurrences."""
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or not 1 <= n <= MAX_N:
        raise UserError(f"n must be an integer in [1, {MAX_N}], got {n!r}")
    if isinstance(min_count, bool) or not isinstance(min_count, int | np.integer) or min_count < 1:
        raise UserError(f"min_count must be a positive integer, got {min_count!r}")
    if top_k is not None and (isinstance(top_k, bool) or top_k < 1):
        raise UserError(f"top_k must be a positive integer, got {top_k!r}")
    rows, counts, population = _grams(index, n, punctuation)
    distinct = int(counts.size)
    sel = np.flatnonzero(counts >= min_count)
    if top_k is not None and sel.size > top_k:
        kth = np.sort(counts[sel])[::-1][top_k - 1]
        sel = sel[counts[sel] >= kth]  # every row that can be in the first top_k, ties included
    vocab = index.vocab
    cand = sorted(((int(counts[i]), " ".join(vocab[int(t)] for t in rows[i]), i) for i in sel.tolist()),
                  key=lambda r: (-r[0], r[1]))
    if top_k is not None:
        cand = cand[:top_k]
    out = []
    for c, s, i in cand:
        files = int(np.unique(files_of(index, occurrences(index, rows[i]))).size)
        out.append(FreqRow(s, c, 1e6 * c / population if population else 0.0, files))
    return FrequencyList(int(n), population, distinct, len(index.meta["sources"]), out)
