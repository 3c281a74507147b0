"""Step 1 as a prefix lookup (issue 13 item 6): a pattern word's neighbour list, sorted by score and kept
by the open index, gives exactly the soft set of a brute-force scan over the corpus vocabulary, for every
alpha, including alphas equal to a word's score (the boundary) and alphas below the list's floor."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iclr25.softmatcha import Embeddings, Index
from iclr25.softmatcha.index import SearchConfig
from iclr25.softmatcha.search import exact_scores, screen_margin


def brute_force_set(idx: Index, word: str, alpha: float) -> set[int]:
    """Spec: V = {w : max(0, e(w).e(p)) >= alpha}, the dot product correctly rounded (math.fsum of the
    exact float64 products), the literal type always in."""
    p = idx.embeddings.vectors[idx.embeddings.id(word)].astype(np.float64)
    out = set()
    for t, v in enumerate(idx.type_vectors):
        if t == 0:
            continue
        s = max(0.0, math.fsum(float(a) * float(b) for a, b in zip(v.astype(np.float64), p, strict=True)))
        if s >= alpha or idx.vocab[t] == word:
            out.add(t)
    return out


def _index(vectors: np.ndarray, lines: list[str], floor: float) -> Index:
    words = [f"w{i}" for i in range(len(vectors))]
    emb = Embeddings.from_arrays(words, vectors, name="prop")
    d = Path(tempfile.mkdtemp())
    idx = Index.from_lines(lines, d / "i", embeddings=emb)
    return Index.load(idx.path, embeddings=emb, config=SearchConfig(list_floor=floor))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.integers(2, 6), st.sampled_from([0.3, 0.5, 0.7]))
def test_prefix_lookup_equals_the_brute_force_scan(seed, dim, floor):
    rng = np.random.default_rng(seed)
    n = 12
    # small integer coordinates: many exactly equal scores (ties) and exact boundary values
    vectors = rng.integers(-2, 3, size=(n, dim)).astype(np.float32)
    vectors[np.abs(vectors).sum(axis=1) == 0, 0] = 1
    lines = [" ".join(f"w{i}" for i in rng.integers(0, n, size=6)) for _ in range(20)]
    idx = _index(vectors, lines, floor)
    for word in ("w0", "w1", "w2"):
        p = idx.embeddings.vectors[idx.embeddings.id(word)]
        scores = exact_scores(idx.type_vectors, p)
        # every distinct score is an alpha at the boundary; plus its successor, and alphas around the floor
        alphas = set(scores[scores > 0].tolist()) | {0.0, floor, 0.99}
        alphas |= {math.nextafter(a, 2.0) for a in list(alphas)}
        for alpha in sorted(a for a in alphas if a < 1.0):
            [slot], _ = idx.slots([word], alpha)  # the second call per word is a prefix lookup
            assert set(np.flatnonzero(slot.mask).tolist()) == brute_force_set(idx, word, alpha), (word, alpha)


def test_lists_are_kept_per_word_and_reused(tiny_index):
    idx = Index.load(tiny_index.path, embeddings=tiny_index.embeddings)
    a = idx.search("king of israel", 0.8)
    lock, cache = idx._list_cache
    assert len(cache) == 3  # one list per pattern word, at the floor
    first = {k: v[0].copy() for k, v in cache.items()}
    b = idx.search("king of israel", 0.9)
    assert all(np.array_equal(cache[k][0], first[k]) for k in first)  # reused, not recomputed
    assert set(b.positions) <= set(a.positions)
    low = idx.search("king", 0.3)  # below the floor: computed for this query, not kept
    assert low.count >= idx.search("king", 0.5).count and len(cache) == 3


def test_screen_margin_covers_float32_rounding():
    rng = np.random.default_rng(0)
    for dim in (2, 50, 300):
        v = rng.standard_normal((2000, dim)).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        p = v[0]
        err = np.abs(v.astype(np.float64) @ p.astype(np.float64) - (v @ p).astype(np.float64))
        assert err.max() < screen_margin(dim)


def test_step1_uses_one_blas_thread_for_library_users(monkeypatch):
    """Issue 51 item 7: a library user who imported numpy first has a multi-threaded BLAS; Step 1's
    product runs on one thread anyway (and gives the same scores)."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from iclr25.softmatcha import search
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    seen = []
    real = search._one_blas_thread

    def spy():
        cm = real()
        seen.append(cm)
        return cm

    monkeypatch.setattr(search, "_one_blas_thread", spy)
    rng = np.random.default_rng(0)
    t = rng.standard_normal((300, 8)).astype(np.float32)
    p = rng.standard_normal((2, 8)).astype(np.float32)
    got = search.soft_scores(p, t)
    assert np.allclose(got, np.maximum(t @ p.T, 0).T, atol=1e-5)
    assert isinstance(seen[0], threadpoolctl._ThreadpoolLimiter)
