"""Topograph (ICLR 2025, paper 18): a component-graph loss for strictly topology-preserving
segmentation, the strict DIU metric, and clDice / persistent-homology baselines.

>>> import numpy as np
>>> from iclr25.topograph import diu, critical_regions
>>> gt = np.zeros((5, 9), int); gt[2, 1:8] = 1; pred = gt.copy(); pred[2, 4] = 0
>>> diu(pred, gt), len(critical_regions(pred, gt))
(1, 1)
"""

from iclr25.core.lazy import lazy_package

__getattr__, __dir__, __all__ = lazy_package(__name__, {
    "claims": ["CLAIMS"],
    "experiments": ["run"],
    "graph": ["ComponentGraph", "component_graph", "critical_regions"],
    "metrics": ["betti_errors", "betti_numbers", "cldice", "dice", "diu", "diu_parts", "evaluate"],
    "losses": ["TopographLoss", "DiceTopographLoss", "DiceLoss", "DiceClDiceLoss"],
    "ph": ["PHLoss"],
    "unet": ["UNet"],
    "bench": ["benchmark_loss"],
})
