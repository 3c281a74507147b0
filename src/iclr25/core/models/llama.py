"""A Llama decoder in plain PyTorch (RMSNorm, rotary positions, grouped-query attention, SwiGLU MLP,
embeddings tied to the output), laid out as the GGUF file stores it: the converter permutes the query and
key rows so that ggml's rotary mode rotates *adjacent* pairs (x_2i, x_2i+1), which is what we do."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F  # noqa: N812
from torch import nn

from iclr25.core.errors import UserError
from iclr25.core.models.lm import CausalLM, KVCache, attend
from iclr25.core.models.tokenizer import Tokenizer


@dataclass(frozen=True)
class LlamaConfig:
    """Shapes of a Llama model; the defaults are SmolLM2-135M's (checked against its GGUF metadata)."""

    vocab_size: int = 49152
    d_model: int = 576
    n_layer: int = 30
    n_head: int = 9
    n_kv_head: int = 3
    d_ff: int = 1536
    rope_base: float = 100_000.0
    norm_eps: float = 1e-5
    max_length: int = 8192

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_head


class RMSNorm(nn.Module):
    """y = x / sqrt(mean(x^2) + eps) * w."""

    def __init__(self, d: int, eps: float) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope_angles(positions: torch.Tensor, head_dim: int, base: float) -> tuple[torch.Tensor, torch.Tensor]:
    """cos, sin of theta_p,i = p * base^(-2i/d) for i < d/2: (B, 1, T, d/2) each."""
    inv_freq = base ** (-torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim)  # (d/2,)
    angles = positions[:, None, :, None].float() * inv_freq  # (B, 1, T, d/2)
    return angles.cos(), angles.sin()


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate adjacent pairs (x_2i, x_2i+1) of (B, H, T, d) by theta_p,i (ggml's "normal" rope mode)."""
    x0, x1 = x[..., 0::2], x[..., 1::2]  # (B, H, T, d/2)
    return torch.stack([x0 * cos - x1 * sin, x0 * sin + x1 * cos], dim=-1).flatten(-2)


class Attention(nn.Module):
    def __init__(self, cfg: LlamaConfig) -> None:
        super().__init__()
        self.n_head, self.n_kv, self.hd = cfg.n_head, cfg.n_kv_head, cfg.head_dim
        self.q = nn.Linear(cfg.d_model, cfg.n_head * self.hd, bias=False)
        self.k = nn.Linear(cfg.d_model, cfg.n_kv_head * self.hd, bias=False)
        self.v = nn.Linear(cfg.d_model, cfg.n_kv_head * self.hd, bias=False)
        self.o = nn.Linear(cfg.n_head * self.hd, cfg.d_model, bias=False)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, key_mask: torch.Tensor,
                cache: KVCache | None, layer: int) -> torch.Tensor:
        B, T, _ = x.shape  # noqa: N806
        q = self.q(x).view(B, T, self.n_head, self.hd).transpose(1, 2)  # (B, H, T, d)
        k = self.k(x).view(B, T, self.n_kv, self.hd).transpose(1, 2)  # (B, H_kv, T, d)
        v = self.v(x).view(B, T, self.n_kv, self.hd).transpose(1, 2)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        if cache is not None:
            k, v = cache.update(layer, k, v)  # (B, H_kv, S, d)
        y = attend(q, k, v, key_mask)  # (B, H, T, d)
        return self.o(y.transpose(1, 2).reshape(B, T, -1))


