"""`RoCA`: the detector with scikit-learn's shape (parameters in __init__, `fit(X, y)`, learned state in
attributes ending in `_`), so it drops into pipelines, `clone` and grid searches."""

from __future__ import annotations

from collections.abc import Sequence

from sklearn.base import BaseEstimator

from iclr25.causal_direction.pseudo_labels import Clusterer, Embed
from iclr25.causal_direction.roca import DEFAULT_THRESHOLD, DirectionResult, detect_direction


class RoCA(BaseEstimator):
    """Causal or anticausal? Fit on features and noisy labels; read `direction_`.

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> y = rng.integers(0, 2, 400)
    >>> X = rng.normal(size=(400, 3)) + 4 * y[:, None]
    >>> est = RoCA(reps=2).fit(X, y)
    >>> est.direction_, est.normalized_slope_ > 0.9
    ('anticausal', True)
    """

    def __init__(self, embed: Embed = None, clusterer: Clusterer = "kmeans",
                 noise_rates: Sequence[float] = (0.0, 0.1, 0.2, 0.3, 0.4), noise: str = "idn", reps: int = 3,
                 decision: str = "effect", threshold: float = DEFAULT_THRESHOLD, alpha: float = 0.05,
                 n_init: int = 10,
                 random_state: int = 0, n_classes: int | None = None) -> None:
        self.embed = embed
        self.clusterer = clusterer
        self.noise_rates = noise_rates
        self.noise = noise
        self.reps = reps
        self.decision = decision
        self.threshold = threshold
        self.alpha = alpha
        self.n_init = n_init
        self.random_state = random_state
        self.n_classes = n_classes

    def fit(self, X, y) -> RoCA:
        r = detect_direction(X, y, **self.get_params())
        self.result_: DirectionResult = r
        self.direction_ = r.direction
        self.normalized_slope_ = r.normalized_slope
        self.p_value_ = r.p_value
        self.slope_ = r.slope
        self.curve_ = r.curve
        self.pseudo_labels_ = r.pseudo_labels
        self.n_classes_ = r.n_classes
        return self

    def plot(self, path=None, ax=None):
        """The disagreement curve (see `plot_curve`)."""
        from iclr25.causal_direction.plots import plot_curve

        return plot_curve(self.result_, path=path, ax=ax)
