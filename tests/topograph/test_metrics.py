"""DIU and Betti errors: constructed cases with known answers, the thickening reference, invariants."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from iclr25.core.errors import UserError
from iclr25.topograph import betti_errors, betti_numbers, cldice, dice, diu, diu_parts
from iclr25.topograph.experiments import constructed_cases
from iclr25.topograph.reference import diu_reference


@pytest.mark.parametrize("name,pred,gt,equivalent", constructed_cases(),
                         ids=[c[0] for c in constructed_cases()])
def test_diu_zero_iff_homotopy_equivalent(name, pred, gt, equivalent):
    assert (diu(pred, gt) == 0) == equivalent, name


def test_disjoint_blobs_have_equal_betti_numbers_but_diu_two():
    g = np.zeros((6, 12), bool)
    g[1:5, 1:5] = True
    p = np.roll(g, 6, axis=1)
    assert betti_errors(p, g) == (0, 0)
    assert diu_parts(p, g) == {"ker_i0": 0, "coker_i0": 2, "ker_j0": 0, "coker_j0": 0}


def test_ring_gap_counts_one_error():
    g = np.zeros((7, 7), bool)
    g[1:6, 1:6] = True
    g[2:5, 2:5] = False
    p = g.copy()
    p[1, 3] = False
    assert betti_numbers(g) == (1, 1) and betti_numbers(p) == (1, 0)
    assert betti_errors(p, g) == (0, 1)
    assert diu(p, g) == 1


def test_betti_numbers_use_8_and_4_connectivity():
    m = np.zeros((5, 5), bool)
    m[1, 1] = m[2, 2] = m[3, 1] = True      # diagonal chain: one component
    assert betti_numbers(m) == (1, 0)
    diamond = np.zeros((5, 5), bool)
    diamond[1, 2] = diamond[2, 1] = diamond[2, 3] = diamond[3, 2] = True
    assert betti_numbers(diamond) == (1, 1)  # the centre is a 4-connected hole


masks = arrays(bool, st.tuples(st.integers(1, 8), st.integers(1, 8)))


@settings(max_examples=80, deadline=None)
@given(masks, st.integers(0, 2**31 - 1))
def test_diu_matches_the_thickening_reference_and_is_symmetric(g, seed):
    p = g ^ (np.random.default_rng(seed).random(g.shape) < 0.25)
    d = diu(p, g)
    assert d == diu_reference(p, g)
    assert d == diu(g, p)
    if d == 0:
        assert betti_errors(p, g) == (0, 0)   # strictly stronger than Betti numbers


@settings(max_examples=60, deadline=None)
@given(masks, st.integers(0, 2**31 - 1))
def test_unpadded_diu_matches_the_unpadded_thickening_reference(g, seed):
    p = g ^ (np.random.default_rng(seed).random(g.shape) < 0.25)
    assert diu(p, g, boundary="none") == diu_reference(p, g, boundary="none")


def _crossing_line(broken: bool) -> tuple[np.ndarray, np.ndarray]:
    gt = np.zeros((7, 7), int)
    gt[:, 3] = 1                                  # a road from the top edge to the bottom edge
    pred = gt.copy()
    if broken:
        pred[3, 3] = 0
    return pred, gt


@pytest.mark.parametrize("boundary, parts", [
    # padded: the outside joins the two background halves, so only the extra component counts
    ("pad", {"ker_i0": 1, "coker_i0": 0, "ker_j0": 0, "coker_j0": 0}),
    # unpadded: the two halves are apart in the union's background and merged through the break
    ("none", {"ker_i0": 1, "coker_i0": 0, "ker_j0": 1, "coker_j0": 0}),
])
def test_a_break_in_a_border_to_border_line_under_both_conventions(boundary, parts):
    pred, gt = _crossing_line(broken=True)
    assert diu_parts(pred, gt, boundary) == parts
    assert diu(pred, gt, boundary) == sum(parts.values())
    assert diu(*_crossing_line(broken=False), boundary=boundary) == 0


def test_conventions_agree_away_from_the_border():
    gt = np.zeros((9, 9), int)
    gt[2:7, 2:7] = 1
    gt[4, 4] = 0                                  # a ring that touches no border
    pred = gt.copy()
    pred[2:4, 4] = 0                              # cut through: the hole opens to the outside
    assert diu(pred, gt, "pad") == diu(pred, gt, "none") == 1
    with pytest.raises(UserError, match="boundary must be 'pad' or 'none'"):
        diu(pred, gt, boundary="sphere")


def test_dice_and_cldice_are_one_for_perfect_masks():
    g = np.zeros((12, 12), bool)
    g[3:9, 5:7] = True
    assert dice(g, g) == 1.0 and cldice(g, g) == pytest.approx(1.0)
    assert dice(np.zeros_like(g), g) == 0.0


def test_empty_both_is_perfect():
    z = np.zeros((4, 4), bool)
    assert diu(z, z) == 0 and dice(z, z) == 1.0


@pytest.mark.parametrize("pred,gt,msg", [
    (np.zeros((3, 3)), np.zeros((4, 3)), "shape mismatch"),
    (np.zeros((3, 3)), np.full((3, 3), 2), "binary"),
    (np.zeros((0, 0)), np.zeros((0, 0)), "empty"),
])
def test_bad_input(pred, gt, msg):
    with pytest.raises(UserError, match=msg):
        diu(pred, gt)


# ---- issue #52: the Betti-matching error and the connectivity switch --------------------------------

def test_betti_matching_known_cases():
    from iclr25.topograph.metrics import betti_matching_error
    ring = np.zeros((9, 9), int)
    ring[1:8, 1:8] = 1
    ring[3:6, 3:6] = 0
    broken = ring.copy()
    broken[1:3, 4] = 0  # a cut through the wall: still one component, the hole opens to the outside
    assert betti_matching_error(ring, ring) == (0, 0)
    assert betti_matching_error(broken, ring) == (0, 1)  # G's hole has no partner
    blob_a = np.zeros((5, 9), int)
    blob_a[1:4, 1:4] = 1
    assert betti_matching_error(np.roll(blob_a, 4, 1), blob_a) == (2, 0)  # equal Betti numbers, no match
    assert betti_matching_error(np.zeros((4, 4), int), blob_a[:4, :4]) == (1, 0)


def test_betti_matching_is_symmetric_and_bounded_by_betti_counts():
    from iclr25.topograph.metrics import betti_errors, betti_matching_error, betti_numbers
    rng = np.random.default_rng(5)
    for _ in range(200):
        g = rng.random((9, 9)) < 0.5
        p = g ^ (rng.random((9, 9)) < 0.15)
        bm = betti_matching_error(p, g)
        assert bm == betti_matching_error(g, p)
        (p0, p1), (g0, g1) = betti_numbers(p), betti_numbers(g)
        e0, e1 = betti_errors(p, g)
        assert e0 <= bm[0] <= p0 + g0 and e1 <= bm[1] <= p1 + g1  # at least the count difference
        assert bm[0] % 2 == e0 % 2 and bm[1] % 2 == e1 % 2
        if (p == g).all():
            assert bm == (0, 0)


def test_connectivity_4_equals_the_thickening_of_the_backgrounds():
    """4-connected foreground = 8-connected background: the literal reference thickens the complements."""
    rng = np.random.default_rng(1)
    for _ in range(300):
        h, w = rng.integers(2, 9, size=2)
        g = rng.random((h, w)) < rng.uniform(0.2, 0.8)
        p = g ^ (rng.random((h, w)) < rng.uniform(0.05, 0.3))
        for boundary in ("pad", "none"):
            assert diu(p, g, boundary, connectivity=4) == diu_reference(p, g, boundary, connectivity=4)
    diag = np.eye(3, dtype=int)
    assert diu(diag, diag, connectivity=4) == 0 and diu(diag, np.triu(np.ones((3, 3), int)),
                                                        connectivity=4) > 0


def test_connectivity_bad_value():
    from iclr25.topograph.metrics import diu
    with pytest.raises(UserError, match="connectivity must be 8 or 4"):
        diu(np.ones((2, 2)), np.ones((2, 2)), connectivity=6)
