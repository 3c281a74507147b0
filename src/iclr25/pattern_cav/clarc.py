"""Model correction with a CAV (the ClArC family, Anders et al. 2022; Pahde et al. 2023/2025):
P-ClArC and A-ClArC move activations along the CAV with a forward hook; RR-ClArC fine-tunes the layers
after `layer` so that the output's gradient w.r.t. the activations is orthogonal to the CAV."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from iclr25.core.errors import UserError
from iclr25.core.runtime import progress
from iclr25.pattern_cav.activations import get_layer, model_dtype


def _cav_tensor(cav: Any) -> torch.Tensor:
    """The CAV in float64; each use casts it to the model's dtype (a float64 model keeps full precision)."""
    v = torch.as_tensor(np.asarray(getattr(cav, "vector", cav), dtype=np.float64)).reshape(-1)
    if not torch.isfinite(v).all() or not v.any():
        raise UserError("cav must be a non-zero finite vector")
    return v


def _along_channels(a: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, bool]:
    """View a (B, C, *spatial) map as (B, P, C) channel vectors when v has C dims; else flatten."""
    if a.dim() > 2 and v.numel() == a.shape[1]:
        return a.flatten(2).transpose(1, 2), True  # (B, P, C)
    if v.numel() != a[0].numel():
        raise UserError(f"cav has {v.numel()} dims; the layer output has {a.shape[1]} channels "
                        f"({a[0].numel()} flattened)")
    return a.reshape(a.shape[0], -1), False


class _ClArCHook:
    """Forward hook a' = a + (target - v·a) v / (v·v), per spatial position for channel-space CAVs."""

    def __init__(self, model: nn.Module, layer: str, cav: Any, target: float):
        self.v = _cav_tensor(cav)
        self.target = float(target)
        self.handle = get_layer(model, layer).register_forward_hook(self._hook)

    def _hook(self, _m: nn.Module, _i: Any, out: torch.Tensor) -> torch.Tensor:
        v = self.v.to(out.dtype)
        a, per_position = _along_channels(out, v)
        shift = (self.target - a @ v)[..., None] * v / (v @ v)
        a = a + shift
        if per_position:
            return a.transpose(1, 2).reshape(out.shape)
        return a.reshape(out.shape)

    def remove(self) -> None:
        self.handle.remove()


class ProjectiveClArC(_ClArCHook):
    """P-ClArC (post-hoc): a' = a + (m0 - v·a) v / (v·v), m0 = mean concept score of clean data.

    `with`-able; `.remove()` restores the model.
    """

    def __init__(self, model: nn.Module, layer: str, cav: Any, ref_mean: float):
        super().__init__(model, layer, cav, ref_mean)

    def __enter__(self) -> ProjectiveClArC:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


class AugmentativeClArC(ProjectiveClArC):
    """A-ClArC: a' = a + (m1 - v·a) v, m1 = mean concept score of artifact samples; fine-tune with it on
    so the later layers learn to ignore the concept."""


def reference_mean(cav: Any, acts: Any) -> float:
    """m = mean(v·a) of (reduced) activations, e.g. of clean samples for P-ClArC."""
    v = np.asarray(getattr(cav, "vector", cav), dtype=np.float64)
    return float(np.mean(np.asarray(acts, dtype=np.float64) @ v))


# ---- RR-ClArC ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class RRClArCConfig:
    """Paper defaults (official configs): 10 epochs, SGD lr 5e-4, criterion "all_logits_random",
    gradient aggregation = spatial mean (l2_mean)."""

    lam: float = 1e7  # lambda of the RR-ClArC loss; scale depends on activation/gradient magnitudes
    epochs: int = 10
    lr: float = 5e-4
    optimizer: str = "sgd"  # "sgd" | "adam"
    batch_size: int = 64
    seed: int = 0


def _modules_after(model: nn.Module, layer: str, x: torch.Tensor) -> list[nn.Module]:
    """Leaf modules that run after `layer` in a forward pass (the layers RR-ClArC trains)."""
    target = get_layer(model, layer)
    order: list[nn.Module] = []
    hooks = [m.register_forward_hook(lambda m, i, o: order.append(m)) for m in model.modules()
             if not list(m.children())]
    if list(target.children()):  # a block: it finishes after its children
        hooks.append(target.register_forward_hook(lambda m, i, o: order.append(m)))
    was_training = model.training
    model.eval()  # one sample through batch-norm needs eval mode
    try:
        with torch.no_grad():
            model(x[:1])
    finally:
        model.train(was_training)
        for h in hooks:
            h.remove()
    return order[len(order) - order[::-1].index(target):]  # after its last call


