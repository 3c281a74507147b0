"""Artifact relevance: how much of a model's attribution for a class falls on the artifact's pixels, before
and after a correction (the paper's evidence that a correction worked; it used LRP, and SHAP for ViTs).

We attribute with Gradient x Input, R(x) = x * grad_x f_c(x): no extra package, exact for the linear
parts of a ReLU network (LRP-0 equals it on such networks). The share is sum_{mask} |R| / sum |R| per
input; a model that no longer looks at the artifact gives a share near the artifact's area.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from iclr25.core.errors import UserError
from iclr25.pattern_cav.activations import _batches, model_dtype


def gradient_x_input(model: nn.Module, inputs: Any, target_class: int, batch_size: int = 256) -> np.ndarray:
    """R = x * d f_c / d x for each input, same shape as `inputs`."""
    model.eval()
    out = []
    for xb in _batches(inputs, batch_size, model_dtype(model)):
        xb = xb.clone().requires_grad_(True)
        logits = model(xb)
        if not 0 <= target_class < logits.shape[1]:
            raise UserError(f"target class {target_class} out of range for {logits.shape[1]} outputs")
        (g,) = torch.autograd.grad(logits[:, target_class].sum(), xb)
        out.append((xb * g).detach().cpu().numpy())
    return np.concatenate(out).astype(np.float64)


def artifact_relevance(model: nn.Module, inputs: Any, masks: Any, target_class: int) -> np.ndarray:
    """Per input, the share of absolute Gradient x Input relevance for `target_class` inside the artifact
    `masks` (bool, the inputs' shape, or broadcastable over channels). NaN for an input with no relevance.

    >>> lin = nn.Sequential(nn.Flatten(), nn.Linear(4, 2, bias=False))
    >>> _ = lin[1].weight.data.copy_(torch.tensor([[1., 0., 0., 0.], [0., 0., 0., 1.]]))
    >>> x = np.ones((1, 1, 2, 2), np.float32); m = np.zeros((1, 1, 2, 2), bool); m[0, 0, 0, 0] = True
    >>> artifact_relevance(lin, x, m, 0).tolist(), artifact_relevance(lin, x, m, 1).tolist()
    ([1.0], [0.0])
    """
    x = np.asarray(inputs)
    m = np.asarray(masks, dtype=bool)
    if m.shape != x.shape:
        try:
            m = np.broadcast_to(m, x.shape)
        except ValueError:
            raise UserError(f"masks of shape {m.shape} do not fit inputs of shape {x.shape}") from None
    r = np.abs(gradient_x_input(model, x, target_class)).reshape(len(x), -1)
    total = r.sum(1)
    inside = (r * m.reshape(len(x), -1)).sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, inside / total, np.nan)
