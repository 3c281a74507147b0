"""The component graph and its critical nodes: analytic cases and the L=0 <=> DIU=0 invariant."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from iclr25.core.errors import UserError
from iclr25.topograph import component_graph, critical_regions, diu
from iclr25.topograph.graph import FN, FP, TN, TP


def ring(n=9, w=1):
    m = np.zeros((n, n), bool)
    m[1:-1, 1:-1] = True
    m[1 + w:-1 - w, 1 + w:-1 - w] = False
    return m


def test_identical_masks_have_no_critical_nodes():
    g = ring()
    cg = component_graph(g, g)
    assert not cg.critical.any()
    assert set(cg.node_class.tolist()) == {TN, TP}


def test_ring_with_one_gap_has_exactly_the_gap_critical():
    g = ring()
    p = g.copy()
    p[1, 4] = False
    regions = critical_regions(p, g)
    assert len(regions) == 1
    assert regions[0].sum() == 1 and regions[0][1, 4]


def test_disjoint_blob_is_critical_but_an_attached_spur_is_not():
    g = np.zeros((9, 9), bool)
    g[2:5, 2:5] = True
    spur = g.copy()
    spur[3, 5:7] = True                      # touches the GT blob: regular
    assert not component_graph(spur, g).critical.any()
    speck = g.copy()
    speck[7, 7] = True                       # a new component: critical
    cg = component_graph(speck, g)
    assert cg.critical.sum() == 1 and cg.node_class[cg.critical_nodes[0]] == FP


def test_merged_blobs_make_the_bridge_critical():
    g = np.zeros((7, 11), bool)
    g[2:5, 1:4] = True
    g[2:5, 7:10] = True
    p = g.copy()
    p[3, 4:7] = True                         # bridge merges the two GT blobs
    cg = component_graph(p, g)
    (v,) = cg.critical_nodes
    assert cg.node_class[v] == FP and cg.n_pixels[v] == 3


def test_thin_boundary_error_is_regular():
    g = np.zeros((8, 8), bool)
    g[1:7, 1:7] = True
    p = g.copy()
    p[1, 1:7] = False                        # one row eroded: same topology
    assert not component_graph(p, g).critical.any()
    assert diu(p, g) == 0


def test_foreground_is_8_connected_and_background_4_connected():
    g = np.zeros((4, 4), bool)
    g[1, 1] = g[2, 2] = True                 # diagonal pair: one 8-connected component
    p = np.zeros((4, 4), bool)
    p[1, 1] = True                           # missing the other half: a regular FN spur
    cg = component_graph(p, g)
    assert not cg.critical.any()
    assert cg.node_class.tolist().count(TN) == 1  # background pixels at the diagonal do not split


def test_fp_touching_fn_yields_a_shared_cluster():
    p = np.array([[1, 0], [0, 1]], bool)     # prediction diagonal
    g = np.array([[0, 1], [1, 0]], bool)     # ground truth the other diagonal
    cg = component_graph(p, g)
    fp = np.flatnonzero(cg.node_class == FP)
    fn = np.flatnonzero(cg.node_class == FN)
    assert len(set(cg.pred_cluster[fp])) == 1  # the crossing connects P ...
    assert len(set(cg.gt_cluster[fn])) == 1    # ... and G, through a virtual TP corner
    assert (cg.n_pixels[cg.node_class == TP] == 0).all()


def test_networkx_export_matches():
    g = ring()
    p = g.copy()
    p[1, 4] = False
    cg = component_graph(p, g)
    nxg = cg.to_networkx()
    assert nxg.number_of_nodes() == cg.n_nodes and nxg.number_of_edges() == len(cg.edges)
    assert sum(d["critical"] for _, d in nxg.nodes(data=True)) == 1


masks = arrays(bool, st.tuples(st.integers(2, 8), st.integers(2, 8)))


@settings(max_examples=150, deadline=None)
@given(masks, st.integers(0, 2**31 - 1))
def test_no_critical_nodes_iff_diu_zero(g, seed):
    rng = np.random.default_rng(seed)
    p = g ^ (rng.random(g.shape) < 0.2)
    assert (not component_graph(p, g).critical.any()) == (diu(p, g) == 0)


@pytest.mark.parametrize("pred,gt", [
    (np.zeros((3, 3)), np.zeros((3, 4))),
    (np.zeros((3, 3)), np.full((3, 3), 0.5)),
    (np.zeros((0, 3)), np.zeros((0, 3))),
    (np.zeros(5), np.zeros(5)),
])
def test_bad_input_is_one_line_user_error(pred, gt):
    with pytest.raises(UserError) as e:
        component_graph(pred, gt)
    assert "\n" not in str(e.value)
