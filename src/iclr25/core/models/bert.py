"""A BERT encoder in plain PyTorch, its modules named as Hugging Face checkpoints name their tensors
(so a `model.safetensors` loads with `load_state_dict`); post-LayerNorm, exact (erf) GELU."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F  # noqa: N812
from torch import nn


class Embeddings(nn.Module):
    def __init__(self, cfg: dict[str, Any]) -> None:
        super().__init__()
        d = cfg["hidden_size"]
        self.word_embeddings = nn.Embedding(cfg["vocab_size"], d)
        self.position_embeddings = nn.Embedding(cfg["max_position_embeddings"], d)
        self.token_type_embeddings = nn.Embedding(cfg["type_vocab_size"], d)
        self.LayerNorm = nn.LayerNorm(d, eps=cfg["layer_norm_eps"])

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        pos = torch.arange(ids.shape[1])[None]
        return self.LayerNorm(self.word_embeddings(ids) + self.position_embeddings(pos)
                              + self.token_type_embeddings(torch.zeros_like(ids)))


class DenseNorm(nn.Module):
    """LayerNorm(residual + dense(x)): BERT's "output" sub-layers."""

    def __init__(self, d_in: int, d: int, eps: float) -> None:
        super().__init__()
        self.dense = nn.Linear(d_in, d)
        self.LayerNorm = nn.LayerNorm(d, eps=eps)

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return self.LayerNorm(residual + self.dense(x))


class SelfAttention(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.query, self.key, self.value = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)


class Attention(nn.Module):
    def __init__(self, cfg: dict[str, Any]) -> None:
        super().__init__()
        d = cfg["hidden_size"]
        self.n_head = cfg["num_attention_heads"]
        self.self = SelfAttention(d)
        self.output = DenseNorm(d, d, cfg["layer_norm_eps"])

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        B, T, d = x.shape  # noqa: N806
        q, k, v = (m(x).view(B, T, self.n_head, d // self.n_head).transpose(1, 2)
                   for m in (self.self.query, self.self.key, self.self.value))  # (B, H, T, dh)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask[:, None, None, :])  # padding keys hidden
        return self.output(y.transpose(1, 2).reshape(B, T, d), x)


class Intermediate(nn.Module):
    def __init__(self, cfg: dict[str, Any]) -> None:
        super().__init__()
        self.dense = nn.Linear(cfg["hidden_size"], cfg["intermediate_size"])


class Layer(nn.Module):
    def __init__(self, cfg: dict[str, Any]) -> None:
        super().__init__()
        self.attention = Attention(cfg)
        self.intermediate = Intermediate(cfg)
        self.output = DenseNorm(cfg["intermediate_size"], cfg["hidden_size"], cfg["layer_norm_eps"])

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = self.attention(x, mask)
        return self.output(F.gelu(self.intermediate.dense(x)), x)


class Encoder(nn.Module):
    def __init__(self, cfg: dict[str, Any]) -> None:
        super().__init__()
        self.layer = nn.ModuleList(Layer(cfg) for _ in range(cfg["num_hidden_layers"]))


class Bert(nn.Module):
    """Last hidden states (B, T, d) of `ids` (B, T) with `mask` (B, T) marking real tokens. `cfg` is
    the checkpoint's config.json."""

    def __init__(self, cfg: dict[str, Any]) -> None:
        super().__init__()
        self.embeddings = Embeddings(cfg)
        self.encoder = Encoder(cfg)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = self.embeddings(ids)  # (B, T, d)
        for layer in self.encoder.layer:
            x = layer(x, mask)
        return x
