"""Topological metrics: the strict DIU (discrepancy between intersection and union, the paper's metric), Betti
numbers / Betti-number errors, the Betti-matching error, Dice and the clDice metric. Masks are binary,
8-connected foreground and 4-connected background by default (`connectivity=4` swaps them), with the
outside of the image counted as background.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from iclr25.core.errors import UserError
from iclr25.topograph.checks import as_binary_mask, check_pair
from iclr25.topograph.graph import TN, TP, refine

_EIGHT = np.ones((3, 3), dtype=bool)
_FOUR = ndimage.generate_binary_structure(2, 1)
CONNECTIVITIES = (8, 4)  # of the foreground; the background takes the other one


def _structures(connectivity: int) -> tuple[np.ndarray, np.ndarray]:
    if connectivity not in CONNECTIVITIES:
        raise UserError(f"connectivity must be 8 or 4 (of the foreground), got {connectivity!r}")
    return (_EIGHT, _FOUR) if connectivity == 8 else (_FOUR, _EIGHT)


def betti_numbers(mask, connectivity: int = 8) -> tuple[int, int]:
    """(b0, b1) of a binary mask: 8-connected components and 4-connected holes (`connectivity=4`:
    4-connected components, 8-connected holes).

    >>> ring = np.zeros((5, 5), int); ring[1:4, 1:4] = 1; ring[2, 2] = 0
    >>> betti_numbers(ring)
    (1, 1)
    >>> diag = np.eye(3, dtype=int); betti_numbers(diag), betti_numbers(diag, connectivity=4)
    ((1, 0), (3, 0))
    """
    m = as_binary_mask(mask, "mask")
    fg, bg = _structures(connectivity)
    b0 = ndimage.label(m, structure=fg)[1]
    b1 = ndimage.label(~np.pad(m, 1), structure=bg)[1] - 1  # padded background: the outside is one component
    return int(b0), int(b1)


def betti_matching_error(pred, gt, connectivity: int = 8) -> tuple[int, int]:
    """The Betti-matching error (Stucki et al. 2023) of two binary masks, per dimension: the features
    (components, holes) of P and of G left unmatched when both are matched through their union U = P | G
    (the induced matchings of P -> U <- G). For binary masks every bar has the same interval, so the
    induced matchings are fixed up to ties; we break them geometrically and in favour of matches: a
    component of P and one of G are matched when they lie in the same component of U (one pair per
    component of U), a hole of P and one of G when a hole of U lies inside both (one pair per hole of U,
    a maximum matching).

    >>> gt = np.zeros((7, 7), int); gt[1:6, 1:6] = 1; gt[3, 3] = 0          # a square with a hole
    >>> betti_matching_error(gt, gt), betti_matching_error(np.roll(gt, 1, 1), gt)
    ((0, 0), (0, 2))
    >>> blob_a = np.zeros((5, 9), int); blob_a[1:4, 1:4] = 1; blob_b = np.roll(blob_a, 4, 1)
    >>> betti_matching_error(blob_b, blob_a)                               # equal Betti numbers
    (2, 0)
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching
    p, g = check_pair(pred, gt)
    fg, bg = _structures(connectivity)
    u = p | g
    lu, _ = ndimage.label(u, structure=fg)
    lp, n_p0 = ndimage.label(p, structure=fg)
    lg, n_g0 = ndimage.label(g, structure=fg)
    # each component of P (of G) lies in one component of U: pairs = components of U holding both
    up = set(np.unique(lu[p]).tolist())
    ug = set(np.unique(lu[g]).tolist())
    m0 = len(up & ug)
    # holes: bounded background components; bg(U) is inside bg(P) and bg(G), so each hole of U lies in one
    # background component of P and one of G (the outside, label 1 after padding, is not a hole)
    hp, n_p1 = ndimage.label(~np.pad(p, 1), structure=bg)
    hg, n_g1 = ndimage.label(~np.pad(g, 1), structure=bg)
    hu, n_u1 = ndimage.label(~np.pad(u, 1), structure=bg)
    outside_p, outside_g = hp[0, 0], hg[0, 0]
    pairs = set()
    for k in range(1, n_u1 + 1):
        cell = np.argmax((hu == k).ravel())  # any pixel of this hole of U
        a, b = hp.ravel()[cell], hg.ravel()[cell]
        if hu.ravel()[cell] and a != outside_p and b != outside_g:
            pairs.add((a, b))
    m1 = 0
    if pairs:
        rows, cols = zip(*pairs, strict=True)
        graph = coo_matrix((np.ones(len(pairs)), (rows, cols)), shape=(n_p1 + 1, n_g1 + 1)).tocsr()
        m1 = int((maximum_bipartite_matching(graph, perm_type="column") >= 0).sum())
    return int(n_p0 + n_g0 - 2 * m0), int((n_p1 - 1) + (n_g1 - 1) - 2 * m1)


