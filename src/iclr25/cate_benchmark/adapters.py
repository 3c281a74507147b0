"""Optional adapters: econml's estimators behind our `fit(X, w, y)` / `effect(X)` shape, so they join the
benchmark by name (`econml.cf`, `econml.dr`, `econml.linear_dml`). Needs `pip install econml`."""

from __future__ import annotations

import warnings

import numpy as np

from iclr25.cate_benchmark.learners import BaseConfig, CATELearner, make_classifier, make_regressor
from iclr25.core.errors import UserError

ECONML_MODELS = ("econml.cf", "econml.dr", "econml.linear_dml")


class EconMLLearner(CATELearner):
    """Wraps an econml CATE estimator; nuisances use our boosting base so the comparison is like for like."""

    def __init__(self, kind: str = "econml.cf", cfg: BaseConfig | None = None) -> None:
        super().__init__("gbm", cfg)
        if kind not in ECONML_MODELS:
            raise UserError(f"unknown econml model {kind!r}; choose from {', '.join(ECONML_MODELS)}")
        self.kind = kind
        self.name = kind
        self.orthogonal = True

    def _estimator(self):
        try:
            from econml.dml import CausalForestDML, LinearDML
            from econml.dr import DRLearner
        except ImportError:
            raise UserError("econml adapters need the econml package: pip install econml") from None
        y_model = make_regressor("gbm", self.cfg)
        t_model = make_classifier("gbm", self.cfg)
        common = {"cv": self.cfg.crossfit_folds, "random_state": self.cfg.seed}
        if self.kind == "econml.cf":
            return CausalForestDML(model_y=y_model, model_t=t_model, discrete_treatment=True,
                                   n_estimators=self.cfg.rf_trees * 2, min_samples_leaf=10, **common)
        if self.kind == "econml.dr":
            return DRLearner(model_propensity=t_model, model_regression=y_model,
                             model_final=make_regressor("gbm", self.cfg), **common)
        return LinearDML(model_y=y_model, model_t=t_model, discrete_treatment=True, **common)

    def _fit(self, X, w, y):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.est_ = self._estimator().fit(y, w, X=X)

    def _effect(self, X):
        return np.asarray(self.est_.effect(X), dtype=float).reshape(-1)


def make_econml(name: str, cfg: BaseConfig | None = None) -> EconMLLearner:
    """An econml-backed learner by name, e.g. make_econml('econml.cf')."""
    return EconMLLearner(name, cfg)
