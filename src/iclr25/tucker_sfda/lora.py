"""The matched-capacity baselines on conv weights: a frozen conv plus a trainable update ΔW, with exactly
(or as nearly as ranks allow) the trainable count of SFT's cores.

- LoRA: ΔW = (α/r)·B A reshaped to (O, I, K), B (O, r) zero-initialised, A (r, I·K); per-layer ranks are
  chosen so the total r·(O + I·K) over layers is closest to the budget.
- Random subset: ΔW = M ⊙ D with a fixed random 0/1 mask M holding exactly the budget's number of entries,
  drawn uniformly over all conv weights of the network (sparse fine-tuning of a random subset).

Both start at the source (ΔW = 0) and decay towards it (weight decay acts on the update's parameters)."""

from __future__ import annotations

import copy
import math

import torch
import torch.nn.functional as F
from torch import nn

from iclr25.core.errors import UserError


class DeltaConv1d(nn.Module):
    """A frozen Conv1d `conv` run with the weight W + ΔW; subclasses define ΔW and what trains."""

    conv: nn.Conv1d

    def delta(self) -> torch.Tensor:
        raise NotImplementedError

    def n_trainable(self) -> int:
        """The number of free entries of the update (what a trainable-parameter count should say)."""
        raise NotImplementedError

    def dense_weight(self) -> torch.Tensor:
        return self.conv.weight + self.delta()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        c = self.conv
        return F.conv1d(x, self.dense_weight(), c.bias, c.stride, c.padding, c.dilation)


def _check_conv(conv: nn.Module, what: str) -> nn.Conv1d:
    if type(conv) is not nn.Conv1d:
        raise UserError(f"{what}: expected an nn.Conv1d, got {type(conv).__name__}")
    if conv.groups != 1:
        raise UserError(f"{what}: grouped convolutions are not supported (groups={conv.groups})")
    if not isinstance(conv.padding, tuple) or conv.padding_mode != "zeros":
        raise UserError(f"{what}: padding {conv.padding!r} ({conv.padding_mode}) is not supported")
    return conv


class LoRAConv1d(DeltaConv1d):
    """A frozen Conv1d plus a trainable low-rank update of its weight (B A, rank r)."""

    def __init__(self, conv: nn.Conv1d, rank: int, alpha: float | None = None) -> None:
        super().__init__()
        if rank < 1:
            raise UserError(f"LoRA rank must be >= 1, got {rank}")
        self.conv = _check_conv(conv, "LoRAConv1d")
        O, I, K = conv.weight.shape
        self.rank = rank
        self.scale = (alpha if alpha is not None else rank) / rank
        self.lora_A = nn.Parameter(torch.empty(rank, I * K))
        self.lora_B = nn.Parameter(torch.zeros(O, rank))  # zero: the wrapped model starts as the source
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))

    def delta(self) -> torch.Tensor:
        return self.scale * (self.lora_B @ self.lora_A).view_as(self.conv.weight)

    def n_trainable(self) -> int:
        return self.lora_A.numel() + self.lora_B.numel()


class SubsetConv1d(DeltaConv1d):
    """A frozen Conv1d whose weight entries under a fixed 0/1 `mask` are trainable (ΔW = mask ⊙ D)."""

    def __init__(self, conv: nn.Conv1d, mask: torch.Tensor) -> None:
        super().__init__()
        self.conv = _check_conv(conv, "SubsetConv1d")
        if mask.shape != conv.weight.shape:
            raise UserError(f"SubsetConv1d: mask {tuple(mask.shape)} does not match the weight "
                            f"{tuple(conv.weight.shape)}")
        self.register_buffer("mask", mask.to(conv.weight.dtype))
        self.subset_delta = nn.Parameter(torch.zeros_like(conv.weight))  # masked entries get no gradient

    def delta(self) -> torch.Tensor:
        return self.mask * self.subset_delta

    def n_trainable(self) -> int:
        return int(self.mask.sum())


def _convs(model: nn.Module, names: list[str] | None = None) -> list[tuple[str, nn.Conv1d]]:
    convs = [(n, m) for n, m in model.named_modules() if type(m) is nn.Conv1d]
    if names is not None:
        have = dict(convs)
        missing = [n for n in names if n not in have]
        if missing:
            raise UserError(f"no nn.Conv1d named {missing[0]!r} in the model")
        convs = [(n, have[n]) for n in names]
    if not convs:
        raise UserError("the model has no nn.Conv1d to adapt")
    return convs


