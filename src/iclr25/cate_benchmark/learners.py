"""CATE learners with a scikit-learn shape: `fit(X, w, y)` then `effect(X)` -> τ̂(X).

The paper's roster (Sec. 4.1, names like `s.xgb.cv`, `dml.lasso`): S/T/X/R/DR meta-learners over a linear
(lasso) and a gradient-boosting (early-stopped on a validation split) base, DML with linear / lasso / GBM
nuisances, a forest final stage, constant-effect models and the zero model: 16 in all.
Every learner estimates its own nuisances (propensity included) from the training data only.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from sklearn.ensemble import (
    GradientBoostingRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestRegressor,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LassoCV, LinearRegression, LogisticRegression
from sklearn.model_selection import KFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from iclr25.core.errors import UserError


@dataclass(frozen=True)
class BaseConfig:
    """Base-learner settings (our choices; the paper's appendix grid was not accessible)."""

    lasso_cv: int = 3  # folds of LassoCV's penalty path
    gbm_max_iter: int = 100  # boosting rounds, early-stopped on a 20% validation split ("cv")
    gbm_learning_rate: float = 0.1
    gbm_max_leaf_nodes: int = 15
    gbm_min_samples_leaf: int = 20
    rf_trees: int = 50
    crossfit_folds: int = 2  # cross-fitting folds of R / DR / DML nuisances
    clip: float = 0.02  # propensity clipping for the orthogonal learners
    seed: int = 0


# "hgb_tuned": histogram boosting in XGBoost's parameterisation (depth-wise trees, L2 penalty 1 as XGBoost's
# lambda, XGBoost's default depth 6 and learning rate 0.3 in the grid), the depth and learning rate chosen
# by 3-fold cross-validation as the paper's ".xgb.cv" rows do. It is scikit-learn, not XGBoost: the
# `xgboost` wheel pulls a 300 MB GPU dependency on Linux, which a CPU benchmark does not need.
TUNED_GRID = {"max_depth": (3, 6), "learning_rate": (0.1, 0.3)}
TUNED_CV = 3


def make_regressor(base: str, cfg: BaseConfig):
    """A fresh regressor for base 'lasso', 'linear', 'gbm', 'gbm_weighted', 'hgb_tuned' or 'rf'."""
    if base == "lasso":
        return make_pipeline(StandardScaler(), LassoCV(cv=cfg.lasso_cv, alphas=30, max_iter=2000,
                                                       random_state=cfg.seed))
    if base == "linear":
        return make_pipeline(StandardScaler(), LinearRegression())
    if base == "gbm":
        return HistGradientBoostingRegressor(
            max_iter=cfg.gbm_max_iter, learning_rate=cfg.gbm_learning_rate,
            max_leaf_nodes=cfg.gbm_max_leaf_nodes, min_samples_leaf=cfg.gbm_min_samples_leaf,
            early_stopping=True, validation_fraction=0.2, n_iter_no_change=10, random_state=cfg.seed)
    if base == "gbm_weighted":  # HGB's weighted binning was measured ~20x slower; classic GB is not
        return GradientBoostingRegressor(
            n_estimators=cfg.gbm_max_iter, learning_rate=cfg.gbm_learning_rate, max_depth=3,
            min_samples_leaf=cfg.gbm_min_samples_leaf, subsample=0.8, validation_fraction=0.2,
            n_iter_no_change=10, random_state=cfg.seed)
    if base == "hgb_tuned":
        from sklearn.model_selection import GridSearchCV
        hgb = HistGradientBoostingRegressor(
            max_iter=300, max_leaf_nodes=None, min_samples_leaf=5, l2_regularization=1.0, early_stopping=True,
            validation_fraction=0.2, n_iter_no_change=10, random_state=cfg.seed)
        return GridSearchCV(hgb, TUNED_GRID, cv=KFold(TUNED_CV, shuffle=True, random_state=cfg.seed),
                            scoring="neg_mean_squared_error", n_jobs=1)
    if base == "rf":
        return RandomForestRegressor(n_estimators=cfg.rf_trees, min_samples_leaf=20, max_features=0.5,
                                     n_jobs=1, random_state=cfg.seed)
    raise UserError(f"unknown base learner {base!r}")


def make_classifier(base: str, cfg: BaseConfig):
    """A propensity model matching the base family: logistic for linear ones, boosting for the boosted."""
    if base in ("gbm", "hgb_tuned"):
        return HistGradientBoostingClassifier(
            max_iter=cfg.gbm_max_iter, learning_rate=cfg.gbm_learning_rate,
            max_leaf_nodes=cfg.gbm_max_leaf_nodes, min_samples_leaf=cfg.gbm_min_samples_leaf,
            early_stopping=True, validation_fraction=0.2, n_iter_no_change=10, random_state=cfg.seed)
    return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=500))


