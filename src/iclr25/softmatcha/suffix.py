"""A token-ID suffix array beside the index (issue 29), built by a maintained library, never a hand-written
sort, and the range operations the ranked-variant search needs.

SA is the permutation of the n positions of the forward token array `t` that sorts its suffixes
lexicographically by token id. The suffixes that start with a token sequence u form one contiguous range
[lo, hi) of SA, so count(u) = hi - lo, and the occurrences of u are SA[lo:hi]. Within that range the
suffixes are sorted by their (|u|+1)-th token, so extending u by one token w is a binary search inside
[lo, hi) on t[SA[k] + |u|]. Depth 0 needs no search: the range of a single type w is the CSR slice of its
postings, [indptr[w], indptr[w+1]) (both sort positions by type id first).

Two builders, compared by `benchmarks/softmatcha/scale.py --compare-backends`: pydivsufsort
(libdivsufsort on the uint32 ids, in memory) and tokengrams (Rust, from the token file on disk, 8-byte
table converted to the stored width); "auto" picks by size (`choose_backend`). The stored array is uint32
below 2^32 positions (4 B/token), uint64 above."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np

from iclr25.core.errors import UserError

BACKENDS = ("auto", "divsufsort", "tokengrams")
DEFAULT_BACKEND = "auto"
# pydivsufsort sorts uint32 ids as a big-endian byte string of 4n bytes, then keeps every 4th suffix: its
# table has 4n entries, int32 up to 2^31 - 1 of them (16 B/token in RAM), int64 above (32 B/token: 32 GB at
# 1e9 tokens). "auto" takes it (measured faster here) while the int32 table fits, tokengrams (8-byte table on
# disk, memory-mapped) above.
_DIVSUFSORT_MAX_TOKENS = (2**31 - 1) // 4


def choose_backend(backend: str, n: int) -> str:
    if backend not in BACKENDS:
        raise UserError(f"suffix-array backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if backend != "auto":
        return backend
    return "divsufsort" if n <= _DIVSUFSORT_MAX_TOKENS else "tokengrams"


_GATHER_BELOW = 4096  # ranges up to this size are split by reading their column once


def sa_dtype(n: int) -> np.dtype:
    return np.dtype(np.uint32 if n < 2**32 else np.uint64)


def build_suffix_array(tokens: np.ndarray, backend: str = DEFAULT_BACKEND,
                       token_file: str | os.PathLike | None = None) -> np.ndarray:
    """SA of the uint32 array `tokens` (positions as uint32/uint64). `token_file`: the same ids on disk as
    little-endian uint32 (tokengrams reads them from there instead of from a copy)."""
    n = int(tokens.shape[0])
    backend = choose_backend(backend, n)
    if n == 0:
        return np.empty(0, dtype=np.uint32)
    if backend == "divsufsort":
        from pydivsufsort import divsufsort
        sa = divsufsort(np.ascontiguousarray(tokens, dtype=np.uint32))
        return sa.astype(sa_dtype(n), copy=False)
    return _tokengrams_sa(tokens, token_file)


def _tokengrams_sa(tokens: np.ndarray, token_file: str | os.PathLike | None) -> np.ndarray:
    import tokengrams
    n = int(tokens.shape[0])
    with tempfile.TemporaryDirectory() as d:
        if token_file is None:
            token_file = Path(d) / "tokens.bin"
            np.ascontiguousarray(tokens, dtype=np.uint32).tofile(token_file)
        table = Path(d) / "table.bin"
        # tokengrams reads uint16 ids when vocab <= 2^16: a larger vocab forces the uint32 file we have
        vocab = max(int(tokens.max()) + 1, 2**16 + 1)
        tokengrams.MemmapIndex.build(str(token_file), str(table), vocab, False)
        out = np.empty(n, dtype=sa_dtype(n))
        step = 1 << 24
        with open(table, "rb") as f:  # read, not mapped: 8 B/token of table pages never become resident
            for s in range(0, n, step):
                out[s:s + step] = np.fromfile(f, dtype=np.uint64, count=min(step, n - s))
    return out


class SuffixRanges:
    """Range operations on (tokens, SA, indptr). All ranges are half-open [lo, hi) over SA."""

    def __init__(self, tokens: np.ndarray, sa: np.ndarray, indptr: np.ndarray) -> None:
        self.tokens, self.sa, self.indptr = tokens, sa, np.asarray(indptr)

    def _column(self, lo: int, hi: int, d: int) -> np.ndarray:
        """t[SA[k] + d] for k in [lo, hi) (ascending when every suffix there shares its first d tokens).
        In bounds: a range with d > 0 holds only suffixes whose first d tokens are no separator, and the
        array ends with one."""
        return np.asarray(self.tokens[np.asarray(self.sa[lo:hi], dtype=np.int64) + d])

    def split(self, lo: int, hi: int, d: int, cand: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For the sorted type ids `cand`: the sub-ranges [a_j, b_j) of [lo, hi) whose suffixes have
        token cand_j at offset d (empty where a_j == b_j)."""
        cand = np.asarray(cand, dtype=np.int64)
        if d == 0:
            return self.indptr[cand], self.indptr[cand + 1]
        if hi - lo <= max(_GATHER_BELOW, 16 * cand.size):
            col = self._column(lo, hi, d)
            return (lo + np.searchsorted(col, cand, "left"), lo + np.searchsorted(col, cand, "right"))
        return self._bisect(lo, hi, d, cand, "left"), self._bisect(lo, hi, d, cand, "right")

    def _bisect(self, lo: int, hi: int, d: int, cand: np.ndarray, side: str) -> np.ndarray:
        """Vectorised binary search of every candidate at once: log2(hi - lo) rounds of |cand| reads."""
        a = np.full(cand.size, lo, dtype=np.int64)
        b = np.full(cand.size, hi, dtype=np.int64)
        while True:
            act = np.flatnonzero(a < b)
            if act.size == 0:
                return a
            mid = (a[act] + b[act]) // 2
            v = np.asarray(self.tokens[np.asarray(self.sa[mid], dtype=np.int64) + d]).astype(np.int64)
            go_right = v < cand[act] if side == "left" else v <= cand[act]
            a[act] = np.where(go_right, mid + 1, a[act])
            b[act] = np.where(go_right, b[act], mid)

    def children(self, lo: int, hi: int, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every token w != separator that follows the range's common prefix of length d, with its
        sub-range: (types, starts, ends). O(hi - lo) for d > 0 (the column is read once)."""
        if d == 0:
            types = np.flatnonzero(np.diff(self.indptr) > 0)
            types = types[types != 0]
            return types, self.indptr[types], self.indptr[types + 1]
        col = self._column(lo, hi, d)
        starts = np.flatnonzero(np.r_[True, col[1:] != col[:-1]])
        ends = np.r_[starts[1:], col.size]
        types = col[starts].astype(np.int64)
        keep = types != 0
        return types[keep], lo + starts[keep], lo + ends[keep]

    def string(self, lo: int, d: int) -> np.ndarray:
        """The common prefix of length d of the range starting at lo: a variant's type ids."""
        p = int(self.sa[lo])
        return np.asarray(self.tokens[p:p + d]).astype(np.int64)

    def positions(self, lo: int, hi: int) -> np.ndarray:
        return np.asarray(self.sa[lo:hi], dtype=np.int64)
