"""CAVs: closed forms, invariances, agreement with scikit-learn, and what bad input gets."""

import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.svm import LinearSVC

from iclr25.core.errors import UserError
from iclr25.pattern_cav import CAVEstimator, FilterConfig, compute_cav, pattern_vector
from iclr25.pattern_cav.cav import balancing_weights


def _data(n=200, d=6, seed=0):
    rng = np.random.default_rng(seed)
    t = (rng.random(n) < 0.3).astype(float)
    t[:2] = [0, 1]
    return rng.normal(size=(n, d)) + 2.0 * t[:, None] * np.arange(1, d + 1) / d, t


def test_pattern_of_binary_labels_is_difference_of_class_means():
    a, t = _data()
    dm = a[t == 1].mean(0) - a[t == 0].mean(0)
    np.testing.assert_allclose(pattern_vector(a, t), dm, atol=1e-12)
    np.testing.assert_allclose(compute_cav(a, t).vector, dm / np.linalg.norm(dm), atol=1e-12)
    np.testing.assert_allclose(compute_cav(a, t, "mean").vector, compute_cav(a, t).vector, atol=1e-12)


def test_pattern_is_the_least_squares_h_of_the_generative_model():
    # a_i = h t_i + b + eps, continuous t: h from lstsq on [t, 1]
    rng = np.random.default_rng(1)
    t = rng.normal(size=300)
    a = np.outer(t, [1.0, -2.0, 0.5]) + 3.0 + 0.1 * rng.normal(size=(300, 3))
    coef, *_ = np.linalg.lstsq(np.c_[t, np.ones_like(t)], a, rcond=None)
    np.testing.assert_allclose(pattern_vector(a, t), coef[0], atol=1e-10)
    assert compute_cav(a, t).meta["n"] == 300


def test_analytic_two_by_two_example():
    a = np.array([[0.0, 0.0], [0.0, 1.0], [2.0, 0.0], [2.0, 1.0]])
    np.testing.assert_allclose(compute_cav(a, [0, 0, 1, 1]).vector, [1.0, 0.0])
    np.testing.assert_allclose(compute_cav(a, [5, 5, 7, 7], "mean").vector, [1.0, 0.0])


def test_pattern_is_invariant_to_positive_scaling_and_shift_of_activations():
    a, t = _data(n=120, d=4)
    np.testing.assert_allclose(compute_cav(7.5 * a - 3.0, t).vector, compute_cav(a, t).vector, atol=1e-12)


@pytest.mark.parametrize("method", ["ridge", "logistic"])
def test_filters_with_unpenalised_intercept_are_shift_invariant(method):
    a, t = _data(n=120, d=4)
    cfg = FilterConfig(grid=(1.0,))
    np.testing.assert_allclose(compute_cav(a + 10.0, t, method, cfg).vector,
                               compute_cav(a, t, method, cfg).vector, atol=2e-3)


def test_flipping_the_labels_flips_the_cav_and_class_balance_does_not_matter():
    a, t = _data()
    np.testing.assert_allclose(compute_cav(a, 1 - t).vector, -compute_cav(a, t).vector, atol=1e-12)
    # duplicating the positives changes the balance, not the difference of means
    a2, t2 = np.r_[a, a[t == 1]], np.r_[t, t[t == 1]]
    np.testing.assert_allclose(compute_cav(a2, t2).vector, compute_cav(a, t).vector, atol=1e-12)


def test_svm_and_ridge_match_scikit_learn_fits():
    a, t = _data()
    w = balancing_weights(t)
    svm = LinearSVC(C=0.1, max_iter=5000, random_state=0).fit(a, t, sample_weight=w).coef_.ravel()
    ridge = Ridge(alpha=1.0).fit(a, 2 * t - 1, sample_weight=w).coef_.ravel()
    np.testing.assert_allclose(compute_cav(a, t, "svm", FilterConfig(grid=(0.1,))).vector,
                               svm / np.linalg.norm(svm), atol=1e-6)
    np.testing.assert_allclose(compute_cav(a, t, "ridge", FilterConfig(grid=(1.0,))).vector,
                               ridge / np.linalg.norm(ridge), atol=1e-10)


