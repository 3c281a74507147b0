"""Evaluation: TAC (task-agnostic correlations), Gaussian log-likelihood and MSE of the mean.

TAC predicts each target from the others with the predicted covariance,
ŷ_i|rest = μ̂_i + Σ̂_{i,−i} Σ̂_{−i,−i}⁻¹ (y_{−i} − μ̂_{−i}), and averages |y_i − ŷ_i|rest| (lower is better).
With the precision P = Σ̂⁻¹ the residual is y_i − ŷ_i|rest = (P r)_i / P_ii, r = y − μ̂ (Schur complement),
which needs one Cholesky factorisation per sample instead of k solves."""

from __future__ import annotations

import math

import numpy as np
import torch

from iclr25.core.errors import UserError


def _as64(*arrays) -> list[torch.Tensor]:
    return [torch.as_tensor(np.asarray(a), dtype=torch.float64) for a in arrays]


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
    """|y_i − E[y_i | y_−i]| under N(μ̂, Σ̂), shape (n, k)."""
    mu, cov, y = _as64(mu, cov, y)
    _check(mu, cov, y)
    if mu.shape[1] < 2:
        raise UserError(f"TAC needs at least 2 target columns (it predicts each from the others), "
                        f"got {mu.shape[1]}")
    L = _cholesky(cov)
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
