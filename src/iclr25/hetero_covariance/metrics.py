"""Evaluation: TAC (task-agnostic correlations), Gaussian log-likelihood and MSE of the mean, and the
coverage of the predicted covariance ellipsoids (calibration).

TAC predicts each target from the others with the predicted covariance,
ŷ_i|rest = μ̂_i + Σ̂_{i,−i} Σ̂_{−i,−i}⁻¹ (y_{−i} − μ̂_{−i}), and averages |y_i − ŷ_i|rest| (lower is better).
With the precision P = Σ̂⁻¹ the residual is y_i − ŷ_i|rest = (P r)_i / P_ii, r = y − μ̂ (Schur complement),
which needs one Cholesky factorisation per sample instead of k solves. With one target there is nothing
to condition on, so ŷ|rest = μ̂ and TAC is the mean absolute error of the mean: it says nothing about
the variance, which only the log-likelihood and the coverage judge then.

Coverage: if y ~ N(μ̂, Σ̂), the squared Mahalanobis distance d² = rᵀ Σ̂⁻¹ r is χ²_k, so a share p of
the rows should fall inside the ellipsoid d² ≤ χ²_k(p). More (less) than p inside means Σ̂ is too wide
(narrow)."""

from __future__ import annotations

import math

import numpy as np
import torch

from iclr25.core.errors import UserError


def _as64(*arrays) -> list[torch.Tensor]:
    return [torch.as_tensor(np.array(a, dtype=np.float64)) for a in arrays]  # a copy: inputs may be read-only


def _check(mu, cov, y) -> None:
    if mu.ndim != 2 or y.shape != mu.shape or cov.shape != (*mu.shape, mu.shape[1]):
        raise UserError(f"shapes do not match: mu {tuple(mu.shape)}, cov {tuple(cov.shape)}, "
                        f"y {tuple(y.shape)}; expected (n,k), (n,k,k), (n,k)")


def _cholesky(cov: torch.Tensor) -> torch.Tensor:
    L, info = torch.linalg.cholesky_ex(cov)
    if (info > 0).any():
        raise UserError(f"covariance of sample {int(torch.nonzero(info)[0])} is not positive definite")
    return L


def tac_residuals(mu, cov, y) -> np.ndarray:
    """|y_i − E[y_i | y_−i]| under N(μ̂, Σ̂), shape (n, k); for k = 1, |y − μ̂| (no other target to
    condition on: the absolute error of the mean)."""
    mu, cov, y = _as64(mu, cov, y)
    _check(mu, cov, y)
    L = _cholesky(cov)
    if mu.shape[1] == 1:
        return (y - mu).abs().numpy()
    r = (y - mu).unsqueeze(-1)
    Pr = torch.cholesky_solve(r, L).squeeze(-1)  # P r
    P_diag = torch.diagonal(torch.cholesky_inverse(L), dim1=-2, dim2=-1)
    return (Pr / P_diag).abs().numpy()


def tac(mu, cov, y) -> float:
    """Mean TAC error over samples and targets (lower is better).

    >>> import numpy as np
    >>> cov = np.array([[[1.0, 0.9], [0.9, 1.0]]]); mu = np.zeros((1, 2)); y = np.array([[1.0, 1.0]])
    >>> round(tac(mu, cov, y), 6)   # E[y1 | y2 = 1] = 0.9, so |1 − 0.9| = 0.1 for both targets
    0.1
    >>> tac(np.zeros((2, 1)), np.ones((2, 1, 1)), np.array([[1.0], [-3.0]]))  # k = 1: MAE of the mean
    2.0
    """
    return float(tac_residuals(mu, cov, y).mean())


def tac_explicit(mu, cov, y) -> float:
    """TAC by the textbook conditional-mean formula, one solve per target (slow; used by tests)."""
    mu, cov, y = (np.asarray(a, dtype=np.float64) for a in (mu, cov, y))
    n, k = mu.shape
    errs = np.empty((n, k))
    for i in range(k):
        rest = [j for j in range(k) if j != i]
        for b in range(n):
            S = cov[b]
            cond = mu[b, i] + S[i, rest] @ np.linalg.solve(S[np.ix_(rest, rest)], y[b, rest] - mu[b, rest])
            errs[b, i] = abs(y[b, i] - cond)
    return float(errs.mean())


