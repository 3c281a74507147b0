"""Topological metrics: the strict DIU (discrepancy between intersection and union, the paper's metric), Betti
numbers / Betti-number errors, Dice and the clDice metric. Masks are binary, 8-connected foreground and
4-connected background, with the outside of the image counted as background.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from iclr25.core.errors import UserError
from iclr25.topograph.checks import as_binary_mask, check_pair
from iclr25.topograph.graph import TN, TP, refine

_EIGHT = np.ones((3, 3), dtype=bool)


def betti_numbers(mask) -> tuple[int, int]:
    """(b0, b1) of a binary mask: 8-connected components and 4-connected holes.

    >>> ring = np.zeros((5, 5), int); ring[1:4, 1:4] = 1; ring[2, 2] = 0
    >>> betti_numbers(ring)
    (1, 1)
    """
    m = as_binary_mask(mask, "mask")
    b0 = ndimage.label(m, structure=_EIGHT)[1]
    b1 = ndimage.label(~np.pad(m, 1))[1] - 1  # padded background: the outside is one component
    return int(b0), int(b1)


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


def diu_parts(pred, gt, boundary: str = "pad") -> dict[str, int]:
    """The four terms of DIU: ker/coker of H0 for i: P&G -> P|G and for j: bg(P|G) -> bg(P&G).

    By Alexander duality the H1 terms of i equal the H0 terms of j on the complements (the paper's argument),
    so only component counts are needed.

    `boundary="pad"` (default, the one our claims use) surrounds the image with background, so all
    background touching the border is one region (the image lies in the plane, or on a sphere: the
    setting of the duality argument). `boundary="none"` labels the image as it is (the official metric's
    default): background regions cut apart by a structure that crosses the image stay apart, and a break
    in such a structure counts twice (one extra component, plus two background regions merged).
    """
    if boundary not in BOUNDARIES:
        raise UserError(f"boundary must be 'pad' or 'none', got {boundary!r}")
    p, g = check_pair(pred, gt)
    r = refine(p, g, pad=boundary == "pad")
    inter, union = r == TP, r != TN
    k0, c0 = _ker_coker(inter, union)          # i_0: H0(P & G) -> H0(P | G)
    k1, c1 = _ker_coker(~union, ~inter)        # j_0: H0(bg of union) -> H0(bg of intersection)
    return {"ker_i0": k0, "coker_i0": c0, "ker_j0": k1, "coker_j0": c1}


def diu(pred, gt, boundary: str = "pad") -> int:
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
    """
    return sum(diu_parts(pred, gt, boundary).values())


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


def evaluate(pred, gt, boundary: str = "pad") -> dict[str, float]:
    """All metrics for one image pair (DIU with the given boundary convention)."""
    b0, b1 = betti_errors(pred, gt)
    return {"diu": float(diu(pred, gt, boundary)), "betti0_err": float(b0), "betti1_err": float(b1),
            "dice": dice(pred, gt), "cldice": cldice(pred, gt)}
