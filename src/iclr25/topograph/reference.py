"""A slow, literal reference for the paper's thickening F_eps(P), F_2eps(G) ("Aufdickung"): each pixel
becomes a 7x7 block, FP is dilated by 1 sub-pixel, FN by 2 and TP by 3, and plain 4-connected labelling is
run on the result. Used only to check the fast refined-grid code (tests and the strict_metric claim).
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from iclr25.topograph.checks import check_pair
from iclr25.topograph.graph import FN, FP, TN, TP

SCALE = 7


def thickened(pred, gt, scale: int = SCALE, pad: bool = True, pad_value: int = TN) -> np.ndarray:
    """Class codes (0..3) of the thickened, upsampled image (outside padded with one pixel of class
    `pad_value`, background by default, unless `pad=False`)."""
    p, g = check_pair(pred, gt)
    c = p.astype(np.uint8) + 2 * g.astype(np.uint8)
    c = np.pad(c, 1, constant_values=pad_value) if pad else c
    out = np.zeros((c.shape[0] * scale, c.shape[1] * scale), dtype=np.uint8)
    for k, grow in ((FP, 1), (FN, 2), (TP, 3)):
        block = np.kron(c == k, np.ones((scale, scale), dtype=bool))
        out |= np.where(ndimage.binary_dilation(block, np.ones((2 * grow + 1,) * 2, bool)), k, 0
                        ).astype(np.uint8)
    return out


def diu_reference(pred, gt, boundary: str = "pad", connectivity: int = 8) -> int:
    """DIU computed on the thickened image (must equal metrics.diu with the same boundary). With
    `connectivity=4` the backgrounds are thickened instead: the complements, whose outside is foreground."""
    p, g = check_pair(pred, gt)
    if connectivity == 4:
        p, g = ~p, ~g
    t = thickened(p, g, pad=boundary == "pad", pad_value=TN if connectivity == 8 else TP)
    inter, union = t == TP, t != TN

    def ker_coker(a, b):
        la, na = ndimage.label(a)
        lb, nb = ndimage.label(b)
        hit = len(np.unique(lb[a])) if na else 0
        return na - hit + nb - hit

    return ker_coker(inter, union) + ker_coker(~union, ~inter)


def class_components_reference(pred, gt) -> dict[int, int]:
    """Number of 4-connected components of each class in the thickened image (TN, FP, FN, TP)."""
    t = thickened(pred, gt)
    return {k: int(ndimage.label(t == k)[1]) for k in (TN, FP, FN, TP)}
