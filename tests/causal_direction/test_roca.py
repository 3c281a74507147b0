"""RoCA: the normalised slope on analytic cases (1 when Y′ = Ỹ, 0 when Y′ is independent, the closed
form under symmetric injection), invariances, the decision rules, the estimator, and bad input."""

import numpy as np
import pytest
from sklearn.base import clone

from iclr25.causal_direction import RoCA, detect_direction, pseudo_labels
from iclr25.causal_direction.data import balance_scale, synthetic
from iclr25.causal_direction.pseudo_labels import align_clusters
from iclr25.causal_direction.roca import RoCAConfig, direction_from_pseudo_labels
from iclr25.core.errors import UserError

N = 20_000


def _labels(C=4, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((N, 3)), rng.integers(0, C, N)


@pytest.mark.parametrize("noise", ["idn", "sym", "pair"])
def test_normalised_slope_is_one_when_pseudo_labels_equal_the_labels(noise):
    Z, y = _labels()
    r = direction_from_pseudo_labels(Z, y, y.copy(), np.arange(4), RoCAConfig(noise=noise))
    assert r.normalized_slope == pytest.approx(1.0, abs=1e-12) and r.direction == "anticausal"


@pytest.mark.parametrize("noise", ["idn", "sym", "pair"])
def test_normalised_slope_is_zero_for_independent_pseudo_labels(noise):
    Z, y = _labels()
    y_prime = np.random.default_rng(9).integers(0, 4, N)
    r = direction_from_pseudo_labels(Z, y, y_prime, np.arange(4), RoCAConfig(noise=noise))
    assert abs(r.normalized_slope) < 0.05 and r.direction == "causal"


def test_symmetric_slope_matches_the_closed_form():
    # slope of D(ρ) = 1 − D0·C/(C−1); the reference slope is 1, so the normalised slope equals it
    C = 4
    Z, y = _labels(C)
    rng = np.random.default_rng(4)
    y_prime = np.where(rng.random(N) < 0.4, (y + rng.integers(1, C, N)) % C, y)
    d0 = np.mean(y_prime != y)
    r = direction_from_pseudo_labels(Z, y, y_prime, np.arange(C), RoCAConfig(noise="sym", reps=5))
    assert r.normalized_slope == pytest.approx(1 - d0 * C / (C - 1), abs=0.03)
    assert r.reference_slope == pytest.approx(1.0, abs=0.03)


def test_curve_has_every_rate_and_rep_and_starts_at_the_base_disagreement():
    Z, y = _labels()
    y_prime = (y + (np.arange(N) % 3 == 0)) % 4
    r = direction_from_pseudo_labels(Z, y, y_prime, np.arange(4), RoCAConfig(reps=2))
    assert list(r.curve.columns) == ["rate", "rep", "disagreement", "reference"] and len(r.curve) == 10
    at0 = r.curve[r.curve.rate == 0]
    assert np.allclose(at0.disagreement, np.mean(y_prime != y)) and np.allclose(at0.reference, 0)


def test_known_directions_on_the_synthetic_families():
    for family in ("causal", "anticausal"):
        ds = synthetic(family, 2000, 16, 4, seed=0)
        assert detect_direction(ds.X, ds.y, reps=2).direction == family


def test_invariant_to_feature_scale_and_shift():
    ds = synthetic("anticausal", 1500, 8, 3, seed=1)
    a = detect_direction(ds.X, ds.y, reps=2)
    b = detect_direction(ds.X * 1000.0 - 7.0, ds.y, reps=2)
    assert a.direction == b.direction and a.normalized_slope == pytest.approx(b.normalized_slope, abs=1e-9)


def test_invariant_to_row_order_within_monte_carlo_error():
    ds = synthetic("anticausal", 3000, 8, 3, seed=2)
    perm = np.random.default_rng(0).permutation(len(ds.y))
    a = detect_direction(ds.X, ds.y)
    b = detect_direction(ds.X[perm], ds.y[perm])
    assert a.direction == b.direction and abs(a.normalized_slope - b.normalized_slope) < 0.05
    # k-means++ seeds from rows by position, so only points on a cluster border may change side
    assert np.mean(a.pseudo_labels[perm] == b.pseudo_labels) > 0.99


def test_invariant_to_cluster_relabelling():
    ds = synthetic("anticausal", 800, 6, 4, seed=3)
    from iclr25.causal_direction.pseudo_labels import cluster, standardise

    ids = cluster(standardise(ds.X), 4)
    perm = np.array([2, 0, 3, 1])
    assert np.array_equal(align_clusters(ids, ds.y, 4), align_clusters(perm[ids], ds.y, 4))
    relabelled = pseudo_labels(ds.X, ds.y, 4, clusterer=lambda Z, k: perm[cluster(Z, k)])
    assert np.array_equal(relabelled, pseudo_labels(ds.X, ds.y, 4))


def test_labels_of_any_type_and_images_are_accepted():
    ds = synthetic("anticausal", 600, 4, 2, seed=4)
    names = np.array(["cat", "dog"])[ds.y]
    r = detect_direction(ds.X.reshape(600, 2, 2), names, reps=1)
    assert set(r.pseudo_labels) <= {"cat", "dog"} and r.direction == "anticausal"
    assert detect_direction(ds.X, ds.y, embed="pca:2", reps=1).direction == "anticausal"
    assert detect_direction(ds.X, ds.y, embed=lambda X: X[:, :2], reps=1).direction == "anticausal"


def test_ttest_decision_calls_a_weak_trend_anticausal_where_the_effect_size_does_not():
    # balance-scale is causal; its clusters agree a little with the label, and a t-test on many points
    # finds that tiny slope significant (the reason the effect-size rule is the default)
    ds = balance_scale()
    effect = detect_direction(ds.X, ds.y, reps=5)
    ttest = detect_direction(ds.X, ds.y, reps=5, decision="ttest")
    assert effect.direction == "causal" and ttest.direction == "anticausal" and ttest.p_value < 0.05
    assert str(effect).startswith("causal (normalised slope 0.")


def test_estimator_is_sklearn_shaped_and_agrees_with_the_function():
    ds = synthetic("anticausal", 800, 6, 2, seed=5)
    est = clone(RoCA(reps=2, random_state=3)).fit(ds.X, ds.y)
    r = detect_direction(ds.X, ds.y, reps=2, random_state=3)
    assert est.get_params()["reps"] == 2 and est.direction_ == r.direction
    assert est.normalized_slope_ == r.normalized_slope and est.curve_.equals(r.curve)


@pytest.mark.parametrize("X, y, needle", [
    (np.ones((5, 2)), np.zeros(5), "single class"),
    (np.ones((5, 2)), np.arange(4) % 2, "5 rows but y has 4"),
    (np.array([[0.0, 1.0], [np.nan, 1.0], [1.0, 0.0]]), np.array([0, 1, 0]), "NaN"),
    (np.array([[0.0, np.inf], [1.0, 1.0]]), np.array([0, 1]), "infinite"),
    (np.ones(4), np.array([0, 1, 0, 1]), "2-D"),
    (np.empty((0, 3)), np.empty(0), "empty"),
    (np.array([["a", "b"], ["c", "d"]]), np.array([0, 1]), "numeric"),
    (np.ones((4, 2)), np.array([0.0, 1.0, np.nan, 1.0]), "NaN"),
    (np.ones((4, 2)), np.array([[0, 1], [0, 1], [0, 1], [0, 1]]), "1-D"),
    (np.ones((1001, 2)), np.arange(1001) / 7, "1001 distinct labels"),  # a continuous column
])
def test_bad_input_is_one_user_error(X, y, needle):
    with pytest.raises(UserError, match=needle):
        detect_direction(X, y)


def test_fewer_rows_than_classes_is_refused():
    X = np.ones((3, 2))
    with pytest.raises(UserError, match=r"fewer rows \(3\) than classes \(5\)"):
        detect_direction(X, np.array([0, 1, 2]), n_classes=5)
    with pytest.raises(UserError, match="integers in 0..1"):
        detect_direction(X, np.array([0, 1, 2]), n_classes=2)
    with pytest.raises(UserError, match="n_classes must be in 2..1000"):
        detect_direction(X, np.array([0, 1, 2]), n_classes=2**63 - 1)


def test_declared_classes_absent_from_the_labels_still_count():
    ds = synthetic("anticausal", 900, 6, 3, seed=6)
    r = detect_direction(ds.X, ds.y, n_classes=4, reps=1)
    assert r.n_classes == 4 and set(np.unique(r.pseudo_labels)) <= {0, 1, 2, 3}


@pytest.mark.parametrize("kwargs, needle", [
    ({"noise_rates": (0.0, 1.0)}, r"\[0, 1\)"),
    ({"noise_rates": (-0.1, 0.2)}, r"\[0, 1\)"),
    ({"noise_rates": (0.2, 0.2)}, "2 distinct"),
    ({"noise": "gaussian"}, "unknown noise kind"),
    ({"reps": 0}, "reps"),
    ({"decision": "vote"}, "unknown decision"),
    ({"embed": "pca:0"}, "embed"),
    ({"embed": "umap:3"}, "embed"),
    ({"clusterer": "dbscan"}, "unknown clusterer"),
    ({"alpha": 1.5}, "alpha"),
])
def test_bad_settings_are_one_user_error(kwargs, needle):
    ds = synthetic("anticausal", 100, 4, 2, seed=0)
    with pytest.raises(UserError, match=needle):
        detect_direction(ds.X, ds.y, **kwargs)