def _params_after(model: nn.Module, layer: str, x: torch.Tensor) -> list[nn.Parameter]:
    seen, params = set(), []
    for m in _modules_after(model, layer, x):
        for p in m.parameters(recurse=False):
            if id(p) not in seen:
                seen.add(id(p))
                params.append(p)
    return params


def rr_loss(model: nn.Module, layer: str, cav: torch.Tensor, x: torch.Tensor, y: torch.Tensor,
            lam: float, generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(total loss, right-reason term) of the RR-ClArC loss: CE + lam * mean_i (g_i · v)^2 with
    g_i = spatial mean of grad_a sum_c s_ic f_c(x_i), s_ic in {-1, +1} drawn per sample and logit
    (the paper's "all_logits_random" criterion)."""
    store: dict[str, torch.Tensor] = {}

    def hook(_m: nn.Module, _i: Any, out: torch.Tensor) -> torch.Tensor:
        if not out.requires_grad:
            out = out.detach().requires_grad_(True)
        store["a"] = out
        return out

    h = get_layer(model, layer).register_forward_hook(hook)
    try:
        logits = model(x)
    finally:
        h.remove()
    ce = nn.functional.cross_entropy(logits, y)
    s = torch.randint(0, 2, logits.shape, generator=generator).to(logits.dtype) * 2 - 1  # (B, K)
    (g,) = torch.autograd.grad((logits * s).sum(), store["a"], create_graph=True)
    g, per_position = _along_channels(g, cav)
    if per_position:
        g = g.mean(dim=1)  # spatial mean -> (B, C)
    rr = ((g @ cav.to(g.dtype)) ** 2).mean()
    return ce + lam * rr, rr


def rr_clarc(model: nn.Module, layer: str, cav: Any, x: Any, y: Any,
             config: RRClArCConfig = RRClArCConfig()) -> nn.Module:
    """Fine-tune (in place) the layers after `layer` with the RR-ClArC loss; returns the model.

    x: inputs (n, ...) and y: integer class labels (n,), e.g. the (poisoned) training set.
    """
    dtype = model_dtype(model)
    x = torch.as_tensor(x, dtype=dtype)
    y = torch.as_tensor(y, dtype=torch.long)
    if x.shape[0] != y.shape[0]:
        raise UserError(f"x has {x.shape[0]} samples but y has {y.shape[0]}; lengths must match")
    v = _cav_tensor(cav)
    v = (v / v.norm()).to(dtype)
    after = _modules_after(model, layer, x)
    trainable = _params_after(model, layer, x)
    if not trainable:
        raise UserError(f"no trainable parameters after layer {layer!r}; pick an earlier layer")
    for p in model.parameters():
        p.requires_grad_(False)
    for p in trainable:
        p.requires_grad_(True)
    if config.optimizer not in ("sgd", "adam"):
        raise UserError(f"unknown optimizer {config.optimizer!r}; choose sgd or adam")
    opt = (torch.optim.SGD(trainable, lr=config.lr, momentum=0.9) if config.optimizer == "sgd"
           else torch.optim.Adam(trainable, lr=config.lr))
    gen = torch.Generator().manual_seed(config.seed)
    model.eval()  # frozen layers keep eval behaviour (batch-norm statistics, dropout off)
    for m in after:
        m.train()
    for _ in progress(range(config.epochs), "RR-ClArC fine-tuning (epochs)"):
        perm = torch.randperm(x.shape[0], generator=gen)
        for i in range(0, x.shape[0], config.batch_size):
            idx = perm[i:i + config.batch_size]
            loss, _ = rr_loss(model, layer, v, x[idx], y[idx], config.lam, gen)
            opt.zero_grad()
            loss.backward()
            opt.step()
    model.eval()
    for p in model.parameters():
        p.requires_grad_(True)
    return model
