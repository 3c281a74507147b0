"""The batched PC (pc_fisherz.pc) is causal-learn's PC: the same CPDAG and the same separating sets as
`causallearn...PC.pc(data, alpha, "fisherz")` on sparse, dense and degenerate data, and through its fallback
to causal-learn's own test."""

import numpy as np
import pytest
from causallearn.search.ConstraintBased.PC import pc as causallearn_pc

from iclr25.causal_direction import pc_fisherz
from iclr25.causal_direction.baselines import pc_data
from iclr25.causal_direction.data import load
from iclr25.causal_direction.noise import inject_label_noise


def _sepsets(cg):
    """sepset[i, j] as a list of sets (causal-learn stores tuples whose order follows a Python set)."""
    return [[None if v is None else [set(map(int, s)) for s in v] for v in row] for row in cg.sepset]


def _same_as_causal_learn(data, alpha=0.05):
    ref = causallearn_pc(data, alpha, "fisherz", show_progress=False)
    ours = pc_fisherz.pc(data, alpha)
    assert np.array_equal(ours.G.graph, ref.G.graph)
    assert _sepsets(ours) == _sepsets(ref)
    return ours


def _random_dag_data(seed, p=9, n=800, density=0.35):
    rng = np.random.default_rng(seed)
    weights = rng.uniform(0.5, 1.5, (p, p)) * rng.choice([-1, 1], (p, p))
    W = np.triu(weights * (rng.random((p, p)) < density), 1)  # (p, p) edge j → l for j < l
    X = np.zeros((n, p))
    for j in range(p):  # topological order 0..p−1
        X[:, j] = X @ W[:, j] + rng.standard_normal(n)
    return X[:, rng.permutation(p)]


@pytest.mark.parametrize("seed", range(4))
def test_same_graph_and_sepsets_as_causal_learn_on_random_dags(seed):
    g = _same_as_causal_learn(_random_dag_data(seed))
    assert (g.G.graph != 0).any()


def test_same_as_causal_learn_on_a_dense_graph():
    # one latent factor behind 10 observed columns: no set separates any pair, every depth is tested in full
    rng = np.random.default_rng(1)
    f = rng.standard_normal((3000, 1))
    X = 0.5 * f + rng.standard_normal((3000, 10))
    g = _same_as_causal_learn(X)
    assert (g.G.graph != 0).sum() // 2 >= 40  # (almost) complete: the dense enumeration was exercised


def test_same_as_causal_learn_on_features_and_noisy_labels():
    ds = load("wine")
    rng = np.random.default_rng(0)
    Z = (ds.X - ds.X.mean(0)) / ds.X.std(0)
    y = inject_label_noise(Z, ds.y, 0.2, "idn", rng, ds.n_classes)
    _same_as_causal_learn(pc_data(ds.X, y))
    _same_as_causal_learn(pc_data(ds.X, y), alpha=0.2)


def test_every_test_through_causal_learn_gives_the_same_graph(monkeypatch):
    # the referee path: tests near the critical value, and near-singular ones, are causal-learn's own
    data = _random_dag_data(5, p=7, n=400)
    monkeypatch.setattr(pc_fisherz, "NEAR", 2.0)  # every |ρ| counts as near
    _same_as_causal_learn(data)
    monkeypatch.setattr(pc_fisherz, "NEAR", 0.0)
    monkeypatch.setattr(pc_fisherz, "DEGENERATE", 2.0)  # every factorisation counts as degenerate
    _same_as_causal_learn(data)


def test_collinear_columns_behave_as_in_causal_learn():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((2, 500))
    data = np.column_stack([a, b, a + b, rng.standard_normal(500)])  # column 2 is exactly a + b
    try:
        ref = causallearn_pc(data, 0.05, "fisherz", show_progress=False)
    except ValueError as e:
        with pytest.raises(ValueError, match=str(e)[:30]):
            pc_fisherz.pc(data)
    else:
        assert np.array_equal(pc_fisherz.pc(data).G.graph, ref.G.graph)