def _fit_weighted(model, X, y, sample_weight):
    if hasattr(model, "steps"):  # pipeline: route the weights to the final step
        return model.fit(X, y, **{f"{model.steps[-1][0]}__sample_weight": sample_weight})
    return model.fit(X, y, sample_weight=sample_weight)


def _propensity(model, X) -> np.ndarray:
    return model.predict_proba(X)[:, 1]


def _check_fit_input(X, w, y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise UserError(f"X must be 2-D (n, d), got shape {X.shape}")
    w = np.asarray(w, dtype=float).reshape(-1)
    y = np.asarray(y, dtype=float).reshape(-1)
    if not (X.shape[0] == w.shape[0] == y.shape[0]):
        raise UserError(f"X, w, y lengths differ: {X.shape[0]}, {w.shape[0]}, {y.shape[0]}")
    if not (np.isfinite(X).all() and np.isfinite(w).all() and np.isfinite(y).all()):
        raise UserError("X, w and y must not contain missing or non-finite values")
    if not np.isin(w, (0.0, 1.0)).all():
        raise UserError("treatment must be binary 0/1")
    if w.min() == w.max():
        raise UserError("treatment has a single arm; a CATE learner needs treated and control units")
    return X, w.astype(int), y


class CATELearner:
    """Base class: `fit(X, w, y)` returns self; `effect(X)` returns τ̂(X) of shape (n,)."""

    name: str = "cate"
    orthogonal: bool = False  # R / DR / DML family (Neyman-orthogonal losses)
    constant: bool = False  # predicts one effect for every unit

    def __init__(self, base: str = "lasso", cfg: BaseConfig | None = None) -> None:
        self.base = base
        self.cfg = cfg or BaseConfig()

    def fit(self, X, w, y) -> CATELearner:
        X, w, y = _check_fit_input(X, w, y)
        self.n_features_in_ = X.shape[1]
        with warnings.catch_warnings():  # lasso paths on heavy-tailed pseudo-outcomes warn but are usable
            warnings.simplefilter("ignore", ConvergenceWarning)
            self._fit(X, w, y)
        return self

    def effect(self, X) -> np.ndarray:
        if not hasattr(self, "n_features_in_"):
            raise RuntimeError(f"{self.name}: call fit before effect")
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[1] != self.n_features_in_:
            raise UserError(f"{self.name}: X must have {self.n_features_in_} columns, got shape {X.shape}")
        return np.asarray(self._effect(X), dtype=float).reshape(-1)

    def _reg(self):
        return make_regressor(self.base, self.cfg)

    def _clf(self):
        return make_classifier(self.base, self.cfg)

    def _fit(self, X, w, y) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _effect(self, X) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base={self.base!r})"


class SLearner(CATELearner):
    """One model μ(x, w); τ̂ = μ(x, 1) − μ(x, 0). The linear base gets w·x interactions."""

    def _design(self, X, w):
        w = np.broadcast_to(np.asarray(w, dtype=float), (X.shape[0],))[:, None]
        parts = [X, w] + ([w * X] if self.base in ("lasso", "linear") else [])
        return np.hstack(parts)

    def _fit(self, X, w, y):
        self.mu_ = self._reg().fit(self._design(X, w), y)

    def _effect(self, X):
        return self.mu_.predict(self._design(X, 1.0)) - self.mu_.predict(self._design(X, 0.0))


class TLearner(CATELearner):
    """Separate outcome models per arm; τ̂ = μ1(x) − μ0(x)."""

    def _fit(self, X, w, y):
        self.mu0_ = self._reg().fit(X[w == 0], y[w == 0])
        self.mu1_ = self._reg().fit(X[w == 1], y[w == 1])

    def _effect(self, X):
        return self.mu1_.predict(X) - self.mu0_.predict(X)


