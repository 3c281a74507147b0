"""Q̂: an unbiased score for a CATE model on data with a known propensity (Yu & Sun, ICLR 2025, Sec. 3).

Q(τ̂) = E[τ̂(X)² − 2 τ̂(X) τ(X)] = MSE(τ̂) − E[τ(X)²]: the MSE up to a model-free constant, so it ranks
models like the MSE does, the zero model scores exactly 0, and a model with Q̂ ≥ 0 is "degenerate".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iclr25.core.errors import UserError

KINDS = ("ht", "loc", "dr", "rloss")


@dataclass(frozen=True)
class QHat:
    """A Q̂ estimate with its standard error (per-unit terms are i.i.d., so SE = sd / √n)."""

    value: float
    se: float
    n: int
    kind: str

    @property
    def degenerate(self) -> bool:
        """No better than predicting zero effect (paper's definition: Q̂ ≥ 0)."""
        return bool(self.value >= 0)

    def __iter__(self):  # allows `q, se = q_hat(...)`
        return iter((self.value, self.se))


def _as_1d(name: str, a, n: int | None = None) -> np.ndarray:
    arr = np.asarray(a, dtype=float).reshape(-1) if np.ndim(a) else np.asarray(a, dtype=float)
    if arr.ndim == 1 and n is not None and arr.shape[0] != n:
        raise UserError(f"{name} has {arr.shape[0]} values but y has {n}")
    if not np.all(np.isfinite(arr)):
        raise UserError(f"{name} has missing or non-finite values")
    return arr


def validate_trial(y, w, e) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Check an evaluation sample at the door: finite y, binary w, propensity strictly inside (0, 1).

    >>> y, w, e = validate_trial([1.0, 2.0], [0, 1], 0.5)
    >>> e.tolist()
    [0.5, 0.5]
    """
    y = _as_1d("outcome", y)
    n = y.shape[0]
    if n == 0:
        raise UserError("the evaluation sample is empty")
    w = _as_1d("treatment", w, n)
    bad = ~np.isin(w, (0.0, 1.0))
    if bad.any():
        raise UserError(f"treatment must be binary 0/1, got value {w[bad][0]!r}")
    e = _as_1d("propensity", e, n)
    if np.any((e <= 0) | (e >= 1)):
        bad_e = float(e[(e <= 0) | (e >= 1)][0])
        raise UserError(f"propensity must lie strictly inside (0, 1), got {bad_e!r}")
    return y, w, np.broadcast_to(e, (n,)).astype(float)


def pseudo_outcome(y, w, e, kind: str = "ht", mu0=None, mu1=None, m=None) -> np.ndarray:
    """η_i with E[η | X] = τ(X) when e is the true propensity (Lemma 3.1, Props. 3.9-3.11).

    - "ht":  η = Y·W/e − Y·(1−W)/(1−e)                                    (Horvitz–Thompson, Sec. 3.1)
    - "loc": η = (Y − m(X))·(W−e)/(e(1−e))        (location invariance, any fixed baseline m)
    - "dr":  η = μ1−μ0 + W(Y−μ1)/e − (1−W)(Y−μ0)/(1−e)                    (DR / AIPW control variate)
    The R-loss form is not a pseudo-outcome times τ̂; see `q_hat_terms`.

    >>> pseudo_outcome([2.0, 1.0], [1, 0], 0.5).tolist()
    [4.0, -2.0]
    """
    y, w, e = validate_trial(y, w, e)
    n = y.shape[0]
    if kind == "ht":
        return y * w / e - y * (1 - w) / (1 - e)
    if kind == "loc":
        b = np.full(n, y.mean()) if m is None else np.broadcast_to(_as_1d("m", m, n), (n,))
        return (y - b) * (w - e) / (e * (1 - e))
    if kind == "dr":
        if mu0 is None or mu1 is None:
            raise UserError("kind='dr' needs outcome models mu0 and mu1 (predictions on these units)")
        mu0 = np.broadcast_to(_as_1d("mu0", mu0, n), (n,))
        mu1 = np.broadcast_to(_as_1d("mu1", mu1, n), (n,))
        return mu1 - mu0 + w * (y - mu1) / e - (1 - w) * (y - mu0) / (1 - e)
    raise UserError(f"unknown Q̂ kind {kind!r}; choose from {', '.join(KINDS)}")


def q_hat_terms(tau_hat, y, w, e, kind: str = "ht", mu0=None, mu1=None, m=None) -> np.ndarray:
    """The per-unit terms s_i whose mean is Q̂ (so SE = sd(s)/√n).

    For "ht"/"loc"/"dr": s_i = τ̂_i² − 2 τ̂_i η_i  (Eq. for Q̂, Sec. 3.1).
    For "rloss": s_i = τ̂_i²·(W−e)²/(e(1−e)) − 2 τ̂_i (Y−m)(W−e)/(e(1−e)), the 1/(e(1−e))-weighted
    R-loss ((Y−m)−(W−e)τ̂)² without its τ̂-free term; E[(W−e)²/(e(1−e)) | X] = 1 keeps it unbiased.
    """
    y, w, e = validate_trial(y, w, e)
    n = y.shape[0]
    tau = _as_1d("predictions", tau_hat, n)
    tau = np.broadcast_to(tau, (n,))
    if kind == "rloss":
        b = np.full(n, y.mean()) if m is None else np.broadcast_to(_as_1d("m", m, n), (n,))
        v = e * (1 - e)
        return tau**2 * (w - e) ** 2 / v - 2 * tau * (y - b) * (w - e) / v
    eta = pseudo_outcome(y, w, e, kind, mu0=mu0, mu1=mu1, m=m)
    return tau**2 - 2 * tau * eta


def q_hat(tau_hat, y, w, e, kind: str = "ht", mu0=None, mu1=None, m=None) -> QHat:
    """Score CATE predictions τ̂(X_i) on an evaluation sample with known propensity e (lower is better).

    Unbiased for Q(τ̂) = MSE(τ̂) − E[τ²] when τ̂ was fit on other data (Lemma 3.1); the zero model
    scores 0 and Q̂ ≥ 0 means "degenerate". `kind` picks the control variate (Props. 3.9-3.11):
    "ht" (Horvitz–Thompson), "loc" (location-invariant, baseline m), "dr" (AIPW with mu0/mu1),
    "rloss" (weighted R-loss form with baseline m). mu0/mu1/m must not be fit on these units' outcomes
    (cross-fit them), or the estimate is biased.

    >>> r = q_hat([1.0, 1.0], y=[3.0, 1.0], w=[1, 0], e=0.5)   # η = (6, -2): Q̂ = 1 - 2·2
    >>> r.value, r.degenerate
    (-3.0, False)
    """
    s = q_hat_terms(tau_hat, y, w, e, kind, mu0=mu0, mu1=mu1, m=m)
    n = s.shape[0]
    se = float(s.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    return QHat(float(s.mean()), se, n, kind)


def is_degenerate(q: QHat | float, alpha: float | None = None) -> bool:
    """Q̂ ≥ 0 (the paper's definition). With `alpha`, the conservative reading: degenerate unless Q̂ is
    significantly below 0 (one-sided z-test at level alpha).

    >>> is_degenerate(0.2), is_degenerate(QHat(-0.1, 0.2, 100, "ht"), alpha=0.05)
    (True, True)
    """
    if alpha is None:
        return bool(float(q.value if isinstance(q, QHat) else q) >= 0)
    if not isinstance(q, QHat):
        raise UserError("a significance level needs a QHat with its standard error")
    from scipy.stats import norm
    return bool(q.value + norm.ppf(1 - alpha) * q.se >= 0)


def constant_q(c: float, ate: float) -> float:
    """Analytic Q of the constant model τ̂ ≡ c: Q(c) = c² − 2c·ATE, minimised at c = ATE (Q = −ATE²).

    >>> constant_q(2.0, 1.5)
    -2.0
    """
    return c * c - 2.0 * c * ate


@dataclass(frozen=True)
class ConstantComparison:
    """A model against the constant-effect model τ̂ ≡ c on the same units (paired)."""

    q_model: float
    q_constant: float
    diff: float  # q_model − q_constant; > 0 means worse than the constant model
    se_diff: float
    constant: float

    @property
    def worse_than_constant(self) -> bool:
        return bool(self.diff > 0)


def compare_to_constant(tau_hat, y, w, e, c: float | None = None, kind: str = "ht",
                        mu0=None, mu1=None, m=None) -> ConstantComparison:
    """Is the model better than predicting one effect for everyone? Paired Q̂ difference with its SE.

    `c` defaults to the Horvitz–Thompson ATE of the evaluation sample itself (a slight in-sample choice;
    pass an ATE estimated elsewhere for a strictly out-of-sample constant).

    >>> r = compare_to_constant([0.0, 4.0], y=[3.0, 1.0], w=[1, 0], e=0.5, c=2.0)
    >>> round(r.q_model, 3), round(r.q_constant, 3)
    (16.0, -4.0)
    """
    y, w, e = validate_trial(y, w, e)
    if c is None:
        c = float(pseudo_outcome(y, w, e, "ht").mean())
    s_model = q_hat_terms(tau_hat, y, w, e, kind, mu0=mu0, mu1=mu1, m=m)
    s_const = q_hat_terms(np.full(y.shape[0], c), y, w, e, kind, mu0=mu0, mu1=mu1, m=m)
    d = s_model - s_const
    se = float(d.std(ddof=1) / np.sqrt(d.shape[0])) if d.shape[0] > 1 else float("nan")
    return ConstantComparison(float(s_model.mean()), float(s_const.mean()), float(d.mean()), se, float(c))
