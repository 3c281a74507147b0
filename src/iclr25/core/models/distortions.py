"""What an API might serve instead of a model's reference weights, as transformations of any `CausalLM`:
half-precision weights (`cast`), weight-only int8 / NF4 quantisation (`quantize`), and a Kirchenbauer
et al. (2023) green-list watermark (`watermark`). Each returns a new model and is deterministic;
`per_token_tv` measures how far a distortion moves the next-token distributions."""

from __future__ import annotations

import copy
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from iclr25.core.errors import UserError
from iclr25.core.models.lm import CausalLM, KVCache

CASTS = {"fp16": torch.float16, "bf16": torch.bfloat16}
SCHEMES = ("int8", "nf4")

# The 16 NormalFloat-4 levels of QLoRA (Dettmers et al. 2023, Appendix E; bitsandbytes' table): quantiles
# of N(0, 1) with an exact zero, scaled to [-1, 1].
NF4_CODEBOOK = (
    -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
    -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725,
    0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941,
    0.7229568362236023, 1.0,
)


def _check_model(model: CausalLM) -> None:
    if not isinstance(model, CausalLM):
        raise UserError(f"expected a language model from iclr25.core.models, got {type(model).__name__}")


# ---- half precision ---------------------------------------------------------------------------------

def round_to(w: torch.Tensor, dtype: str) -> torch.Tensor:
    """fp32 weights rounded to fp16 / bf16 (round to nearest even) and back to fp32."""
    if dtype not in CASTS:
        raise UserError(f"unknown dtype {dtype!r}; choose from {', '.join(CASTS)}")
    return w.to(CASTS[dtype]).to(w.dtype)


def cast(model: CausalLM, dtype: str = "fp16") -> CausalLM:
    """A copy whose every weight is rounded to `dtype` ("fp16" | "bf16"); compute stays fp32 (CPU)."""
    _check_model(model)
    if dtype not in CASTS:
        raise UserError(f"unknown dtype {dtype!r}; choose from {', '.join(CASTS)}")
    out = copy.deepcopy(model)
    with torch.no_grad():
        for p in out.parameters():
            p.copy_(round_to(p, dtype))
    return out


# ---- weight-only quantisation ------------------------------------------------------------------------

def _groups(w: torch.Tensor, group: int) -> tuple[torch.Tensor, int]:
    """Rows of `w` (out, in) cut into groups of `group` consecutive input weights: (out * in/g, g)."""
    if group < 1:
        raise UserError(f"group must be >= 1, got {group}")
    flat = w.detach().float().reshape(w.shape[0], -1)
    pad = (-flat.shape[1]) % group
    flat = torch.cat([flat, flat.new_zeros(flat.shape[0], pad)], dim=1)
    return flat.reshape(-1, group), pad


def quantize_tensor(w: torch.Tensor, scheme: str = "int8", group: int = 64) -> torch.Tensor:
    """Round-to-nearest weight quantisation with one absmax scale per group of `group` weights of a row,
    returned dequantised (same shape and dtype):
      int8: s = absmax / 127, w_q = s * round(w / s)            (|w - w_q| <= s / 2)
      nf4:  s = absmax,       w_q = s * argmin_c |w / s - c|, c in NF4_CODEBOOK

    >>> w = torch.tensor([[0.5, -1.0, 0.25, 0.0]])
    >>> quantize_tensor(w, "nf4", group=4).tolist()
    [[0.44070982933044434, -1.0, 0.24611230194568634, 0.0]]
    """
    if scheme not in SCHEMES:
        raise UserError(f"unknown quantisation {scheme!r}; choose from {', '.join(SCHEMES)}")
    g, pad = _groups(w, group)  # (groups, group)
    absmax = g.abs().amax(dim=1, keepdim=True)
    safe = torch.where(absmax > 0, absmax, torch.ones_like(absmax))
    if scheme == "int8":
        s = safe / 127.0
        q = torch.round(g / s).clamp(-127, 127) * s
    else:
        levels = torch.tensor(NF4_CODEBOOK, dtype=torch.float32)
        x = g / safe
        # nearest level by its midpoints (searchsorted) instead of a (groups, group, 16) distance tensor
        mid = (levels[1:] + levels[:-1]) / 2
        q = levels[torch.searchsorted(mid, x.contiguous())] * safe
    q = q.reshape(w.shape[0], -1)
    if pad:
        q = q[:, :-pad]
    return q.reshape(w.shape).to(w.dtype)


