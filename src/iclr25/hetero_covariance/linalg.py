"""Matrix square roots of SPD matrices with a gradient that stays finite at repeated eigenvalues,
and small helpers (symmetrise, SPD check, random SPD) shared by the losses and metrics."""

from __future__ import annotations

import torch


def symmetrize(a: torch.Tensor) -> torch.Tensor:
    """(A + Aᵀ)/2 over the last two dims."""
    return 0.5 * (a + a.transpose(-1, -2))


class _SymSqrt(torch.autograd.Function):
    """X = A^½ for SPD A by eigh. Backward solves the Sylvester equation X dX + dX X = dA in the
    eigenbasis: (Uᵀ dA U)_ij = (√λ_i + √λ_j) (Uᵀ dX U)_ij. The denominator √λ_i + √λ_j > 0 even when
    λ_i = λ_j, unlike the generic eigh backward which divides by λ_i − λ_j."""

    @staticmethod
    def forward(ctx, a: torch.Tensor, floor: float) -> torch.Tensor:  # type: ignore[override]
        lam, u = torch.linalg.eigh(symmetrize(a))
        s = lam.clamp_min(floor).sqrt()
        ctx.save_for_backward(s, u)
        return (u * s.unsqueeze(-2)) @ u.transpose(-1, -2)

    @staticmethod
    def backward(ctx, g: torch.Tensor):  # type: ignore[override]
        s, u = ctx.saved_tensors
        ut_g_u = u.transpose(-1, -2) @ symmetrize(g) @ u
        denom = s.unsqueeze(-1) + s.unsqueeze(-2)  # (…, k, k): √λ_i + √λ_j
        return u @ (ut_g_u / denom) @ u.transpose(-1, -2), None


def sqrtm_spd(a: torch.Tensor, floor: float = 0.0) -> torch.Tensor:
    """Symmetric square root of a batch of SPD matrices, differentiable.

    Eigenvalues are clamped at `floor` (use a small positive floor when A may be singular).

    >>> import torch
    >>> sqrtm_spd(torch.diag(torch.tensor([4.0, 9.0])))
    tensor([[2., 0.],
            [0., 3.]])
    """
    return _SymSqrt.apply(a, floor)


def is_spd(a: torch.Tensor, tol: float = 0.0) -> bool:
    """True iff every matrix in the batch is symmetric (to 1e-6 relative) with eigenvalues > tol."""
    sym = torch.allclose(a, a.transpose(-1, -2), rtol=1e-6, atol=1e-8)
    return bool(sym and (torch.linalg.eigvalsh(symmetrize(a)) > tol).all())


def random_spd(n: int, k: int, generator: torch.Generator | None = None,
               dtype: torch.dtype = torch.float64, ridge: float = 1e-2) -> torch.Tensor:
    """`n` random SPD k×k matrices, Wishart-like: B Bᵀ / k + ridge·I with B standard normal."""
    b = torch.randn(n, k, k, generator=generator, dtype=dtype)
    return b @ b.transpose(-1, -2) / k + ridge * torch.eye(k, dtype=dtype)


def tril_from_vector(v: torch.Tensor, k: int, diag_eps: float = 1e-4) -> torch.Tensor:
    """Lower-triangular L (…, k, k) from k(k+1)/2 numbers; the diagonal goes through softplus so L has
    a positive diagonal (a valid Cholesky factor)."""
    rows, cols = torch.tril_indices(k, k, device=v.device)
    L = v.new_zeros(*v.shape[:-1], k, k)
    L[..., rows, cols] = v
    d = torch.nn.functional.softplus(torch.diagonal(L, dim1=-2, dim2=-1)) + diag_eps
    return torch.tril(L, diagonal=-1) + torch.diag_embed(d)
