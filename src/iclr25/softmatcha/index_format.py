"""The on-disk index format (a folder). Every array is a raw little-endian file that is memory-mapped at
load; meta.json (written last) describes them.

    meta.json       format, version, tokenizer, embeddings (name, fingerprint), counts, sources, arrays,
                    files (per file: bytes, crc32, head_crc32, sha256)
    tokens.bin      uint32[n_positions]  forward array: SEP, line 1 tokens, SEP, line 2 tokens, SEP, ...
    postings.bin    uint32|uint64[n_positions]  positions grouped by type (CSR values), ascending per type
    indptr.bin      int64[n_types + 1]   CSR pointers: postings of w = postings[indptr[w]:indptr[w+1]]
    emb_rows.bin    int32[n_types]       embedding row of each type (0 = <unk>: no vector)
    vocab.txt       n_types lines        type strings; type 0 is the line separator
    line_bytes.bin  uint64[n_lines + 1]  byte offset of each line in text.txt (absent without text)
    text.txt        the corpus lines (UTF-8, invalid bytes replaced), one per line, for display
    sa.bin          uint32|uint64[n_positions]  suffix array of tokens.bin (v3, optional): positions sorted by
                    the token ids that follow them; ranked variants and their counts (suffix.py)
    is_word.bin     uint8[n_types]       1 for a word type, 0 for punctuation (the punctuation policy;
                                         optional: computed from vocab.txt when absent)
    lookup_keys.npy the types' UTF-8 bytes sorted (types over 64 bytes left out); lookup_rows.npy their
                    type ids: a token -> type id map read by binary search (v2; v1 builds a dict)

Versions: 1 recorded a SHA-256 per file only, so loading it hashed every file (slow). Version 2 adds a
CRC-32 of each whole file and of its first MiB, the `tokenizer` names of the GloVe-compatible default, and
the persisted vocabulary map. Version 3 (this build) adds the optional suffix
array sa.bin (+4 B/token below 2^32 positions). All three load; an index without sa.bin builds its suffix
array in memory on the first ranked query.

Verification levels, one path for the CLI and the web app (`verify_files`):
    size  every file's size (and that each array fits its file)
    head  + CRC-32 of each file's first MiB; then every query checks the CRC-32 of each 1 MiB block it reads,
          the first time it reads it (`BlockCheck`: version-3 indexes built by this round record them)
    crc   + CRC-32 of every whole file: catches a flipped byte anywhere (about 1 ms/MiB)
    full  SHA-256 of every file (`info --verify`)
`Index.load(verify="auto")` uses `crc` for indexes up to 64 MiB and `head` above (version 1: `full` up to
256 MiB, `size` above, as it did).

Token bytes: 4 (tokens) + 4 (postings; 8 past 2^32 positions) + 1 separator per line; the official
layout takes 22 (int32 tokens, int64 postings, int64 char offsets, uint16 lengths)."""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from iclr25.core.errors import UserError

FORMAT = "iclr25-softmatcha-index"
VERSION = 3
READABLE_VERSIONS = (1, 2, 3)
SEP_TOKEN = "\x00sep"  # type 0; cannot come out of a tokenizer
ARRAYS = ("tokens", "postings", "indptr", "emb_rows", "line_bytes", "sa", "is_word")
HEAD_BYTES = 1 << 20
BLOCK_BYTES = 1 << 20  # the unit of the per-block CRC-32s (HEAD_BYTES must be a multiple of it)
CRC_ALL_BELOW = 64 * 2**20  # "auto": CRC-32 of every file up to this total size, of each head above
SHA_ALL_BELOW_V1 = 256 * 2**20  # "auto" for version-1 indexes (no CRC recorded): SHA-256 up to this
LEVELS = ("none", "size", "head", "crc", "full")
_DTYPES = {"uint8", "uint32", "uint64", "int32", "int64", "float32"}
_REQUIRED = {"tokenizer": str, "embeddings": dict, "n_tokens": int, "n_lines": int, "n_positions": int,
             "n_types": int, "n_oov_types": int, "invalid_utf8_lines": int, "has_text": bool, "sources": list,
             "arrays": dict, "files": dict}


