"""Pattern-based CAVs (Pahde et al., ICLR 2025): concept directions that follow the concept, not the
distractors; filter-CAV baselines, alignment/AUC, TCAV with significance testing, and ClArC correction.

Torch-dependent parts (activations, TCAV, ClArC) are imported lazily so `compute_cav` stays light.
"""

from iclr25.core.lazy import lazy_package

__getattr__, __dir__, __all__ = lazy_package(__name__, {
    "cav": ["CAV", "METHODS", "CAVEstimator", "FilterConfig", "compute_cav", "pattern_vector"],
    "claims": ["CLAIMS"],
    "experiments": ["run"],
    "metrics": ["alignment", "concept_auc", "cosine"],
    "activations": ["collect_activations", "get_layer", "reduce_acts"],
    "sensitivity": ["tcav", "TCAVResult", "tcav_test", "cav_bank", "random_cavs", "layer_gradients",
        "directional_derivatives", "tcav_score"],
    "relevance": ["artifact_relevance", "gradient_x_input"],
    "clarc": ["ProjectiveClArC", "AugmentativeClArC", "rr_clarc", "RRClArCConfig", "reference_mean"],
})
