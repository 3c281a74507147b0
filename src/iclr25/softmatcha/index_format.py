"""The on-disk index format (a folder), version 1. Every array is a raw little-endian file that is
memory-mapped at load; meta.json (written last) holds dtypes, shapes and a SHA-256 per file.

    meta.json       format, version, tokenizer, embeddings (name, fingerprint), counts, sources, checksums
    tokens.bin      uint32[n_positions]  forward array: SEP, line 1 tokens, SEP, line 2 tokens, SEP, ...
    postings.bin    uint32|uint64[n_positions]  positions grouped by type (CSR values), ascending per type
    indptr.bin      int64[n_types + 1]   CSR pointers: postings of w = postings[indptr[w]:indptr[w+1]]
    emb_rows.bin    int32[n_types]       embedding row of each type (0 = <unk>: no vector)
    vocab.txt       n_types lines        type strings; type 0 is the line separator
    line_bytes.bin  uint64[n_lines + 1]  byte offset of each line in text.txt (absent without text)
    text.txt        the corpus lines (UTF-8, invalid bytes replaced), one per line, for display

Token bytes: 4 (tokens) + 4 (postings; 8 past 2^32 positions) + 1 separator per line; the official
layout takes 22 (int32 tokens, int64 postings, int64 char offsets, uint16 lengths)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from iclr25.core.errors import UserError

FORMAT = "iclr25-softmatcha-index"
VERSION = 1
SEP_TOKEN = "\x00sep"  # type 0; cannot come out of a tokenizer
ARRAYS = ("tokens", "postings", "indptr", "emb_rows", "line_bytes")
VERIFY_ALL_BELOW = 256 * 2**20  # "auto" verification hashes every file of indexes up to this size


def sha256_file(path: Path, block: int = 8 * 2**20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(block):
            h.update(chunk)
    return h.hexdigest()


def fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def read_meta(path: Path) -> dict[str, Any]:
    meta_path = path / "meta.json"
    if not path.is_dir():
        raise UserError(f"no index at {path}")
    if not meta_path.is_file():
        raise UserError(f"{path} is not a complete SoftMatcha index (no meta.json)")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise UserError(f"corrupted index {path}: meta.json is not valid JSON") from None
    if meta.get("format") != FORMAT:
        raise UserError(f"{path} is not a SoftMatcha index (format {meta.get('format')!r})")
    if meta.get("version") != VERSION:
        raise UserError(f"index {path} has format version {meta.get('version')}; this build reads {VERSION}")
    return meta


def verify_files(path: Path, meta: dict[str, Any], full: bool) -> None:
    """Sizes always; SHA-256 of every file when `full`. One-line UserError on any mismatch."""
    for name, info in meta["files"].items():
        p = path / name
        if not p.is_file():
            raise UserError(f"corrupted index {path}: {name} is missing")
        if p.stat().st_size != info["bytes"]:
            raise UserError(f"corrupted index {path}: {name} has {p.stat().st_size} bytes, "
                            f"expected {info['bytes']}")
        if full and sha256_file(p) != info["sha256"]:
            raise UserError(f"corrupted index {path}: checksum mismatch in {name}")


def open_array(path: Path, name: str, meta: dict[str, Any]) -> np.ndarray:
    spec = meta["arrays"][name]
    shape = tuple(spec["shape"])
    if int(np.prod(shape)) == 0:
        return np.empty(shape, dtype=spec["dtype"])
    return np.memmap(path / f"{name}.bin", dtype=spec["dtype"], mode="r", shape=shape)
