"""Semantic regularisation of a branch (spec §2): a CLIP-style symmetric InfoNCE over the batch between
the frozen teacher's pooled feature, projected by the tokenizer's own `quant_conv`, and the spatial mean
of the branch's quantised map f_hat. Logit scale 1, no feature normalisation, weight 0.1 (the authors'
defaults); samples hit by quantizer dropout are left out."""

from __future__ import annotations

import torch
import torch.nn.functional as F


def infonce(a: torch.Tensor, b: torch.Tensor, logit_scale: float = 1.0) -> torch.Tensor:
    """Symmetric InfoNCE: L = (CE(s a b^T, I) + CE(s b a^T, I)) / 2 for paired rows of a, b (n, d).

    >>> a = torch.eye(3) * 10
    >>> float(infonce(a, a)) < 1e-6
    True
    """
    logits = logit_scale * a @ b.T  # (n, n): row i should pick column i
    target = torch.arange(len(a), device=a.device)
    return (F.cross_entropy(logits, target) + F.cross_entropy(logits.T, target)) / 2


def semantic_loss(teacher_proj: torch.Tensor, f_hats: list[torch.Tensor], n_drop: int,
                  logit_scale: float = 1.0) -> torch.Tensor:
    """Mean InfoNCE over the regularised branches' f_hat (B, d, K, K), against the projected teacher
    feature (B, d); the first `n_drop` samples (quantizer dropout) are excluded."""
    z_s = teacher_proj[n_drop:]
    losses = [infonce(z_s, f[n_drop:].mean(dim=(2, 3)), logit_scale) for f in f_hats]
    return torch.stack(losses).mean()
