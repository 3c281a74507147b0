"""The style-substance matrix: hand-built cases, a per-item loop, role swap, item order, averaging."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from iclr25.core.errors import UserError
from iclr25.rm_bench.data import Item
from iclr25.rm_bench.metric import (
    aggregate,
    difficulty,
    evaluate,
    evaluate_scores,
    policy_correlation,
    style_matrix,
)
from iclr25.rm_bench.scorers import Length


def loop_matrix(ch, rej, ties="strict"):
    m = np.zeros((3, 3))
    for c, r in zip(ch, rej, strict=True):
        for i in range(3):
            for j in range(3):
                m[i, j] += 1.0 if c[i] > r[j] else (0.5 if ties == "half" and c[i] == r[j] else 0.0)
    return 100 * m / len(ch)


def test_hand_built_two_items():
    ch = [[1, 2, 3], [5, 5, 5]]
    rej = [[0, 2.5, 10], [4, 6, 5]]
    # item 1 wins: (0,0), (1,0), (2,0), (2,1); item 2 wins: column 0 only (5 > 4), ties at column 2
    assert style_matrix(ch, rej).tolist() == [[100, 0, 0], [100, 0, 0], [100, 50, 0]]
    assert style_matrix(ch, rej, ties="half").tolist() == [[100, 0, 25], [100, 0, 25], [100, 50, 25]]


def test_difficulty_reads_triangles():
    m = np.arange(9, dtype=float).reshape(3, 3)  # rows chosen style
    d = difficulty(m)
    assert d == {"easy": (3 + 6 + 7) / 3, "normal": (0 + 4 + 8) / 3, "hard": (1 + 2 + 5) / 3, "avg": 4.0}


def test_constant_scorer_is_zero_strict_and_fifty_with_half_ties():
    z = np.zeros((4, 3))
    assert style_matrix(z, z).sum() == 0
    assert np.all(style_matrix(z, z, ties="half") == 50)


scores = arrays(np.float64, st.tuples(st.integers(1, 12), st.just(3)),
                elements=st.integers(-3, 3).map(float))


@settings(max_examples=30, deadline=None)
@given(scores, st.data())
def test_matrix_equals_a_per_item_loop(ch, data):
    rej = data.draw(arrays(np.float64, ch.shape, elements=st.integers(-3, 3).map(float)))
    for ties in ("strict", "half"):
        np.testing.assert_allclose(style_matrix(ch, rej, ties), loop_matrix(ch, rej, ties))


@settings(max_examples=25, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 10), st.just(3)), elements=st.floats(-1e3, 1e3),
              unique=True), st.integers(0, 2**31))
def test_swapping_roles_gives_100_minus_transpose_and_order_does_not_matter(ch, seed):
    rng = np.random.default_rng(seed)
    rej = ch[rng.permutation(len(ch))] + 0.5  # distinct from every chosen score: no ties
    if np.isin(rej, ch).any():
        return
    m = style_matrix(ch, rej)
    np.testing.assert_allclose(style_matrix(rej, ch), 100 - m.T)
    p = rng.permutation(len(ch))
    np.testing.assert_allclose(style_matrix(ch[p], rej[p]), m)


def _items(domain, n, start=0):
    return [Item(str(i), domain, f"q{i}", ("a", "bb", "ccc"), ("dd", "e", "ffff"))
            for i in range(start, start + n)]


def test_overall_is_mean_of_domains_and_of_difficulties_with_safety_pooled():
    items = _items("chat", 5) + _items("code", 3) + _items("safety-refuse", 4) + _items("safety-response", 2)
    rng = np.random.default_rng(0)
    ch, rej = rng.normal(size=(len(items), 3)), rng.normal(size=(len(items), 3))
    res = evaluate_scores(items, ch, rej)
    assert set(res["domains"]) == {"chat", "code", "safety"}
    o = res["overall"]
    dom_avgs = [d["avg"] for d in res["domains"].values()]
    assert o["avg"] == pytest.approx(np.mean(dom_avgs))
    assert o["avg"] == pytest.approx((o["easy"] + o["normal"] + o["hard"]) / 3)
    safety = [i for i, it in enumerate(items) if it.domain.startswith("safety")]
    np.testing.assert_allclose(res["domains"]["safety"]["matrix"], style_matrix(ch[safety], rej[safety]))
    assert res["domains"]["safety"]["n"] == 6


def test_evaluate_with_a_scorer_and_item_order():
    items = _items("chat", 4)
    res = evaluate(Length(), items)
    # lengths chosen (1, 2, 3) vs rejected (2, 1, 4): wins at (1,1)? 2>1 yes; (2,0) 3>2, (2,1) 3>1, (1,1)
    assert np.array(res["domains"]["chat"]["matrix"]).tolist() == [[0, 0, 0], [0, 100, 0], [100, 100, 0]]
    assert evaluate(Length(), items[::-1])["overall"] == res["overall"]


@pytest.mark.parametrize("ch, rej, msg", [
    (np.zeros((2, 2)), np.zeros((2, 2)), "shape"),
    (np.zeros((2, 3)), np.zeros((3, 3)), "differ"),
    ([[0, np.nan, 1]], [[0, 0, 0]], "NaN"),
    (np.zeros((0, 3)), np.zeros((0, 3)), "no items"),
])
def test_bad_scores_are_one_line_errors(ch, rej, msg):
    with pytest.raises(UserError, match=msg):
        style_matrix(ch, rej)


def test_bad_ties_and_aggregate_inputs():
    with pytest.raises(UserError, match="ties"):
        style_matrix([[0, 0, 0]], [[0, 0, 0]], ties="loose")
    with pytest.raises(UserError):
        aggregate({})
    with pytest.raises(UserError, match="3 x 3"):
        difficulty(np.zeros((2, 2)))


def test_policy_correlation_path():
    r = policy_correlation([60.0, 65.0, 70.0, 72.0], [0.1, 0.3, 0.2, 0.9])
    assert r["spearman"] == pytest.approx(0.8) and -1 <= r["pearson"] <= 1
    with pytest.raises(UserError):
        policy_correlation([1, 2], [1, 2])
