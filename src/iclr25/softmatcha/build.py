"""Streaming index build: pass 1 tokenizes lines into a forward token file (vocabulary by first
occurrence); pass 2 is an external-memory counting sort of positions by type into memory-mapped
postings, chunk by chunk, so corpora larger than RAM build in bounded memory. The folder is written
under a temporary name, fsynced and renamed: an interrupted build never leaves an index that loads."""

from __future__ import annotations

import array
import json
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from iclr25.core.errors import UserError
from iclr25.core.runtime import progress
from iclr25.softmatcha.embeddings import Embeddings, WordLookup
from iclr25.softmatcha.index import check_output
from iclr25.softmatcha.index_format import (
    FORMAT,
    SEP_TOKEN,
    VERSION,
    file_checksums,
    fsync_dir,
    meta_digest,
)
from iclr25.softmatcha.inputs import ReadStats
from iclr25.softmatcha.publish import publish, staging
from iclr25.softmatcha.suffix import DEFAULT_BACKEND, build_suffix_array
from iclr25.softmatcha.tokenize import Tokenizer


@dataclass(frozen=True)
class BuildConfig:
    lines_per_block: int = 16_384  # lines tokenized per block in pass 1
    sort_chunk: int = 1 << 23  # positions per counting-sort chunk in pass 2 (bounded memory)
    store_text: bool = True  # keep a copy of the lines for display (text.txt)
    # sa.bin for ranked variants: auto / divsufsort / tokengrams (None: no suffix array)
    suffix_array: str | None = DEFAULT_BACKEND


LOOKUP_WIDTH = 64  # bytes: longer tokens stay out of the persisted vocabulary map (looked up by a dict)


@dataclass
class BuildStats(ReadStats):
    n_tokens: int = 0
    n_lines: int = 0
    seconds: float = 0.0


class _Writer:
    """Pass 1: tokens.bin (uint32), text.txt, line_bytes; the vocabulary in memory (a dict)."""

    def __init__(self, tmp: Path, tokenizer: Tokenizer, cfg: BuildConfig) -> None:
        self.tmp, self.tok, self.cfg = tmp, tokenizer, cfg
        self.vocab: dict[str, int] = {SEP_TOKEN: 0}
        self.tokens_f = open(tmp / "tokens.bin", "wb")  # noqa: SIM115 (closed in close())
        self.text_f = open(tmp / "text.txt", "wb") if cfg.store_text else None  # noqa: SIM115
        self.line_bytes = array.array("Q", [0])
        self.n_positions = 0
        self.n_tokens = 0
        self.n_lines = 0
        self._emit(np.zeros(1, dtype=np.uint32))  # leading separator

    def _emit(self, ids: np.ndarray) -> None:
        ids.tofile(self.tokens_f)
        self.n_positions += int(ids.size)

    def add_block(self, lines: list[str]) -> None:
        lines = [ln.replace("\n", " ").replace("\r", " ") for ln in lines]
        flat: list[str] = []
        for toks in self.tok.tokenize_lines(lines):
            flat += toks
            flat.append(SEP_TOKEN)
        vocab = self.vocab
        sd = vocab.setdefault
        ids = np.fromiter((sd(t, len(vocab)) for t in flat), dtype=np.int64, count=len(flat))
        if len(vocab) >= 2**32:
            raise UserError("more than 2^32 distinct tokens; the index stores uint32 type ids")
        self._emit(ids.astype(np.uint32))
        self.n_tokens += len(flat) - len(lines)
        self.n_lines += len(lines)
        if self.text_f is not None:
            pos = self.line_bytes[-1]
            for ln in lines:
                b = ln.encode("utf-8") + b"\n"
                self.text_f.write(b)
                pos += len(b)
                self.line_bytes.append(pos)

    def close(self) -> None:
        for f in (self.tokens_f, self.text_f):
            if f is not None:
                f.flush()
                os.fsync(f.fileno())
                f.close()