class XLearner(CATELearner):
    """Künzel et al.: impute individual effects with the other arm's model, regress them, blend by ê."""

    def _fit(self, X, w, y):
        t, c = w == 1, w == 0
        mu0 = self._reg().fit(X[c], y[c])
        mu1 = self._reg().fit(X[t], y[t])
        self.tau1_ = self._reg().fit(X[t], y[t] - mu0.predict(X[t]))
        self.tau0_ = self._reg().fit(X[c], mu1.predict(X[c]) - y[c])
        self.e_ = self._clf().fit(X, w)

    def _effect(self, X):
        e = np.clip(_propensity(self.e_, X), self.cfg.clip, 1 - self.cfg.clip)
        return e * self.tau0_.predict(X) + (1 - e) * self.tau1_.predict(X)


def crossfit_nuisances(X, w, y, reg: Callable, clf: Callable, folds: int, seed: int,
                       arms: bool = False) -> dict[str, np.ndarray]:
    """Out-of-fold m̂(x) = E[Y|x], ê(x) (and μ̂0, μ̂1 if `arms`): each unit predicted by models fit
    without it, as orthogonal learners require."""
    n = X.shape[0]
    out = {"m": np.zeros(n), "e": np.zeros(n)}
    if arms:
        out.update(mu0=np.zeros(n), mu1=np.zeros(n))
    for tr, te in KFold(folds, shuffle=True, random_state=seed).split(X):
        Xtr, wtr, ytr = X[tr], w[tr], y[tr]
        if wtr.min() == wtr.max():
            raise UserError("a cross-fitting fold has a single treatment arm; use more data")
        out["e"][te] = _propensity(clf().fit(Xtr, wtr), X[te])
        if arms:
            out["mu0"][te] = reg().fit(Xtr[wtr == 0], ytr[wtr == 0]).predict(X[te])
            out["mu1"][te] = reg().fit(Xtr[wtr == 1], ytr[wtr == 1]).predict(X[te])
        else:
            out["m"][te] = reg().fit(Xtr, ytr).predict(X[te])
    return out


