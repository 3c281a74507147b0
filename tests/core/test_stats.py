import math

import pytest

from iclr25.core.stats import Interval, binomial_pass_rate, mean_ci, paired_ci, proportion_ci


def test_mean_ci_matches_t_table():
    # n = 4, sd = 1: half-width = t_{0.975, 3} / 2 = 3.1824 / 2
    iv = mean_ci([-1.5, -0.5, 0.5, 1.5 + 0.0])
    sd = math.sqrt((2.25 + 0.25 + 0.25 + 2.25) / 3)
    assert iv.mean == 0.0 and iv.hi == pytest.approx(3.182446 * sd / 2, rel=1e-5)
    assert iv.lo == -iv.hi and iv.n == 4


def test_one_seed_never_decides():
    iv = mean_ci([0.9])
    assert iv.lo == -math.inf and iv.hi == math.inf
    assert not iv.above(0.0) and not iv.below(1.0)


def test_paired_ci_is_the_interval_of_differences():
    a, b = [1.0, 2.0, 3.5], [0.5, 1.0, 2.0]
    assert paired_ci(a, b) == mean_ci([0.5, 1.0, 1.5])
    with pytest.raises(ValueError):
        paired_ci([1.0], [1.0, 2.0])


def test_proportion_ci_wilson_edges():
    iv = proportion_ci(0, 20)
    assert iv.lo == 0.0 and 0.15 < iv.hi < 0.17  # Wilson upper bound for 0/20 is 0.161
    assert proportion_ci(20, 20).hi == 1.0
    with pytest.raises(ValueError):
        proportion_ci(3, 2)


def test_non_finite_values_are_rejected():
    with pytest.raises(ValueError):
        mean_ci([1.0, float("nan")])


def test_binomial_pass_rate_flags_weak_rules():
    # "2 of 3 seeds better" passes a coin flip half the time: not a test
    assert binomial_pass_rate(3, 0.5, 2) == pytest.approx(0.5)
    assert binomial_pass_rate(10, 0.5, 9) < 0.011


def test_interval_to_measured_and_str():
    iv = Interval(0.5, 0.4, 0.6, 3)
    assert iv.to_measured("acc") == {"acc": 0.5, "acc_lo": 0.4, "acc_hi": 0.6, "acc_n": 3}
    assert str(iv) == "0.5 [0.4, 0.6] (n=3)"


def test_quantiles_need_no_scipy_and_match_it():
    from scipy import stats

    from iclr25.core.stats import binomial_pass_rate, normal_quantile, t_quantile
    for df in (1, 2, 3, 4, 9, 29, 200):
        for p in (0.025, 0.5, 0.9, 0.975, 0.999):
            assert abs(t_quantile(p, df) - stats.t.ppf(p, df)) < 1e-9
    assert abs(normal_quantile(0.975) - stats.norm.ppf(0.975)) < 1e-12
    assert abs(binomial_pass_rate(24, 0.5, 23) - stats.binom.sf(22, 24, 0.5)) < 1e-15
