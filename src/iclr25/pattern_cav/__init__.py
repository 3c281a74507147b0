"""Pattern-based CAVs (Pahde et al., ICLR 2025): concept directions that follow the concept, not the
distractors; filter-CAV baselines, alignment/AUC, TCAV with significance testing, and ClArC correction.

Torch-dependent parts (activations, TCAV, ClArC) are imported lazily so `compute_cav` stays light.
"""

from __future__ import annotations

from typing import Any

from iclr25.core.registry import make_paper
from iclr25.pattern_cav.cav import CAV, METHODS, CAVEstimator, FilterConfig, compute_cav, pattern_vector
from iclr25.pattern_cav.experiments import CLAIMS, run
from iclr25.pattern_cav.metrics import alignment, concept_auc, cosine

_LAZY = {
    "collect_activations": "activations", "get_layer": "activations", "reduce_acts": "activations",
    "tcav": "sensitivity", "TCAVResult": "sensitivity", "tcav_test": "sensitivity",
    "cav_bank": "sensitivity", "random_cavs": "sensitivity",
    "layer_gradients": "sensitivity", "directional_derivatives": "sensitivity", "tcav_score": "sensitivity",
    "ProjectiveClArC": "clarc", "AugmentativeClArC": "clarc", "rr_clarc": "clarc", "RRClArCConfig": "clarc",
    "reference_mean": "clarc",
}

__all__ = ["CAV", "METHODS", "CAVEstimator", "FilterConfig", "compute_cav", "pattern_vector", "alignment",
           "concept_auc", "cosine", "PAPER", *_LAZY]

PAPER = make_paper("pattern_cav", CLAIMS, run)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(f"iclr25.pattern_cav.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'iclr25.pattern_cav' has no attribute {name!r}")
