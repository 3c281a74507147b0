"""Statistics: hand-computable MMD values, counting form == Gram form, all-substrings == brute force."""

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iclr25.core.errors import UserError
from iclr25.model_equality import (
    AllSubstringsMMD,
    Chi2Stat,
    CompletionSample,
    HammingMMD,
    HammingMMDGram,
    L1Stat,
    OneHotMMD,
    all_substrings_kernel,
    encode_chars,
    get_statistic,
    mmd_distance,
    two_sample_test,
)


def sample(texts, prompts=None, L=None):
    prompts = [0] * len(texts) if prompts is None else prompts
    L = L or max(map(len, texts))
    return CompletionSample(np.array(prompts), encode_chars(texts, L), max(prompts) + 1)


def test_hamming_hand_computed():
    # P = {ab, ab}, Q = {ab, xb}: k~ = matching positions / 2
    p, q = sample(["ab", "ab"]), sample(["ab", "xb"])
    # PP: k(ab,ab) = 1 -> 1; QQ: k(ab,xb) = 1/2 -> 1/2; PQ: (1 + 1/2 + 1 + 1/2) / 4 = 3/4
    assert HammingMMD()(p, q) == pytest.approx(1 + 0.5 - 2 * 0.75)


def test_hamming_pads_compare_equal():
    p, q = sample(["a", "a"], L=3), sample(["a", "a"], L=3)
    assert HammingMMD()(p, q) == pytest.approx(0.0)


def test_cross_prompt_pairs_carry_no_kernel():
    # Prompt 0 vs prompt 1 completions are identical, but k = 0 across prompts: only same-prompt pairs count.
    p = sample(["aa", "aa", "bb", "bb"], [0, 0, 1, 1])
    q = sample(["aa", "aa", "bb", "bb"], [0, 0, 1, 1])
    # Eq. 4 ("paper"): PP = 2 same-prompt pairs x 2 orders / (4*3) = 1/3, PQ = 8 / 16 = 1/2
    assert HammingMMD("paper")(p, q) == pytest.approx(1 / 3 + 1 / 3 - 1.0)
    # reference-code normalisation by same-prompt pairs (the default): 1 + 1 - 2 = 0
    assert HammingMMD()(p, q) == pytest.approx(0.0)


def test_onehot_without_repeats_is_zero_with_p_one():
    p, q = sample(["abc", "abd", "abe"]), sample(["xyz", "xyw", "xyv"])
    assert OneHotMMD()(p, q) == 0.0
    r = two_sample_test(p, q, "onehot", b=100)
    assert r.pvalue == 1.0 and not r.reject


def test_l1_and_chi2_hand_computed():
    p, q = sample(["a", "a", "b", "c"]), sample(["a", "b", "b", "d"])
    # frequencies P: a .5 b .25 c .25 ; Q: a .25 b .5 d .25 -> L1 = .25 + .25 + .25 + .25
    assert L1Stat()(p, q) == pytest.approx(1.0)
    # chi2 (N = M = 4): sum [(4 n_P - 4 n_Q)^2 - 16 n_P - 16 n_Q] / (n_P + n_Q)
    terms = [(2, 1), (1, 2), (1, 0), (0, 1)]
    expect = sum(((4 * a - 4 * b) ** 2 - 16 * a - 16 * b) / (a + b) for a, b in terms)
    assert Chi2Stat()(p, q) == pytest.approx(expect)


def test_chi2_and_l1_vanish_without_repeats():
    p, q = sample(["ab", "cd"]), sample(["ef", "gh"])
    assert Chi2Stat()(p, q) == 0.0
    assert L1Stat()(p, q) == pytest.approx(2.0)


@st.composite
def sample_pairs(draw):
    m = draw(st.integers(1, 3))
    L = draw(st.integers(1, 6))
    def one():
        n = draw(st.integers(2, 8))
        x = np.array(draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n)))
        y = np.array(draw(st.lists(st.lists(st.integers(-1, 3), min_size=L, max_size=L), min_size=n,
                                   max_size=n)))
        return CompletionSample(x, y, m)
    return one(), one()


