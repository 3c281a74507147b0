"""Sample completions from an endpoint (a model plus its decoding parameters) for a set of prompts."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from iclr25.model_equality.distortions import KGWWatermark
from iclr25.model_equality.encoding import PAD, CompletionSample
from iclr25.model_equality.lm import EOS, CharMLP, to_ids, to_text


@dataclass
class Endpoint:
    """What an API serves: weights and decoding parameters (temperature 1, no top-p by default)."""

    model: CharMLP
    temperature: float = 1.0
    top_p: float = 1.0
    watermark: KGWWatermark | None = None


def _top_p_filter(probs: torch.Tensor, top_p: float) -> torch.Tensor:
    """Keep the smallest set of most likely tokens whose mass reaches top_p; renormalise."""
    sorted_p, order = probs.sort(dim=-1, descending=True)
    keep_sorted = (sorted_p.cumsum(-1) - sorted_p) < top_p
    keep = torch.zeros_like(keep_sorted).scatter(-1, order, keep_sorted)
    p = probs * keep
    return p / p.sum(-1, keepdim=True)


@torch.no_grad()
def next_char_probs(endpoint: Endpoint, ctx: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """The endpoint's sampling distribution over the next character given contexts (B, context)."""
    logits = endpoint.model(ctx).float()  # computed in the model's dtype
    if endpoint.watermark is not None:
        mask = endpoint.watermark.green_mask() if mask is None else mask
        logits = endpoint.watermark(logits, ctx[:, -1], mask)
    probs = torch.softmax(logits / endpoint.temperature, dim=-1)
    if endpoint.top_p < 1.0:
        probs = _top_p_filter(probs, endpoint.top_p)
    return probs


@torch.no_grad()
def generate(endpoint: Endpoint, prompts: list[str], n_per_prompt: int, L: int, seed: int,  # noqa: N803
             ) -> CompletionSample:
    """n_per_prompt completions of up to L characters for each prompt; cut at EOS, padded with PAD."""
    c = endpoint.model.context
    ctx0 = [to_ids(p)[-c:] for p in prompts]
    ctx0 = np.stack([np.pad(x, (c - len(x), 0), constant_values=EOS) for x in ctx0])
    ctx = torch.from_numpy(np.repeat(ctx0, n_per_prompt, axis=0))  # (B, c)
    B = ctx.shape[0]  # noqa: N806
    gen = torch.Generator().manual_seed(int(seed) % 2**63)
    mask = endpoint.watermark.green_mask() if endpoint.watermark else None
    out = torch.full((B, L), PAD, dtype=torch.long)
    done = torch.zeros(B, dtype=torch.bool)
    for t in range(L):
        probs = next_char_probs(endpoint, ctx, mask)  # (B, VOCAB)
        nxt = torch.multinomial(probs, 1, generator=gen).squeeze(1)  # (B,)
        done |= nxt == EOS
        out[:, t] = torch.where(done, torch.full_like(nxt, PAD), nxt)
        ctx = torch.cat([ctx[:, 1:], nxt[:, None]], dim=1)
        if bool(done.all()):
            break
    prompt_ids = np.repeat(np.arange(len(prompts)), n_per_prompt)
    return CompletionSample(prompt_ids, out.numpy(), len(prompts))


def decode(sample: CompletionSample) -> list[str]:
    """Completions back to text (for JSONL files)."""
    return [to_text(row) for row in sample.completions]
