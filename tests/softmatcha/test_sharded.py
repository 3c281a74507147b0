"""ShardedIndex: shards cut at line boundaries and one global vocabulary give exactly the single index's
results (property test), on every backend; bad input gets a one-line UserError."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iclr25.core.errors import UserError
from iclr25.softmatcha.embeddings import Embeddings
from iclr25.softmatcha.index import Index
from iclr25.softmatcha.sharded import ShardedIndex, _split_points

VOCAB = ["the", "king", "queen", "prince", "of", "in", "israel", "syria"]
OOV = ["zorblax", "quux"]  # no embedding: they match only literally


def hit_key(m):
    return (m.source, m.line, m.token_span, m.char_span, m.tokens, m.position, m.text)


def assert_same(single, sharded, pattern, threshold):
    a = single.search(pattern, threshold, warn=False)
    b = sharded.search(pattern, threshold, warn=False)
    assert b.count == a.count
    assert np.array_equal(b.positions, a.positions)
    ma, mb = list(a), list(b)
    assert [hit_key(m) for m in mb] == [hit_key(m) for m in ma]
    for x, y in zip(ma, mb, strict=True):
        assert np.allclose(x.scores, y.scores, atol=1e-6)
    va, vb = a.variants(), b.variants()
    assert [(v.string, v.count) for v in vb] == [(v.string, v.count) for v in va]
    assert np.allclose([v.mean_score for v in vb], [v.mean_score for v in va], atol=1e-6)


lines_st = st.lists(st.lists(st.sampled_from(VOCAB + OOV + [",", "and"]), min_size=1, max_size=9)
                    .map(" ".join), min_size=4, max_size=40)
pattern_st = st.lists(st.sampled_from(VOCAB + OOV), min_size=1, max_size=3).map(" ".join)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=lines_st, n_shards=st.integers(1, 4), pattern=pattern_st,
       threshold=st.sampled_from([0.0, 0.5, 0.8, 0.9, 0.95, 1.0]))
def test_sharded_equals_single_index(tmp_path_factory, tiny_emb, lines, n_shards, pattern, threshold):
    d = tmp_path_factory.mktemp("prop")
    single = Index.from_lines(lines, d / "one", embeddings=tiny_emb)
    sharded = ShardedIndex.build(d / "sh", lines=lines, n_shards=min(n_shards, len(lines)),
                                 embeddings=tiny_emb)
    assert sharded.n_tokens == single.n_tokens and sharded.n_lines == single.n_lines
    assert_same(single, sharded, pattern, threshold)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, tiny_emb):
    rng = np.random.default_rng(11)
    lines = [" ".join(rng.choice(VOCAB + OOV, rng.integers(1, 14))) for _ in range(1500)]
    d = tmp_path_factory.mktemp("corpus")
    return lines, Index.from_lines(lines, d / "one", embeddings=tiny_emb), d


@pytest.mark.parametrize("backend", ["serial", "process"])
def test_backends_agree_with_the_single_index(corpus, tiny_emb, backend):
    lines, single, d = corpus
    with ShardedIndex.build(d / f"sh-{backend}", lines=lines, n_shards=4, embeddings=tiny_emb,
                            backend=backend, workers=2) as sh:
        for pattern, a in [("king of israel", 0.8), ("the", 0.9), ("queen zorblax", 0.5),
                           ("of in", [1.0, 0.0])]:
            assert_same(single, sh, pattern, a)
        res = sh.search("king of", 0.8)
        assert res[3:9] == single.search("king of", 0.8)[3:9]  # a page across shard boundaries
        assert res[-1] == single.search("king of", 0.8)[-1]


@pytest.mark.slow
def test_ray_backend_one_actor_per_shard(corpus, tiny_emb):
    ray = pytest.importorskip("ray", reason="the ray backend needs the ray extra")
    lines, single, d = corpus
    sh = ShardedIndex.build(d / "sh-ray", lines=lines, n_shards=3, embeddings=tiny_emb, backend="ray",
                            workers=1)
    try:
        assert_same(single, sh, "king of israel", 0.8)
        assert variant_key(sh.variants("the * of", 0.8, 5, max_insert=1)) == \
            variant_key(single.variants("the * of", 0.8, 5, max_insert=1))
        assert len(sh._actors) == 3
    finally:
        sh.close()
        ray.shutdown()


def test_from_token_ids_equals_the_single_index(tmp_path, tiny_emb):
    rng = np.random.default_rng(5)
    ids = rng.integers(0, len(VOCAB), 5000)
    lens = np.full(500, 10)
    single = Index.from_token_ids(ids, lens, VOCAB, tmp_path / "one", tiny_emb)
    sh = ShardedIndex.from_token_ids(ids, lens, VOCAB, tmp_path / "sh", tiny_emb, n_shards=3)
    assert [s.n_lines for s in sh.shards] == [167, 167, 166]
    assert_same(single, sh, "king of israel", 0.8)


def test_shards_share_one_vocabulary_and_split_at_lines(corpus, tiny_emb):
    lines, single, d = corpus
    sh = ShardedIndex.build(d / "sh-vocab", lines=lines, n_shards=3, embeddings=tiny_emb)
    assert sorted(sh.vocab) == sorted(single.vocab)
    assert sum(s.n_lines for s in sh.shards) == len(lines)
    n = [s.n_lines for s in sh.shards]
    assert [s.first_line for s in sh.shards] == [0, n[0], n[0] + n[1]]
    for w in ("king", "zorblax", ","):
        assert sh.frequency(w) == single.frequency(w)


def test_split_points():
    assert _split_points([1] * 10, 1) == [0, 10]
    assert _split_points([1] * 10, 2) == [0, 5, 10]
    assert _split_points([100, 1, 1, 1], 2) == [0, 1, 4]  # weight, not line count, decides
    cuts = _split_points([5] * 7, 7)
    assert cuts == list(range(8))  # every shard gets at least one line
    with pytest.raises(UserError, match="n_shards"):
        _split_points([1, 1], 0)
    with pytest.raises(UserError, match="cannot split 2 lines into 3"):
        _split_points([1, 1], 3)


def test_bad_input(tmp_path, tiny_emb, corpus):
    lines, _, d = corpus
    with pytest.raises(UserError, match="no sharded SoftMatcha index"):
        ShardedIndex.load(tmp_path)
    sh = ShardedIndex.build(tmp_path / "s", lines=lines[:50], n_shards=2, embeddings=tiny_emb)
    with pytest.raises(UserError, match="already exists"):
        ShardedIndex.build(tmp_path / "s", lines=lines[:50], n_shards=2, embeddings=tiny_emb)
    with pytest.raises(UserError, match="custom embeddings"):
        ShardedIndex.load(sh.path)
    other = Embeddings.from_arrays(["king"], np.ones((1, 5)), name="other")
    with pytest.raises(UserError, match="built with embeddings"):
        ShardedIndex.load(sh.path, embeddings=other)
    with pytest.raises(UserError, match="unknown backend"):
        ShardedIndex.load(sh.path, embeddings=tiny_emb, backend="spark")
    with pytest.raises(UserError, match="threshold must be in"):
        sh.search("king", 1.5)
    with pytest.raises(UserError, match="empty pattern"):
        sh.search("  ")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "data.txt").write_text("x")
    with pytest.raises(UserError, match="not a sharded SoftMatcha index"):
        ShardedIndex.build(tmp_path / "junk", lines=lines[:50], n_shards=2, embeddings=tiny_emb,
                           overwrite=True)


def test_candidate_bound_is_an_upper_bound(corpus, tiny_emb):
    lines, single, d = corpus
    sh = ShardedIndex.build(d / "sh-bound", lines=lines, n_shards=2, embeddings=tiny_emb)
    for pattern in ("king of", "the israel", "zorblax"):
        assert sh.count(pattern, 0.8) <= sh.candidate_bound(pattern, 0.8)


def variant_key(vs):
    return [(v.string, v.count, round(v.score, 9), v.inserted, v.deleted) for v in vs]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=lines_st, n_shards=st.integers(1, 4),
       pattern=st.lists(st.sampled_from(VOCAB + OOV + ["*"]), min_size=2, max_size=3).map(" ".join)
       .filter(lambda p: set(p.split()) != {"*"}),
       threshold=st.sampled_from([0.0, 0.5, 0.8, 1.0]), k=st.sampled_from([1, 2, 5, None]),
       edits=st.sampled_from([(0, 0), (1, 0), (0, 1), (1, 1)]), score=st.sampled_from(["min", "product"]))
def test_sharded_ranked_variants_equal_the_single_index(tmp_path_factory, tiny_emb, lines, n_shards, pattern,
                                                        threshold, k, edits, score):
    """Each shard's top k with ties, merged by string, is the single index's top k: strings, counts,
    scores and edits, ties broken alike."""
    d = tmp_path_factory.mktemp("ranked")
    single = Index.from_lines(lines, d / "one", embeddings=tiny_emb)
    sharded = ShardedIndex.build(d / "sh", lines=lines, n_shards=min(n_shards, len(lines)),
                                 embeddings=tiny_emb)
    kw = {"score": score, "max_insert": edits[0], "max_delete": edits[1]}
    want = single.variants(pattern, threshold, k, **kw)
    got = sharded.variants(pattern, threshold, k, **kw)
    assert variant_key(got) == variant_key(want)
    assert all(v.sa_range == (0, 0) for v in got)


def test_ranked_variants_on_worker_processes(corpus, tiny_emb):
    lines, single, d = corpus
    with ShardedIndex.build(d / "ranked", lines=lines, n_shards=3, embeddings=tiny_emb, backend="process",
                            workers=2) as sh:
        for pattern in ["king of israel", "the * of", "queen syria"]:
            assert variant_key(sh.variants(pattern, 0.8, 5, max_insert=1)) == \
                variant_key(single.variants(pattern, 0.8, 5, max_insert=1))
        with pytest.raises(UserError, match="k must be a positive"):
            sh.variants("king", 0.8, 0)


def test_worker_processes_serve_one_shard_each_and_report_a_dead_one(corpus, tiny_emb):
    lines, single, d = corpus
    with ShardedIndex.build(d / "procs", lines=lines, n_shards=3, embeddings=tiny_emb,
                            backend="process") as sh:
        assert sh.count("king of israel", 0.8) == single.count("king of israel", 0.8)
        procs = [p for p in sh._procs if p is not None]
        assert len(procs) == 2 and all(p.proc.is_alive() for p in procs)  # shard 0 runs in this process
        procs[0].proc.kill()
        procs[0].proc.join()
        with pytest.raises(UserError, match="shard worker process died"):
            sh.count("king of israel", 0.8)


def test_an_error_on_one_shard_leaves_no_stale_reply(corpus, tiny_emb):
    """A call that fails in this process (shard 0) or in a worker still reads every worker's reply, so the
    next query gets its own answers."""
    lines, single, d = corpus
    with ShardedIndex.build(d / "errors", lines=lines, n_shards=3, embeddings=tiny_emb,
                            backend="process") as sh:
        for failing in ([(0, ()), (1, ()), (2, ())], [(1, ()), (2, ())]):
            with pytest.raises(AttributeError):
                sh._fan("no_such_method", failing)
            assert sh.count("king of israel", 0.8) == single.count("king of israel", 0.8)
            assert sh.count("queen", 0.8) == single.count("queen", 0.8)
