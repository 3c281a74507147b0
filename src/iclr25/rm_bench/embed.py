"""all-MiniLM-L6-v2 vectors of many texts (from iclr25.core.models), truncated to `max_length` word
pieces, sharded over workers and cached on disk so MiniLM relevance and the MiniLM reward model share
one pass over the 5,586 RM-Bench texts."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Sequence

import numpy as np

from iclr25.core.errors import UserError

CODE_VERSION = 1
MAX_LENGTH = 128  # word pieces; MiniLM was trained at 256, half keeps the full run inside its budget
SHARD = 64


@functools.lru_cache(maxsize=2)
def _encoder(max_length: int):
    """One encoder per worker process and length (loading costs ~1 s; shards are many)."""
    from iclr25.core.models import sentence_encoder
    enc = sentence_encoder()
    enc.tokenizer.enable_truncation(max_length=max_length)
    enc.max_length = max_length
    return enc


def _encode_shard(job: tuple[list[str], int]) -> np.ndarray:
    from iclr25.core.runtime import pin_threads
    pin_threads()
    texts, max_length = job
    return _encoder(max_length).encode(texts, batch=16)


def _texts_key(texts: Sequence[str], max_length: int) -> str:
    h = hashlib.sha256(f"minilm-v{CODE_VERSION}-{max_length}".encode())
    for t in texts:
        h.update(hashlib.sha1(t.encode("utf-8", "surrogatepass")).digest())
    return h.hexdigest()[:20]


def minilm_vectors(texts: Sequence[str], max_length: int = MAX_LENGTH,
                   mapper: Callable | None = None, cache: bool = True) -> np.ndarray:
    """Unit-norm MiniLM vectors (n, 384) of `texts`; duplicates are encoded once. `mapper(fn, jobs)`
    (e.g. RunContext.map) spreads shards of 64 texts over workers; results are cached under
    cache_dir()/rm_bench, keyed by the texts and max_length."""
    from iclr25.core.runtime import atomic_write, cache_dir, progress
    if not 8 <= max_length <= 512:
        raise UserError(f"max_length must be in [8, 512] word pieces, got {max_length}")
    texts = list(texts)
    if not texts:
        return np.zeros((0, 384), np.float32)
    unique = sorted(set(texts))
    path = cache_dir() / "rm_bench" / f"minilm-{_texts_key(unique, max_length)}.npy"
    vecs = None
    if cache and path.is_file():
        try:
            vecs = np.load(path, allow_pickle=False)
        except (OSError, ValueError):
            vecs = None
        if vecs is not None and vecs.shape != (len(unique), 384):
            vecs = None
    if vecs is None:
        by_len = sorted(range(len(unique)), key=lambda i: len(unique[i]))  # similar lengths pad less
        jobs = [([unique[i] for i in by_len[s:s + SHARD]], max_length) for s in range(0, len(unique), SHARD)]
        parts = mapper(_encode_shard, jobs) if mapper is not None else \
            [_encode_shard(j) for j in progress(jobs, "MiniLM", total=len(jobs))]
        vecs = np.zeros((len(unique), 384), np.float32)
        vecs[by_len] = np.concatenate(parts)  # (unique, 384)
        if cache:
            with atomic_write(path) as f:
                np.save(f, vecs)
    index = {t: i for i, t in enumerate(unique)}
    return vecs[[index[t] for t in texts]]