def gaussian_ll(mu, cov, y) -> float:
    """Mean log-likelihood −½[k ln 2π + ln det Σ̂ + rᵀ Σ̂⁻¹ r] (higher is better)."""
    mu, cov, y = _as64(mu, cov, y)
    _check(mu, cov, y)
    k = mu.shape[1]
    L = _cholesky(cov)
    z = torch.linalg.solve_triangular(L, (y - mu).unsqueeze(-1), upper=False).squeeze(-1)
    logdet = 2.0 * torch.log(torch.diagonal(L, dim1=-2, dim2=-1)).sum(-1)
    return float((-0.5 * (k * math.log(2 * math.pi) + logdet + (z * z).sum(-1))).mean())


def mse(mu, y) -> float:
    """Mean squared error of the mean over samples and targets."""
    mu, y = np.asarray(mu, dtype=np.float64), np.asarray(y, dtype=np.float64)
    return float(((mu - y) ** 2).mean())


COVERAGE_LEVELS = (0.5, 0.9, 0.95)
CALIBRATION_LEVELS = tuple(round(0.05 * i, 2) for i in range(1, 20))  # 0.05, 0.10, ..., 0.95


def mahalanobis_sq(mu, cov, y) -> np.ndarray:
    """d² = (y − μ̂)ᵀ Σ̂⁻¹ (y − μ̂) per row, shape (n,); χ²_k distributed when y ~ N(μ̂, Σ̂)."""
    mu, cov, y = _as64(mu, cov, y)
    _check(mu, cov, y)
    L = _cholesky(cov)
    z = torch.linalg.solve_triangular(L, (y - mu).unsqueeze(-1), upper=False).squeeze(-1)
    return (z * z).sum(-1).numpy()


def coverage(mu, cov, y, levels=COVERAGE_LEVELS) -> dict[float, float]:
    """Share of rows inside the predicted p-ellipsoid {d² ≤ χ²_k(p)} for each nominal level p; a
    calibrated covariance gives about p (more: Σ̂ too wide, less: too narrow).

    >>> import numpy as np
    >>> y = np.random.default_rng(0).normal(size=(20000, 2))
    >>> cov = np.broadcast_to(np.eye(2), (20000, 2, 2))   # the true covariance
    >>> {p: round(s, 2) for p, s in coverage(np.zeros_like(y), cov, y).items()}
    {0.5: 0.5, 0.9: 0.9, 0.95: 0.95}
    """
    from scipy.stats import chi2
    levels = tuple(float(p) for p in levels)
    if not levels or any(not 0.0 < p < 1.0 for p in levels):
        raise UserError(f"coverage levels must lie in (0, 1), got {levels}")
    d2 = mahalanobis_sq(mu, cov, y)
    k = np.shape(mu)[1]
    return {p: float((d2 <= chi2.ppf(p, k)).mean()) for p in levels}


def calibration_error(mu, cov, y, levels=CALIBRATION_LEVELS) -> float:
    """Mean |coverage(p) − p| over nominal levels 0.05, 0.10, ..., 0.95 (0 = calibrated; lower is
    better). Equivalently the distance between the χ²_k CDF of d² and the uniform (PIT) at those levels."""
    cov_at = coverage(mu, cov, y, levels)
    return float(np.mean([abs(s - p) for p, s in cov_at.items()]))


def evaluate(mu, cov, y, levels=COVERAGE_LEVELS) -> dict[str, float | dict[float, float]]:
    """Every score of a predicted (μ̂, Σ̂) on targets y: tac (lower is better; the MAE of the mean for one
    target), ll (higher), mse (lower), coverage per nominal level, calibration_error (lower)."""
    return {"tac": tac(mu, cov, y), "ll": gaussian_ll(mu, cov, y), "mse": mse(mu, y),
            "coverage": coverage(mu, cov, y, levels), "calibration_error": calibration_error(mu, cov, y)}
