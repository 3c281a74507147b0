"""Causal or anticausal? RoCA (ICLR 2025): from noisily labelled data, tell whether the features cause the
label (X→Y) or the label causes the features (Y→X) by injecting label noise and watching how far
clusters of X drift from it; plus the baselines CDNL, cluster agreement, RECI, IGCI, ANM and PC."""

from iclr25.causal_direction.baselines import (
    BASELINES,
    BaselineResult,
    agreement_test,
    anm,
    cdnl,
    igci,
    pc,
    reci,
)
from iclr25.causal_direction.data import TRUTH, Dataset, balance_scale, digits, keel_dataset, load_table
from iclr25.causal_direction.estimator import RoCA
from iclr25.causal_direction.experiments import CLAIMS, run
from iclr25.causal_direction.noise import inject_label_noise
from iclr25.causal_direction.plots import plot_curve
from iclr25.causal_direction.pseudo_labels import align_clusters, embed_features, pseudo_labels
from iclr25.causal_direction.roca import DirectionResult, RoCAConfig, detect_direction
from iclr25.core.registry import make_paper

PAPER = make_paper("causal_direction", CLAIMS, run)

__all__ = [
    "BASELINES", "CLAIMS", "PAPER", "BaselineResult", "agreement_test", "anm", "cdnl", "igci", "pc", "reci",
    "run", "TRUTH", "Dataset", "DirectionResult", "RoCA", "RoCAConfig", "align_clusters", "balance_scale",
    "detect_direction", "digits", "embed_features", "inject_label_noise", "keel_dataset", "load_table",
    "plot_curve", "pseudo_labels",
]
