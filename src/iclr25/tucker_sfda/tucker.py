"""Parameter subspace disentanglement: a Tucker-2 (HOSVD) factorisation of every conv weight, and the
three-conv layer that runs it (1×1 Vᵀ → K-conv core G → 1×1 U). Only G is adapted on the target."""

from __future__ import annotations

import copy

import torch
from torch import nn

from iclr25.core.errors import UserError


def tucker2(W: torch.Tensor, ranks: tuple[int, int]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """HOSVD of a conv weight W (O, I, K) along the output and input modes, the kernel mode kept:
    W ≈ G ×₁ U ×₂ V with U (O, R_o), V (I, R_i) orthonormal and the core G (R_o, R_i, K).

    U: leading left singular vectors of the mode-1 unfolding W_(1) (O, I·K); V: of W_(2) (I, O·K);
    G = W ×₁ Uᵀ ×₂ Vᵀ.

    >>> U, V, G = tucker2(torch.randn(8, 4, 3), (2, 4))
    >>> U.shape, V.shape, G.shape
    (torch.Size([8, 2]), torch.Size([4, 4]), torch.Size([2, 4, 3]))
    """
    if W.dim() != 3:
        raise UserError(f"tucker2: W must be 3-D (O, I, K), got shape {tuple(W.shape)}")
    O, I, K = W.shape
    r_o, r_i = (int(r) for r in ranks)
    if not (1 <= r_o <= min(O, I * K) and 1 <= r_i <= min(I, O * K)):
        raise UserError(f"tucker2: ranks {ranks} out of range for W {tuple(W.shape)} "
                        f"(R_o in [1, {min(O, I * K)}], R_i in [1, {min(I, O * K)}])")
    Wd = W.detach().double()
    U = torch.linalg.svd(Wd.reshape(O, I * K), full_matrices=False)[0][:, :r_o]  # mode-1 unfolding
    V = torch.linalg.svd(Wd.permute(1, 0, 2).reshape(I, O * K), full_matrices=False)[0][:, :r_i]
    G = torch.einsum("oik,or,is->rsk", Wd, U, V)  # W ×₁ Uᵀ ×₂ Vᵀ
    return U.to(W.dtype), V.to(W.dtype), G.to(W.dtype)


def tucker2_reconstruct(U: torch.Tensor, V: torch.Tensor, G: torch.Tensor) -> torch.Tensor:
    """G ×₁ U ×₂ V: (O, I, K)."""
    return torch.einsum("rsk,or,is->oik", G, U, V)


class TuckerConv1d(nn.Module):
    """A Conv1d with weight G ×₁ U ×₂ V, run as three convs: `first` (1×1, weight Vᵀ: I→R_i),
    `core` (K-conv, weight G: R_i→R_o, the original stride/padding/dilation) and `last` (1×1, weight U:
    R_o→O, the original bias). Equal to the dense conv with that weight, in ~R/C of the MACs."""

    def __init__(self, U: torch.Tensor, V: torch.Tensor, G: torch.Tensor, stride: int = 1, padding: int = 0,
                 dilation: int = 1, bias: torch.Tensor | None = None) -> None:
        super().__init__()
        (O, r_o), (I, r_i), K = U.shape, V.shape, G.shape[2]
        self.first = nn.Conv1d(I, r_i, 1, bias=False)
        self.core = nn.Conv1d(r_i, r_o, K, stride=stride, padding=padding, dilation=dilation, bias=False)
        self.last = nn.Conv1d(r_o, O, 1, bias=bias is not None)
        with torch.no_grad():
            self.first.weight.copy_(V.T.unsqueeze(-1))  # (R_i, I, 1)
            self.core.weight.copy_(G)  # (R_o, R_i, K)
            self.last.weight.copy_(U.unsqueeze(-1))  # (O, R_o, 1)
            if bias is not None:
                self.last.bias.copy_(bias)

    @property
    def ranks(self) -> tuple[int, int]:
        return self.core.out_channels, self.core.in_channels

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.last(self.core(self.first(x)))  # (B, I, L) → (B, R_i, L) → (B, R_o, L') → (B, O, L')

    def dense_weight(self) -> torch.Tensor:
        """The equivalent dense weight (O, I, K) = G ×₁ U ×₂ V."""
        U = self.last.weight[..., 0]
        V = self.first.weight[..., 0].T
        return tucker2_reconstruct(U, V, self.core.weight)

    @classmethod
    def from_conv(cls, conv: nn.Conv1d, ranks: tuple[int, int]) -> TuckerConv1d:
        if conv.groups != 1:
            raise UserError(f"TuckerConv1d: grouped convolutions are not supported (groups={conv.groups})")
        if not isinstance(conv.padding, tuple) or conv.padding_mode != "zeros":
            raise UserError(f"TuckerConv1d: padding {conv.padding!r} ({conv.padding_mode}) is not supported")
        U, V, G = tucker2(conv.weight, ranks)
        bias = None if conv.bias is None else conv.bias.detach()
        return cls(U, V, G, conv.stride[0], conv.padding[0], conv.dilation[0], bias)


def tucker_ranks(O: int, I: int, K: int, rf: int, min_channels: int = 3) -> tuple[int, int]:
    """R = max(1, channels // RF), capped by the unfolding's rank bound (R_o ≤ I·K, R_i ≤ O·K); a mode with
    ≤ `min_channels` channels (a 1- or 3-axis sensor input) keeps full rank.

    >>> tucker_ranks(64, 3, 5, 4)   # first conv of the 3-channel model: R_o capped at I·K = 15
    (15, 3)
    >>> tucker_ranks(128, 64, 8, 8)
    (16, 8)
    """
    def rank(ch: int, cap: int) -> int:
        r = ch if ch <= min_channels else max(1, ch // rf)
        return min(r, cap)
    return rank(O, I * K), rank(I, O * K)


def _check_rf(rf: int) -> int:
    if isinstance(rf, bool) or not isinstance(rf, int | float) or rf != int(rf) or rf < 1:
        raise UserError(f"rank factor RF must be an integer >= 1, got {rf!r}")
    return int(rf)


def tucker_reparameterize(model: nn.Module, rf: int, min_channels: int = 3) -> nn.Module:
    """A copy of `model` with every nn.Conv1d replaced by its Tucker-2 factorisation at rank factor RF
    (the source model is left untouched). RF = 1 keeps full rank (an exact re-parameterisation).

    >>> from iclr25.tucker_sfda.model import AdaTimeCNN
    >>> dec = tucker_reparameterize(AdaTimeCNN(3, 128, 5), rf=8)
    >>> dec.conv_block2[0].ranks
    (16, 8)
    """
    rf = _check_rf(rf)
    if min_channels < 0:
        raise UserError(f"min_channels must be >= 0, got {min_channels}")
    dec = copy.deepcopy(model)
    convs = [(name, m) for name, m in dec.named_modules() if type(m) is nn.Conv1d]
    if not convs:
        raise UserError("tucker_reparameterize: the model has no nn.Conv1d to decompose")
    for name, conv in convs:
        O, I, K = conv.weight.shape
        _set_module(dec, name, TuckerConv1d.from_conv(conv, tucker_ranks(O, I, K, rf, min_channels)))
    dec.rank_factor = rf
    return dec


def _set_module(root: nn.Module, name: str, new: nn.Module) -> None:
    parent_name, _, child = name.rpartition(".")
    parent = root.get_submodule(parent_name) if parent_name else root
    setattr(parent, child, new)


def tucker_modules(model: nn.Module) -> list[TuckerConv1d]:
    return [m for m in model.modules() if isinstance(m, TuckerConv1d)]