@settings(max_examples=60, deadline=None)
@given(sample_pairs(), st.sampled_from(["paper", "pairs"]))
def test_counting_form_equals_gram_form(pq, denominator):
    p, q = pq
    a, b = HammingMMD(denominator)(p, q), HammingMMDGram(denominator)(p, q)
    assert abs(a - b) <= 1e-12


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(2, 5), st.integers(0, 10_000))
def test_pairs_form_is_eq4_per_prompt_averaged_when_counts_are_equal(m, k, seed):
    """With k samples of every prompt on both sides, the official "pairs" form equals Eq. 4 applied to
    each prompt's samples, averaged over prompts; with one prompt the two forms are the same number."""
    rng = np.random.default_rng(seed)
    ids = np.repeat(np.arange(m), k)
    p = CompletionSample(ids, rng.integers(-1, 3, size=(m * k, 4)), m)
    q = CompletionSample(ids, rng.integers(-1, 3, size=(m * k, 4)), m)
    for stat in ("hamming", "onehot"):
        per_prompt = [get_statistic(stat, denominator="paper")(
            CompletionSample(np.zeros(k, int), p.completions[ids == x], 1),
            CompletionSample(np.zeros(k, int), q.completions[ids == x], 1)) for x in range(m)]
        pairs = get_statistic(stat, denominator="pairs")(p, q)
        assert pairs == pytest.approx(float(np.mean(per_prompt)), abs=1e-12)
        if m == 1:
            assert pairs == pytest.approx(get_statistic(stat, denominator="paper")(p, q), abs=1e-12)


def brute_all_substrings(a, b):
    def subs(s):
        return Counter(tuple(s[i:j]) for i in range(len(s)) for j in range(i + 1, len(s) + 1))
    ca, cb = subs(list(a)), subs(list(b))
    return sum(v * cb[k] for k, v in ca.items())


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 7).flatmap(lambda L: st.tuples(
    st.lists(st.integers(-1, 2), min_size=L, max_size=L),
    st.lists(st.integers(-1, 2), min_size=L, max_size=L))))
def test_all_substrings_lcp_dp_equals_counting_substrings(ab):
    a, b = ab
    assert all_substrings_kernel(np.array([a]), np.array([b]))[0] == brute_all_substrings(a, b)


def test_all_substrings_mmd_matches_eq4_with_brute_force_kernel():
    texts_p, texts_q = ["abab", "abba", "baba"], ["zzab", "abzz"]
    p, q = sample(texts_p), sample(texts_q)
    codes = [[ord(c) for c in t] for t in texts_p + texts_q]
    K = np.array([[brute_all_substrings(a, b) for b in codes] for a in codes], dtype=float)
    K = K / np.sqrt(np.outer(np.diag(K), np.diag(K)))  # unit diagonal
    kpp, kqq, kpq = K[:3, :3], K[3:, 3:], K[:3, 3:]
    expect = (kpp.sum() - 3) / 6 + (kqq.sum() - 2) / 2 - 2 * kpq.sum() / 6  # Eq. 4
    assert AllSubstringsMMD()(p, q) == pytest.approx(expect, abs=1e-12)


def test_mmd_distance_and_bad_names():
    p, q = sample(["ab", "ab"]), sample(["xy", "xy"])
    assert mmd_distance(p, q) == pytest.approx(np.sqrt(2.0))
    assert mmd_distance(p, p) == 0.0
    with pytest.raises(UserError, match="unknown statistic 'gauss'"):
        get_statistic("gauss")
    with pytest.raises(UserError, match="MMD kernel"):
        mmd_distance(p, q, "l1")
    with pytest.raises(UserError, match="denominator"):
        HammingMMD("bogus")(p, q)
