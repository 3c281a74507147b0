"""What an API might serve instead of the reference weights, as real transformations of a model:
half-precision inference, int8 and NF4 weight quantization, a KGW watermark, a few fine-tuning steps,
changed decoding parameters, or a different model altogether.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from iclr25.model_equality.lm import VOCAB, CharMLP, train_steps

# ---- weight quantization (weight-only, round-to-nearest; the CUDA kernels are emulated) -------------

def quantize_int8_per_channel(w: torch.Tensor) -> torch.Tensor:
    """Symmetric int8 per output channel: s_r = max_j |W_rj| / 127, W_q = s_r round(W / s_r)."""
    s = w.abs().amax(dim=1, keepdim=True).clamp_min(1e-12) / 127.0
    return (torch.round(w / s).clamp(-127, 127) * s).to(w.dtype)


def nf4_levels() -> np.ndarray:
    """The 16 NormalFloat-4 levels (QLoRA, Dettmers et al. 2023): quantiles of N(0, 1), 8 positive and
    7 negative plus an exact 0, scaled to [-1, 1]."""
    from scipy.stats import norm
    offset = 0.9677083  # (1 - 1/(2*15) + 1 - 1/(2*16)) / 2, as in the QLoRA construction
    pos = norm.ppf(np.linspace(offset, 0.5, 9)[:-1])
    neg = -norm.ppf(np.linspace(offset, 0.5, 8)[:-1])
    v = np.sort(np.concatenate([pos, [0.0], neg]))
    return v / np.abs(v).max()


def quantize_nf4_blockwise(w: torch.Tensor, block: int = 64) -> torch.Tensor:
    """NF4 with absmax scaling per block of 64 consecutive weights: W_q = absmax_b * level(W / absmax_b)."""
    levels = torch.tensor(nf4_levels(), dtype=torch.float32)
    flat = w.detach().float().reshape(-1)
    pad = (-flat.numel()) % block
    blocks = torch.cat([flat, flat.new_zeros(pad)]).reshape(-1, block)
    absmax = blocks.abs().amax(dim=1, keepdim=True).clamp_min(1e-12)
    idx = (blocks / absmax).unsqueeze(-1).sub(levels).abs().argmin(dim=-1)
    q = (levels[idx] * absmax).reshape(-1)[: flat.numel()]
    return q.reshape(w.shape).to(w.dtype)


def quantized(model: CharMLP, scheme: str) -> CharMLP:
    """A copy whose Linear weights are quantized ("int8" | "nf4"), as LLM.int8 / QLoRA leave the
    embeddings and biases in full precision."""
    fn = {"int8": quantize_int8_per_channel, "nf4": quantize_nf4_blockwise}[scheme]
    out = copy.deepcopy(model)
    with torch.no_grad():
        for mod in out.modules():
            if isinstance(mod, nn.Linear):
                mod.weight.copy_(fn(mod.weight))
    return out


def half_precision(model: CharMLP, dtype: torch.dtype) -> CharMLP:
    """A copy that runs inference in fp16 or bf16 (weights and activations)."""
    return copy.deepcopy(model).to(dtype)


def finetuned(model: CharMLP, ids: np.ndarray, steps: int = 20, lr: float = 1e-3, seed: int = 0) -> CharMLP:
    """A copy after a few AdamW steps on other text (paper §4: fine-tuning on iid or OOD data)."""
    out = copy.deepcopy(model)
    train_steps(out, ids, steps=steps, batch=128, lr=lr, seed=seed)
    return out


# ---- KGW watermark on logits (Kirchenbauer et al. 2023) ---------------------------------------------

@dataclass(frozen=True)
class KGWWatermark:
    """Green list seeded by the previous token (context width 1): a fraction gamma of the vocabulary,
    chosen by a keyed permutation, gets +delta on its logits before sampling."""

    gamma: float = 0.25
    delta: float = 2.5
    key: int = 15485863

    def green_mask(self, vocab: int = VOCAB) -> torch.Tensor:
        """(vocab, vocab) bool: row t is the green list after previous token t."""
        n_green = int(self.gamma * vocab)
        mask = np.zeros((vocab, vocab), dtype=bool)
        for t in range(vocab):
            perm = np.random.default_rng([self.key, t]).permutation(vocab)
            mask[t, perm[:n_green]] = True
        return torch.from_numpy(mask)

    def __call__(self, logits: torch.Tensor, prev: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return logits + self.delta * mask[prev].to(logits.dtype)
