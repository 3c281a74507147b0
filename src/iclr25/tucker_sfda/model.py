"""The AdaTime / MAPU 1-D CNN backbone (three conv blocks, global average pool, linear head) and MAPU's
temporal imputer (an LSTM over the last block's feature sequence)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import nn

from iclr25.core.errors import UserError


@dataclass(frozen=True)
class ModelConfig:
    """AdaTime's CNN; defaults are its HAR configuration (kernel 5, stride 1, widths 64/128, dropout .5)."""

    C: int  # input channels
    T: int  # series length the model is built for (any length >= min_length() runs)
    classes: int
    mid: int = 64
    final: int = 128
    k: int = 5
    stride: int = 1
    dropout: float = 0.5
    features_len: int = 1

    def to_dict(self) -> dict:
        return asdict(self)


def _pool_len(n: int) -> int:
    """MaxPool1d(kernel 2, stride 2, padding 1)."""
    return n // 2 + 1


def conv_len(n: int, k: int, stride: int, pad: int) -> int:
    return (n + 2 * pad - k) // stride + 1


def feature_lengths(cfg: ModelConfig, T: int) -> list[int]:
    """Input length of each conv block and the length after the last one: [L0, L1, L2, L3]."""
    lens = [T]
    n = _pool_len(conv_len(T, cfg.k, cfg.stride, cfg.k // 2))
    lens.append(n)
    for _ in range(2):
        n = _pool_len(conv_len(n, 8, 1, 4))
        lens.append(n)
    return lens


class AdaTimeCNN(nn.Module):
    """Block1: Conv(C→mid, k, stride s, pad k//2) → BN → ReLU → MaxPool(2,2,1) → Dropout;
    Block2: Conv(mid→2·mid, 8, pad 4) → BN → ReLU → MaxPool; Block3: Conv(2·mid→final, 8, pad 4) → BN →
    ReLU → MaxPool → AdaptiveAvgPool(features_len) → Linear(final·len → classes). Convs have no bias.

    >>> m = AdaTimeCNN(3, 128, 5)
    >>> m(torch.zeros(2, 3, 128)).shape
    torch.Size([2, 5])
    """

    def __init__(self, C: int, T: int, classes: int, mid: int = 64, final: int = 128, k: int = 5,
                 stride: int = 1, dropout: float = 0.5, features_len: int = 1) -> None:
        super().__init__()
        self.config = ModelConfig(C, T, classes, mid, final, k, stride, dropout, features_len)
        for name, v in (("C", C), ("T", T), ("mid", mid), ("final", final), ("k", k), ("stride", stride),
                        ("features_len", features_len)):
            if int(v) < 1:
                raise UserError(f"AdaTimeCNN: {name} must be >= 1, got {v}")
        if classes < 2:
            raise UserError(f"AdaTimeCNN: need at least 2 classes, got {classes}")
        if self.min_length() > T:
            raise UserError(f"AdaTimeCNN: series length T={T} is too short for kernel {k}, stride {stride}")
        self.conv_block1 = nn.Sequential(
            nn.Conv1d(C, mid, k, stride=stride, padding=k // 2, bias=False), nn.BatchNorm1d(mid), nn.ReLU(),
            nn.MaxPool1d(2, 2, padding=1), nn.Dropout(dropout))
        self.conv_block2 = nn.Sequential(
            nn.Conv1d(mid, 2 * mid, 8, padding=4, bias=False), nn.BatchNorm1d(2 * mid), nn.ReLU(),
            nn.MaxPool1d(2, 2, padding=1))
        self.conv_block3 = nn.Sequential(
            nn.Conv1d(2 * mid, final, 8, padding=4, bias=False), nn.BatchNorm1d(final), nn.ReLU(),
            nn.MaxPool1d(2, 2, padding=1))
        self.aap = nn.AdaptiveAvgPool1d(features_len)
        self.classifier = nn.Linear(final * features_len, classes)

    def min_length(self) -> int:
        """Shortest series the first conv accepts (its output must be at least one step)."""
        c = self.config
        return max(1, c.k - 2 * (c.k // 2))

    def extract(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, C, T) → pooled features (B, final·len) and the last block's sequence (B, final, L3)."""
        seq = self.conv_block3(self.conv_block2(self.conv_block1(x)))
        return self.aap(seq).flatten(1), seq

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.extract(x)[0])  # (B, classes)

    def extractor_modules(self) -> list[nn.Module]:
        return [self.conv_block1, self.conv_block2, self.conv_block3]


class TemporalImputer(nn.Module):
    """MAPU's imputer: an LSTM (hidden = channels) run over the time steps of a (B, final, L) feature
    sequence, predicting the unmasked sequence from the masked one.

    >>> TemporalImputer(8)(torch.zeros(2, 8, 5)).shape
    torch.Size([2, 8, 5])
    """

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.channels = channels
        self.rnn = nn.LSTM(input_size=channels, hidden_size=channels, batch_first=True)

    def forward(self, seq: torch.Tensor) -> torch.Tensor:
        out, _ = self.rnn(seq.transpose(1, 2))  # (B, L, final)
        return out.transpose(1, 2)  # (B, final, L)