def quantize(model: CausalLM, scheme: str = "int8", group: int = 64) -> CausalLM:
    """A copy whose linear-layer weights are quantised (weight-only, as LLM.int8 / QLoRA serve them);
    embeddings, norms and the tied output head stay in full precision."""
    _check_model(model)
    if scheme not in SCHEMES:
        raise UserError(f"unknown quantisation {scheme!r}; choose from {', '.join(SCHEMES)}")
    out = copy.deepcopy(model)
    with torch.no_grad():
        for mod in out.modules():
            if isinstance(mod, nn.Linear):
                mod.weight.copy_(quantize_tensor(mod.weight, scheme, group))
    return out


# ---- watermark ---------------------------------------------------------------------------------------

class Watermarked(CausalLM):
    """A model whose logits get +delta on a green list: gamma * V tokens chosen by a permutation of the
    vocabulary seeded by key * (previous token), as in Kirchenbauer et al.'s reference code. It shares
    the base model's weights (they are not changed)."""

    def __init__(self, base: CausalLM, gamma: float, delta: float, key: int, cache_size: int = 2048) -> None:
        super().__init__()
        self.base = base
        self.tokenizer, self.max_length, self.vocab_size = base.tokenizer, base.max_length, base.vocab_size
        self.gamma, self.delta, self.key = float(gamma), float(delta), int(key)
        self._masks: OrderedDict[int, torch.Tensor] = OrderedDict()
        self._cache_size = cache_size

    def green_list(self, prev: int) -> torch.Tensor:
        """(V,) bool: the green tokens after token `prev`."""
        prev = int(prev)
        mask = self._masks.get(prev)
        if mask is None:
            gen = torch.Generator().manual_seed(self.key * prev)
            green = torch.randperm(self.vocab_size, generator=gen)[: int(self.gamma * self.vocab_size)]
            mask = torch.zeros(self.vocab_size, dtype=torch.bool)
            mask[green] = True
            self._masks[prev] = mask
            if len(self._masks) > self._cache_size:
                self._masks.popitem(last=False)
        else:
            self._masks.move_to_end(prev)
        return mask

    def forward(self, ids: torch.Tensor, positions: torch.Tensor, key_mask: torch.Tensor,
                cache: KVCache | None = None) -> torch.Tensor:
        return self.base(ids, positions, key_mask, cache)

    def new_cache(self, batch: int, max_len: int) -> KVCache:
        return self.base.new_cache(batch, max_len)

    def bias_logits(self, prev: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
        logits = self.base.bias_logits(prev, logits)
        flat = prev.reshape(-1).tolist()
        green = torch.stack([self.green_list(p) for p in flat]).reshape(*prev.shape, -1)  # (B, T, V)
        return logits + self.delta * green.to(logits.dtype)

    def __deepcopy__(self, memo: dict) -> Watermarked:
        return Watermarked(copy.deepcopy(self.base, memo), self.gamma, self.delta, self.key, self._cache_size)


def watermark(model: CausalLM, gamma: float = 0.25, delta: float = 2.0, key: int = 15485863) -> CausalLM:
    """The model with a KGW watermark (Kirchenbauer et al. 2023, Alg. 2 with context width 1): at every
    step, tokens in the green list of the previous token get +delta on their logits."""
    _check_model(model)
    if not 0 < gamma < 1:
        raise UserError(f"gamma must be in (0, 1), got {gamma}")
    if not np.isfinite(delta):
        raise UserError(f"delta must be finite, got {delta}")
    return Watermarked(model, gamma, delta, key)


# ---- how big is a distortion ----------------------------------------------------------------------------

@torch.no_grad()
def per_token_tv(a: CausalLM, b: CausalLM, seqs: Sequence[Sequence[int]], batch: int = 8) -> np.ndarray:
    """Total-variation distance 1/2 sum_v |p_a(v | ctx) - p_b(v | ctx)| at every position of every
    sequence (the contexts are the sequences' prefixes); a flat float64 array."""
    _check_model(a)
    _check_model(b)
    if a.vocab_size != b.vocab_size:
        raise UserError(f"models have different vocabularies ({a.vocab_size} vs {b.vocab_size})")
    out = []
    for (_, la, valid), (_, lb, _) in zip(a.distributions(seqs, batch), b.distributions(seqs, batch),
                                          strict=True):
        tv = 0.5 * (la.exp() - lb.exp()).abs().sum(-1)  # (B, T)
        out.append(tv[valid].double().numpy())
    return np.concatenate(out) if out else np.zeros(0)
