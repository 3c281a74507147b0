"""Where in a corpus a query's hits fall: hits per part (file, folder, or the KJV's books) beside each part's
size, and two dispersion measures over the parts.

- **Parts**: `by="file"` the index's source files; `by="folder"` the files grouped by their folder (the
  subcorpora of a corpus laid out one folder per genre, period, ...); `by="book"` the books of the built-in
  KJV. A part's size t_i is its number of word tokens (punctuation not counted); T = sum t_i; f = hits.
- **Gries' DP** (Gries 2008, "Dispersions and adjusted frequencies in corpora"): s_i = t_i / T (expected
  share), o_i = v_i / f (observed share of the hits), DP = 0.5 * sum_i |o_i - s_i|: 0 when the hits
  follow the parts' sizes exactly, up to 1 - min_i s_i when they all sit in the smallest part.
  DP_norm = DP / (1 - min_i s_i) (Lijffijt & Gries 2012) rescales that maximum to 1.
- **Juilland's D** (Juilland & Chang-Rodriguez 1964), on the hits per token r_i = v_i / t_i so that
  unequal part sizes do not count as unevenness: V = sd(r) / mean(r) (population sd), D = 1 - V /
  sqrt(n - 1); 1 = perfectly even, 0 = all in one part.
Both need at least two non-empty parts and one hit; parts without tokens are left out of both."""

from __future__ import annotations

import csv
import io
import math
import os
import re
from dataclasses import dataclass

import numpy as np

from iclr25.core.errors import UserError

GROUPS = ("file", "folder", "book")
_BOOK = re.compile(r"^(.+?)\d+:\d+$")


@dataclass(frozen=True)
class Part:
    name: str
    tokens: int
    hits: int

    @property
    def per_million(self) -> float:
        return 1e6 * self.hits / self.tokens if self.tokens else 0.0


@dataclass(frozen=True)
class Dispersion:
    pattern: str
    by: str
    parts: list[Part]
    hits: int
    tokens: int
    dp: float | None
    dp_norm: float | None
    juilland_d: float | None

    @property
    def parts_with_hits(self) -> int:
        return sum(p.hits > 0 for p in self.parts)

    def summary(self) -> str:
        if self.dp is None:
            why = "no hit" if self.hits == 0 else "fewer than 2 non-empty parts"
            return f"{self.pattern}: {self.hits} hits; dispersion undefined ({why})"
        return (f"{self.pattern}: {self.hits} hits in {self.parts_with_hits} of {len(self.parts)} "
                f"{self.by}s; "
                f"Gries' DP {self.dp:.3f} (DP_norm {self.dp_norm:.3f}; 0 = even, 1 = all in one part), "
                f"Juilland's D {self.juilland_d:.3f} (1 = even, 0 = all in one part)")

    def format(self) -> list[str]:
        width = max([4, *(len(p.name) for p in self.parts)])
        out = [f"{self.by:<{width}}  {'tokens':>10}  {'hits':>7}  {'per_million':>11}  {'hit_share':>9}  "
               f"{'size_share':>10}"]
        for p in self.parts:
            out.append(f"{p.name:<{width}}  {p.tokens:>10}  {p.hits:>7}  {p.per_million:>11.1f}  "
                       f"{p.hits / self.hits if self.hits else 0:>9.3f}  "
                       f"{p.tokens / self.tokens if self.tokens else 0:>10.3f}")
        return out

    def csv_rows(self) -> list[list]:
        def r(x: float | None) -> str:
            return "" if x is None else f"{x:.6f}"
        return [[self.pattern, p.name, p.tokens, p.hits, f"{p.per_million:.4f}", r(self.dp), r(self.dp_norm),
                 r(self.juilland_d)] for p in self.parts]


CSV_HEADER = ["pattern", "part", "tokens", "hits", "per_million", "dp", "dp_norm", "juilland_d"]


def to_csv(tables: list[Dispersion]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_HEADER)
    for t in tables:
        w.writerows(t.csv_rows())
    return buf.getvalue()