def counting_sort(tokens: np.ndarray, n_types: int, out: Path, chunk: int) -> tuple[np.ndarray, str]:
    """Pass 2: postings grouped by type, ascending positions within a type (a stable counting sort),
    written into a memory-mapped file chunk by chunk. Returns (indptr, postings dtype)."""
    n = tokens.shape[0]
    counts = np.zeros(n_types, dtype=np.int64)
    for s in range(0, n, chunk):
        counts += np.bincount(tokens[s:s + chunk], minlength=n_types)
    indptr = np.zeros(n_types + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    pdtype = np.uint32 if n < 2**32 else np.uint64
    postings = np.memmap(out, dtype=pdtype, mode="w+", shape=(n,))
    fill = indptr[:-1].copy()
    for s in progress(range(0, n, chunk), "sorting postings", total=(n + chunk - 1) // chunk):
        block = np.asarray(tokens[s:s + chunk])
        order = np.argsort(block, kind="stable")
        st = block[order]
        c = np.bincount(block, minlength=n_types)
        first = np.cumsum(c) - c  # where each type's run starts in the sorted block
        dest = fill[st] + (np.arange(block.size, dtype=np.int64) - first[st])
        postings[dest] = (order + s).astype(pdtype)
        fill += c
    postings.flush()
    del postings
    return indptr, np.dtype(pdtype).name


def _blocks(lines: Iterable[str], size: int) -> Iterator[list[str]]:
    block: list[str] = []
    for ln in lines:
        block.append(ln)
        if len(block) >= size:
            yield block
            block = []
    if block:
        yield block


def _is_index(folder: Path) -> bool:
    return (folder / "meta.json").is_file()


def build_index(lines_by_source: Iterable[tuple[str, Iterable[str]]], out: str | os.PathLike,
                tokenizer: Tokenizer, embeddings: Embeddings, *, overwrite: bool = False,
                config: BuildConfig | None = None, stats: BuildStats | None = None) -> dict[str, Any]:
    """Build an index folder at `out` from (source name, lines) pairs; returns its meta dict."""
    out = Path(out)
    config = config or BuildConfig()
    stats = stats or BuildStats()
    t0 = time.perf_counter()
    check_output(out, overwrite)
    with staging(out) as tmp:
        w = _Writer(tmp, tokenizer, config)
        sources = []
        try:
            for name, lines in lines_by_source:
                first = w.n_lines
                for block in progress(_blocks(lines, config.lines_per_block), f"tokenizing {name}"):
                    w.add_block(block)
                sources.append({"name": name, "first_line": first, "n_lines": w.n_lines - first})
        finally:
            w.close()
        if w.n_tokens == 0:
            raise UserError("the corpus is empty: no tokens in " +
                            (", ".join(s["name"] for s in sources) or "the input"))
        vocab = sorted(w.vocab, key=w.vocab.__getitem__)
        line_bytes = np.frombuffer(w.line_bytes, dtype=np.uint64) if config.store_text else None
        stats.n_tokens, stats.n_lines = w.n_tokens, w.n_lines
        meta = _finish(tmp, out, vocab, embeddings, tokenizer.name, w.n_positions, w.n_tokens, w.n_lines,
                       sources, line_bytes, stats, config, t0)
    return meta


def _finish(tmp: Path, out: Path, vocab: list[str], embeddings: Embeddings, tokenizer_name: str,
            n_positions: int, n_tokens: int, n_lines: int, sources: list[dict[str, Any]],
            line_bytes: np.ndarray | None, stats: BuildStats, config: BuildConfig,
            t0: float) -> dict[str, Any]:
    """Pass 2 + the suffix array + the small arrays + checksums + meta.json, then publish the folder
    atomically."""
    tokens = np.memmap(tmp / "tokens.bin", dtype=np.uint32, mode="r", shape=(n_positions,))
    indptr, pdtype = counting_sort(tokens, len(vocab), tmp / "postings.bin", config.sort_chunk)
    sa_spec = None
    if config.suffix_array:
        sa = build_suffix_array(tokens, config.suffix_array, token_file=tmp / "tokens.bin")
        _save(tmp / "sa.bin", sa)
        sa_spec = {"dtype": sa.dtype.name, "shape": [n_positions]}
        del sa
    del tokens
    emb_rows = embeddings.ids(vocab).astype(np.int32)
    emb_rows[0] = 0
    _save(tmp / "indptr.bin", indptr)
    _save(tmp / "emb_rows.bin", emb_rows)
    _save(tmp / "is_word.bin", word_classes(vocab))
    (tmp / "vocab.txt").write_text("\n".join(vocab), encoding="utf-8")
    WordLookup.from_words(vocab, max_width=LOOKUP_WIDTH).save(tmp)  # token -> type id without a dict
    arrays = {
        "tokens": {"dtype": "uint32", "shape": [n_positions]},
        "postings": {"dtype": pdtype, "shape": [n_positions]},
        "indptr": {"dtype": "int64", "shape": [len(vocab) + 1]},
        "emb_rows": {"dtype": "int32", "shape": [len(vocab)]},
        "is_word": {"dtype": "uint8", "shape": [len(vocab)]},
    }
    if sa_spec is not None:
        arrays["sa"] = sa_spec
    if line_bytes is not None:
        _save(tmp / "line_bytes.bin", line_bytes)
        arrays["line_bytes"] = {"dtype": "uint64", "shape": [int(line_bytes.size)]}
    files = {p.name: file_checksums(p) for p in sorted(tmp.iterdir())}
    stats.seconds = time.perf_counter() - t0
    meta = {
        "format": FORMAT, "version": VERSION,
        "tokenizer": tokenizer_name,
        "embeddings": {"name": embeddings.name, "fingerprint": embeddings.fingerprint,
                       "dim": embeddings.dim, "source": embeddings.source,
                       "remove_top": int(getattr(embeddings, "remove_top", 0))},
        "n_tokens": n_tokens, "n_lines": n_lines, "n_positions": n_positions,
        "n_types": len(vocab), "n_oov_types": int((emb_rows[1:] == 0).sum()),
        "invalid_utf8_lines": stats.invalid_utf8_lines,
        "has_text": line_bytes is not None, "sources": sources, "arrays": arrays, "files": files,
        "build_seconds": round(stats.seconds, 3),
    }
    with open(tmp / "meta.json", "w", encoding="utf-8") as f:  # last: marks the folder complete
        json.dump({**meta, "meta_sha256": meta_digest(meta)}, f, indent=1)
        f.flush()
        os.fsync(f.fileno())
    fsync_dir(tmp)
    publish(tmp, out, _is_index)
    return meta


def build_from_ids(word_ids: np.ndarray, line_lengths: np.ndarray, words: list[str] | tuple[str, ...],
                   out: str | os.PathLike, embeddings: Embeddings, tokenizer_name: str = "glove-lower-v2",
                   *, overwrite: bool = False, config: BuildConfig | None = None,
                   source: str = "<ids>") -> dict[str, Any]:
    """Build from an already tokenized corpus: `word_ids` index `words`, lines have `line_lengths`
    tokens. Used for synthetic corpora (no text is stored; lines display as space-joined tokens)."""
    out = Path(out)
    config = config or BuildConfig()
    t0 = time.perf_counter()
    word_ids = np.asarray(word_ids)
    line_lengths = np.asarray(line_lengths, dtype=np.int64)
    if int(line_lengths.sum()) != word_ids.size or (line_lengths < 0).any():
        raise UserError("line_lengths must be non-negative and sum to the number of tokens")
    if word_ids.size == 0:
        raise UserError("the corpus is empty: no tokens")
    counts = np.zeros(len(words), dtype=np.int64)
    for s in range(0, word_ids.size, config.sort_chunk):  # chunked: bincount copies its input to int64
        counts += np.bincount(word_ids[s:s + config.sort_chunk], minlength=len(words))
    used = counts > 0
    lut = np.cumsum(used, dtype=np.uint32)  # word id -> type id (1-based: type 0 is the separator)
    vocab = [SEP_TOKEN] + [words[i] for i in np.flatnonzero(used)]
    n_lines = int(line_lengths.size)
    n_positions = int(word_ids.size) + n_lines + 1
    seps = np.zeros(n_lines + 1, dtype=np.int64)
    np.cumsum(line_lengths + 1, out=seps[1:])
    stats = BuildStats(n_tokens=int(word_ids.size), n_lines=n_lines)
    check_output(out, overwrite)
    with staging(out) as tmp:
        tokens = np.memmap(tmp / "tokens.bin", dtype=np.uint32, mode="w+", shape=(n_positions,))
        first_tok = seps[:-1] - np.arange(n_lines)  # index in word_ids of each line's first token
        step = max(1, config.sort_chunk // 16)  # lines per block: bounded memory at 1e9 tokens
        for a in range(0, n_lines, step):
            b = min(n_lines, a + step)
            lo, hi = int(seps[a]), int(seps[b])  # the block: separator, line a, ..., line b-1
            block = np.empty(hi - lo, dtype=np.uint32)
            is_tok = np.ones(hi - lo, dtype=bool)
            is_tok[seps[a:b] - lo] = False
            end = int(first_tok[b]) if b < n_lines else int(word_ids.size)
            block[is_tok] = lut[word_ids[int(first_tok[a]):end]]
            block[~is_tok] = 0
            tokens[lo:hi] = block
        tokens[n_positions - 1] = 0
        tokens.flush()
        del tokens
        sources = [{"name": source, "first_line": 0, "n_lines": n_lines}]
        return _finish(tmp, out, vocab, embeddings, tokenizer_name, n_positions, int(word_ids.size),
                       n_lines, sources, None, stats, config, t0)


def word_classes(vocab: list[str]) -> np.ndarray:
    """(n_types,) uint8: 1 for a type with a letter or digit (a word), 0 for punctuation and the separator
    (the punctuation policy's classes, stored so a query does not read the vocabulary)."""
    import re
    has = re.compile(r"\w").search
    out = np.fromiter((bool(has(w)) for w in vocab), dtype=np.uint8, count=len(vocab))
    out[0] = 0
    return out


def _save(path: Path, a: np.ndarray) -> None:
    with open(path, "wb") as f:
        np.ascontiguousarray(a).tofile(f)
        f.flush()
        os.fsync(f.fileno())
