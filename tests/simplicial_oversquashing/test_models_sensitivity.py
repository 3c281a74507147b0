"""Message passing: agreement with torch-geometric's RGCNConv and MPSN's update, every conv's shapes and
permutation invariance; the sensitivity bound, exact Jacobians against finite differences."""

import networkx as nx
import numpy as np
import pytest
import torch

from iclr25.core.errors import UserError
from iclr25.simplicial_oversquashing import (
    CONVS,
    GCN,
    GIN,
    LinearRMP,
    RelationalGNN,
    RelationalStructure,
    collate,
    hop_distances,
    jacobian_sensitivity,
    sensitivity_bound,
)
from iclr25.simplicial_oversquashing.protocols import bound_check, rgcn_vs_pyg, sin_vs_mpsn, unit_weight_gap


def graph_and_features(seed, d=4):
    G = nx.gnp_random_graph(9, 0.4, seed=seed)
    return G, np.random.default_rng(seed).normal(size=(9, d))


@pytest.mark.parametrize("lift", ["none", "clique"])
def test_rgcn_equals_torch_geometric_rgcnconv(lift):
    pytest.importorskip("torch_geometric", reason="torch-geometric (bench extra) is the peer implementation")
    G, x = graph_and_features(1)
    assert rgcn_vs_pyg(G, x, lift, seed=0) < 1e-10


@pytest.mark.parametrize("seed", [2, 3])
def test_clique_lift_sin_equals_mpsn_update_from_its_definitions(seed):
    G, x = graph_and_features(seed)
    assert sin_vs_mpsn(G, x, seed) < 1e-10


@pytest.mark.parametrize("conv", CONVS)
@pytest.mark.parametrize("readout", ["mean", "root"])
def test_every_conv_gives_one_row_per_structure_and_ignores_cell_order(conv, readout):
    torch.manual_seed(0)
    G, x = graph_and_features(4, d=3)
    rs = RelationalStructure.from_graph(G, lift="ring", max_ring=5, x=x)
    model = RelationalGNN(3, 8, 2, relations=rs.relation_names, layers=2, conv=conv, readout=readout).eval()
    perm = np.random.default_rng(0).permutation(9)  # relabel the nodes: the same graph
    rs2 = RelationalStructure.from_graph(nx.relabel_nodes(G, dict(enumerate(perm))), lift="ring", max_ring=5,
                                         x=x[np.argsort(perm)])
    with torch.no_grad():
        out = model(collate([rs, rs2], roots=[0, int(perm[0])]))
    assert out.shape == (2, 2)
    torch.testing.assert_close(out[0], out[1], atol=1e-5, rtol=1e-5)


def test_baselines_and_bad_model_arguments():
    assert GCN(3, 8, 2).conv_name == "gcn" and GIN(3, 8, 2).conv_name == "gin"
    with pytest.raises(UserError, match="unknown conv"):
        RelationalGNN(3, 8, 2, conv="gat")
    with pytest.raises(UserError, match="unknown relation"):
        RelationalGNN(3, 8, 2, relations=("upper", "sideways"))
    with pytest.raises(UserError, match="hidden"):
        RelationalGNN(3, 0, 2)


@pytest.mark.parametrize("lift", ["clique", "ring"])
@pytest.mark.parametrize("layers", [1, 3])
def test_bound_holds_for_every_cell_pair_and_nothing_arrives_beyond_l_hops(lift, layers):
    c = bound_check(nx.gnp_random_graph(8, 0.45, seed=7), lift, layers, seed=5)
    assert c["violations"] == 0 and c["max_beyond"] == 0.0
    assert c["beyond_pairs"] > 0 or layers > 1


def test_bound_is_attained_with_scalar_unit_weights():
    assert unit_weight_gap(nx.gnp_random_graph(8, 0.45, seed=1), 3) < 1e-10


def test_bound_on_a_path_is_the_normalised_path_count():
    rs = RelationalStructure.from_graph([(0, 1), (1, 2), (2, 3)])
    B = sensitivity_bound(rs, 2)
    # Â = I + D^-1 A; (Â²)[0, 2] = Â[0,1]·Â[1,2] = 1 · 1/2
    assert B[0, 2] == pytest.approx(0.5) and B[0, 3] == 0.0
    assert hop_distances(rs)[0].tolist() == [0, 1, 2, 3]


def test_jacobian_matches_finite_differences():
    torch.manual_seed(0)
    G, x = graph_and_features(5, d=2)
    rs = RelationalStructure.from_graph(G, lift="clique", x=x)
    model = RelationalGNN(2, 3, 2, relations=rs.relation_names, layers=2, conv="rgcn").double().eval()
    J = jacobian_sensitivity(model, rs)
    b = collate([rs], dtype=torch.float64)
    eps, n = 1e-6, rs.num_cells
    fd = np.zeros((n, 3, n, 2))
    with torch.no_grad():
        for t in range(n):
            for k in range(2):
                xp, xm = b.x.clone(), b.x.clone()
                xp[t, k] += eps
                xm[t, k] -= eps
                fd[:, :, t, k] = ((model.embed(b, xp) - model.embed(b, xm)) / (2 * eps)).numpy()
    fd_norms = np.linalg.norm(fd.transpose(0, 2, 1, 3), ord=2, axis=(2, 3))
    np.testing.assert_allclose(J, fd_norms, atol=1e-6)


def test_linear_rmp_weights_have_unit_norm_and_jacobian_input_checks():
    rs = RelationalStructure.from_graph(nx.cycle_graph(5), lift="ring", max_ring=5, x=np.ones((5, 3)))
    m = LinearRMP(3, rs.relation_names, layers=2)
    for p in m.parameters():
        assert torch.linalg.matrix_norm(p, ord=2).item() == pytest.approx(1.0)
    with pytest.raises(UserError, match="shape"):
        jacobian_sensitivity(m, rs, x=np.ones((2, 3)))
    with pytest.raises(UserError, match="targets"):
        jacobian_sensitivity(m, rs, targets=[99])
    assert jacobian_sensitivity(m, rs, targets=[0]).shape == (1, rs.num_cells)
