"""`soft_grep`: soft matching without an index, for small inputs. Lines are tokenized into an in-memory
token array (separators between lines), Step 1 runs over the input's own vocabulary, and every window
is tested (the paper's naive scan, vectorised with numpy)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from functools import cached_property
from pathlib import Path

import numpy as np

from iclr25.core.errors import UserError
from iclr25.softmatcha.embeddings import Embeddings
from iclr25.softmatcha.index import Index, SearchConfig, Thresholds, _resolve_embeddings
from iclr25.softmatcha.index_format import SEP_TOKEN
from iclr25.softmatcha.inputs import ReadStats, expand_files, read_lines
from iclr25.softmatcha.results import SearchResult
from iclr25.softmatcha.search import scan_positions
from iclr25.softmatcha.tokenize import get_tokenizer

Files = Sequence[str | os.PathLike] | str | os.PathLike


class MemoryCorpus(Index):
    """An `Index` look-alike held in memory without postings (only what a scan needs)."""

    def __init__(self, sources: list[tuple[str, list[str]]], embeddings: Embeddings, tokenizer: str,
                 config: SearchConfig | None = None, read: ReadStats | None = None) -> None:
        self.embeddings = embeddings
        self.tokenizer = get_tokenizer(tokenizer)
        self.config = config or SearchConfig(list_cache=0)  # built for one search: keep no lists
        self.path = Path("<memory>")
        self._lines: list[str] = []
        vocab: dict[str, int] = {SEP_TOKEN: 0}
        sd = vocab.setdefault
        ids: list[int] = [0]
        meta_sources = []
        for name, lines in sources:
            meta_sources.append({"name": name, "first_line": len(self._lines), "n_lines": len(lines)})
            for toks in self.tokenizer.tokenize_lines(lines):
                ids += [sd(t, len(vocab)) for t in toks]
                ids.append(0)
            self._lines += lines
        self.tokens = np.asarray(ids, dtype=np.uint32)
        self._vocab = list(vocab)
        self.emb_rows = embeddings.ids(self._vocab).astype(np.int32)
        self.emb_rows[0] = 0
        self.line_bytes = None
        n_tokens = int(self.tokens.size) - len(self._lines) - 1
        read = read or ReadStats()
        self.read_warnings = read.warnings()
        self.meta = {"tokenizer": self.tokenizer.name, "n_tokens": n_tokens,
                     "n_lines": len(self._lines), "n_types": len(self._vocab), "sources": meta_sources,
                     "has_text": True, "invalid_utf8_lines": read.invalid_utf8_lines,
                     "embeddings": {"name": embeddings.name, "fingerprint": embeddings.fingerprint}}
        self._first_lines = np.array([s["first_line"] for s in meta_sources], dtype=np.int64)

    @cached_property
    def vocab(self) -> list[str]:
        return self._vocab

    @cached_property
    def line_starts(self) -> np.ndarray:
        return np.flatnonzero(self.tokens == 0).astype(np.int64)

    @cached_property
    def frequencies(self) -> np.ndarray:
        return np.bincount(self.tokens, minlength=len(self._vocab))

    @cached_property
    def indptr(self) -> np.ndarray:
        """CSR pointers of the (absent) postings: where each type's suffixes start in the suffix array."""
        return np.r_[0, np.cumsum(self.frequencies)].astype(np.int64)

    def line_text(self, k: int) -> str:
        return self._lines[k]

    def _line_spans(self, k: int, text: str) -> list[tuple[int, int]]:
        return self.tokenizer.char_spans(text)

    def search(self, pattern: str | Sequence[str], threshold: Thresholds | None = None,
               warn: bool = True, case_sensitive: bool = False) -> SearchResult:
        """Step 1 as in the index; Step 2 replaced by a scan of every window."""
        import warnings
        t0 = time.perf_counter()
        slots, warns = self.slots(pattern, threshold)
        positions = scan_positions([s.mask for s in slots], self.tokens)
        if case_sensitive:
            positions = positions[self.case_filter(positions, pattern, slots)]
        seconds = time.perf_counter() - t0
        if warn:
            for w in warns:
                warnings.warn(w, stacklevel=2)
        return SearchResult(self, tuple(s.token for s in slots), tuple(s.threshold for s in slots),
                            positions, [s.scores for s in slots], seconds, {"candidates": positions.size},
                            warns)


def _read_sources(files: Files | None, lines: Iterable[str] | None, hidden: bool, binary: bool,
                  ignore: bool = True) -> tuple[list[tuple[str, list[str]]], ReadStats]:
    stats = ReadStats()
    if (files is None) == (lines is None):
        raise UserError("give exactly one of files= or lines=")
    if lines is not None:
        if isinstance(lines, str):
            lines = lines.splitlines()
        return [("<lines>", [str(x).replace("\n", " ") for x in lines])], stats
    paths = expand_files(files, hidden=hidden, ignore=ignore)  # type: ignore[arg-type]
    out = [("(standard input)" if str(p) == "-" else str(p), list(read_lines(p, stats, binary)))
           for p in paths]
    return [s for s in out if s[0] not in stats.binary_files], stats


def soft_grep(pattern: str | Sequence[str], files: Files | None = None, *, lines: Iterable[str] | None = None,
              embeddings: Embeddings | str | None = None, threshold: Thresholds | None = None,
              tokenizer: str = "glove", hidden: bool = False, binary: bool = False, ignore: bool = True,
              case_sensitive: bool = False) -> SearchResult:
    """Search `files` (paths, folders, `-` for standard input) or `lines` for `pattern` without building
    an index. Folders skip hidden entries unless `hidden`; binary files are skipped unless `binary`
    (`res.index.read_warnings` says which).

    >>> import numpy as np
    >>> emb = Embeddings.from_arrays(["cat", "dog", "car"], np.array([[1, 0], [.9, .3], [0, 1]]))
    >>> [m.matched_text for m in soft_grep("a cat", lines=["a dog", "a car", "A Cat"], embeddings=emb,
    ...                                      threshold=[1.0, 0.9])]
    ['a dog', 'A Cat']
    """
    corpus = memory_corpus(files, lines=lines, embeddings=embeddings, tokenizer=tokenizer, hidden=hidden,
                           binary=binary, ignore=ignore)
    return corpus.search(pattern, threshold, case_sensitive=case_sensitive)


def memory_corpus(files: Files | None = None, *, lines: Iterable[str] | None = None,
                  embeddings: Embeddings | str | None = None, tokenizer: str = "glove", hidden: bool = False,
                  binary: bool = False, ignore: bool = True) -> MemoryCorpus:
    """The in-memory corpus `soft_grep` searches (its `variants` build a suffix array in memory)."""
    sources, read = _read_sources(files, lines, hidden, binary, ignore)
    return MemoryCorpus(sources, _resolve_embeddings(embeddings), tokenizer, read=read)


