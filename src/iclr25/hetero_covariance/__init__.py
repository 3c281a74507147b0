"""Heteroscedastic covariance estimation (ToSS, ICLR 2025): the 2-Wasserstein bound with neighbourhood
pseudo-labels, its baselines (NLL, β-NLL, Faithful, exact W₂, TIC), TAC evaluation, and a
scikit-learn-style `HeteroscedasticRegressor`."""

from iclr25.core.registry import make_paper
from iclr25.hetero_covariance.data import (
    Dataset,
    load_diabetes_matrix,
    load_uci,
    multivariate,
    sinusoid,
    uci_protocol,
)
from iclr25.hetero_covariance.estimator import LOSSES, HeteroscedasticRegressor
from iclr25.hetero_covariance.experiments import CLAIMS, run
from iclr25.hetero_covariance.linalg import sqrtm_spd
from iclr25.hetero_covariance.losses import (
    beta_nll,
    exact_w2,
    faithful_loss,
    gaussian_nll_diag,
    gaussian_nll_full,
    kl_calibrated_loss,
    w2_bound,
    w2_bound_loss,
    w2_exact_loss,
)
from iclr25.hetero_covariance.metrics import gaussian_ll, mse, tac, tac_residuals
from iclr25.hetero_covariance.model import (
    CovarianceHead,
    HeteroscedasticNet,
    MeanHead,
    NetConfig,
    ResidualMLP,
)
from iclr25.hetero_covariance.pseudo_labels import PseudoLabelConfig, neighbourhood_pseudo_covariance
from iclr25.hetero_covariance.tic import tic_covariance

PAPER = make_paper("hetero_covariance", CLAIMS, run)

__all__ = [
    "CLAIMS", "LOSSES", "PAPER", "CovarianceHead", "Dataset", "HeteroscedasticNet",
    "HeteroscedasticRegressor",
    "MeanHead", "NetConfig", "PseudoLabelConfig", "ResidualMLP", "beta_nll", "exact_w2", "faithful_loss",
    "gaussian_ll", "gaussian_nll_diag", "gaussian_nll_full", "kl_calibrated_loss", "load_diabetes_matrix",
    "load_uci", "mse",
    "multivariate", "neighbourhood_pseudo_covariance", "run", "sinusoid", "sqrtm_spd", "tac", "tac_residuals",
    "tic_covariance", "uci_protocol", "w2_bound", "w2_bound_loss", "w2_exact_loss",
]
