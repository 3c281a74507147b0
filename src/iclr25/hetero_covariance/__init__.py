"""Heteroscedastic covariance estimation (ToSS, ICLR 2025): the 2-Wasserstein bound with neighbourhood
pseudo-labels, its baselines (NLL, β-NLL, Faithful, exact W₂, TIC), TAC evaluation, and a
scikit-learn-style `HeteroscedasticRegressor`."""

from iclr25.core.lazy import lazy_package

__getattr__, __dir__, __all__ = lazy_package(__name__, {
    "data": ["Dataset", "load_diabetes_matrix", "load_uci", "multivariate", "sinusoid", "uci_protocol"],
    "estimator": ["LOSSES", "HeteroscedasticRegressor"],
    "claims": ["CLAIMS"],
    "experiments": ["run"],
    "linalg": ["sqrtm_spd"],
    "losses": ["beta_nll", "exact_w2", "faithful_loss", "gaussian_nll_diag", "gaussian_nll_full",
        "kl_calibrated_loss", "w2_bound", "w2_bound_loss", "w2_exact_loss"],
    "metrics": ["calibration_error", "coverage", "evaluate", "gaussian_ll", "mahalanobis_sq", "mse", "tac",
        "tac_residuals"],
    "model": ["CovarianceHead", "HeteroscedasticNet", "MeanHead", "NetConfig", "ResidualMLP"],
    "pseudo_labels": ["PseudoLabelConfig", "neighbourhood_pseudo_covariance"],
    "tic": ["tic_covariance"],
})
