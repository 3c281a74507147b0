"""Corpus-linguistic tables (issue 52): collocates (window vs corpus frequency, MI, signed G²), word and
n-gram frequency lists, and hits per file / folder with Gries' DP and Juilland's D. Each is checked on
tiny corpora with answers worked out by hand, against a brute-force count on random corpora, and G²
against scipy's log-likelihood test."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.softmatcha import Embeddings, Index
from iclr25.softmatcha.collocates import collocates, g_squared
from iclr25.softmatcha.dispersion import measures
from iclr25.softmatcha.frequency import frequency_list


@pytest.fixture(scope="module")
def emb() -> Embeddings:
    return Embeddings.from_arrays(["x", "y"], np.eye(2), name="xy")


def build(tmp_path, lines, emb, name="i"):
    return Index.from_lines(lines, tmp_path / name, embeddings=emb)


# ---- collocates --------------------------------------------------------------------------------------

def test_collocates_by_hand(tmp_path, emb):
    """Lines `a b x c d` / `x e` / `f b , x b`: node x (3 hits), span 1 left and 1 right within lines,
    punctuation skipped. Left windows: b | (line start) | b (the comma is skipped); right: c | e | b.
    Span = {b(1), c, e, b(3) left, b(3) right} = 5 tokens; b occurs 3 times in it (2 left, 1 right).
    Population: 11 words - 3 hits = 8."""
    idx = build(tmp_path, ["a b x c d", "x e", "f b , x b"], emb)
    t = idx.collocates("x", 1.0, left=1, right=1, min_count=1)
    assert (t.n_hits, t.span_tokens, t.population) == (3, 5, 8)
    rows = {c.string: c for c in t.rows}
    assert set(rows) == {"b", "c", "e"}  # never the node, never the comma
    b = rows["b"]
    assert (b.window, b.left, b.right, b.corpus) == (3, 2, 1, 3)
    assert b.expected == pytest.approx(5 * 3 / 8)
    assert b.mi == pytest.approx(math.log2(3 / (5 * 3 / 8)))
    # the 2x2 table of b: in span 3, span not b 2, b outside the span 0, rest 8 - 5 - 3 + 3 = 3
    assert b.g2 == pytest.approx(g_squared(((3, 2), (0, 3))))
    assert rows["c"].expected == pytest.approx(5 / 8) and rows["c"].window == 1
    # sorted by signed G², then MI: b (the strongest) first
    assert t.rows[0].string == "b"
    assert [c.string for c in idx.collocates("x", 1.0, left=1, right=1, min_count=2).rows] == ["b"]


def test_g_squared_equals_scipy_log_likelihood():
    from scipy.stats import chi2_contingency
    rng = np.random.default_rng(0)
    for _ in range(50):
        table = rng.integers(0, 60, size=(2, 2)) + np.array([[1, 1], [1, 1]])
        g, *_ = chi2_contingency(table, correction=False, lambda_="log-likelihood")
        assert g_squared(table.tolist()) == pytest.approx(g, rel=1e-9)
    assert g_squared(((0, 5), (5, 0))) == pytest.approx(2 * 10 * math.log(2))  # zero cells add nothing


def test_negative_g2_means_the_word_avoids_the_hits(tmp_path, emb):
    lines = ["x a"] * 5 + ["b b b b b b b b a"] * 5
    t = build(tmp_path, lines, emb).collocates("x", 1.0, left=0, right=3, min_count=1, punctuation=False)
    assert [c.string for c in t.rows] == ["a"]  # a: 5 in a span of 5; only `a` follows x
    a = t.rows[0]
    assert a.window == 5 and a.g2 > 0 and a.mi > 0
    t2 = build(tmp_path, ["x b a"] * 5 + ["a a a a a a b"] * 5, emb, "j").collocates(
        "x", 1.0, left=0, right=2, min_count=1)
    rows = {c.string: c for c in t2.rows}
    assert rows["a"].window < rows["a"].expected and rows["a"].g2 < 0 and rows["a"].mi < 0


def _brute_collocates(lines, node, left, right, punctuation):
    """Span counts by walking each line's tokens (an independent reading of the definition)."""
    from iclr25.softmatcha.tokenize import GloveTokenizer
    tok = GloveTokenizer()
    is_word = (lambda t: True) if punctuation else (lambda t: any(ch.isalnum() for ch in t))
    span_l, span_r, counts, pop = set(), set(), Counter(), Counter()
    for li, line in enumerate(lines):
        toks = tok.tokenize(line)
        hits = [j for j, t in enumerate(toks) if t == node]
        for j, t in enumerate(toks):
            if is_word(t) and j not in hits:
                pop[t] += 1
        for j in hits:
            for side, step, start in ((span_l, -1, j - 1), (span_r, 1, j + 1)):
                k, n = start, 0
                while 0 <= k < len(toks) and n < (left if step < 0 else right):
                    if is_word(toks[k]):
                        n += 1
                        if k not in hits:
                            side.add((li, k))
                    k += step
    for li, k in span_l | span_r:
        counts[tok.tokenize(lines[li])[k]] += 1
    return counts, len(span_l | span_r), sum(pop.values()), pop