def eval_outcome_models(X, w, y, folds: int = 2, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Cross-fitted lasso μ̂0, μ̂1 on an evaluation set (each unit predicted without its own outcome),
    for the DR control variate of Q̂; any such μ̂ keeps Q̂-DR unbiased when e is known."""
    X, w, y = _check_fit_input(X, w, y)
    cfg = BaseConfig(seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        nu = crossfit_nuisances(X, w, y, lambda: make_regressor("lasso", cfg),
                                lambda: make_classifier("lasso", cfg), folds, seed, arms=True)
    return nu["mu0"], nu["mu1"]


class RLearner(CATELearner):
    """Nie & Wager: minimise Σ((Y−m̂) − (W−ê)τ(x))², i.e. regress (Y−m̂)/(W−ê) with weights (W−ê)²."""

    orthogonal = True

    def _fit(self, X, w, y):
        nu = crossfit_nuisances(X, w, y, self._reg, self._clf, self.cfg.crossfit_folds, self.cfg.seed)
        e = np.clip(nu["e"], self.cfg.clip, 1 - self.cfg.clip)
        r = w - e
        boosted = self.base in ("gbm", "hgb_tuned")  # weighted histogram binning is ~20x slower
        final = make_regressor("gbm_weighted" if boosted else self.base, self.cfg)
        self.tau_ = _fit_weighted(final, X, (y - nu["m"]) / r, sample_weight=r**2)

    def _effect(self, X):
        return self.tau_.predict(X)


class DRLearner(CATELearner):
    """Kennedy: regress the AIPW pseudo-outcome μ1−μ0 + W(Y−μ1)/ê − (1−W)(Y−μ0)/(1−ê) on x.
    `final` picks the second-stage model (default: same family as the nuisances)."""

    orthogonal = True

    def __init__(self, base: str = "lasso", cfg: BaseConfig | None = None, final: str | None = None):
        super().__init__(base, cfg)
        self.final = final or base

    def _fit(self, X, w, y):
        nu = crossfit_nuisances(X, w, y, self._reg, self._clf, self.cfg.crossfit_folds, self.cfg.seed,
                                arms=True)
        e = np.clip(nu["e"], self.cfg.clip, 1 - self.cfg.clip)
        phi = nu["mu1"] - nu["mu0"] + w * (y - nu["mu1"]) / e - (1 - w) * (y - nu["mu0"]) / (1 - e)
        self.tau_ = make_regressor(self.final, self.cfg).fit(X, phi)

    def _effect(self, X):
        return self.tau_.predict(X)


class DMLLearner(CATELearner):
    """Double ML (Chernozhukov et al.): residualise Y and W on x by cross-fitting, then regress Ỹ on
    W̃·[1, x] (a linear CATE) or on W̃ alone (`constant_effect`, the partially linear model's θ)."""

    orthogonal = True

    def __init__(self, base: str = "lasso", cfg: BaseConfig | None = None, constant_effect: bool = False):
        super().__init__(base, cfg)
        self.constant = constant_effect

    def _fit(self, X, w, y):
        nu = crossfit_nuisances(X, w, y, self._reg, self._clf, self.cfg.crossfit_folds, self.cfg.seed)
        wt = w - np.clip(nu["e"], self.cfg.clip, 1 - self.cfg.clip)
        yt = y - nu["m"]
        if self.constant:
            self.theta_ = np.array([float(wt @ yt / (wt @ wt))])
            return
        self.mean_, sd = X.mean(axis=0), X.std(axis=0)
        self.sd_ = np.where(sd > 0, sd, 1.0)
        Z = self._features(X)
        A = Z * wt[:, None]
        # ridge-stabilised least squares: Ỹ ≈ (W̃·Z) θ
        self.theta_ = np.linalg.solve(A.T @ A + 1e-3 * np.eye(Z.shape[1]), A.T @ yt)

    def _features(self, X):
        return np.hstack([np.ones((X.shape[0], 1)), (X - self.mean_) / self.sd_])

    def _effect(self, X):
        if self.constant:
            return np.full(X.shape[0], self.theta_[0])
        return self._features(X) @ self.theta_


class ConstantATE(CATELearner):
    """One effect for everyone: the Hájek IPW ATE with a logistic propensity fit on the training set."""

    constant = True

    def _fit(self, X, w, y):
        e = np.clip(_propensity(self._clf().fit(X, w), X), self.cfg.clip, 1 - self.cfg.clip)
        a1, a0 = w / e, (1 - w) / (1 - e)
        self.ate_ = float((a1 * y).sum() / a1.sum() - (a0 * y).sum() / a0.sum())

    def _effect(self, X):
        return np.full(X.shape[0], self.ate_)


class ZeroModel(CATELearner):
    """τ̂ ≡ 0: Q = 0 exactly, the reference that defines "degenerate"."""

    constant = True

    def _fit(self, X, w, y):
        pass

    def _effect(self, X):
        return np.zeros(X.shape[0])


@dataclass(frozen=True)
class LearnerSpec:
    name: str
    factory: Callable[[BaseConfig], CATELearner]
    family: str  # s | t | x | r | dr | dml | const | zero
    orthogonal: bool = False
    constant: bool = False
    fast: bool = False  # no boosting or forest: used where time is short


def _spec(name, factory, family, orthogonal=False, constant=False, fast=False) -> LearnerSpec:
    return LearnerSpec(name, factory, family, orthogonal, constant, fast)


LEARNERS: dict[str, LearnerSpec] = {s.name: s for s in [
    _spec("s.lasso", lambda c: SLearner("lasso", c), "s", fast=True),
    _spec("s.gbm.cv", lambda c: SLearner("gbm", c), "s"),
    _spec("t.lasso", lambda c: TLearner("lasso", c), "t", fast=True),
    _spec("t.gbm.cv", lambda c: TLearner("gbm", c), "t"),
    _spec("x.lasso", lambda c: XLearner("lasso", c), "x", fast=True),
    _spec("x.gbm.cv", lambda c: XLearner("gbm", c), "x"),
    _spec("r.lasso", lambda c: RLearner("lasso", c), "r", orthogonal=True, fast=True),
    _spec("r.gbm.cv", lambda c: RLearner("gbm", c), "r", orthogonal=True),
    _spec("dr.lasso", lambda c: DRLearner("lasso", c), "dr", orthogonal=True, fast=True),
    _spec("dr.gbm.cv", lambda c: DRLearner("gbm", c), "dr", orthogonal=True),
    # forest final stage: our stand-in for the paper's causal forest (econml's is an optional adapter)
    _spec("dr.rf", lambda c: DRLearner("lasso", c, final="rf"), "dr", orthogonal=True),
    _spec("dml.linear", lambda c: DMLLearner("linear", c), "dml", orthogonal=True, fast=True),
    _spec("dml.lasso", lambda c: DMLLearner("lasso", c, constant_effect=True), "dml", orthogonal=True,
          constant=True, fast=True),
    _spec("dml.gbm", lambda c: DMLLearner("gbm", c), "dml", orthogonal=True),
    _spec("const.ipw", lambda c: ConstantATE("linear", c), "const", constant=True, fast=True),
    _spec("zero", lambda c: ZeroModel("linear", c), "zero", constant=True, fast=True),
]}

CONSTANT_BASELINE = "dml.lasso"  # the paper's constant-effect model τ̂_B (Sec. 4.2)

# Beside the roster (not in "all", which stays the reproduction's 16): boosting tuned by cross-validation,
# to compare with the paper's ".xgb.cv" rows (see TUNED_GRID). `--learners tuned` selects them.
TUNED_LEARNERS: dict[str, LearnerSpec] = {s.name: s for s in [
    _spec("s.hgb.tuned", lambda c: SLearner("hgb_tuned", c), "s"),
    _spec("t.hgb.tuned", lambda c: TLearner("hgb_tuned", c), "t"),
    _spec("x.hgb.tuned", lambda c: XLearner("hgb_tuned", c), "x"),
    _spec("r.hgb.tuned", lambda c: RLearner("hgb_tuned", c), "r", orthogonal=True),
    _spec("dr.hgb.tuned", lambda c: DRLearner("hgb_tuned", c), "dr", orthogonal=True),
    _spec("dml.hgb.tuned", lambda c: DMLLearner("hgb_tuned", c), "dml", orthogonal=True),
]}
ALL_LEARNERS: dict[str, LearnerSpec] = {**LEARNERS, **TUNED_LEARNERS}


def learner_names(selection: str | list[str] = "all") -> list[str]:
    """Resolve 'all' (the paper's 16), 'fast', 'tuned' (boosting tuned by CV) or a comma list / list of
    names to learner names (validated)."""
    groups = {"all": list(LEARNERS), "fast": [k for k, s in LEARNERS.items() if s.fast],
              "tuned": list(TUNED_LEARNERS)}
    if isinstance(selection, str):
        if selection in groups:
            return groups[selection]
        selection = [s.strip() for s in selection.split(",") if s.strip()]
    selection = list(dict.fromkeys(n for s in selection for n in groups.get(s, [s])))  # "fast,tuned"
    for name in selection:
        if name not in ALL_LEARNERS and not name.startswith("econml."):
            raise UserError(f"unknown learner {name[:60]!r}; choose from {', '.join(ALL_LEARNERS)} "
                            "(or 'all', 'fast', 'tuned')")
    if not selection:
        raise UserError("no learners selected")
    return list(selection)


def make_learner(name: str, cfg: BaseConfig | None = None) -> CATELearner:
    """A fresh learner by roster name, e.g. make_learner('t.lasso').

    >>> rng = np.random.default_rng(0); X = rng.normal(size=(400, 2)); w = rng.integers(0, 2, 400)
    >>> y = X[:, 0] + w * (1 + X[:, 1]) + rng.normal(size=400)
    >>> tau = make_learner("t.lasso").fit(X, w, y).effect(X)
    >>> bool(np.corrcoef(tau, 1 + X[:, 1])[0, 1] > 0.9)
    True
    """
    cfg = cfg or BaseConfig()
    if name.startswith("econml."):
        from iclr25.cate_benchmark.adapters import make_econml
        return make_econml(name, cfg)
    if name not in ALL_LEARNERS:
        raise UserError(f"unknown learner {name[:60]!r}; choose from {', '.join(ALL_LEARNERS)}")
    model = ALL_LEARNERS[name].factory(cfg)
    model.name = name
    return model