class MLP(nn.Module):
    """SwiGLU: down(silu(gate x) * up x)."""

    def __init__(self, cfg: LlamaConfig) -> None:
        super().__init__()
        self.gate = nn.Linear(cfg.d_model, cfg.d_ff, bias=False)
        self.up = nn.Linear(cfg.d_model, cfg.d_ff, bias=False)
        self.down = nn.Linear(cfg.d_ff, cfg.d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(F.silu(self.gate(x)) * self.up(x))


class Block(nn.Module):
    def __init__(self, cfg: LlamaConfig) -> None:
        super().__init__()
        self.attn_norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.attn = Attention(cfg)
        self.ffn_norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.mlp = MLP(cfg)

    def forward(self, x, cos, sin, key_mask, cache, layer):
        x = x + self.attn(self.attn_norm(x), cos, sin, key_mask, cache, layer)
        return x + self.mlp(self.ffn_norm(x))


class Llama(CausalLM):
    """logits = E h_L, h_l = Block_l(h_{l-1}), h_0 = E[ids] (tied input/output embeddings E).

    `small_lm()` loads SmolLM2-135M-Instruct into it; `chat_template` / `apply_chat` format messages the
    way the model was instruction-tuned."""

    def __init__(self, cfg: LlamaConfig, tokenizer: Tokenizer, chat_template: str | None = None) -> None:
        super().__init__()
        self.cfg = cfg
        self.tokenizer = tokenizer
        self.chat_template = chat_template
        self.max_length = cfg.max_length
        self.vocab_size = cfg.vocab_size
        self.embed = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layer))
        self.norm = RMSNorm(cfg.d_model, cfg.norm_eps)

    def forward(self, ids: torch.Tensor, positions: torch.Tensor, key_mask: torch.Tensor,
                cache: KVCache | None = None) -> torch.Tensor:
        cos, sin = rope_angles(positions, self.cfg.head_dim, self.cfg.rope_base)
        x = self.embed(ids)  # (B, T, d)
        for i, block in enumerate(self.blocks):
            x = block(x, cos, sin, key_mask, cache, i)
        if cache is not None:
            cache.length += ids.shape[1]
        return F.linear(self.norm(x), self.embed.weight)  # (B, T, V)

    def new_cache(self, batch: int, max_len: int) -> KVCache:
        return KVCache(self.cfg.n_layer, batch, self.cfg.n_kv_head, max_len, self.cfg.head_dim)

    def apply_chat(self, messages: list[dict[str, str]], add_generation_prompt: bool = True) -> str:
        """The prompt text for a conversation [{"role": "user", "content": "..."}, ...]."""
        from iclr25.core.models.chat import render_chat
        return render_chat(self.chat_template, messages, add_generation_prompt)


def to_transformers(model: Llama) -> Any:
    """The same weights in a `transformers.LlamaForCausalLM` (needs transformers, optional), e.g. to check
    our forward pass or to hand the model to tools that expect Hugging Face. GGUF stores each head's rotary
    rows as adjacent pairs; Hugging Face stores first halves then second halves, so q/k rows are permuted."""
    try:
        import transformers
    except ImportError as e:
        raise UserError("to_transformers needs the optional package transformers "
                        "(pip install transformers)") from e
    c = model.cfg
    hf = transformers.LlamaForCausalLM(transformers.LlamaConfig(
        vocab_size=c.vocab_size, hidden_size=c.d_model, intermediate_size=c.d_ff, num_hidden_layers=c.n_layer,
        num_attention_heads=c.n_head, num_key_value_heads=c.n_kv_head, rms_norm_eps=c.norm_eps,
        rope_theta=c.rope_base, tie_word_embeddings=True)).eval()

    def halves(w: torch.Tensor, heads: int) -> torch.Tensor:
        return w.reshape(heads, c.head_dim // 2, 2, -1).transpose(1, 2).reshape(w.shape)

    state = {"model.embed_tokens.weight": model.embed.weight, "lm_head.weight": model.embed.weight,
             "model.norm.weight": model.norm.weight}
    for i, b in enumerate(model.blocks):
        pre = f"model.layers.{i}."
        state |= {pre + "self_attn.q_proj.weight": halves(b.attn.q.weight, c.n_head),
                  pre + "self_attn.k_proj.weight": halves(b.attn.k.weight, c.n_kv_head),
                  pre + "self_attn.v_proj.weight": b.attn.v.weight,
                  pre + "self_attn.o_proj.weight": b.attn.o.weight,
                  pre + "mlp.gate_proj.weight": b.mlp.gate.weight,
                  pre + "mlp.up_proj.weight": b.mlp.up.weight,
                  pre + "mlp.down_proj.weight": b.mlp.down.weight,
                  pre + "input_layernorm.weight": b.attn_norm.weight,
                  pre + "post_attention_layernorm.weight": b.ffn_norm.weight}
    hf.load_state_dict(state, strict=True)
    return hf
