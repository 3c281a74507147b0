"""The learning-rate schedule every trainer here uses: linear warm-up over 5% of the steps, then cosine
decay to zero."""

from __future__ import annotations

import math

import torch


def warmup_cosine(opt: torch.optim.Optimizer, total: int, warmup_frac: float = 0.05
                  ) -> torch.optim.lr_scheduler.LambdaLR:
    """Step it once per optimiser step; `total` steps in all (any total >= 1 works)."""
    total = max(1, total)
    warm = max(1, int(total * warmup_frac))

    def factor(step: int) -> float:
        if step < warm:
            return (step + 1) / warm
        return 0.5 * (1 + math.cos(math.pi * (step - warm) / max(1, total - warm)))

    return torch.optim.lr_scheduler.LambdaLR(opt, factor)