def _set_module(root: nn.Module, name: str, new: nn.Module) -> None:
    parent_name, _, child = name.rpartition(".")
    setattr(root.get_submodule(parent_name) if parent_name else root, child, new)


def lora_ranks(shapes: dict[str, tuple[int, int, int]], budgets: dict[str, int]) -> dict[str, int]:
    """Per-layer LoRA ranks (≥ 1) whose total count Σ r·(O + I·K) is closest to Σ budgets: each layer's
    nearest rank first, then single-rank steps on whichever layer brings the total closest, while that helps.

    >>> lora_ranks({"a": (64, 3, 5), "b": (128, 64, 8), "c": (128, 128, 8)}, {"a": 120, "b": 1024, "c": 2048})
    {'a': 3, 'b': 1, 'c': 2}
    """
    size = {n: O + I * K for n, (O, I, K) in shapes.items()}
    ranks = {n: max(1, round(budgets[n] / size[n])) for n in shapes}
    target = sum(budgets.values())

    def gap(r: dict[str, int]) -> int:
        return abs(sum(r[n] * size[n] for n in r) - target)

    while True:
        moves = [{**ranks, n: ranks[n] + s} for n in ranks for s in (-1, 1) if ranks[n] + s >= 1]
        best = min(moves, key=gap, default=ranks)
        if gap(best) >= gap(ranks):
            return ranks
        ranks = best


def add_lora(model: nn.Module, budgets: dict[str, int]) -> nn.Module:
    """A copy of `model` with each named nn.Conv1d wrapped in LoRA, ranks from `lora_ranks`: the total
    trainable count is as close to Σ budgets as per-layer integer ranks allow."""
    lora = copy.deepcopy(model)
    convs = _convs(lora, list(budgets))
    ranks = lora_ranks({n: tuple(c.weight.shape) for n, c in convs}, budgets)
    for name, conv in convs:
        _set_module(lora, name, LoRAConv1d(conv, ranks[name]))
    return lora


def add_random_subset(model: nn.Module, n_trainable: int, seed: int = 0) -> nn.Module:
    """A copy of `model` in which exactly `n_trainable` conv weight entries, drawn uniformly at random over
    all its nn.Conv1d weights, are trainable (everything else frozen at the source)."""
    sub = copy.deepcopy(model)
    convs = _convs(sub)
    sizes = [c.weight.numel() for _, c in convs]
    total = sum(sizes)
    if not 1 <= n_trainable <= total:
        raise UserError(f"random subset: n_trainable must be in [1, {total:,}], got {n_trainable:,}")
    g = torch.Generator().manual_seed(seed)
    chosen = torch.zeros(total, dtype=torch.bool)
    chosen[torch.randperm(total, generator=g)[:n_trainable]] = True
    start = 0
    for (name, conv), size in zip(convs, sizes, strict=True):
        mask = chosen[start:start + size].view_as(conv.weight)
        start += size
        _set_module(sub, name, SubsetConv1d(conv, mask))
    return sub


def merge_deltas(model: nn.Module) -> nn.Module:
    """A copy of `model` with every LoRA / subset conv replaced by a plain nn.Conv1d holding W + ΔW (the
    same function, no extra parameters): what to ship after adaptation."""
    out = copy.deepcopy(model)
    for name, m in [(n, m) for n, m in out.named_modules() if isinstance(m, DeltaConv1d)]:
        c = m.conv
        conv = nn.Conv1d(c.in_channels, c.out_channels, c.kernel_size[0], c.stride[0], c.padding[0],
                         c.dilation[0], bias=c.bias is not None)
        with torch.no_grad():
            conv.weight.copy_(m.dense_weight())
            if c.bias is not None:
                conv.bias.copy_(c.bias)
        _set_module(out, name, conv)
    return out


def lora_modules(model: nn.Module) -> list[LoRAConv1d]:
    return [m for m in model.modules() if isinstance(m, LoRAConv1d)]


def subset_modules(model: nn.Module) -> list[SubsetConv1d]:
    return [m for m in model.modules() if isinstance(m, SubsetConv1d)]