@pytest.mark.parametrize("seed", range(6))
def test_collocates_equal_a_brute_force_count(tmp_path, emb, seed):
    rng = np.random.default_rng(seed)
    words = ["x", "a", "b", "c", ",", "d", "x"]
    lines = [" ".join(rng.choice(words, rng.integers(0, 9))) for _ in range(60)]
    left, right, punct = int(rng.integers(0, 4)), int(rng.integers(1, 4)), bool(seed % 2)
    idx = build(tmp_path, lines, emb)
    t = idx.collocates("x", 1.0, left=left, right=right, min_count=1, punctuation=punct)
    counts, r1, n, pop = _brute_collocates(lines, "x", left, right, punct)
    assert (t.span_tokens, t.population) == (r1, n)
    assert {c.string: c.window for c in t.rows} == dict(counts)
    for c in t.rows:
        assert c.expected == pytest.approx(r1 * pop[c.string] / n)


def test_collocates_refuse_bad_options(tmp_path, emb):
    idx = build(tmp_path, ["x a"], emb)
    for kw in ({"left": -1}, {"left": 0, "right": 0}, {"left": 51}, {"min_count": 0}, {"by": "t"},
               {"top_k": 0}):
        with pytest.raises(UserError):
            idx.collocates("x", 1.0, **kw)


def test_edit_hits_feed_collocates_with_their_own_lengths(tmp_path, emb):
    """Ranked hits (edits) have several lengths: each hit's window starts after its own last token."""
    idx = build(tmp_path, ["x y a", "x q y b"], emb)
    h = idx.hits("x y", 1.0, __import__("iclr25.softmatcha.variants", fromlist=["VariantConfig"])
                 .VariantConfig(max_insert=1))
    t = collocates(idx, h.positions, h.lengths, left=0, right=1, min_count=1)
    assert {c.string for c in t.rows} == {"a", "b"}  # q is inside the second hit, not a collocate


# ---- frequency lists ---------------------------------------------------------------------------------

def test_frequency_list_by_hand(tmp_path, emb):
    lines = ["the king , the king", "of the king"]
    idx = build(tmp_path, lines, emb)
    fl = idx.frequency_list(1)
    assert [(r.string, r.count) for r in fl.rows] == [("king", 3), ("the", 3), ("of", 1)]  # ties by string
    assert fl.population == 7 and fl.rows[0].per_million == pytest.approx(3 / 7 * 1e6)
    assert [(r.string, r.count) for r in idx.frequency_list(1, punctuation=True).rows] == [
        ("king", 3), ("the", 3), (",", 1), ("of", 1)]
    bi = idx.frequency_list(2)
    # `king , the` holds punctuation: not a bigram; `king of` would cross the line end: not one either
    assert [(r.string, r.count) for r in bi.rows] == [("the king", 3), ("of the", 1)]
    assert bi.population == 4
    assert [r.string for r in idx.frequency_list(2, min_count=2).rows] == ["the king"]
    assert [r.string for r in idx.frequency_list(1, top_k=1).rows] == ["king"]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_frequency_list_equals_counter(tmp_path, emb, n):
    rng = np.random.default_rng(n)
    words = ["a", "b", "c", "d", "e", ".", "f"]
    lines = [" ".join(rng.choice(words, rng.integers(0, 12))) for _ in range(200)]
    idx = build(tmp_path, lines, emb)
    want = Counter()
    for ln in lines:
        toks = ln.split()
        for j in range(len(toks) - n + 1):
            g = toks[j:j + n]
            if "." not in g:
                want[" ".join(g)] += 1
    got = frequency_list(idx, n)
    assert {r.string: r.count for r in got.rows} == dict(want)
    assert got.population == sum(want.values())


