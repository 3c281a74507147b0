"""What SFT saves and how far it moves: parameter counts, inference MACs (an analytic walk over the layers
and, independently, forward hooks), model bytes, and ‖ΔW‖_F in dense weights (the PAC-Bayes KL term)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import nn

from iclr25.core.errors import UserError
from iclr25.tucker_sfda.lora import DeltaConv1d
from iclr25.tucker_sfda.model import conv_len
from iclr25.tucker_sfda.tucker import TuckerConv1d


@dataclass(frozen=True)
class Efficiency:
    params: int  # all parameters
    trainable: int  # parameters with requires_grad (after select_trainable)
    macs: int  # multiply-accumulates of one forward pass of one series (convs + linear), by formula
    macs_hooks: int  # the same, counted by forward hooks on a real forward pass
    bytes: int  # parameters and buffers (BN running statistics)

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


def _check_shape(shape: tuple[int, int]) -> tuple[int, int]:
    if len(shape) != 2 or min(shape) < 1:
        raise UserError(f"input shape must be (C, T) with C, T >= 1, got {shape}")
    return int(shape[0]), int(shape[1])


def conv_macs(O: int, I: int, K: int, L_out: int, groups: int = 1) -> int:
    """A Conv1d: L_out · O · (I/groups) · K multiply-accumulates."""
    return L_out * O * (I // groups) * K


def tucker_macs(O: int, I: int, K: int, ranks: tuple[int, int], L_in: int, L_out: int) -> int:
    """TuckerConv1d: L_in·I·R_i (Vᵀ) + L_out·R_i·R_o·K (core) + L_out·R_o·O (U), versus L_out·O·I·K dense.

    >>> tucker_macs(128, 64, 8, (16, 8), 65, 66), conv_macs(128, 64, 8, 66)
    (236032, 4325376)
    """
    r_o, r_i = ranks
    return L_in * I * r_i + L_out * r_i * r_o * K + L_out * r_o * O


def macs_formula(model: nn.Module, shape: tuple[int, int]) -> int:
    """MACs of one series of shape (C, T), computed from the layer shapes alone: a walk over the
    modules in their (sequential) order, tracking the length through convs and pools."""
    _, L = _check_shape(shape)
    total = 0
    skip: set[int] = set()
    for m in model.modules():
        if id(m) in skip:
            continue
        if isinstance(m, TuckerConv1d | DeltaConv1d):
            skip.update(id(c) for c in m.modules())
        if isinstance(m, TuckerConv1d):
            c = m.core
            L_out = conv_len(L, c.kernel_size[0] + (c.dilation[0] - 1) * (c.kernel_size[0] - 1),
                             c.stride[0], c.padding[0])
            O, I = m.last.out_channels, m.first.in_channels
            total += tucker_macs(O, I, c.kernel_size[0], m.ranks, L, L_out)
            L = L_out
        elif isinstance(m, nn.Conv1d | DeltaConv1d):
            c = m.conv if isinstance(m, DeltaConv1d) else m  # LoRA / subset run the merged dense weight
            k_eff = c.kernel_size[0] + (c.dilation[0] - 1) * (c.kernel_size[0] - 1)
            L = conv_len(L, k_eff, c.stride[0], c.padding[0])
            total += conv_macs(c.out_channels, c.in_channels, c.kernel_size[0], L, c.groups)
        elif isinstance(m, nn.MaxPool1d):
            k, s, p = (v if isinstance(v, int) else v[0] for v in (m.kernel_size, m.stride, m.padding))
            L = conv_len(L, k, s, p)
        elif isinstance(m, nn.AdaptiveAvgPool1d):
            L = m.output_size if isinstance(m.output_size, int) else m.output_size[0]
        elif isinstance(m, nn.Linear):
            total += m.in_features * m.out_features
    return total


def macs_hooks(model: nn.Module, shape: tuple[int, int]) -> int:
    """MACs of one series counted by forward hooks on Conv1d / LoRA / subset convs / Linear during a real
    pass."""
    C, T = _check_shape(shape)
    count = [0]

    def conv_hook(m: nn.Module, inp: tuple, out: torch.Tensor) -> None:
        c = m.conv if isinstance(m, DeltaConv1d) else m
        count[0] += out.shape[2] * c.out_channels * (c.in_channels // c.groups) * c.kernel_size[0]

    def linear_hook(m: nn.Linear, inp: tuple, out: torch.Tensor) -> None:
        count[0] += out[0].numel() * m.in_features

    handles = []
    inner = {id(m.conv) for m in model.modules() if isinstance(m, DeltaConv1d)}  # run merged, not called
    for m in model.modules():
        if isinstance(m, nn.Conv1d | DeltaConv1d) and id(m) not in inner:
            handles.append(m.register_forward_hook(conv_hook))
        elif isinstance(m, nn.Linear):
            handles.append(m.register_forward_hook(linear_hook))
    was = model.training
    model.eval()
    try:
        with torch.no_grad():
            model(torch.zeros(1, C, T))
    finally:
        for h in handles:
            h.remove()
        model.train(was)
    return count[0]


def efficiency(model: nn.Module, shape: tuple[int, int]) -> Efficiency:
    """Parameters, trainable parameters, MACs (formula and hooks) and bytes of `model` for input (C, T).

    >>> from iclr25.tucker_sfda import AdaTimeCNN, tucker_reparameterize
    >>> dense = AdaTimeCNN(3, 128, 5)
    >>> efficiency(dense, (3, 128)).macs, efficiency(tucker_reparameterize(dense, 8), (3, 128)).macs
    (9036416, 531712)
    """
    params = sum(p.numel() for p in model.parameters())
    trainable = trainable_count(model)
    nbytes = sum(t.numel() * t.element_size() for t in (*model.parameters(), *model.buffers()))
    return Efficiency(params, trainable, macs_formula(model, shape), macs_hooks(model, shape), nbytes)


def trainable_count(model: nn.Module, params: list[nn.Parameter] | None = None) -> int:
    """Trainable entries: every parameter with requires_grad (or of `params`), a random subset's update
    counted by its mask (its other entries never receive a gradient).

    >>> from iclr25.tucker_sfda import AdaTimeCNN
    >>> from iclr25.tucker_sfda.lora import add_random_subset
    >>> sub = add_random_subset(AdaTimeCNN(3, 32, 2, mid=4, final=8), 50)
    >>> trainable_count(sub, [m.subset_delta for m in sub.modules() if hasattr(m, "subset_delta")])
    50
    """
    chosen = [p for p in model.parameters() if p.requires_grad] if params is None else list(params)
    masked = {id(m.subset_delta): m.n_trainable() for m in model.modules() if hasattr(m, "subset_delta")}
    return sum(masked.get(id(p), p.numel()) for p in chosen)


def dense_weights(model: nn.Module) -> dict[str, torch.Tensor]:
    """Every weight of the network in dense form, by module name: conv weights (Tucker and LoRA layers
    merged to (O, I, K)), BN affine and the linear head."""
    out: dict[str, torch.Tensor] = {}
    skip: set[int] = set()
    for name, m in model.named_modules():
        if id(m) in skip:
            continue
        if isinstance(m, TuckerConv1d | DeltaConv1d):
            skip.update(id(c) for c in m.modules())
            out[f"{name}.weight"] = m.dense_weight().detach()
            bias = m.last.bias if isinstance(m, TuckerConv1d) else m.conv.bias
        elif isinstance(m, nn.Conv1d | nn.BatchNorm1d | nn.Linear):
            if m.weight is not None:
                out[f"{name}.weight"] = m.weight.detach()
            bias = m.bias
        else:
            continue
        if bias is not None:
            out[f"{name}.bias"] = bias.detach()
    return out


def delta_norm(src: nn.Module, adapted: nn.Module) -> float:
    """‖W_adapted − W_src‖_F over all weights in dense form: with prior N(W_src, σ²I) and posterior
    N(W_adapted, σ²I), the PAC-Bayes KL term is this squared over 2σ²."""
    a, b = dense_weights(src), dense_weights(adapted)
    if a.keys() != b.keys():
        diff = sorted(set(a) ^ set(b))
        raise UserError(f"delta_norm: the two models have different layers (e.g. {diff[0]!r})")
    sq = 0.0
    for k in a:
        if a[k].shape != b[k].shape:
            raise UserError(f"delta_norm: {k} has shape {tuple(a[k].shape)} vs {tuple(b[k].shape)}")
        sq += float(((b[k].double() - a[k].double()) ** 2).sum())
    return sq ** 0.5
