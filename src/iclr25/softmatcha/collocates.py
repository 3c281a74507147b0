"""Collocates of a query's hits, as CQPweb and AntConc list them: which words occur near the hits more
often than chance, with the window frequency beside the corpus frequency, mutual information and the
log-likelihood statistic.

Definitions (Evert 2008, "Corpora and collocations", surface co-occurrence by spans):

- **Node**: every hit of the query (all patterns of a batch together); a hit covers its matched tokens.
- **Span**: for each hit, the `left` nearest tokens before its first token and the `right` nearest after
  its last one, never past a line end (a line is a document unit here). Tokens inside any hit are not
  in any span (a node is not its own collocate). Windows are counted in words: punctuation tokens are
  skipped and counted nowhere unless `punctuation=True`. The span is the *union* of the windows, so a
  token near two hits counts once.
- **Population**: every corpus token outside the hits (words only, unless `punctuation`); N its size.
- For a word w: O11 = its tokens in the span, R1 = the span's size, C1 = its tokens in the population;
  the 2x2 table O11, O12 = R1 - O11, O21 = C1 - O11, O22 = N - R1 - C1 + O11, with expected counts
  E_ij = R_i * C_j / N.
- **MI** (Church & Hanks 1990, "Word association norms, mutual information, and lexicography"):
  log2(O11 / E11). 0 is independence; it overrates rare pairs, hence the minimum count.
- **G²** (Dunning 1993, "Accurate methods for the statistics of surprise and coincidence"): the
  log-likelihood ratio 2 * sum_ij O_ij * ln(O_ij / E_ij) (0 * ln 0 = 0), signed as Evert does: negative
  when O11 < E11 (the word avoids the hits). Under independence G² is chi-square with 1 df: |G²| >= 3.84
  is p < 0.05, >= 10.83 p < 0.001 (one test; a table tests many words at once).

`left` / `right` count w in the union of the left / right windows alone (a token left of one hit and
right of another counts in both)."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from iclr25.core.errors import UserError

SORTS = ("g2", "mi", "freq")
MAX_SPAN = 50
G2_P05, G2_P001 = 3.84, 10.83  # chi-square(1) critical values


@dataclass(frozen=True)
class Collocate:
    string: str
    window: int  # O11: tokens of the word in the span
    left: int
    right: int
    expected: float  # E11
    corpus: int  # the word's frequency in the whole corpus
    mi: float
    g2: float  # signed log-likelihood

    def to_dict(self) -> dict:
        return {"collocate": self.string, "window": self.window, "left": self.left, "right": self.right,
                "expected": round(self.expected, 4), "corpus": self.corpus, "mi": round(self.mi, 4),
                "g2": round(self.g2, 4)}


@dataclass(frozen=True)
class CollocationTable:
    pattern: str
    n_hits: int
    left: int
    right: int
    span_tokens: int  # R1
    population: int  # N
    by: str
    min_count: int
    rows: list[Collocate]

    def to_csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["rank", "collocate", "window", "left", "right", "expected", "corpus", "mi", "g2"])
        for i, c in enumerate(self.rows, 1):
            w.writerow([i, c.string, c.window, c.left, c.right, f"{c.expected:.4f}", c.corpus,
                        f"{c.mi:.4f}", f"{c.g2:.4f}"])
        return buf.getvalue()

    def format(self) -> list[str]:
        """The aligned table a terminal shows (the header line first)."""
        width = max([9, *(len(c.string) for c in self.rows)])
        out = [f"{'rank':>4}  {'collocate':<{width}}  {'window':>6}  {'left':>5}  {'right':>5}  "
               f"{'expected':>8}  {'corpus':>8}  {'MI':>6}  {'G2':>9}"]
        for i, c in enumerate(self.rows, 1):
            out.append(f"{i:>4}  {c.string:<{width}}  {c.window:>6}  {c.left:>5}  {c.right:>5}  "
                       f"{c.expected:>8.2f}  {c.corpus:>8}  {c.mi:>6.2f}  {c.g2:>9.2f}")
        return out

    def describe(self) -> str:
        return (f"{self.n_hits} hits of {self.pattern!r}; span {self.left} left / {self.right} right, within "
                f"lines: {self.span_tokens} tokens; population {self.population} tokens (the hits' own "
                "excluded)")


def reference() -> str:
    """What the scores are measured against (printed beside every table)."""
    return (f"MI = log2(O/E): 0 is independence (Church & Hanks 1990); G2 = signed log-likelihood "
            f"(Dunning 1993): |G2| >= {G2_P05} is p < 0.05 and >= {G2_P001} p < 0.001 for one word (no "
            "correction for the many words of a table)")


def check_options(left: int, right: int, min_count: int, by: str, top_k: int | None) -> None:
    for name, v in (("left", left), ("right", right)):
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or not 0 <= v <= MAX_SPAN:
            raise UserError(f"{name} span must be an integer in [0, {MAX_SPAN}], got {v!r}")
    if left + right == 0:
        raise UserError("the span is empty: give left or right > 0")
    if isinstance(min_count, bool) or not isinstance(min_count, int | np.integer) or min_count < 1:
        raise UserError(f"min_count must be a positive integer, got {min_count!r}")
    if by not in SORTS:
        raise UserError(f"sort by g2, mi or freq, got {by!r}")
    if top_k is not None and (isinstance(top_k, bool) or top_k < 1):
        raise UserError(f"top_k must be a positive integer, got {top_k!r}")


def side_positions(tokens: np.ndarray, keep: np.ndarray, anchors: np.ndarray, lo: np.ndarray,
                   hi: np.ndarray, k: int, step: int) -> np.ndarray:
    """The positions of the first `k` kept tokens from each anchor (exclusive) going `step` (-1: left,
    +1: right), strictly between lo and hi (the line's separators). Exact: a row whose window has not
    yet found k kept tokens nor reached its line end is looked at again, twice as far."""
    out: list[np.ndarray] = []
    if k == 0 or anchors.size == 0:
        return np.empty(0, np.int64)
    n = tokens.shape[0]
    pending = np.arange(anchors.size)
    width = 2 * k + 2
    while pending.size:
        at = anchors[pending, None] + step * np.arange(1, width + 1)[None, :]
        inside = (at > lo[pending, None]) & (at < hi[pending, None])
        ok = inside & keep[np.asarray(tokens[np.clip(at, 0, n - 1)])]
        rank = np.cumsum(ok, axis=1)
        sel = ok & (rank <= k)
        done = (rank[:, -1] >= k) | ~inside[:, -1]
        out.append(at[done][sel[done]])
        pending = pending[~done]
        width *= 2
    return np.concatenate(out).astype(np.int64)


def collocates(index, positions: np.ndarray, lengths: np.ndarray | int, *, left: int = 5, right: int = 5,
               min_count: int = 2, by: str = "g2", top_k: int | None = None, punctuation: bool = False,
               pattern: str = "") -> CollocationTable:
    """The collocation table of the hits starting at `positions` (global token positions) with
    `lengths` tokens each (one int for all), on `index` (an `Index` or an in-memory corpus); see the
    module docstring for every definition. Rows with a window count >= `min_count`, sorted by `by`
    (g2, mi or freq = the window count; ties by the other scores, then the string), the first `top_k`."""
    check_options(left, right, min_count, by, top_k)
    tokens = index.tokens
    n_types = len(index.vocab)
    keep = np.ones(n_types, dtype=bool) if punctuation else np.asarray(index.is_word, dtype=bool).copy()
    keep[0] = False  # the line separator
    positions = np.asarray(positions, dtype=np.int64)
    lengths = np.broadcast_to(np.asarray(lengths, dtype=np.int64), positions.shape)
    order = np.argsort(positions, kind="stable")
    positions, lengths = positions[order], lengths[order]
    # the node: every token inside a hit
    node = np.unique(np.repeat(positions, lengths) + (np.arange(int(lengths.sum())) - np.repeat(
        np.cumsum(lengths) - lengths, lengths))) if positions.size else np.empty(0, np.int64)
    ls = index.line_starts
    line = np.searchsorted(ls, positions, side="right") - 1
    lo, hi = ls[line], ls[np.minimum(line + 1, ls.size - 1)]
    ends = positions + lengths - 1
    lp = side_positions(tokens, keep, positions, lo, hi, left, -1)
    rp = side_positions(tokens, keep, ends, lo, hi, right, +1)
    lp, rp = np.setdiff1d(lp, node), np.setdiff1d(rp, node)  # unique, node tokens out
    span = np.union1d(lp, rp)

    def count(pos: np.ndarray) -> np.ndarray:
        return np.bincount(np.asarray(tokens[pos]).astype(np.int64), minlength=n_types)

    o11, o_left, o_right = count(span), count(lp), count(rp)
    freq = np.asarray(index.frequencies, dtype=np.int64)
    node_freq = count(node)
    c1 = np.where(keep, freq - node_freq, 0)
    big_n = int(c1.sum())
    r1 = int(span.size)
    cand = np.flatnonzero(keep & (o11 >= min_count))
    rows = [_row(index.vocab[t], int(o11[t]), int(o_left[t]), int(o_right[t]), int(freq[t]), r1, int(c1[t]),
                 big_n) for t in cand.tolist()]
    key = {"g2": lambda c: (-c.g2, -c.mi, -c.window, c.string),
           "mi": lambda c: (-c.mi, -c.g2, -c.window, c.string),
           "freq": lambda c: (-c.window, -c.g2, -c.mi, c.string)}[by]
    rows.sort(key=key)
    return CollocationTable(pattern, int(positions.size), left, right, r1, big_n, by, min_count,
                            rows[:top_k] if top_k is not None else rows)


def _row(string: str, o11: int, left: int, right: int, corpus: int, r1: int, c1: int, n: int) -> Collocate:
    e11 = r1 * c1 / n
    mi = math.log2(o11 / e11)
    g2 = g_squared(((o11, r1 - o11), (c1 - o11, n - r1 - c1 + o11)))
    return Collocate(string, o11, left, right, e11, corpus, mi, g2 if o11 >= e11 else -g2)


def g_squared(table: Sequence[Sequence[int]]) -> float:
    """Dunning's log-likelihood ratio G² = 2 sum O ln(O / E) of a 2x2 contingency table (unsigned)."""
    (a, b), (c, d) = table
    n = a + b + c + d
    rows, cols = (a + b, c + d), (a + c, b + d)
    total = 0.0
    for o, r, col in ((a, 0, 0), (b, 0, 1), (c, 1, 0), (d, 1, 1)):
        if o > 0:
            total += o * math.log(o * n / (rows[r] * cols[col]))
    return max(0.0, 2.0 * total)