def test_balancing_weights_are_inverse_class_counts_scaled_to_one():
    w = balancing_weights(np.array([1, 0, 0, 0.0]))
    np.testing.assert_allclose(w, [1.0, 1 / 3, 1 / 3, 1 / 3])


def test_grid_search_records_the_chosen_penalty_and_filters_point_to_the_concept():
    a, t = _data()
    for m, key in (("svm", "C"), ("ridge", "alpha"), ("lasso", "alpha"), ("logistic", "C")):
        cav = compute_cav(a, t, m, FilterConfig(grid=(1e-3, 1e-1, 1.0), folds=3))
        assert cav.meta[key] in (1e-3, 1e-1, 1.0)
        assert np.isclose(np.linalg.norm(cav.vector), 1.0)
        assert np.mean(cav.score(a[t == 1])) > np.mean(cav.score(a[t == 0]))


def test_filter_cav_differs_from_pattern_when_a_distractor_is_correlated():
    # noise shared by dims 0 and 1: the filter cancels it, the pattern ignores it
    rng = np.random.default_rng(0)
    t = np.repeat([0.0, 1.0], 500)
    e = rng.normal(size=1000)
    a = np.c_[t + 0.2 * rng.normal(size=1000) + e, e + 0.2 * rng.normal(size=1000)]
    p = compute_cav(a, t).vector
    r = compute_cav(a, t, "ridge", FilterConfig(grid=(1e-3,))).vector
    assert p[0] > 0.99 and r[1] < -0.5  # ridge ~ (1, -1)/sqrt(2)


def test_estimator_api():
    a, t = _data()
    est = CAVEstimator("pattern").fit(a, t)
    assert est.cav_.shape == (6,)
    assert est.transform(a).shape == (200,)
    assert 0.5 < est.score(a, t) <= 1.0


@pytest.mark.parametrize("acts,labels,match", [
    (np.ones((4, 2)), [1, 1, 1, 1], "single class"),
    (np.ones((4, 2)), [0, 1, 0], "lengths must match"),
    (np.array([[0.0, np.nan], [1, 1], [2, 2], [3, 3]]), [0, 0, 1, 1], "NaN"),
    (np.ones((2, 2, 2)), [0, 1], "2-D"),
    (np.ones((0, 3)), [], "empty"),
])
def test_bad_input_is_a_one_line_user_error(acts, labels, match):
    with pytest.raises(UserError, match=match) as e:
        compute_cav(acts, labels)
    assert "\n" not in str(e.value)


def test_bad_method_and_non_binary_labels_for_filters():
    a, t = _data()
    with pytest.raises(UserError, match="unknown CAV method 'pca'"):
        compute_cav(a, t, "pca")
    with pytest.raises(UserError, match="binary"):
        compute_cav(a, np.arange(200) % 3, "svm")
    with pytest.raises(UserError, match="zero vector"):
        compute_cav(a, t, "lasso", FilterConfig(grid=(1e4,)))


def test_heldout_auc_is_at_chance_for_pure_noise_where_in_sample_is_not():
    from iclr25.pattern_cav.metrics import concept_auc, heldout_auc
    rng = np.random.default_rng(1)
    a, t = rng.normal(size=(60, 40)), np.repeat([0, 1], 30)
    in_sample = concept_auc(compute_cav(a, t, "pattern"), a, t)
    held, k = heldout_auc(a, t, "pattern", folds=5)
    assert k == 5 and in_sample > 0.85 and abs(held - 0.5) < 0.2
    auc, k = heldout_auc(a[:31], t[:31], "pattern")  # one concept sample: nothing can be held out
    assert k == 0 and np.isnan(auc)
