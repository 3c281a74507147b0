"""How good a CAV is: cosine alignment with the true concept direction and concept-detection AUC
(the two metrics of Pahde et al. 2025's controlled-artifact experiments)."""

from __future__ import annotations

from typing import Any

import numpy as np

from iclr25.core.errors import UserError
from iclr25.pattern_cav.cav import check_acts, check_labels


def _vec(cav: Any) -> np.ndarray:
    v = np.asarray(getattr(cav, "vector", cav), dtype=np.float64).ravel()
    if v.size == 0 or not np.all(np.isfinite(v)) or not np.any(v):
        raise UserError("cav must be a non-zero finite vector")
    return v


def cosine(u: Any, v: Any) -> float:
    """cos(u, v) = u·v / (|u| |v|).

    >>> cosine([1, 0], [1, 1])
    0.7071067811865475
    """
    a, b = _vec(u), _vec(v)
    if a.shape != b.shape:
        raise UserError(f"vectors have different lengths ({a.size} vs {b.size})")
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def alignment(cav: Any, acts_with: Any, acts_without: Any | None = None) -> float:
    """Mean cosine between the CAV and per-sample true concept directions a(x~) - a(x).

    acts_with: activations of inputs with the concept inserted, (n, D); acts_without: the same inputs
    without it, (n, D). If acts_without is None, acts_with already holds the differences. Rows with a
    zero difference (the concept changed nothing) are skipped.

    >>> alignment([1, 0], [[2, 0], [1, 1]], [[0, 0], [0, 0]])
    0.8535533905932737
    """
    v = _vec(cav)
    d = check_acts(acts_with, "acts_with")
    if acts_without is not None:
        d0 = check_acts(acts_without, "acts_without")
        if d0.shape != d.shape:
            raise UserError(f"acts_with {d.shape} and acts_without {d0.shape} must have the same shape")
        d = d - d0
    if d.shape[1] != v.size:
        raise UserError(f"cav has {v.size} dims but activations have {d.shape[1]}")
    norms = np.linalg.norm(d, axis=1)
    keep = norms > 0
    if not keep.any():
        raise UserError("every ground-truth difference is zero; the concept does not change these "
                        "activations")
    return float(np.mean(d[keep] @ v / (norms[keep] * np.linalg.norm(v))))


def tied_ranks(scores: Any, rtol: float = 1e-9) -> np.ndarray:
    """Mid-ranks (1-based) of `scores`, where values closer than `rtol` times the scores' scale count as
    ties: floating-point noise (a projection that sets every score to one value up to 1e-16) is not an
    ordering.

    >>> tied_ranks([0.3, 0.1, 0.3 + 1e-17, 0.2]).tolist()
    [3.5, 1.0, 3.5, 2.0]
    """
    x = np.asarray(scores, dtype=np.float64).ravel()
    order = np.argsort(x, kind="stable")
    xs = x[order]
    scale = float(np.max(np.abs(xs))) if xs.size else 0.0
    new_group = np.r_[True, np.diff(xs) > rtol * max(scale, np.finfo(float).tiny)]
    group = np.cumsum(new_group) - 1  # group id per sorted position
    pos = np.arange(1, x.size + 1, dtype=np.float64)
    mid = np.bincount(group, weights=pos) / np.bincount(group)
    ranks = np.empty_like(x)
    ranks[order] = mid[group]
    return ranks


def concept_auc(cav: Any, acts: Any, labels: Any, rtol: float = 1e-9) -> float:
    """ROC-AUC of the concept scores CAV·a for telling concept (t = 1) from non-concept samples (the
    Mann–Whitney statistic; ties count one half). Scores within `rtol` of the scores' scale are ties, so
    activations projected onto one value along the CAV (P-ClArC) give 0.5, not a ranking of rounding noise.

    >>> concept_auc([1.0], [[1.0], [1.0 + 1e-15], [1.0], [1.0]], [0, 1, 0, 1])
    0.5
    """
    v = _vec(cav)
    a = check_acts(acts)
    t = check_labels(labels, a.shape[0], binary=True)
    if a.shape[1] != v.size:
        raise UserError(f"cav has {v.size} dims but acts has {a.shape[1]}")
    return auc(t, a @ v, rtol)


def auc(labels: np.ndarray, scores: np.ndarray, rtol: float = 1e-9) -> float:
    """Mann–Whitney ROC-AUC of `scores` for 0/1 `labels`, near-ties (see `tied_ranks`) counted one half."""
    ranks = tied_ranks(scores, rtol)
    pos = np.asarray(labels) == 1
    n1, n0 = int(pos.sum()), int((~pos).sum())
    return float((ranks[pos].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def heldout_auc(acts: Any, labels: Any, method: str = "pattern", folds: int = 5, seed: int = 0,
                config: Any = None) -> tuple[float, int]:
    """Cross-validated concept-detection AUC: the CAV is fit on k-1 folds and scores the held-out fold;
    the AUC is computed over all held-out scores. Returns (AUC, folds used); folds shrink to the
    smaller class's count, and (nan, 0) means too few samples of a class to hold any out.

    >>> rng = np.random.default_rng(0); t = np.repeat([0, 1], 20); a = rng.normal(size=(40, 3))
    >>> a[:, 0] += 3 * t
    >>> round(heldout_auc(a, t, "pattern")[0], 2)
    0.96
    """
    from sklearn.model_selection import StratifiedKFold

    from iclr25.pattern_cav.cav import FilterConfig, compute_cav
    a = check_acts(acts)
    t = check_labels(labels, a.shape[0], binary=True)
    scale = float(np.max(np.abs(a)))
    a = a / scale if scale > 0 else a  # the AUC ignores one global factor; 1e300 activations stay finite
    k = min(int(folds), int(np.bincount(t.astype(int), minlength=2).min()))
    if k < 2:
        return float("nan"), 0
    scores = np.empty(a.shape[0])
    for tr, te in StratifiedKFold(k, shuffle=True, random_state=seed).split(a, t):
        v = compute_cav(a[tr], t[tr], method, config or FilterConfig()).vector
        scores[te] = a[te] @ v
    return auc(t, scores), k
