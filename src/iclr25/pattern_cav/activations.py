"""Activations of any PyTorch module by layer name, via forward hooks, reduced to one vector per input.

reduce="max" is the paper's default for conv maps (`cavs_max`: per-channel spatial max, D = C);
"mean" averages over positions; "flatten" keeps C*H*W (`cavs_full`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
import torch
from torch import nn

from iclr25.core.errors import UserError

REDUCTIONS = ("max", "mean", "flatten")


def get_layer(model: nn.Module, layer: str) -> nn.Module:
    """The sub-module called `layer` (a name from model.named_modules()); a bad name lists the valid ones."""
    modules = dict(model.named_modules())
    if layer not in modules or layer == "":
        names = [n for n in modules if n]
        shown = ", ".join(names[:40]) + (" ..." if len(names) > 40 else "")
        raise UserError(f"model has no layer {layer!r}; valid layer names: {shown}")
    return modules[layer]


def reduce_acts(a: torch.Tensor, reduce: str = "max") -> torch.Tensor:
    """(B, C, *spatial) -> (B, C) by max/mean over positions, or (B, C*H*W) by flatten;
    (B, D) passes through."""
    if reduce not in REDUCTIONS:
        raise UserError(f"unknown reduce {reduce!r}; choose from {', '.join(REDUCTIONS)}")
    if a.dim() <= 2 or reduce == "flatten":
        return a.reshape(a.shape[0], -1)
    flat = a.reshape(a.shape[0], a.shape[1], -1)  # (B, C, H*W)
    return flat.amax(dim=2) if reduce == "max" else flat.mean(dim=2)


@contextlib.contextmanager
def capture(model: nn.Module, layer: str) -> Iterator[dict[str, torch.Tensor]]:
    """`with capture(model, "features.28") as store: model(x)`; store["out"] is that layer's output."""
    store: dict[str, torch.Tensor] = {}

    def hook(_module: nn.Module, _inputs: Any, output: Any) -> None:
        store["out"] = output[0] if isinstance(output, tuple) else output

    handle = get_layer(model, layer).register_forward_hook(hook)
    try:
        yield store
    finally:
        handle.remove()


def model_dtype(model: nn.Module) -> torch.dtype:
    """The floating dtype of the model's parameters (float32 for a parameter-free model)."""
    return next((p.dtype for p in model.parameters() if p.is_floating_point()), torch.float32)


def _batches(data: Any, batch_size: int, dtype: torch.dtype = torch.float32) -> Iterable[torch.Tensor]:
    if isinstance(data, torch.Tensor | np.ndarray):
        x = torch.as_tensor(data, dtype=dtype)
        for i in range(0, x.shape[0], batch_size):
            yield x[i:i + batch_size]
        return
    for batch in data:  # a DataLoader or any iterable of tensors / (x, y) tuples
        yield batch[0] if isinstance(batch, list | tuple) else batch


@torch.no_grad()
def collect_activations(model: nn.Module, layer: str, data: Any, reduce: str = "max",
                        batch_size: int = 256) -> np.ndarray:
    """Activations of `layer` for every input in `data` (tensor, array, or DataLoader), reduced to (n, D).

    >>> m = nn.Sequential(nn.Conv2d(1, 3, 3), nn.ReLU(), nn.Flatten(), nn.LazyLinear(2))
    >>> collect_activations(m, "1", torch.zeros(5, 1, 8, 8)).shape
    (5, 3)
    """
    if reduce not in REDUCTIONS:
        raise UserError(f"unknown reduce {reduce!r}; choose from {', '.join(REDUCTIONS)}")
    was_training = model.training
    model.eval()
    out = []
    try:
        with capture(model, layer) as store:
            for xb in _batches(data, batch_size, model_dtype(model)):
                model(xb)
                out.append(reduce_acts(store["out"].detach(), reduce).cpu().numpy())
    finally:
        model.train(was_training)
    if not out:
        raise UserError("data is empty; no activations collected")
    return np.concatenate(out).astype(np.float64)
