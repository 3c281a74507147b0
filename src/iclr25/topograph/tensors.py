"""Shared tensor plumbing for the losses: validate (logits, target), turn logits into per-class
probabilities and the target into one-hot, both shaped (B, K, H, W)."""

from __future__ import annotations

import torch

from iclr25.core.errors import UserError
from iclr25.topograph.checks import check_probabilities

ACTIVATIONS = ("auto", "sigmoid", "softmax", "none")


def prepare(logits: torch.Tensor, target: torch.Tensor, activation: str = "auto"
            ) -> tuple[torch.Tensor, torch.Tensor]:
    """(probs, onehot), both (B, K, H, W). With C == 1 channel (binary, sigmoid) K = 2 (bg, fg);
    otherwise K = C. `target` is (B, H, W) labels, (B, 1, H, W) binary, or (B, C, H, W) one-hot."""
    if activation not in ACTIVATIONS:
        raise UserError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
    if not torch.is_tensor(logits) or logits.ndim != 4:
        shape = tuple(getattr(logits, "shape", ()))
        raise UserError(f"prediction must be a (B, C, H, W) tensor, got shape {shape}")
    b, c, h, w = logits.shape
    if min(b, c, h, w) == 0:
        raise UserError(f"prediction is empty (shape {tuple(logits.shape)})")
    target = torch.as_tensor(target)
    if target.ndim == 3:
        target = target.unsqueeze(1)
    if (target.ndim != 4 or target.shape[0] != b or target.shape[2:] != (h, w)
            or target.shape[1] not in (1, c)):
        raise UserError(f"shape mismatch: prediction {tuple(logits.shape)} vs target {tuple(target.shape)}")
    if target.is_floating_point() and not torch.all(target == target.round()):
        raise UserError("target must hold integer labels or a binary one-hot mask, found fractional values")
    tmin, tmax = int(target.min()), int(target.max())
    k = 2 if c == 1 else c
    if tmin < 0 or tmax >= k or (target.shape[1] == c and c > 1 and tmax > 1):
        raise UserError(f"target values must lie in [0, {k - 1}] ({'binary' if c == 1 else 'labels'}), "
                        f"found range [{tmin}, {tmax}]")

    act = activation if activation != "auto" else ("sigmoid" if c == 1 else "softmax")
    if act == "sigmoid":
        probs = torch.sigmoid(logits)
    elif act == "softmax":
        if c == 1:
            raise UserError("softmax needs at least 2 channels; use activation='sigmoid' for 1 channel")
        probs = torch.softmax(logits, dim=1)
    else:
        check_probabilities(logits.detach(), "probabilities")
        probs = logits
    if c == 1:  # binary: make an explicit background channel
        probs = torch.cat([1 - probs, probs], dim=1)

    if target.shape[1] == 1:
        if k == 2:  # binary: cheaper than one_hot
            t = target.to(probs.dtype)
            return probs, torch.cat([1 - t, t], dim=1)
        onehot = torch.nn.functional.one_hot(target[:, 0].long(), k).permute(0, 3, 1, 2)
    else:
        onehot = target
    return probs, onehot.to(probs.dtype)
