"""The LoRA baseline on conv weights: W + (α/r)·B A reshaped to (O, I, K), with B (O, r) zero-initialised
and A (r, I·K), its rank chosen per layer to match a given trainable-parameter budget."""

from __future__ import annotations

import copy
import math

import torch
import torch.nn.functional as F
from torch import nn

from iclr25.core.errors import UserError


class LoRAConv1d(nn.Module):
    """A frozen Conv1d plus a trainable low-rank update of its weight (B A, rank r)."""

    def __init__(self, conv: nn.Conv1d, rank: int, alpha: float | None = None) -> None:
        super().__init__()
        if rank < 1:
            raise UserError(f"LoRA rank must be >= 1, got {rank}")
        if conv.groups != 1:
            raise UserError(f"LoRAConv1d: grouped convolutions are not supported (groups={conv.groups})")
        self.conv = conv
        O, I, K = conv.weight.shape
        self.rank = rank
        self.scale = (alpha if alpha is not None else rank) / rank
        self.lora_A = nn.Parameter(torch.empty(rank, I * K))
        self.lora_B = nn.Parameter(torch.zeros(O, rank))  # zero: the wrapped model starts as the source
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))

    def dense_weight(self) -> torch.Tensor:
        W = self.conv.weight
        return W + self.scale * (self.lora_B @ self.lora_A).view_as(W)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        c = self.conv
        return F.conv1d(x, self.dense_weight(), c.bias, c.stride, c.padding, c.dilation)


def add_lora(model: nn.Module, budgets: dict[str, int]) -> nn.Module:
    """A copy of `model` with each named nn.Conv1d wrapped in LoRA, with the rank r = max(1, round(n /
    (O + I·K))) that brings its trainable count r·(O + I·K) closest to the budget n for that layer."""
    lora = copy.deepcopy(model)
    for name, n in budgets.items():
        conv = lora.get_submodule(name)
        if type(conv) is not nn.Conv1d:
            raise UserError(f"add_lora: {name!r} is not an nn.Conv1d")
        O, I, K = conv.weight.shape
        r = max(1, round(n / (O + I * K)))
        parent_name, _, child = name.rpartition(".")
        setattr(lora.get_submodule(parent_name) if parent_name else lora, child, LoRAConv1d(conv, r))
    return lora


def lora_modules(model: nn.Module) -> list[LoRAConv1d]:
    return [m for m in model.modules() if isinstance(m, LoRAConv1d)]
