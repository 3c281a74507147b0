"""Concept Activation Vectors from activations and concept labels: the pattern CAV (the paper's method)
and the filter baselines (linear SVM, ridge, lasso, logistic regression) it is compared against.

A filter CAV is the weight vector of a linear model that *separates* concept from non-concept
activations; a pattern CAV is the direction along which activations *change* with the concept
(Haufe et al. 2014's "filters vs patterns"; Pahde et al. 2025, method section).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from iclr25.core.errors import UserError

METHODS = ("pattern", "mean", "fastcav", "svm", "ridge", "lasso", "logistic")
FILTER_METHODS = ("svm", "ridge", "lasso", "logistic")

# Paper defaults (official code's config): hyper-parameter grid 10^-5 ... 10^4, 5-fold CV.
PAPER_GRID = tuple(10.0 ** k for k in range(-5, 5))


@dataclass(frozen=True)
class FilterConfig:
    """How a filter CAV's linear model is fit.

    grid: regularisation values searched by k-fold CV (C for svm/logistic, alpha for ridge/lasso);
    a single value means no search (so does a class with fewer than 2 samples: then the middle
    grid value is used). balance: class-balancing sample weights w_i = 1/n_class,
    scaled to max 1, as in the paper's code.
    """

    grid: tuple[float, ...] = PAPER_GRID
    folds: int = 5
    balance: bool = True
    max_iter: int = 5000
    seed: int = 0


@dataclass(frozen=True)
class CAV:
    """A unit-length concept direction in activation space, with how it was obtained."""

    vector: np.ndarray  # (D,), unit norm, points towards the concept (t = 1)
    method: str
    meta: dict[str, Any] = field(default_factory=dict)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        return self.vector if dtype is None else self.vector.astype(dtype)

    def score(self, acts: np.ndarray) -> np.ndarray:
        """Concept score CAV·a for each row of `acts` (n, D) -> (n,)."""
        return np.asarray(acts, dtype=np.float64) @ self.vector


# ---- input validation ---------------------------------------------------------------------------

def check_acts(acts: Any, name: str = "acts") -> np.ndarray:
    """Activations as a finite float64 (n, D) array; (n,) is read as D = 1."""
    a = np.asarray(acts, dtype=np.float64)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2:
        raise UserError(f"{name} must be a 2-D (n_samples, n_features) array, got shape {a.shape}")
    if a.shape[0] == 0 or a.shape[1] == 0:
        raise UserError(f"{name} is empty (shape {a.shape})")
    if not np.all(np.isfinite(a)):
        bad = int(np.sum(~np.isfinite(a)))
        raise UserError(f"{name} contains {bad} NaN/inf value(s); remove or impute them first")
    return a


def check_labels(labels: Any, n: int, binary: bool = True) -> np.ndarray:
    """Concept labels as float64 (n,); binary labels must be exactly two values (mapped to 0/1)."""
    t = np.asarray(labels)
    if t.ndim != 1:
        t = t.reshape(-1) if t.ndim == 2 and 1 in t.shape else t
    if t.ndim != 1:
        raise UserError(f"labels must be 1-D, got shape {np.asarray(labels).shape}")
    if t.shape[0] != n:
        raise UserError(f"labels has {t.shape[0]} entries but acts has {n} rows; lengths must match")
    try:
        t = t.astype(np.float64)
    except ValueError:
        raise UserError("labels must be numeric (0/1 or a concept strength)") from None
    if not np.all(np.isfinite(t)):
        raise UserError("labels contain NaN/inf values")
    values = np.unique(t)
    if values.size < 2:
        raise UserError(f"labels contain a single class ({values[0]:g}); a CAV needs concept and "
                        "non-concept examples")
    if binary:
        if values.size != 2:
            raise UserError(f"labels must be binary for this method, got {values.size} distinct values")
        t = (t == values[1]).astype(np.float64)  # larger value = concept present
    return t


def _unit(v: np.ndarray, method: str) -> np.ndarray:
    norm = float(np.linalg.norm(v))
    if not np.isfinite(norm) or norm == 0.0:
        raise UserError(f"the {method} CAV is the zero vector (no separating signal found at the chosen "
                        "regularisation); try method='pattern' or a smaller penalty")
    return v / norm


# ---- the pattern CAV (the paper's method) -------------------------------------------------------

def pattern_vector(acts: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Un-normalised pattern h of the generative model a_i = h t_i + b + eps_i.

    Least squares over (h, b) gives h = Cov[a, t] / Var[t] (the paper's pattern CAV); for 0/1 labels this
    is exactly mu_1 - mu_0, the difference of class means.
    """
    tc = t - t.mean()
    return (acts - acts.mean(axis=0)).T @ tc / (tc @ tc)  # (D,)


# ---- the filter baselines -----------------------------------------------------------------------

def balancing_weights(t: np.ndarray) -> np.ndarray:
    """w_i = 1 / n_{class(i)}, scaled so the largest weight is 1 (the paper's class balancing)."""
    n1 = t.sum()
    w = np.where(t == 1, 1.0 / n1, 1.0 / (t.size - n1))
    return w / w.max()


