"""VL_K: the mean over chunks of K behaviours of the best error in the chunk."""

import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.guided_strategy.discovery import Discovery, chunk_errors, recovery_error


def test_vl_at_k_n_is_the_min_distance_and_at_k_1_the_mean_error():
    rng = np.random.default_rng(0)
    f = rng.normal(size=60)
    g = [0.3, -1.2]
    assert np.allclose(recovery_error(f, g, k=60), [np.abs(f - t).min() for t in g])
    assert np.allclose(recovery_error(f, g, k=1), [np.abs(f - t).mean() for t in g])


def test_vl_never_increases_over_nested_budgets():
    rng = np.random.default_rng(1)
    for _ in range(20):
        f = rng.normal(size=120)
        g = [rng.normal()]
        vals = [recovery_error(f, g, k)[0] for k in (1, 2, 4, 12, 24, 120)]  # each divides the next
        assert all(b <= a + 1e-12 for a, b in zip(vals, vals[1:], strict=False))


def test_budget_must_divide_n():
    with pytest.raises(UserError, match="n mod K = 1"):
        recovery_error(np.zeros(7), [0.0], k=3)


def test_failed_behaviours_cannot_be_chosen():
    f = np.array([0.0, 1.0, 5.0, 6.0])
    ok = np.array([False, True, False, False])
    err, idx = chunk_errors(f, 0.0, 2, ok, miss=9.0)
    assert err.tolist() == [1.0, 9.0] and idx.tolist() == [1, -1]
    assert recovery_error(f, [0.0], 2, ok, miss=9.0).tolist() == [5.0]


def test_selected_returns_follow_the_chosen_behaviours():
    d = Discovery(np.zeros((4, 2)), np.array([0.0, 1.0, 2.0, 3.0]), np.array([10.0, 20.0, 30.0, 40.0]),
                  np.array([0.9, 3.0]), (2,), {})
    assert d.selected(2).tolist() == [[1, 2], [1, 3]]
    assert d.selected_returns(2).tolist() == [25.0, 30.0]
    assert np.allclose(d.success_vl(2, threshold=25.0, miss=5.0), [(5.0 + 1.1) / 2, (5.0 + 0.0) / 2])


def test_bad_factors():
    with pytest.raises(UserError, match="NaN"):
        recovery_error(np.array([0.0, np.nan]), [0.0], 1)
    with pytest.raises(UserError, match="non-empty"):
        recovery_error(np.array([]), [0.0], 1)
