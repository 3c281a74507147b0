"""TCAV (Kim et al. 2018) with any CAV: directional derivatives S(x) = grad_a f_c(x) · CAV, the TCAV
score = share of S > 0, a concept bank of CAVs from random subsets, and a t-test against random CAVs.

For conv maps the paper's code counts every spatial position (aggregate="position"): S(x, p) =
grad_a f_c(x)[:, p] · CAV; aggregate="mean" averages the gradient over positions first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from iclr25.core.errors import UserError
from iclr25.pattern_cav.activations import _batches, capture, model_dtype
from iclr25.pattern_cav.cav import CAV, FilterConfig, check_acts, check_labels, compute_cav

AGGREGATES = ("position", "mean")
_DEFAULT = FilterConfig()


def layer_gradients(model: nn.Module, layer: str, inputs: Any, target_class: int,
                    batch_size: int = 256) -> np.ndarray:
    """grad_a f_c(x) at `layer` for each input: (n, C, *spatial) or (n, D)."""
    model.eval()
    grads = []
    with capture(model, layer) as store:
        for xb in _batches(inputs, batch_size, model_dtype(model)):
            xb = xb.clone().requires_grad_(True)  # makes the layer output part of the graph
            logits = model(xb)
            if not 0 <= target_class < logits.shape[1]:
                raise UserError(f"target_class {target_class} out of range for {logits.shape[1]} outputs")
            (g,) = torch.autograd.grad(logits[:, target_class].sum(), store["out"])
            grads.append(g.detach().cpu().numpy())
    return np.concatenate(grads).astype(np.float64)


def directional_derivatives(grads: np.ndarray, direction: Any, aggregate: str = "position") -> np.ndarray:
    """S = grad · direction. direction: one CAV (D,) or one direction per sample (n, D), in the reduced
    channel space (D = C) of a conv map, or flattened (D = C*H*W). Returns (n, P) with P positions
    (P = 1 for dense layers, flattened CAVs or aggregate="mean")."""
    if aggregate not in AGGREGATES:
        raise UserError(f"unknown aggregate {aggregate!r}; choose from {', '.join(AGGREGATES)}")
    v = np.asarray(getattr(direction, "vector", direction), dtype=np.float64)
    n = grads.shape[0]
    flat = grads.reshape(n, -1)
    d = v.shape[-1]
    if grads.ndim <= 2 or d == flat.shape[1]:  # dense layer or flattened CAV
        if d != flat.shape[1]:
            raise UserError(f"direction has {d} dims but the layer has {flat.shape[1]}")
        return (flat @ v if v.ndim == 1 else np.sum(flat * v, axis=1))[:, None]
    c = grads.shape[1]
    if d != c:
        raise UserError(f"direction has {d} dims; the conv layer has {c} channels "
                        f"({flat.shape[1]} flattened)")
    g = grads.reshape(n, c, -1)  # (n, C, P)
    if aggregate == "mean":
        g = g.mean(axis=2, keepdims=True)
    return np.einsum("ncp,c->np", g, v) if v.ndim == 1 else np.einsum("ncp,nc->np", g, v)


def tcav_score(sensitivities: np.ndarray) -> float:
    """Share of positive directional derivatives."""
    return float(np.mean(np.asarray(sensitivities) > 0))


def random_cavs(acts: Any, n: int, method: str = "pattern", rng: np.random.Generator | None = None,
                config: FilterConfig = _DEFAULT) -> list[CAV]:
    """CAVs of random concepts: the same activations split into two halves at random."""
    a = check_acts(acts)
    rng = rng or np.random.default_rng(0)
    out = []
    for _ in range(n):
        t = np.zeros(a.shape[0])
        t[rng.permutation(a.shape[0])[: a.shape[0] // 2]] = 1
        out.append(compute_cav(a, t, method, config))
    return out


def cav_bank(acts: Any, labels: Any, n: int, method: str = "pattern", subsample: float = 0.5,
             rng: np.random.Generator | None = None, config: FilterConfig = _DEFAULT) -> list[CAV]:
    """n CAVs, each fit on a random `subsample` share of each class (the paper's concept bank)."""
    a = check_acts(acts)
    t = check_labels(labels, a.shape[0])
    rng = rng or np.random.default_rng(0)
    bank = []
    for _ in range(n):
        idx = np.concatenate([rng.choice(np.flatnonzero(t == k), max(2, int(subsample * np.sum(t == k))),
                                         replace=False) for k in (0, 1)])
        bank.append(compute_cav(a[idx], t[idx], method, config))
    return bank


@dataclass(frozen=True)
class TCAVResult:
    score: float  # mean TCAV score over the concept bank
    scores: np.ndarray  # one per concept CAV
    random_scores: np.ndarray  # one per random CAV (empty when testing against 0.5)
    p_value: float  # two-sided t-test: concept scores vs random scores (or vs 0.5)

    def significant(self, alpha: float = 0.05) -> bool:
        return bool(self.p_value < alpha)


def tcav_test(scores: Any, random_scores: Any | None = None) -> float:
    """p-value of a two-sided t-test of concept TCAV scores against random-CAV scores (Welch), or against
    0.5 when no random scores are given. Constant samples that equal the reference give p = 1."""
    from scipy import stats
    s = np.asarray(scores, dtype=np.float64)
    if s.size < 2:
        raise UserError("need at least two concept TCAV scores for a t-test")
    if random_scores is None or np.size(random_scores) == 0:
        if np.ptp(s) == 0:
            return 1.0 if s[0] == 0.5 else 0.0
        return float(stats.ttest_1samp(s, 0.5).pvalue)
    r = np.asarray(random_scores, dtype=np.float64)
    if np.ptp(s) == 0 and np.ptp(r) == 0:
        return 1.0 if s[0] == r[0] else 0.0
    return float(stats.ttest_ind(s, r, equal_var=False).pvalue)


def tcav(model: nn.Module, layer: str, cavs: CAV | list[CAV], inputs: Any, target_class: int,
         random: list[CAV] | None = None, aggregate: str = "position") -> TCAVResult:
    """TCAV scores of `cavs` for `target_class` on `inputs`, tested against `random` CAVs (or 0.5)."""
    cavs = [cavs] if isinstance(cavs, CAV) else list(cavs)
    g = layer_gradients(model, layer, inputs, target_class)
    scores = np.array([tcav_score(directional_derivatives(g, c, aggregate)) for c in cavs])
    rs = np.array([tcav_score(directional_derivatives(g, c, aggregate)) for c in (random or [])])
    p = tcav_test(scores, rs) if len(scores) > 1 else float("nan")
    return TCAVResult(float(scores.mean()), scores, rs, p)