def _estimator(method: str, value: float, cfg: FilterConfig):
    from sklearn.linear_model import Lasso, LogisticRegression, Ridge
    from sklearn.svm import LinearSVC
    if method == "svm":
        return LinearSVC(C=value, max_iter=cfg.max_iter, random_state=cfg.seed)
    if method == "logistic":
        return LogisticRegression(C=value, max_iter=cfg.max_iter)
    if method == "ridge":
        return Ridge(alpha=value)
    if method == "lasso":
        return Lasso(alpha=value, max_iter=cfg.max_iter)
    raise UserError(f"unknown filter method {method!r}; choose from {', '.join(FILTER_METHODS)}")


def filter_vector(acts: np.ndarray, t: np.ndarray, method: str,
                  cfg: FilterConfig = FilterConfig()) -> tuple[np.ndarray, dict[str, Any]]:
    """Weight vector w of a linear model separating t = 1 from t = 0 (un-normalised) and the chosen
    regularisation. Regressors (ridge, lasso) are fit to targets 2t - 1; classifiers to t."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    y = 2 * t - 1 if method in ("ridge", "lasso") else t.astype(int)
    w = balancing_weights(t) if cfg.balance else np.ones_like(t)
    key = "alpha" if method in ("ridge", "lasso") else "C"
    n_min = int(min(t.sum(), t.size - t.sum()))
    folds = min(cfg.folds, n_min)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if len(cfg.grid) == 1 or folds < 2:
            best = cfg.grid[len(cfg.grid) // 2] if len(cfg.grid) > 1 else cfg.grid[0]
            model = _estimator(method, best, cfg).fit(acts, y, sample_weight=w)
        else:
            cv = StratifiedKFold(folds, shuffle=True, random_state=cfg.seed)
            search = GridSearchCV(_estimator(method, cfg.grid[0], cfg), {key: list(cfg.grid)}, cv=cv,
                                  n_jobs=None)
            search.fit(acts, y, sample_weight=w)
            model, best = search.best_estimator_, search.best_params_[key]
            if not np.any(model.coef_):  # e.g. lasso: all-zero wins CV when the signal is weak;
                for i in np.argsort(search.cv_results_["rank_test_score"], kind="stable"):  # next best
                    best = search.cv_results_["params"][i][key]
                    model = _estimator(method, best, cfg).fit(acts, y, sample_weight=w)
                    if np.any(model.coef_):
                        break
    return np.ravel(model.coef_).astype(np.float64), {key: float(best)}


# ---- one entry point ----------------------------------------------------------------------------

def compute_cav(acts: Any, labels: Any, method: str = "pattern",
                config: FilterConfig = FilterConfig()) -> CAV:
    """A unit-norm CAV from activations (n, D) and concept labels (n,).

    method: "pattern" (Cov[a, t] / Var[t], the paper's CAV; labels may be binary or a continuous
    concept strength), "mean" (mu_1 - mu_0; equals pattern for binary labels), "fastcav"
    (mu_1 - mu_all, FastCAV), or a filter baseline "svm" | "ridge" | "lasso" | "logistic".

    >>> import numpy as np
    >>> a = np.array([[0., 0.], [0., 1.], [2., 0.], [2., 1.]]); t = np.array([0, 0, 1, 1])
    >>> compute_cav(a, t).vector
    array([1., 0.])
    """
    if method not in METHODS:
        raise UserError(f"unknown CAV method {method!r}; choose from {', '.join(METHODS)}")
    a = check_acts(acts)
    t = check_labels(labels, a.shape[0], binary=method != "pattern")
    meta: dict[str, Any] = {"n": int(a.shape[0]), "dim": int(a.shape[1])}
    scale = float(np.max(np.abs(a)))
    if scale > 1e6 or 0 < scale < 1e-6:
        # at magnitudes like 1e+-300 covariances overflow and liblinear crawls for minutes; one global
        # factor changes no pattern/mean direction, and the filters' CV grid absorbs it
        a = a / scale
        meta["rescaled_by"] = scale
    if method == "pattern":
        v = pattern_vector(a, t)
    elif method == "mean":
        v = a[t == 1].mean(0) - a[t == 0].mean(0)
    elif method == "fastcav":
        v = a[t == 1].mean(0) - a.mean(0)
    else:
        v, chosen = filter_vector(a, t, method, config)
        meta.update(chosen)
    return CAV(_unit(v, method), method, meta)


class CAVEstimator:
    """scikit-learn-style wrapper: `CAVEstimator("pattern").fit(acts, labels).cav_`.

    >>> import numpy as np
    >>> est = CAVEstimator().fit(np.array([[0.], [1.], [3.], [4.]]), np.array([0, 0, 1, 1]))
    >>> est.cav_.tolist(), est.score(np.array([[0.], [4.]]), np.array([0, 1]))
    ([1.0], 1.0)
    """

    def __init__(self, method: str = "pattern", config: FilterConfig = FilterConfig()):
        self.method = method
        self.config = config

    def fit(self, acts: Any, labels: Any) -> CAVEstimator:
        self.result_ = compute_cav(acts, labels, self.method, self.config)
        self.cav_ = self.result_.vector
        return self

    def transform(self, acts: Any) -> np.ndarray:
        """Concept scores CAV·a."""
        return check_acts(acts) @ self.cav_

    def score(self, acts: Any, labels: Any) -> float:
        """Concept-detection ROC-AUC of the scores CAV·a."""
        from iclr25.pattern_cav.metrics import concept_auc
        return concept_auc(self.cav_, acts, labels)
