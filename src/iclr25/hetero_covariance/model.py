"""Networks: a residual-MLP backbone (the paper's, §4), a mean head, a Cholesky-parameterised covariance
head, and `HeteroscedasticNet` which pairs a mean network with a covariance network (any backbones).

Covariance parameterisations (`cov_param`):
- "cholesky": Σ = L Lᵀ + f·I, L lower-triangular with positive diagonal (NLL, Faithful).
- "sqrt":     S = L Lᵀ + √f·I is the symmetric root, Σ = S² (the W₂ bound needs Σ^½ with no eigh).
- "diag":     Σ = diag(softplus(v) + f) (diagonal NLL, β-NLL).
- "tic":      Σ = ε₁ J Jᵀ + ε₂ ½[tr(H_i H_j)]_ij + L Lᵀ + f·I with J, H of μ̂ w.r.t. x (TIC, see tic.py).

f is the eigenvalue floor `cov_floor` (default 0.01, in units of each standardised target's variance):
λ_min(Σ̂) ≥ f for every parameterisation. Without it the W₂ bound, a Frobenius distance between square
roots, leaves Σ̂'s smallest eigenvalues almost unconstrained; TAC inverts Σ̂ and grows with epochs.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from iclr25.hetero_covariance.linalg import tril_from_vector

COV_PARAMS = ("cholesky", "sqrt", "diag", "tic")


@dataclass(frozen=True)
class NetConfig:
    """Paper §4: residual MLPs with 5 blocks, latent k²+2, ELU. We use min(k²+2, 64) latent and
    3 blocks on CPU (spec §4), and LayerNorm instead of BatchNorm so every sample's output is a function
    of that sample alone (TIC needs per-sample Jacobians and Hessians through torch.func)."""

    blocks: int = 3
    latent: int | None = None  # None: min(k² + 2, 64)
    cov_floor: float = 1e-2  # eigenvalue floor of Σ̂ (standardised units), the same for every parameterisation

    def latent_for(self, k: int) -> int:
        return self.latent or min(k * k + 2, 64)


class ResidualBlock(nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fc = nn.Linear(width, width)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return h + self.fc(nn.functional.elu(self.norm(h)))


class ResidualMLP(nn.Module):
    """x (B, d) → features (B, width): a linear stem, `blocks` residual blocks, ELU."""

    def __init__(self, in_dim: int, width: int, blocks: int) -> None:
        super().__init__()
        self.out_features = width
        self.stem = nn.Linear(in_dim, width)
        self.blocks = nn.Sequential(*[ResidualBlock(width) for _ in range(blocks)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return nn.functional.elu(self.blocks(self.stem(x)))


class MeanHead(nn.Module):
    """features (B, h) → μ̂ (B, k)."""

    def __init__(self, in_features: int, k: int) -> None:
        super().__init__()
        self.linear = nn.Linear(in_features, k)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return self.linear(h)


class CovarianceHead(nn.Module):
    """features (B, h) → (Σ̂, Σ̂^½ or None, extra) for a parameterisation in COV_PARAMS.

    Cholesky-parameterised: a linear layer gives k(k+1)/2 numbers, assembled into L with a softplus
    diagonal. For "tic" it also returns 2 positive scales (ε₁, ε₂) used by tic.tic_covariance."""

    def __init__(self, in_features: int, k: int, cov_param: str = "cholesky",
                 cov_floor: float = 1e-2) -> None:
        super().__init__()
        if cov_param not in COV_PARAMS:
            raise ValueError(f"unknown cov_param {cov_param!r}; choose from {', '.join(COV_PARAMS)}")
        self.k, self.cov_param, self.cov_floor = k, cov_param, cov_floor
        n_out = {"diag": k, "tic": k * (k + 1) // 2 + 2}.get(cov_param, k * (k + 1) // 2)
        self.linear = nn.Linear(in_features, n_out)

    def forward(self, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor | None]:
        v = self.linear(h)
        k = self.k
        eye = torch.eye(k, dtype=v.dtype, device=v.device)
        if self.cov_param == "diag":
            var = nn.functional.softplus(v) + self.cov_floor
            return torch.diag_embed(var), torch.diag_embed(var.sqrt()), None
        scales = None
        if self.cov_param == "tic":
            v, scales = v[..., :-2], nn.functional.softplus(v[..., -2:])
        L = tril_from_vector(v, k)
        A = L @ L.transpose(-1, -2)  # (B, k, k)
        if self.cov_param == "sqrt":
            # Σ = S², S = Σ^½ exactly; S ⪰ √floor·I gives λ_min(Σ̂) ≥ floor
            S = A + self.cov_floor ** 0.5 * eye
            return S @ S, S, None
        A = A + self.cov_floor * eye
        return A, None, scales


class HeteroscedasticNet(nn.Module):
    """Two networks, as in the paper: μ̂(x) and Σ̂(x). Pass your own backbones (any nn.Module mapping
    (B, d) → (B, h) with an `out_features` attribute or give `features`) or use the residual MLPs.

    >>> import torch
    >>> net = HeteroscedasticNet(in_dim=3, k=2, cov_param="sqrt")
    >>> mu, cov, root, _ = net(torch.randn(5, 3))
    >>> tuple(mu.shape), tuple(cov.shape)
    ((5, 2), (5, 2, 2))
    """

    def __init__(self, in_dim: int, k: int, cov_param: str = "cholesky", config: NetConfig = NetConfig(),
                 mean_backbone: nn.Module | None = None, cov_backbone: nn.Module | None = None) -> None:
        super().__init__()
        width = config.latent_for(k)
        self.in_dim, self.k, self.cov_param = in_dim, k, cov_param
        self.mean_backbone = mean_backbone or ResidualMLP(in_dim, width, config.blocks)
        self.cov_backbone = cov_backbone or ResidualMLP(in_dim, width, config.blocks)
        self.mean_head = MeanHead(_features(self.mean_backbone), k)
        self.cov_head = CovarianceHead(_features(self.cov_backbone), k, cov_param, config.cov_floor)

    def mean(self, x: torch.Tensor) -> torch.Tensor:
        return self.mean_head(self.mean_backbone(x))

    def forward(self, x: torch.Tensor):
        """Returns (μ̂ (B,k), Σ̂ (B,k,k), Σ̂^½ or None, TIC scales or None). For "tic" the returned Σ̂ is
        only the L Lᵀ + εI part; tic.tic_covariance adds the Taylor terms."""
        return (self.mean(x), *self.cov_head(self.cov_backbone(x)))


def _features(backbone: nn.Module) -> int:
    n = getattr(backbone, "out_features", None)
    if not isinstance(n, int):
        raise ValueError("a custom backbone needs an integer `out_features` attribute (its output width)")
    return n