def test_frequency_ngrams_in_chunks_add_up(tmp_path, emb, monkeypatch):
    """n-grams are counted chunk by chunk (bounded memory): a tiny chunk gives the same list."""
    import iclr25.softmatcha.frequency as fq
    rng = np.random.default_rng(9)
    lines = [" ".join(rng.choice(list("abcde"), rng.integers(1, 8))) for _ in range(100)]
    idx = build(tmp_path, lines, emb)
    whole = fq._grams(idx, 2, False)
    small = fq._grams(idx, 2, False, chunk=7)
    key = lambda g: sorted(zip(map(tuple, g[0].tolist()), g[1].tolist(), strict=True))  # noqa: E731
    assert key(whole) == key(small) and whole[2] == small[2]


def test_frequency_range_counts_files(tmp_path, emb):
    (tmp_path / "a.txt").write_text("x a\nb\n")
    (tmp_path / "b.txt").write_text("x b\n")
    idx = Index.from_files([tmp_path / "a.txt", tmp_path / "b.txt"], tmp_path / "i", embeddings=emb)
    rows = {r.string: r.files for r in idx.frequency_list(1).rows}
    assert rows == {"x": 2, "b": 2, "a": 1}
    with pytest.raises(UserError):
        idx.frequency_list(0)
    with pytest.raises(UserError):
        idx.frequency_list(1, min_count=0)


# ---- dispersion --------------------------------------------------------------------------------------

def test_dispersion_measures_by_hand():
    # two parts of 3 and 1 words, one hit each: s = (.75, .25), o = (.5, .5) -> DP = .25, DP_norm = 1/3;
    # hits per word r = (1/3, 1): mean 2/3, sd 1/3, V = .5 -> D = 1 - .5 / sqrt(1) = .5
    dp, dpn, d = measures(np.array([3, 1]), np.array([1, 1]))
    assert (dp, dpn, d) == (pytest.approx(0.25), pytest.approx(1 / 3), pytest.approx(0.5))
    assert measures(np.array([10, 10, 10]), np.array([2, 2, 2])) == (0.0, 0.0, pytest.approx(1.0))
    dp, dpn, d = measures(np.array([10, 10, 10, 10]), np.array([0, 8, 0, 0]))  # all in one of 4 parts
    assert (dp, dpn, d) == (pytest.approx(0.75), pytest.approx(1.0), pytest.approx(0.0))
    assert measures(np.array([5]), np.array([3])) == (None, None, None)  # one part: undefined
    assert measures(np.array([5, 5]), np.array([0, 0])) == (None, None, None)  # no hit: undefined
    # a part without words is left out of both
    assert measures(np.array([3, 0, 1]), np.array([1, 0, 1]))[0] == pytest.approx(0.25)


def test_dispersion_by_file_and_folder(tmp_path, emb):
    root = tmp_path / "corpus"
    for rel, text in (("g1/a.txt", "x y z , .\n"), ("g1/b.txt", "x\n"), ("g2/c.txt", "y y\ny y\n")):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    idx = Index.from_files([root], tmp_path / "i.smidx", embeddings=emb)
    d = idx.dispersion("x", 1.0)
    assert [(p.tokens, p.hits) for p in d.parts] == [(3, 1), (1, 1), (4, 0)]  # punctuation not counted
    assert d.hits == 2 and d.tokens == 8
    # s = (3, 1, 4) / 8, o = (.5, .5, 0): DP = .5 * (.125 + .375 + .5) = .5, DP_norm = .5 / (1 - 1/8)
    assert (d.dp, d.dp_norm) == (pytest.approx(0.5), pytest.approx(0.5 / (7 / 8)))
    f = idx.dispersion("x", 1.0, by="folder")
    assert [(p.name.rsplit("/", 1)[-1], p.tokens, p.hits) for p in f.parts] == [("g1", 4, 2), ("g2", 4, 0)]
    assert f.dp == pytest.approx(0.5) and f.juilland_d == pytest.approx(0.0)
    with pytest.raises(UserError, match="kjv"):
        idx.dispersion("x", 1.0, by="book")
    with pytest.raises(UserError):
        idx.dispersion("x", 1.0, by="chapter")
