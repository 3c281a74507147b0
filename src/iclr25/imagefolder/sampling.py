"""Token sampling for the next-scale AR model: the CFG ramp and top-k / top-p (nucleus) filtering."""

from __future__ import annotations

import torch

from iclr25.core.errors import UserError


def cfg_ramp(cfg: float, step: int, n_steps: int) -> float:
    """Guidance grows linearly with the scale index: t = cfg * i / (S - 1) (VAR / ImageFolder).

    >>> [cfg_ramp(3.0, i, 4) for i in range(4)]
    [0.0, 1.0, 2.0, 3.0]
    """
    return cfg * step / max(1, n_steps - 1)


def guide(logits_cond: torch.Tensor, logits_uncond: torch.Tensor, t: float) -> torch.Tensor:
    """Classifier-free guidance as the authors write it: (1 + t) l_c - t l_u."""
    return (1 + t) * logits_cond - t * logits_uncond


def check_sampling(top_k: int, top_p: float, cfg: float) -> None:
    if top_k < 0:
        raise UserError(f"top_k must be >= 0 (0 = off), got {top_k}")
    if not 0.0 < top_p <= 1.0:
        raise UserError(f"top_p must be in (0, 1], got {top_p}")
    if not 0.0 <= cfg < float("inf"):
        raise UserError(f"cfg must be a finite number >= 0, got {cfg}")


def top_k_top_p(logits: torch.Tensor, top_k: int = 0, top_p: float = 1.0) -> torch.Tensor:
    """Set to -inf every logit outside the top k and outside the smallest set whose probability reaches
    top_p; the most likely token always survives.

    >>> top_k_top_p(torch.tensor([[0.0, 1.0, 2.0]]), top_k=2).isinf().tolist()
    [[True, False, False]]
    """
    out = logits.clone()
    v = out.shape[-1]
    if 0 < top_k < v:
        kth = out.topk(top_k, dim=-1).values[..., -1:]
        out[out < kth] = -torch.inf
    if top_p < 1.0:
        sorted_logits, order = out.sort(dim=-1)  # ascending
        cum = sorted_logits.softmax(-1).cumsum(-1)
        drop = cum <= 1 - top_p
        drop[..., -1] = False
        out = out.scatter(-1, order, sorted_logits.masked_fill(drop, -torch.inf))
    return out


def candidates(logits: torch.Tensor, top_k: int = 0, top_p: float = 1.0
               ) -> tuple[torch.Tensor, torch.Tensor]:
    """The distribution `top_k_top_p` leaves, on its candidates only: (probs, token ids), each
    (..., k) in descending order (k = V without top-k). Working on the k survivors avoids sorting and
    scattering all V logits of every position."""
    v = logits.shape[-1]
    if 0 < top_k < v:
        vals, idx = logits.topk(top_k, dim=-1)  # sorted, descending
    else:
        vals, idx = logits.sort(dim=-1, descending=True)
    probs = vals.softmax(-1)
    if top_p < 1.0:
        keep = (probs.cumsum(-1) - probs) < top_p  # the mass ranked above a token is still below p
        probs = probs * keep
        probs = probs / probs.sum(-1, keepdim=True)
    return probs, idx


def sample(logits: torch.Tensor, top_k: int, top_p: float, generator: torch.Generator | None
           ) -> torch.Tensor:
    """One token per row of (..., V) logits after top-k / top-p filtering: (...) int64."""
    probs, idx = candidates(logits, top_k, top_p)
    pick = torch.multinomial(probs.reshape(-1, probs.shape[-1]), 1, generator=generator)
    return idx.reshape(-1, idx.shape[-1]).gather(1, pick).view(logits.shape[:-1])
