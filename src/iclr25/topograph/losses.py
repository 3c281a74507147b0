"""The Topograph loss (the paper's aggregation over critical regions) and the pixel losses it is added
to: soft Dice and clDice.

L_topograph = 1/(B*K) * sum_{b,k} sum_{critical regions R} agg_{x in R} p_{c_hat(x)}(x)

where c_hat(x) is the class currently predicted at x; lowering it flips the whole critical region.
Total loss = Dice + alpha * L_topograph (the term is skipped when alpha = 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from iclr25.core.errors import UserError
from iclr25.topograph.graph import component_graph
from iclr25.topograph.tensors import prepare

AGGREGATIONS = ("mean", "sum", "max", "min", "rms", "ce")


@dataclass(frozen=True)
class TopographConfig:
    """Paper defaults (official configs): mean aggregation, background excluded, no threshold noise."""

    alpha: float = 0.5               # weight of the topology term
    aggregation: str = "mean"        # agg over each critical region
    include_background: bool = False  # one-vs-rest over classes 1..K-1 only
    activation: str = "auto"         # sigmoid for 1 channel, softmax otherwise; "none" = probabilities
    thres_noise: float | None = None  # uniform jitter of one class's probability before argmax
    seed: int = 0                    # for the threshold noise


def _batch_regions(pred_lab: np.ndarray, target_lab: np.ndarray, classes: list[int]
                   ) -> tuple[np.ndarray, np.ndarray, int]:
    """Flat pixel positions (into the (B, len(classes), H, W) layout) that lie in critical regions, the
    region id of each, and the number of regions. One component graph per (sample, class)."""
    b, h, w = pred_lab.shape
    pos, rid, n_regions = [], [], 0
    for i in range(b):
        for j, k in enumerate(classes):
            cg = component_graph(pred_lab[i] == k, target_lab[i] == k)
            crit = cg.critical_nodes
            if len(crit) == 0:
                continue
            remap = np.full(cg.n_nodes, -1, dtype=np.int64)
            remap[crit] = np.arange(len(crit)) + n_regions
            r = remap[cg.pixel_node].ravel()
            m = np.flatnonzero(r >= 0)
            pos.append(m + (i * len(classes) + j) * h * w)
            rid.append(r[m])
            n_regions += len(crit)
    if not pos:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), 0
    return np.concatenate(pos), np.concatenate(rid), n_regions


def _aggregate(values: torch.Tensor, rid: torch.Tensor, n: int, how: str) -> torch.Tensor:
    """Per-region aggregate of `values` (one value per critical pixel), shape (n,)."""
    z = values.new_zeros(n)
    if how in ("mean", "sum", "rms", "ce"):
        v = values ** 2 if how == "rms" else values
        s = z.index_add(0, rid, v)
        if how == "sum":
            return s
        cnt = torch.bincount(rid, minlength=n).to(values.dtype)
        m = s / cnt
        return m.sqrt() if how == "rms" else m
    reduce = "amax" if how == "max" else "amin"
    return z.scatter_reduce(0, rid, values, reduce=reduce, include_self=False)


class TopographLoss(nn.Module):
    """alpha * L_topograph for logits (B, C, H, W) and a target of labels (B, H, W) or one-hot.

    Binary segmentation uses C = 1 (sigmoid); multi-class uses softmax and one-vs-rest per class.

    >>> gt = torch.zeros(1, 9, 9); gt[0, 4, 1:8] = 1                 # a line
    >>> logits = (gt * 8 - 4).unsqueeze(1).clone(); logits[0, 0, 4, 4] = -4   # predicted with a gap
    >>> float(TopographLoss(alpha=1.0)(logits, gt)) > 0.9               # the gap pixel is critical
    True
    """

    def __init__(self, alpha: float = 0.5, aggregation: str = "mean", include_background: bool = False,
                 activation: str = "auto", thres_noise: float | None = None, seed: int = 0) -> None:
        super().__init__()
        if aggregation not in AGGREGATIONS:
            raise UserError(f"aggregation must be one of {', '.join(AGGREGATIONS)}, got {aggregation!r}")
        if not np.isfinite(alpha) or alpha < 0:
            raise UserError(f"alpha must be a finite number >= 0, got {alpha!r}")
        if thres_noise is not None and not 0 <= thres_noise < 0.5:
            raise UserError(f"thres_noise must lie in [0, 0.5), got {thres_noise!r}")
        self.config = TopographConfig(alpha, aggregation, include_background, activation, thres_noise, seed)
        self._rng = np.random.default_rng(seed)
        self.last_n_regions = 0  # critical regions in the last call (for logging)

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        cfg = self.config
        probs, onehot = prepare(logits, target, cfg.activation)   # (B, K, H, W) each
        if cfg.alpha == 0:
            return probs.sum() * 0.0
        b, k, h, w = probs.shape
        pnp = probs.detach().cpu().numpy()
        if cfg.thres_noise:  # paper: jitter one random class's probability to expose near-threshold structure
            pnp = pnp.copy()
            c = int(self._rng.integers(k))
            pnp[:, c] += self._rng.uniform(-cfg.thres_noise, cfg.thres_noise, size=(b, h, w))
        pred_lab = pnp.argmax(1)
        target_lab = onehot.detach().cpu().numpy().argmax(1)
        classes = list(range(0 if cfg.include_background or k == 1 else 1, k))

        pos, rid, n = _batch_regions(pred_lab, target_lab, classes)
        self.last_n_regions = n
        if n == 0:
            return probs.sum() * 0.0
        # p_{c_hat(x)}(x): the probability of the currently (wrongly) predicted class at x
        pred_t = torch.from_numpy(pred_lab).to(probs.device)
        p_hat = probs.gather(1, pred_t.unsqueeze(1))[:, 0]                      # (B, H, W)
        p_hat = p_hat.unsqueeze(1).expand(b, len(classes), h, w).reshape(-1)    # per class slot
        pos_t = torch.from_numpy(pos).to(probs.device)
        vals = p_hat[pos_t]
        if cfg.aggregation == "ce":   # cross-entropy towards the target class on the region
            tgt = torch.from_numpy(target_lab).to(probs.device).unsqueeze(1)
            p_tgt = probs.gather(1, tgt)[:, 0].unsqueeze(1).expand(b, len(classes), h, w).reshape(-1)
            vals = -torch.log(p_tgt[pos_t].clamp_min(1e-7))
        per_region = _aggregate(vals, torch.from_numpy(rid).to(probs.device), n, cfg.aggregation)
        return cfg.alpha * per_region.sum() / (b * len(classes))            # normalised by batch x classes


def soft_dice_loss(probs: torch.Tensor, onehot: torch.Tensor, include_background: bool = False,
                   smooth: float = 1e-5) -> torch.Tensor:
    """1 - soft Dice, averaged over samples and (foreground) classes; inputs (B, K, H, W)."""
    if not include_background and probs.shape[1] > 1:
        probs, onehot = probs[:, 1:], onehot[:, 1:]
    inter = (probs * onehot).sum((2, 3))
    denom = probs.sum((2, 3)) + onehot.sum((2, 3))
    return (1 - (2 * inter + smooth) / (denom + smooth)).mean()


def _soft_erode(x: torch.Tensor) -> torch.Tensor:
    return torch.minimum(-F.max_pool2d(-x, (3, 1), 1, (1, 0)), -F.max_pool2d(-x, (1, 3), 1, (0, 1)))


def _soft_open(x: torch.Tensor) -> torch.Tensor:
    return F.max_pool2d(_soft_erode(x), 3, 1, 1)


def soft_skeleton(x: torch.Tensor, iters: int = 5) -> torch.Tensor:
    """clDice soft skeleton (Shit et al. 2021, Alg. 1): iterated soft erosion minus soft opening."""
    skel = F.relu(x - _soft_open(x))
    for _ in range(iters):
        x = _soft_erode(x)
        delta = F.relu(x - _soft_open(x))
        skel = skel + F.relu(delta - skel * delta)
    return skel


def soft_cldice_loss(probs: torch.Tensor, onehot: torch.Tensor, iters: int = 5, smooth: float = 1.0
                     ) -> torch.Tensor:
    """1 - clDice with soft skeletons (foreground classes only)."""
    if probs.shape[1] > 1:
        probs, onehot = probs[:, 1:], onehot[:, 1:]
    sp, sg = soft_skeleton(probs, iters), soft_skeleton(onehot, iters)
    tprec = ((sp * onehot).sum((2, 3)) + smooth) / (sp.sum((2, 3)) + smooth)
    tsens = ((sg * probs).sum((2, 3)) + smooth) / (sg.sum((2, 3)) + smooth)
    return (1 - 2 * tprec * tsens / (tprec + tsens)).mean()


class DiceLoss(nn.Module):
    """Soft Dice loss on logits (sigmoid for 1 channel, softmax otherwise)."""

    def __init__(self, activation: str = "auto") -> None:
        super().__init__()
        self.activation = activation

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return soft_dice_loss(*prepare(logits, target, self.activation))


class DiceClDiceLoss(nn.Module):
    """(1 - w) * Dice + w * clDice, w = 0.5 (clDice paper default)."""

    def __init__(self, weight: float = 0.5, iters: int = 5, activation: str = "auto") -> None:
        super().__init__()
        self.weight, self.iters, self.activation = weight, iters, activation

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        probs, onehot = prepare(logits, target, self.activation)
        return ((1 - self.weight) * soft_dice_loss(probs, onehot)
                + self.weight * soft_cldice_loss(probs, onehot, self.iters))


class DiceTopographLoss(nn.Module):
    """Dice + alpha * L_topograph: the combination the paper trains with.

    >>> loss = DiceTopographLoss(alpha=0.5)
    >>> x = torch.randn(2, 1, 16, 16, requires_grad=True); y = (torch.rand(2, 16, 16) > 0.5).long()
    >>> loss(x, y).backward()
    """

    def __init__(self, alpha: float = 0.5, **topograph_kwargs) -> None:
        super().__init__()
        self.dice = DiceLoss(topograph_kwargs.get("activation", "auto"))
        self.topograph = TopographLoss(alpha=alpha, **topograph_kwargs)

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        d = self.dice(logits, target)
        if self.topograph.config.alpha == 0:
            return d
        return d + self.topograph(logits, target)
