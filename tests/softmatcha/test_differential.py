"""Differential tests: the index (postings + forward array), the scan (soft_grep) and a brute-force
reference written straight from the match definition agree on random corpora."""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iclr25.softmatcha import Embeddings, Index, soft_grep
from iclr25.softmatcha.index import SearchConfig
from iclr25.softmatcha.search import find_positions

WORDS = ["aa", "bb", "cc", "dd", "ee", "ff"]
OOV = "zz"  # in the corpus, not in the embeddings


def brute_force(lines, pattern, alphas, vecs):
    """Spec §2: window [j, j+m) of one line matches iff s(t[j+i], p_i) >= alpha_i for every i, with
    s = max(0, cos); alpha >= 1 or a pattern token without a vector means literal equality."""
    out = []
    for k, line in enumerate(lines):
        toks = line.split()
        for j in range(len(toks) - len(pattern) + 1):
            ok = True
            for i, (p, a) in enumerate(zip(pattern, alphas, strict=True)):
                t = toks[j + i]
                if a >= 1 or p not in vecs:
                    ok = t == p
                else:
                    s = 1.0 if t == p else (max(0.0, float(vecs[t] @ vecs[p])) if t in vecs else 0.0)
                    ok = s >= a
                if not ok:
                    break
            if ok:
                out.append((k + 1, j))
    return out


corpora = st.lists(st.lists(st.sampled_from([*WORDS, OOV]), min_size=0, max_size=8), min_size=1, max_size=12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpus=corpora, pattern=st.lists(st.sampled_from([*WORDS, OOV]), min_size=1, max_size=3),
       alphas=st.lists(st.sampled_from([0.0, 0.2, 0.5, 0.8, 0.95, 1.0]), min_size=3, max_size=3),
       seed=st.integers(0, 2**16))
def test_index_equals_scan_equals_brute_force(corpus, pattern, alphas, seed):
    lines = [" ".join(t) for t in corpus]
    if not any(corpus):
        lines.append("aa")
    rng = np.random.default_rng(seed)
    m = rng.normal(size=(len(WORDS), 3))
    m[1] = m[0] + 0.1 * rng.normal(size=3)  # a near neighbour so soft sets are not trivial
    emb = Embeddings.from_arrays(WORDS, m)
    vecs = {w: emb.vectors[emb.id(w)] for w in WORDS}
    alphas = alphas[:len(pattern)]
    expected = brute_force(lines, pattern, alphas, vecs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with tempfile.TemporaryDirectory() as d:
            idx = Index.from_lines(lines, Path(d) / "i", embeddings=emb)
            idx.config = SearchConfig()
            res = idx.search(" ".join(pattern), alphas)
            got = [(x.line, x.token_span[0]) for x in res]
            masks = [sl.mask for sl in idx.slots(" ".join(pattern), alphas)[0]]
            for dense in (0.0, 1.0):  # candidates from a forward scan / from postings: same answer
                pos, _ = find_positions(masks, idx.tokens, idx.indptr, idx.postings, dense_fraction=dense)
                assert np.array_equal(pos, res.positions)
        scanned = [(x.line, x.token_span[0]) for x in
                   soft_grep(" ".join(pattern), lines=lines, embeddings=emb, threshold=alphas)]
    assert got == expected
    assert scanned == expected


@settings(max_examples=15, deadline=None)
@given(corpus=corpora, chunk=st.integers(1, 7))
def test_streaming_counting_sort_equals_in_memory_sort(corpus, chunk):
    """The chunked external-memory counting sort gives the same postings as one stable argsort."""
    from iclr25.softmatcha.build import counting_sort
    ids = np.array([0] + [hash(w) % 5 + 1 for t in corpus for w in [*t, "\n"]], dtype=np.uint32)
    with tempfile.TemporaryDirectory() as d:
        indptr, dtype = counting_sort(ids, 7, Path(d) / "p.bin", chunk)
        post = np.fromfile(Path(d) / "p.bin", dtype=dtype)
    assert np.array_equal(post, np.argsort(ids, kind="stable"))
    assert np.array_equal(indptr, np.concatenate([[0], np.cumsum(np.bincount(ids, minlength=7))]))