def betti_errors(pred, gt) -> tuple[int, int]:
    """(|b0(P) - b0(G)|, |b1(P) - b1(G)|).

    >>> gt = np.zeros((5, 5), int); gt[1:4, 1:4] = 1; gt[2, 2] = 0; pred = gt.copy(); pred[2, 2] = 1
    >>> betti_errors(pred, gt)
    (0, 1)
    """
    p, g = check_pair(pred, gt)
    (p0, p1), (g0, g1) = betti_numbers(p), betti_numbers(g)
    return abs(p0 - g0), abs(p1 - g1)


def _ker_coker(a: np.ndarray, b: np.ndarray) -> tuple[int, int]:
    """For cell sets A subset of B (bool arrays on the refined grid): dim ker and dim coker of the map
    H0(A) -> H0(B) over Z/2. ker = components of A minus the components of B they hit; coker =
    components of B that contain no component of A."""
    la, na = ndimage.label(a)
    lb, nb = ndimage.label(b)
    hit = len(np.unique(lb[a])) if na else 0
    return na - hit, nb - hit


BOUNDARIES = ("pad", "none")


def diu_parts(pred, gt, boundary: str = "pad", connectivity: int = 8) -> dict[str, int]:
    """The four terms of DIU: ker/coker of H0 for i: P&G -> P|G and for j: bg(P|G) -> bg(P&G).

    By Alexander duality the H1 terms of i equal the H0 terms of j on the complements (the paper's argument),
    so only component counts are needed.

    `boundary="pad"` (default, the one our claims use) surrounds the image with background, so all
    background touching the border is one region (the image lies in the plane, or on a sphere: the
    setting of the duality argument). `boundary="none"` labels the image as it is (the official metric's
    default): background regions cut apart by a structure that crosses the image stay apart, and a break
    in such a structure counts twice (one extra component, plus two background regions merged).

    `connectivity=4` (4-connected foreground, 8-connected background): DIU is self-dual (the complements'
    intersection is the union's complement), so it is computed on the complements, whose foreground is
    then 8-connected, with the outside of the image on their foreground side.
    """
    if boundary not in BOUNDARIES:
        raise UserError(f"boundary must be 'pad' or 'none', got {boundary!r}")
    _structures(connectivity)
    p, g = check_pair(pred, gt)
    if connectivity == 4:
        p, g = ~p, ~g
    r = refine(p, g, pad=boundary == "pad", pad_value=TN if connectivity == 8 else TP)
    inter, union = r == TP, r != TN
    k0, c0 = _ker_coker(inter, union)          # i_0: H0(P & G) -> H0(P | G)
    k1, c1 = _ker_coker(~union, ~inter)        # j_0: H0(bg of union) -> H0(bg of intersection)
    return {"ker_i0": k0, "coker_i0": c0, "ker_j0": k1, "coker_j0": c1}


