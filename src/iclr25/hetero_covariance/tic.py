"""TIC, the Taylor Induced Covariance baseline (Shukla et al., ICML 2024) that ToSS compares against:
Σ = ε₁ J Jᵀ + ε₂ ½ [tr(H_i H_j)]_ij + L Lᵀ + εI, with J = ∂μ̂/∂x and H_i = ∂²μ̂_i/∂x² per sample.
It is trained with the NLL; its cost is the per-sample Jacobian and Hessian at every step."""

from __future__ import annotations

import torch
from torch.func import jvp, vjp, vmap

from iclr25.hetero_covariance.model import HeteroscedasticNet


def tic_covariance(net: HeteroscedasticNet, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(μ̂ (B,k), Σ̂_TIC (B,k,k)) for a net built with cov_param="tic"; differentiable in the weights."""
    if net.cov_param != "tic":
        raise ValueError(f"tic_covariance needs a net with cov_param='tic', got {net.cov_param!r}")
    mu, base, _, scales = net(x)
    J, H = jacobian_hessian(net.mean, x)
    jjt = J @ J.transpose(-1, -2)  # (B, k, k)
    hess = 0.5 * torch.einsum("bipq,bjqp->bij", H, H)  # ½ tr(H_i H_j), PSD Gram matrix
    e1, e2 = scales[:, 0, None, None], scales[:, 1, None, None]
    return mu, e1 * jjt + e2 * hess + base


def jacobian_hessian(f, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-sample J (B,k,d) and H (B,k,d,d) of a row-wise function f: (B,d) → (B,k).

    Rows are independent, so one batched VJP per output (vmapped over k) gives every J_b, and one
    batched JVP per input direction (vmapped over d, tangent e_j in every row) gives every ∂J_b/∂x_bj.
    That is k + d batched passes instead of B·k·d per-sample ones."""
    B, d = x.shape

    def jac(X: torch.Tensor) -> torch.Tensor:  # (k, B, d)
        out, pull = vjp(f, X)
        k = out.shape[1]
        eye = torch.eye(k, dtype=X.dtype).unsqueeze(1).expand(k, X.shape[0], k)
        return vmap(pull)(eye)[0]

    J = jac(x)
    tangents = torch.eye(d, dtype=x.dtype).unsqueeze(1).expand(d, B, d)
    Hc = vmap(lambda t: jvp(jac, (x,), (t,))[1])(tangents)  # (d, k, B, d): ∂J_b[i, :]/∂x_bj
    return J.permute(1, 0, 2), Hc.permute(2, 1, 3, 0)
