"""Optional econml adapters: same shape as our learners; a clear error for unknown names."""

from __future__ import annotations

import numpy as np
import pytest

from iclr25.cate_benchmark import make_learner
from iclr25.cate_benchmark.learners import BaseConfig
from iclr25.core.errors import UserError


def test_unknown_econml_name_is_a_user_error():
    with pytest.raises(UserError, match="unknown econml model"):
        make_learner("econml.magic")


@pytest.mark.slow
def test_econml_linear_dml_adapter_recovers_a_linear_effect():
    pytest.importorskip("econml", reason="optional peer: pip install econml")
    rng = np.random.default_rng(0)
    n = 800
    X = rng.normal(size=(n, 3))
    w = rng.integers(0, 2, n)
    y = X[:, 0] + w * (1 + X[:, 1]) + 0.5 * rng.normal(size=n)
    est = make_learner("econml.linear_dml", BaseConfig(gbm_max_iter=30)).fit(X, w, y).effect(X)
    assert est.shape == (n,) and np.corrcoef(est, 1 + X[:, 1])[0, 1] > 0.9
