"""Causal or anticausal? RoCA (ICLR 2025): from noisily labelled data, tell whether the features cause the
label (X→Y) or the label causes the features (Y→X) by injecting label noise and watching how far
clusters of X drift from it; plus the baselines CDNL, cluster agreement, RECI, IGCI, ANM and PC."""

from iclr25.core.lazy import lazy_package

__getattr__, __dir__, __all__ = lazy_package(__name__, {
    "baselines": ["BASELINES", "BaselineResult", "agreement_test", "anm", "cdnl", "igci", "pc", "reci"],
    "data": ["TRUTH", "Dataset", "balance_scale", "digits", "keel_dataset", "load_table"],
    "estimator": ["RoCA"],
    "calibration": ["agreement_beyond_chance", "choose_threshold"],
    "claims": ["CLAIMS"],
    "experiments": ["run"],
    "noise": ["inject_label_noise"],
    "plots": ["plot_curve"],
    "pseudo_labels": ["align_clusters", "embed_features", "pseudo_labels"],
    "roca": ["DEFAULT_THRESHOLD", "DirectionResult", "RoCAConfig", "detect_direction", "fmt_slope"],
})
