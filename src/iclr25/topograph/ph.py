"""Baseline: a persistent-homology loss in the style of Hu et al. (NeurIPS 2019, "HuTopo").

The foreground probability p is filtered by superlevel sets (sublevel sets of 1 - p, pixels as top
cells, so the foreground is 8-connected). For each dimension d in {0, 1}, the k_d = b_d(G) most
persistent pairs are matched to the ground truth's perfect dots (birth p = 1, death p = 0) and the rest
are pushed to the diagonal; gradients reach only the birth and death ("critical") pixels:

    L_PH = sum_matched (1 - p(b))^2 + p(d)^2  +  sum_unmatched (p(b) - p(d))^2 / 2

Two backends compute the diagrams with critical pixels: gudhi (CubicalComplex) and cripser (T-construction).
"""

from __future__ import annotations

import functools
import importlib.machinery
import importlib.util
from pathlib import Path

import numpy as np
import torch
from torch import nn

from iclr25.core.errors import UserError
from iclr25.topograph.metrics import betti_numbers
from iclr25.topograph.tensors import prepare

BACKENDS = ("gudhi", "cripser")


@functools.cache
def _cripser_t():
    """cripser's T-construction `computePH`. The package's __init__ imports torch, POT and scikit-learn
    (about 5 s of CPU); we load only its compiled extension when we can, else the package."""
    try:
        spec = importlib.util.find_spec("cripser")
        path = next(Path(spec.submodule_search_locations[0]).glob("tcripser*.so"))
        loader = importlib.machinery.ExtensionFileLoader("tcripser", str(path))
        mod = importlib.util.module_from_spec(importlib.util.spec_from_loader("tcripser", loader))
        loader.exec_module(mod)
        return mod.computePH
    except Exception:  # noqa: BLE001 - any failure: fall back to the documented import
        import cripser
        return cripser.computePH_T


def persistence_pairs(p: np.ndarray, backend: str = "gudhi") -> list[tuple[int, int, int]]:
    """(dim, birth_pixel, death_pixel) of the superlevel filtration of p (flat C-order indices;
    death = -1 for the essential class).

    >>> p = np.zeros((5, 5)); p[1:4, 1:4] = 1; p[2, 2] = 0.2           # a ring with a weak centre
    >>> sorted(d for d, _, _ in persistence_pairs(p))
    [0, 1]
    """
    f = np.ascontiguousarray(1.0 - p, dtype=np.float64)
    h, w = f.shape
    out: list[tuple[int, int, int]] = []
    if backend == "gudhi":
        import gudhi
        cc = gudhi.CubicalComplex(top_dimensional_cells=f)
        cc.compute_persistence(homology_coeff_field=2, min_persistence=0.0)
        regular, essential = cc.cofaces_of_persistence_pairs()

        def to_c(idx):  # gudhi indexes top cells in Fortran order
            idx = np.asarray(idx, dtype=np.int64)
            return (idx % h) * w + idx // h

        for d, arr in enumerate(regular):
            if len(arr):
                bd = to_c(arr)
                out += [(d, int(b), int(e)) for b, e in bd]
        for d, arr in enumerate(essential):
            out += [(d, int(b), -1) for b in to_c(arr)]
    elif backend == "cripser":
        res = _cripser_t()(f, maxdim=1)
        for row in res:
            d = int(row[0])
            b = int(row[3]) * w + int(row[4])
            e = -1 if row[2] > 1e300 else int(row[6]) * w + int(row[7])
            out.append((d, b, e))
    else:
        raise UserError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    return out


def ph_loss_single(p: torch.Tensor, gt: np.ndarray, backend: str = "gudhi") -> torch.Tensor:
    """HuTopo loss for one (H, W) foreground-probability map against a binary ground truth."""
    pn = p.detach().cpu().numpy()
    flat = p.reshape(-1)
    betti = betti_numbers(gt)
    pairs = persistence_pairs(pn, backend)
    loss = flat.new_zeros(())
    for d in (0, 1):
        dd = [(b, e) for k, b, e in pairs if k == d]
        if not dd:
            continue
        births = np.array([b for b, _ in dd])
        deaths = np.array([e for _, e in dd])
        death_val = np.where(deaths >= 0, pn.reshape(-1)[np.maximum(deaths, 0)], 0.0)
        order = np.argsort(-(pn.reshape(-1)[births] - death_val), kind="stable")   # most persistent first
        matched, unmatched = order[: betti[d]], order[betti[d]:]
        pb = flat[torch.from_numpy(births)]
        pd = torch.where(torch.from_numpy(deaths >= 0), flat[torch.from_numpy(np.maximum(deaths, 0))],
                         flat.new_zeros(()))
        if len(matched):
            m = torch.from_numpy(matched)
            loss = loss + ((1 - pb[m]) ** 2 + pd[m] ** 2).sum()
        if len(unmatched):
            u = torch.from_numpy(unmatched)
            loss = loss + ((pb[u] - pd[u]) ** 2 / 2).sum()
    return loss


class PHLoss(nn.Module):
    """alpha * mean over the batch of the HuTopo loss (binary, or one-vs-rest over foreground classes)."""

    def __init__(self, alpha: float = 0.5, backend: str = "gudhi", activation: str = "auto") -> None:
        super().__init__()
        if backend not in BACKENDS:
            raise UserError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
        self.alpha, self.backend, self.activation = alpha, backend, activation

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        probs, onehot = prepare(logits, target, self.activation)
        b, k = probs.shape[:2]
        tnp = onehot.detach().cpu().numpy() > 0.5
        total = probs.new_zeros(())
        for i in range(b):
            for c in range(1, k):
                total = total + ph_loss_single(probs[i, c], tnp[i, c], self.backend)
        return self.alpha * total / (b * (k - 1))