def diu(pred, gt, boundary: str = "pad", connectivity: int = 8) -> int:
    """DIU error xi_err = dim ker i_* + dim coker i_* (the paper's strict metric xi_err).

    It is 0 iff the inclusion of the intersection into the union is a homotopy equivalence, which is
    strictly stronger than equal Betti numbers: two disjoint blobs of equal shape have Betti error 0
    and DIU 2.

    >>> gt = np.zeros((5, 9), int); gt[1:4, 1:4] = 1
    >>> pred = np.zeros((5, 9), int); pred[1:4, 5:8] = 1
    >>> betti_errors(pred, gt), diu(pred, gt)
    ((0, 0), 2)

    A line crossing the image, broken once: the break is one error with the outside as background, two
    without (`boundary="none"`, see diu_parts).

    >>> gt = np.zeros((5, 5), int); gt[:, 2] = 1; pred = gt.copy(); pred[2, 2] = 0
    >>> diu(pred, gt), diu(pred, gt, boundary="none")
    (1, 2)

    Two pixels touching at a corner are one component with 8-connected foreground, two with 4:

    >>> diag = np.eye(2, dtype=int); one = np.array([[1, 1], [0, 1]])
    >>> diu(diag, one), diu(diag, one, connectivity=4)
    (0, 1)
    """
    return sum(diu_parts(pred, gt, boundary, connectivity).values())


def dice(pred, gt) -> float:
    """Dice of two binary masks; 1.0 when both are empty."""
    p, g = check_pair(pred, gt)
    s = p.sum() + g.sum()
    return 1.0 if s == 0 else float(2 * (p & g).sum() / s)


def skeletonize(mask: np.ndarray, iters: int = 50) -> np.ndarray:
    """Morphological skeleton (the binary analogue of clDice's soft skeleton, Shit et al. 2021)."""
    img = mask.astype(np.float32)
    return _soft_skel_np(img, iters) > 0.5


def _soft_skel_np(img: np.ndarray, iters: int) -> np.ndarray:
    def erode(x):
        return np.minimum(ndimage.minimum_filter(x, size=(3, 1), mode="nearest"),
                          ndimage.minimum_filter(x, size=(1, 3), mode="nearest"))

    def open_(x):
        return ndimage.maximum_filter(erode(x), size=3, mode="nearest")

    skel = np.maximum(img - open_(img), 0)
    for _ in range(iters):
        img = erode(img)
        if not img.any():
            break
        delta = np.maximum(img - open_(img), 0)
        skel = skel + np.maximum(delta - skel * delta, 0)
    return skel


def cldice(pred, gt) -> float:
    """clDice metric: harmonic mean of topology precision |S_P & G|/|S_P| and sensitivity |S_G & P|/|S_G|."""
    p, g = check_pair(pred, gt)
    sp, sg = skeletonize(p), skeletonize(g)
    tprec = (sp & g).sum() / max(sp.sum(), 1)
    tsens = (sg & p).sum() / max(sg.sum(), 1)
    return 0.0 if tprec + tsens == 0 else float(2 * tprec * tsens / (tprec + tsens))


def evaluate(pred, gt, boundary: str = "pad", connectivity: int = 8, betti_matching: bool = False
             ) -> dict[str, float]:
    """All metrics for one image pair (DIU with the given boundary convention and connectivity); with
    `betti_matching`, the Betti-matching error too ("bm", and per dimension "bm0", "bm1")."""
    p, g = check_pair(pred, gt)
    (p0, p1), (g0, g1) = betti_numbers(p, connectivity), betti_numbers(g, connectivity)
    out = {"diu": float(diu(p, g, boundary, connectivity)), "betti0_err": float(abs(p0 - g0)),
           "betti1_err": float(abs(p1 - g1)), "dice": dice(p, g), "cldice": cldice(p, g)}
    if betti_matching:
        m0, m1 = betti_matching_error(p, g, connectivity)
        out |= {"bm": float(m0 + m1), "bm0": float(m0), "bm1": float(m1)}
    return out