def file_checksums(path: Path, block: int = 8 * 2**20) -> dict[str, Any]:
    """What version 2 records per file, in one read: bytes, CRC-32 of the file and of its first MiB,
    SHA-256, and (files over one block) the CRC-32 of every BLOCK_BYTES block, so a query can check the
    blocks it reads (`BlockCheck`)."""
    sha, crc, n = hashlib.sha256(), 0, 0
    head: int | None = None
    blocks: list[int] = []
    step = max(BLOCK_BYTES, block - block % BLOCK_BYTES)
    with open(path, "rb") as f:
        while chunk := f.read(step if n >= HEAD_BYTES else HEAD_BYTES):
            if n == 0:
                head = zlib.crc32(chunk[:HEAD_BYTES])
            sha.update(chunk)
            crc = zlib.crc32(chunk, crc)
            blocks += [zlib.crc32(chunk[k:k + BLOCK_BYTES]) for k in range(0, len(chunk), BLOCK_BYTES)]
            n += len(chunk)
    out = {"bytes": n, "crc32": crc, "head_crc32": zlib.crc32(b"") if head is None else head,
           "sha256": sha.hexdigest()}
    if n > BLOCK_BYTES:
        out["block_crc32"] = blocks
    return out


def sha256_file(path: Path, block: int = 8 * 2**20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(block):
            h.update(chunk)
    return h.hexdigest()


def _crc_file(path: Path, limit: int | None = None, block: int = 8 * 2**20) -> int:
    crc, left = 0, limit
    with open(path, "rb") as f:
        while chunk := f.read(block if left is None else min(block, left)):
            crc = zlib.crc32(chunk, crc)
            if left is not None:
                left -= len(chunk)
                if left <= 0:
                    break
    return crc


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


def meta_digest(meta: dict[str, Any]) -> str:
    """SHA-256 of meta.json's content in canonical form (sorted keys), its own digest left out: a changed
    byte in meta.json itself (a source's name, a count) is refused at load instead of read as true."""
    body = {k: v for k, v in meta.items() if k != "meta_sha256" and not k.startswith("_")}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def read_meta(path: Path) -> dict[str, Any]:
    """meta.json of the index folder `path`, checked for the keys and types every reader relies on (a
    damaged or hand-edited file is a one-line UserError, never a KeyError)."""
    meta_path = path / "meta.json"
    if not path.is_dir():
        raise UserError(f"no index at {path}")
    if not meta_path.is_file():
        raise UserError(f"{path} is not a complete SoftMatcha index (no meta.json)")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise UserError(f"corrupted index {path}: meta.json is not valid JSON") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        fmt = meta.get("format") if isinstance(meta, dict) else None
        raise UserError(f"{path} is not a SoftMatcha index (format {fmt!r})")
    if meta.get("version") not in READABLE_VERSIONS:
        raise UserError(f"index {path} has format version {meta.get('version')!r}; this build reads "
                        f"{', '.join(map(str, READABLE_VERSIONS))}")
    if "meta_sha256" in meta and meta_digest(meta) != meta["meta_sha256"]:
        raise UserError(f"corrupted index {path}: meta.json does not match its own checksum "
                        "(edited or damaged)")
    _check_meta(path, meta)
    return meta


def _check_meta(path: Path, meta: dict[str, Any]) -> None:
    def bad(what: str) -> UserError:
        return UserError(f"corrupted index {path}: meta.json {what}")

    for key, typ in _REQUIRED.items():
        v = meta.get(key)
        if not isinstance(v, typ) or (typ is int and (isinstance(v, bool) or v < 0)):
            raise bad(f"lacks a valid {key!r}")
    emb = meta["embeddings"]
    if not isinstance(emb.get("name"), str) or not isinstance(emb.get("fingerprint"), str):
        raise bad("lacks the embeddings' name or fingerprint")
    first = 0
    for s in meta["sources"]:
        if not (isinstance(s, dict) and isinstance(s.get("name"), str)
                and isinstance(s.get("first_line"), int) and isinstance(s.get("n_lines"), int)
                and s["first_line"] == first and s["n_lines"] >= 0):
            raise bad("has a malformed source entry")
        first += s["n_lines"]
    if first != meta["n_lines"] or not meta["sources"]:
        raise bad("sources do not add up to n_lines")
    needed = {"tokens", "postings", "indptr", "emb_rows"} | ({"line_bytes"} if meta["has_text"] else set())
    for name in needed | set(meta["arrays"]):
        spec = meta["arrays"].get(name)
        shape = spec.get("shape") if isinstance(spec, dict) else None
        if not (isinstance(spec, dict) and spec.get("dtype") in _DTYPES and isinstance(shape, list)
                and len(shape) == 1 and isinstance(shape[0], int) and shape[0] >= 0):
            raise bad(f"has no valid entry for the array {name!r}")
    for name, info in meta["files"].items():
        if not (isinstance(name, str) and "/" not in name and isinstance(info, dict)
                and isinstance(info.get("bytes"), int)):
            raise bad(f"has a malformed file entry {name!r}")
    for name in needed:
        if f"{name}.bin" not in meta["files"]:
            raise bad(f"does not list {name}.bin")
    n_pos, n_types = meta["n_positions"], meta["n_types"]
    shapes = {k: v["shape"][0] for k, v in meta["arrays"].items()}
    if (shapes["tokens"] != n_pos or shapes["postings"] != n_pos or shapes["indptr"] != n_types + 1
            or shapes["emb_rows"] != n_types
            or (meta["has_text"] and shapes["line_bytes"] != meta["n_lines"] + 1)
            or shapes.get("sa", n_pos) != n_pos or shapes.get("is_word", n_types) != n_types):
        raise bad("array shapes disagree with its counts")


def auto_level(meta: dict[str, Any]) -> str:
    """The verification `Index.load(verify="auto")` does (see the module docstring)."""
    total = sum(f["bytes"] for f in meta["files"].values())
    if meta["version"] == 1:
        return "full" if total <= SHA_ALL_BELOW_V1 else "size"
    return "crc" if total <= CRC_ALL_BELOW else "head"


def verify_files(path: Path, meta: dict[str, Any], level: str) -> None:
    """Check the files of the index at `path` against meta.json at `level` (size | head | crc | full; see
    the module docstring). One-line UserError naming the damaged file. Version-1 indexes record no CRC:
    `head` and `crc` check sizes only there."""
    if level not in LEVELS:
        raise UserError(f"verify must be one of {', '.join(LEVELS)} (or auto), got {level!r}")
    meta["_lazy_blocks"] = level in ("size", "head")  # then queries check the blocks they read
    if level == "none":
        return
    for name, info in meta["files"].items():
        p = path / name
        if not p.is_file():
            raise UserError(f"corrupted index {path}: {name} is missing")
        size = p.stat().st_size
        if size != info["bytes"]:
            raise UserError(f"corrupted index {path}: {name} has {size} bytes, expected {info['bytes']}")
    for name, spec in meta["arrays"].items():
        need = spec["shape"][0] * np.dtype(spec["dtype"]).itemsize
        if need and meta["files"].get(f"{name}.bin", {}).get("bytes") != need:
            raise UserError(f"corrupted index {path}: {name}.bin does not hold {spec['shape'][0]} "
                            f"{spec['dtype']} values")
    check = {"full": ("sha256", "SHA-256", lambda p: sha256_file(p)),
             "crc": ("crc32", "CRC-32", lambda p: _crc_file(p)),
             "head": ("head_crc32", "CRC-32 of its first MiB", lambda p: _crc_file(p, HEAD_BYTES))}.get(level)
    if check is None:
        return
    key, what, digest = check
    for name, info in meta["files"].items():
        if key in info and digest(path / name) != info[key]:
            raise UserError(f"corrupted index {path}: checksum mismatch in {name} ({what})")


class BlockCheck:
    """The CRC-32 of each BLOCK_BYTES block of one file, checked the first time a query reads the block
    (then remembered): an index too large to check whole at load (`auto_level`: over 64 MiB) is checked
    where it is read, so a flipped byte anywhere gives a one-line error instead of wrong hits. Cost: one
    CRC-32 per block read for the first time per open index (~1 ms per MiB here), nothing after."""

    def __init__(self, path: Path, crcs: list[int], itemsize: int) -> None:
        self.path, self.crcs = path, np.asarray(crcs, dtype=np.int64)
        self.ok = np.zeros(len(crcs), dtype=bool)
        self.shift = int(np.log2(BLOCK_BYTES // itemsize))  # element index >> shift = block
        self.itemsize = itemsize

    def elements(self, lo: int, hi: int) -> None:
        """Check the blocks that hold elements [lo, hi)."""
        if hi <= lo:
            return
        a, b = lo >> self.shift, (hi - 1) >> self.shift
        if not self.ok[a:b + 1].all():
            self._check(np.arange(a, b + 1)[~self.ok[a:b + 1]])

    def indices(self, idx: np.ndarray) -> None:
        """Check the blocks that hold the elements at `idx` (an integer array)."""
        blk = np.asarray(idx, dtype=np.int64).ravel() >> self.shift
        todo = blk[~self.ok[blk]]
        if todo.size:
            self._check(np.unique(todo))

    def _check(self, blocks: np.ndarray) -> None:
        with open(self.path, "rb") as f:
            for k in blocks.tolist():
                f.seek(k * BLOCK_BYTES)
                if zlib.crc32(f.read(BLOCK_BYTES)) != int(self.crcs[k]):
                    raise UserError(f"corrupted index {self.path.parent}: checksum mismatch in "
                                    f"{self.path.name}, block {k} (CRC-32 of MiB {k})")
                self.ok[k] = True


class CheckedArray:
    """A memory-mapped array whose reads check their blocks first (`BlockCheck`); indexing returns plain
    arrays. What the search code does with an array (shape, slices, integer-array indexing, np.asarray) it
    can do with this."""

    def __init__(self, arr: np.ndarray, check: BlockCheck) -> None:
        self._arr, self._check = arr, check
        self.shape, self.dtype, self.ndim, self.size = arr.shape, arr.dtype, arr.ndim, arr.size

    def __len__(self) -> int:
        return len(self._arr)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, slice):
            lo, hi, step = key.indices(self.shape[0])
            if step == 1:
                self._check.elements(lo, hi)
            else:
                self._check.indices(np.arange(lo, hi, step))
        elif isinstance(key, int | np.integer):
            k = int(key) % self.shape[0]
            self._check.elements(k, k + 1)
        else:
            idx = np.asarray(key)
            if idx.dtype == bool:
                idx = np.flatnonzero(idx)
            self._check.indices(idx % self.shape[0] if idx.size and idx.min() < 0 else idx)
        return self._arr[key]

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        self._check.elements(0, self.shape[0])
        return np.asarray(self._arr, dtype=dtype)


def open_array(path: Path, name: str, meta: dict[str, Any]) -> np.ndarray:
    spec = meta["arrays"][name]
    shape = tuple(spec["shape"])
    if int(np.prod(shape)) == 0:
        return np.empty(shape, dtype=spec["dtype"])
    try:
        arr = np.memmap(path / f"{name}.bin", dtype=spec["dtype"], mode="r", shape=shape)
    except (ValueError, OSError) as e:  # a file shorter than meta says, when loaded without verification
        raise UserError(f"corrupted index {path}: cannot map {name}.bin ({e})") from None
    crcs = meta["files"].get(f"{name}.bin", {}).get("block_crc32")
    if meta.get("_lazy_blocks") and isinstance(crcs, list) and len(crcs) * BLOCK_BYTES >= arr.nbytes:
        return CheckedArray(arr, BlockCheck(path / f"{name}.bin", crcs, arr.dtype.itemsize))  # type: ignore
    return arr
