"""Configurations of the models trained here (plain dataclasses, importable without torch)."""

from __future__ import annotations

from dataclasses import dataclass

from iclr25.core.errors import UserError
from iclr25.core.models.tokenizer import TOKENIZER_KINDS


@dataclass(frozen=True)
class TinyGPTConfig:
    """Model shape (the vocabulary size is the tokenizer's)."""

    vocab_size: int = 4096
    block_size: int = 128  # positions
    n_layer: int = 4
    n_head: int = 4
    d_model: int = 128
    tokenizer: str = "bpe"  # "bpe" (byte-level, lossless) | "word"

    def __post_init__(self) -> None:
        if self.tokenizer not in TOKENIZER_KINDS:
            raise UserError(f"unknown tokenizer {self.tokenizer!r}; choose from {', '.join(TOKENIZER_KINDS)}")
        for name in ("vocab_size", "block_size", "n_layer", "n_head", "d_model"):
            if getattr(self, name) < 1:
                raise UserError(f"TinyGPTConfig.{name} must be >= 1, got {getattr(self, name)}")
        if self.d_model % self.n_head:
            raise UserError(f"d_model {self.d_model} is not divisible by n_head {self.n_head}")


@dataclass(frozen=True)
class TrainConfig:
    """AdamW with linear warm-up and cosine decay on random windows of the token stream."""

    steps: int = 2000
    batch: int = 32
    lr: float = 3e-3
    warmup: int = 100
    weight_decay: float = 0.1
    seed: int = 0

    def __post_init__(self) -> None:
        if self.steps < 1 or self.batch < 1 or not self.lr > 0:
            raise UserError(f"steps, batch and lr must be positive, got {self.steps}, {self.batch}, "
                            f"{self.lr}")
