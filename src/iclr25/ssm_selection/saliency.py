"""Token importance of a trained model, as in the paper's genomic study (§6): gradient × input on the
token embeddings, s_t = |⟨∂f_c(X)/∂e_t, e_t⟩| with f_c the log-probability of the predicted (or given)
class c, and two summaries of it: how sparse it is (share of the mass in the top-k positions) and how
much its location moves across inputs (spread of the argmax position).

We explain log p_c rather than the raw logit: a shift shared by all logits changes no prediction, yet
it would enter the raw logit's gradient."""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor, nn

from iclr25.core.errors import UserError


def saliency(model: nn.Module, x: Tensor, target: Tensor | None = None, future_mask: Tensor | None = None,
             batch_size: int = 256) -> Tensor:
    """Gradient × input per position, (B, L), ≥ 0, zero on padding. `target`: the class (or, for an lm
    head, the class at the last position) whose log-probability is explained; default the predicted
    one. For a regression head the output itself is explained.

    >>> from iclr25.ssm_selection.models import build_model
    >>> m = build_model("ssmfnn1", vocab=5, n_out=2, length=6, d=8)
    >>> saliency(m, torch.tensor([[1, 2, 3, 4, 0, 0]])).shape
    torch.Size([1, 6])
    """
    if x.ndim < 2 or x.shape[0] == 0 or x.shape[1] == 0:
        raise UserError(f"saliency needs a non-empty batch of sequences, got shape {tuple(x.shape)}")
    if target is not None and len(target) != len(x):
        raise UserError(f"target has {len(target)} entries for {len(x)} sequences")
    was = model.training
    model.eval()
    out = []
    try:
        for i in range(0, len(x), batch_size):
            sl = slice(i, i + batch_size)
            fm = None if future_mask is None else future_mask[sl]
            out.append(_saliency_batch(model, x[sl], None if target is None else target[sl], fm))
    finally:
        model.train(was)
    return torch.cat(out)


def _saliency_batch(model: nn.Module, x: Tensor, target: Tensor | None, future_mask: Tensor | None) -> Tensor:
    captured: dict[str, Tensor] = {}

    def keep(_module, _inp, emb):
        emb.retain_grad()
        captured["emb"] = emb

    handle = model.embed.register_forward_hook(keep)
    try:
        with torch.enable_grad():
            out = model(x, future_mask)
            if out.ndim == 3:  # lm head: explain the last position
                out = out[:, -1]
            if out.ndim == 1:  # regression
                score = out
            else:
                c = out.argmax(-1) if target is None else target
                score = out.log_softmax(-1).gather(1, c[:, None]).squeeze(1)
            score.sum().backward()
    finally:
        handle.remove()
        model.zero_grad(set_to_none=True)
    emb = captured["emb"]
    s = (emb.grad * emb).sum(-1).abs().detach()  # (B, L)
    if x.dtype in (torch.int64, torch.int32):
        s = s * (x != 0)
    return s


def top_k_share(s: Tensor, k: int) -> Tensor:
    """Per sequence, the share of its saliency mass in its own k largest positions: (B,). A uniform
    profile gives k / L; one decisive token gives 1."""
    if k < 1:
        raise UserError(f"k must be >= 1, got {k}")
    total = s.sum(1).clamp_min(1e-30)
    return s.topk(min(k, s.shape[1]), dim=1).values.sum(1) / total


def window_share(s: Tensor, starts: np.ndarray | Tensor, width: int) -> Tensor:
    """Per sequence, the share of saliency mass inside [start, start + width): (B,)."""
    starts = torch.as_tensor(np.asarray(starts))
    pos = torch.arange(s.shape[1])[None]
    inside = (pos >= starts[:, None]) & (pos < starts[:, None] + width)
    return (s * inside).sum(1) / s.sum(1).clamp_min(1e-30)


def selection_sparsity(s: Tensor, k: int = 6) -> dict[str, float]:
    """The paper's two observations in numbers: importance is sparse (mean top-k share, against the
    uniform k/L) and its location varies with the input (std of the argmax position across inputs)."""
    share = top_k_share(s, k)
    argmax = s.argmax(1).double()
    return {"top_k": k, "top_k_share": float(share.mean()), "uniform_share": min(1.0, k / s.shape[1]),
            "argmax_std": float(argmax.std()) if len(argmax) > 1 else 0.0,
            "argmax_distinct": int(argmax.unique().numel())}