def measures(tokens: np.ndarray, hits: np.ndarray) -> tuple[float | None, float | None, float | None]:
    """(DP, DP_norm, Juilland's D) of hits per part over parts of `tokens` words (see the module)."""
    t = np.asarray(tokens, dtype=np.float64)
    v = np.asarray(hits, dtype=np.float64)
    nz = t > 0
    t, v = t[nz], v[nz]
    f = v.sum()
    if t.size < 2 or f == 0:
        return None, None, None
    s, o = t / t.sum(), v / f
    dp = 0.5 * float(np.abs(o - s).sum())
    dp_norm = dp / (1.0 - float(s.min()))
    r = v / t
    d = 1.0 - float(r.std() / r.mean()) / math.sqrt(t.size - 1)
    return dp, dp_norm, d


def corpus_parts(index, by: str = "file", labels: list[str] | None = None) -> tuple[list[str], np.ndarray]:
    """(part names in corpus order, (n_lines,) part id of every line). `labels`: each line's KJV
    reference (`Ge1:1`), needed by `by="book"`."""
    if by not in GROUPS:
        raise UserError(f"group by file, folder or book, got {by!r}")
    n_lines = int(index.n_lines)
    if by == "book":
        if labels is None or len(labels) != n_lines:
            raise UserError("--by book needs the built-in kjv (its lines carry book chapter:verse)")
        names: list[str] = []
        ids = np.empty(n_lines, dtype=np.int64)
        for k, ref in enumerate(labels):
            m = _BOOK.match(ref)
            book = m.group(1) if m else ref
            if not names or names[-1] != book:
                names.append(book)
            ids[k] = len(names) - 1
        return names, ids
    sources = index.meta["sources"]
    keys = [s["name"] if by == "file" else (os.path.dirname(s["name"]) or ".") for s in sources]
    names = list(dict.fromkeys(keys))
    where = {k: i for i, k in enumerate(names)}
    ids = np.empty(n_lines, dtype=np.int64)
    for s, k in zip(sources, keys, strict=True):
        ids[s["first_line"]:s["first_line"] + s["n_lines"]] = where[k]
    return names, ids


def part_sizes(index, part_of_line: np.ndarray, n_parts: int) -> np.ndarray:
    """Word tokens per part (punctuation and separators not counted)."""
    ls = np.asarray(index.line_starts, dtype=np.int64)
    is_word = np.asarray(index.is_word, dtype=bool)
    tokens = index.tokens
    at = np.zeros(ls.size, dtype=np.int64)  # words before each separator, in chunks (bounded memory)
    done, chunk = 0, 1 << 22
    for a in range(0, int(tokens.shape[0]), chunk):
        c = np.cumsum(is_word[np.asarray(tokens[a:a + chunk])], dtype=np.int64) + done
        i, j = np.searchsorted(ls, [a, a + c.size])
        at[i:j] = c[ls[i:j] - a]
        done = int(c[-1])
    per_line = at[1:] - at[:-1]
    return np.bincount(part_of_line, weights=per_line, minlength=n_parts).astype(np.int64)


def dispersion(index, positions: np.ndarray, *, by: str = "file", pattern: str = "",
               labels: list[str] | None = None, parts: tuple[list[str], np.ndarray, np.ndarray] | None = None
               ) -> Dispersion:
    """Hits (start `positions`) per part and their dispersion. `parts` (names, part of each line, sizes)
    can be passed to reuse them over several queries."""
    if parts is None:
        names, of_line = corpus_parts(index, by, labels)
        sizes = part_sizes(index, of_line, len(names))
    else:
        names, of_line, sizes = parts
    lines = np.searchsorted(index.line_starts, np.asarray(positions, dtype=np.int64), side="right") - 1
    hits = np.bincount(of_line[lines], minlength=len(names)) if lines.size else np.zeros(len(names), np.int64)
    dp, dp_norm, d = measures(sizes, hits)
    rows = [Part(n, int(t), int(h)) for n, t, h in zip(names, sizes.tolist(), hits.tolist(), strict=True)]
    return Dispersion(pattern, by, rows, int(hits.sum()), int(sizes.sum()), dp, dp_norm, d)
