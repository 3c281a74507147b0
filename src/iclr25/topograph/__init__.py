"""Topograph (ICLR 2025, paper 18): a component-graph loss for strictly topology-preserving
segmentation, the strict DIU metric, and clDice / persistent-homology baselines.

>>> import numpy as np
>>> from iclr25.topograph import diu, critical_regions
>>> gt = np.zeros((5, 9), int); gt[2, 1:8] = 1; pred = gt.copy(); pred[2, 4] = 0
>>> diu(pred, gt), len(critical_regions(pred, gt))
(1, 1)
"""

from iclr25.core.registry import make_paper
from iclr25.topograph.experiments import CLAIMS, run
from iclr25.topograph.graph import ComponentGraph, component_graph, critical_regions
from iclr25.topograph.metrics import betti_errors, betti_numbers, cldice, dice, diu, diu_parts, evaluate

PAPER = make_paper("topograph", CLAIMS, run)

__all__ = [
    "PAPER", "ComponentGraph", "component_graph", "critical_regions", "diu", "diu_parts", "betti_numbers",
    "betti_errors", "dice", "cldice", "evaluate", "TopographLoss", "DiceTopographLoss", "DiceLoss",
    "DiceClDiceLoss", "PHLoss", "UNet", "benchmark_loss",
]


def __getattr__(name: str):
    """Torch-based parts load lazily so that `import iclr25.topograph` stays cheap."""
    if name in ("TopographLoss", "DiceTopographLoss", "DiceLoss", "DiceClDiceLoss"):
        from iclr25.topograph import losses
        return getattr(losses, name)
    if name == "PHLoss":
        from iclr25.topograph.ph import PHLoss
        return PHLoss
    if name == "UNet":
        from iclr25.topograph.unet import UNet
        return UNet
    if name == "benchmark_loss":
        from iclr25.topograph.bench import benchmark_loss
        return benchmark_loss
    raise AttributeError(f"module 'iclr25.topograph' has no attribute {name!r}")
