"""p-values, composite test, null caching, pool sampling and power."""

import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.model_equality import (
    CompletionSample,
    NullSimulator,
    PoolSampler,
    composite_test,
    empirical_pvalue,
    encode_chars,
    estimate_power,
    pool_test,
    two_sample_test,
)


def random_sample(rng, n, m, L, alphabet="ab"):
    texts = ["".join(rng.choice(list(alphabet), L)) for _ in range(n)]
    return CompletionSample(rng.integers(0, m, n), encode_chars(texts, L), m)


def test_pvalue_has_plus_one_correction():
    assert empirical_pvalue(10.0, np.zeros(99)) == pytest.approx(1 / 100)  # never 0
    assert empirical_pvalue(0.0, np.zeros(99)) == 1.0  # ties count as >=


def test_same_data_same_seed_same_pvalue():
    rng = np.random.default_rng(0)
    p, q = random_sample(rng, 30, 3, 6), random_sample(rng, 30, 3, 6, "abc")
    r1 = two_sample_test(p, q, "hamming", b=200, seed=7)
    r2 = two_sample_test(p, q, "hamming", b=200, seed=7)
    assert r1 == r2


def test_permutation_test_detects_a_shift_and_not_noise():
    rng = np.random.default_rng(1)
    p, q = random_sample(rng, 60, 2, 8), random_sample(rng, 60, 2, 8, "bc")
    assert two_sample_test(p, q, b=200).pvalue <= 1 / 201 + 1e-12
    p2 = random_sample(rng, 60, 2, 8)
    assert two_sample_test(p, p2, b=200).pvalue > 0.01


def test_pool_sampler_draws_disjoint_rows_per_prompt():
    pool = CompletionSample(np.repeat([0, 1], [10, 12]), np.arange(22)[:, None], 2)
    a, b = PoolSampler(pool).draw([np.array([4, 5]), np.array([6, 7])], np.random.default_rng(0))
    assert not set(a) & set(b)
    assert np.bincount(pool.prompt_ids[a], minlength=2).tolist() == [4, 5]
    assert np.bincount(pool.prompt_ids[b], minlength=2).tolist() == [6, 7]
    with pytest.raises(UserError, match="prompt 0: the pool has 10 completions but 11"):
        PoolSampler(pool).draw([np.array([5, 0]), np.array([6, 0])], np.random.default_rng(0))


def test_null_is_cached_and_reused():
    rng = np.random.default_rng(2)
    pool = random_sample(rng, 200, 2, 5)
    sim = NullSimulator(pool, "hamming", b=50, seed=0)
    assert sim.null_iid(20, 20) is sim.null_iid(20, 20)
    assert sim.null_fixed(np.array([5, 5]), np.array([5, 5])) is sim.null_fixed(np.array([5, 5]),
                                                                                 np.array([5, 5]))


def test_pool_test_and_power_have_level_and_power():
    rng = np.random.default_rng(3)
    ref = random_sample(rng, 400, 2, 6)
    same = random_sample(rng, 200, 2, 6)
    other = random_sample(rng, 200, 2, 6, "abbb")
    null = NullSimulator(ref, "hamming", b=200, seed=0)
    fpr = estimate_power(ref, same, 40, sims=60, b=200, null=null).power
    pw = estimate_power(ref, other, 80, sims=30, b=200, null=null).power
    assert fpr <= 0.15 and pw >= 0.9
    q = other.subset(np.arange(60))
    assert pool_test(ref, q, b=200).reject


def test_composite_rejects_only_if_every_reference_is_rejected():
    rng = np.random.default_rng(4)
    p1, p2 = random_sample(rng, 60, 2, 6), random_sample(rng, 60, 2, 6, "xy")
    q = random_sample(rng, 60, 2, 6, "xy")  # served from the second reference
    overall, each = composite_test([p1, p2], q, b=200)
    assert each[0].reject and not each[1].reject and not overall.reject
    overall, _ = composite_test([p1], q, b=200)
    assert overall.reject


def test_bad_test_arguments():
    rng = np.random.default_rng(5)
    p = random_sample(rng, 10, 2, 4)
    with pytest.raises(UserError, match="alpha"):
        two_sample_test(p, p, alpha=1.5)
    with pytest.raises(UserError, match="p-value method 'bootstrap'"):
        two_sample_test(p, p, pvalue="bootstrap")
    with pytest.raises(UserError, match="different lengths"):
        two_sample_test(p, p.truncate(2))
    with pytest.raises(UserError, match="NullSimulator"):
        two_sample_test(p, p, pvalue="null")


def test_stratified_permutation_keeps_prompt_counts_and_is_not_biased_by_balance():
    # Balanced design (same count per prompt on both sides), P = Q: a global shuffle unbalances the
    # prompt counts and inflates the null under Eq. 4's N(N-1) denominators; the stratified one does not.
    rng = np.random.default_rng(6)
    m, k = 10, 8
    def balanced():
        texts = ["".join(rng.choice(list("ab"), 6)) for _ in range(m * k)]
        return CompletionSample(np.repeat(np.arange(m), k), encode_chars(texts, 6), m)
    from iclr25.model_equality import HammingMMD, permutation_null
    pv_strat, pv_global = [], []
    for s in range(30):
        p, q = balanced(), balanced()
        obs, null = permutation_null(HammingMMD("paper"), p, q, 100, np.random.default_rng(s))
        pv_strat.append(empirical_pvalue(obs, null))
        obs, null = permutation_null(HammingMMD("paper"), p, q, 100, np.random.default_rng(s),
                                     stratified=False)
        pv_global.append(empirical_pvalue(obs, null))
    assert 0.3 < np.mean(pv_strat) < 0.7  # p-values roughly uniform under H0
    assert np.mean(pv_global) > 0.8  # the global shuffle is far too conservative here
