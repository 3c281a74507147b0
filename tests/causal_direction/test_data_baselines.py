"""Data (balance-scale regenerated exactly, KEEL files, users' tables) and the baselines on cases with a
known answer; ANM and PC are causal-learn's own implementations."""

import numpy as np
import pandas as pd
import pytest

from iclr25.causal_direction.baselines import (
    agreement_test,
    anm,
    cdnl,
    igci,
    igci_slope,
    pc,
    projection,
    reci,
    transition_from_pseudo_labels,
)
from iclr25.causal_direction.data import (
    balance_scale,
    encode_features,
    keel_dataset,
    load_table,
    synthetic,
)
from iclr25.core.errors import UserError


def test_balance_scale_is_the_uci_table():
    d = balance_scale()
    assert d.X.shape == (625, 4) and len({tuple(r) for r in d.X}) == 625 and d.X.min() == 1 and d.X.max() == 5
    torque = d.X[:, 0] * d.X[:, 1] - d.X[:, 2] * d.X[:, 3]
    # codes follow the sorted class names B, L, R; UCI has 49 balanced, 288 left, 288 right
    assert np.array_equal(d.y, np.where(torque == 0, 0, np.where(torque > 0, 1, 2)))
    assert np.bincount(d.y).tolist() == [49, 288, 288] and d.truth == "causal"


def test_keel_sets_are_parsed_with_categorical_columns_one_hot():
    iris = keel_dataset("iris")
    assert iris.X.shape == (150, 4) and iris.n_classes == 3 and iris.truth == "anticausal"
    chess = keel_dataset("chess")  # 36 categorical attributes
    assert chess.X.shape[0] == 3196 and set(np.unique(chess.X)) == {0.0, 1.0}
    assert np.all(chess.X.sum(1) == 36)  # exactly one indicator per attribute
    with pytest.raises(UserError, match="unknown KEEL set"):
        keel_dataset("mnist")


def test_encode_features_keeps_numbers_and_one_hot_encodes_the_rest():
    df = pd.DataFrame({"a": ["1.5", "2", "3"], "b": ["x", "y", "x"], "c": [True, False, True]})
    X, names = encode_features(df)
    assert names == ["a", "b=x", "b=y", "c=False", "c=True"]
    assert X.tolist() == [[1.5, 1, 0, 0, 1], [2, 0, 1, 1, 0], [3, 1, 0, 0, 1]]
    with pytest.raises(UserError, match="missing values"):
        encode_features(pd.DataFrame({"a": [1.0, None]}))
    ids = pd.DataFrame({"id": [f"row{i}" for i in range(1001)]})  # an ID column is no category
    with pytest.raises(UserError, match="1001 distinct non-numeric values"):
        encode_features(ids)


def test_load_table_reads_a_csv_and_refuses_bad_ones(tmp_path):
    p = tmp_path / "t.csv"
    df = pd.DataFrame({"x": [1.0, 2.0, 3.0], "colour": ["r", "g", "r"], "label": ["a", "b", "a"]})
    df.to_csv(p, index=False)
    X, y, names = load_table(p, "label")
    assert X.shape == (3, 3) and y.tolist() == ["a", "b", "a"] and names == ["x", "colour=g", "colour=r"]
    with pytest.raises(UserError, match="'nope' not in"):
        load_table(p, "nope")
    with pytest.raises(UserError, match="not found"):
        load_table(tmp_path / "none.csv", "label")
    p.write_text("x,label\n1,a\n,b\n")
    with pytest.raises(UserError, match="missing values"):
        load_table(p, "label")


def test_synthetic_families():
    a = synthetic("anticausal", 2000, 8, 4, seed=0)
    means = np.array([a.X[a.y == c].mean(0) for c in range(4)])
    dists = np.linalg.norm(means[:, None] - means[None], axis=-1)[np.triu_indices(4, 1)]
    assert np.allclose(dists, 4.0, atol=0.25)  # class means 4 apart
    c = synthetic("causal", 2000, 8, 4, seed=0)
    assert abs(c.X.mean()) < 0.05 and abs(c.X.std() - 1) < 0.05 and c.n_classes == 4
    with pytest.raises(UserError):
        synthetic("anticausal", 100, 2, 4, seed=0)


# ---- baselines -------------------------------------------------------------------------------------

def test_transition_from_pseudo_labels_is_the_conditional_table():
    y_prime = np.array([0, 0, 0, 0, 1, 1])
    y = np.array([0, 0, 0, 1, 1, 0])
    T = transition_from_pseudo_labels(y_prime, y, 3)
    assert np.allclose(T, [[0.75, 0.25, 0], [0.5, 0.5, 0], [1 / 3, 1 / 3, 1 / 3]])


def test_cdnl_on_clean_labels_finds_both_directions():
    anti = synthetic("anticausal", 1500, 6, 3, seed=1)
    causal = synthetic("causal", 1500, 6, 3, seed=1)
    a, c = cdnl(anti.X, anti.y), cdnl(causal.X, causal.y)
    assert a.direction == "anticausal" and a.score < 0.05
    assert c.direction == "causal" and c.score > 0.1


def test_agreement_test_is_a_chi_square_of_clusters_against_labels():
    anti = synthetic("anticausal", 1000, 6, 3, seed=2)
    assert agreement_test(anti.X, anti.y).direction == "anticausal"
    y_random = np.random.default_rng(0).integers(0, 3, 1000)
    r = agreement_test(anti.X, y_random)
    assert r.direction == "causal" and r.score > 0.01


def test_igci_slope_prefers_the_smooth_direction():
    # x uniform, y = x³: Ĉ_{X→Y} < Ĉ_{Y→X} (Daniušis et al.'s example of the asymmetry)
    x = np.random.default_rng(0).uniform(0, 1, 2000)
    y = x ** 3
    assert igci_slope(x, y) < igci_slope(y, x)


def test_projection_ranks_classes_by_their_mean():
    anti = synthetic("anticausal", 900, 5, 3, seed=3)
    x, y = projection(anti.X, anti.y)
    means = [x[y == r].mean() for r in range(3)]
    assert sorted(means) == means and set(np.unique(y)) == {0.0, 1.0, 2.0}


def test_reci_and_igci_answer_on_labelled_data():
    anti = synthetic("anticausal", 600, 5, 2, seed=4)
    for f in (reci, igci):
        assert f(anti.X, anti.y).direction in ("causal", "anticausal", "undecided")


def test_anm_from_causal_learn_runs_on_a_projection():
    anti = synthetic("anticausal", 400, 4, 2, seed=5)
    r = anm(anti.X, anti.y, max_rows=120)
    assert r.direction in ("causal", "anticausal", "undecided") and "120 rows" in r.detail


def test_pc_from_causal_learn_orients_a_collider_at_the_label():
    # X1 → Y ← X2 with X1 ⊥ X2: PC finds the v-structure, both edges point into Y ⇒ causal
    rng = np.random.default_rng(6)
    X = rng.standard_normal((3000, 2))
    y = (X[:, 0] + X[:, 1] + 0.3 * rng.standard_normal(3000) > 0).astype(int)
    r = pc(X, y)
    assert r.direction == "causal" and r.score == 2


def test_pc_orients_an_edge_out_of_the_label():
    # Y → X1 ← X2 with Y ⊥ X2: the collider at X1 orients Y → X1 ⇒ anticausal
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 3000)
    x2 = rng.standard_normal(3000)
    x1 = 2.0 * y + x2 + 0.5 * rng.standard_normal(3000)
    r = pc(np.column_stack([x1, x2]), y)
    assert r.direction == "anticausal" and r.score == -1
