"""The sensitivity bound of relational message passing (Section 4): for an RMP whose update φ and messages
ψ_i have Jacobian norms ≤ α and ≤ β, ‖∂h_σ^(L)/∂h_τ^(0)‖ ≤ (αβ)^L (Â^L)_στ with Â = I + Σ_i A_i, the
relation-wise mean-normalised adjacencies of the influence graph. Plus exact Jacobian norms of a model
and a linear RMP with ‖W‖ ≤ 1 (α = β = 1) on which the bound is checked."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import Tensor, nn

from iclr25.core.errors import UserError
from iclr25.simplicial_oversquashing.batch import Batch, collate
from iclr25.simplicial_oversquashing.models import aggregate
from iclr25.simplicial_oversquashing.structure import RELATIONS, RelationalStructure

MAX_JACOBIAN_ENTRIES = 50_000_000


def sensitivity_bound(rs: RelationalStructure, layers: int, alpha: float = 1.0, beta: float = 1.0,
                      relations: Sequence[str] | None = None) -> np.ndarray:
    """(αβ)^L (Â^L) as a dense (N, N) array, Â = I + Σ_i A_i (row σ = receiver, column τ = sender).

    >>> rs = RelationalStructure.from_graph([(0, 1), (1, 2)])
    >>> sensitivity_bound(rs, 1)[0].tolist()        # node 0 hears itself and node 1 (mean over 1)
    [1.0, 1.0, 0.0]
    """
    if not isinstance(layers, int) or layers < 0:
        raise UserError(f"layers must be an integer >= 0, got {layers!r}")
    A = rs.influence_matrix(normalize=True, self_loops=True, relations=relations).toarray()
    return (alpha * beta) ** layers * np.linalg.matrix_power(A, layers)


def hop_distances(rs: RelationalStructure, relations: Sequence[str] | None = None) -> np.ndarray:
    """(N, N) array: the fewest hops for information to travel from cell τ (column) to cell σ (row) in the
    directed influence graph; inf when it never arrives."""
    from scipy.sparse.csgraph import shortest_path
    A = rs.influence_matrix(normalize=False, relations=relations)
    return shortest_path(A.T.tocsr(), unweighted=True, directed=True).T  # csgraph reads [from, to]


class LinearRMP(nn.Module):
    """A linear relational message passing network: h_σ' = W_0 h_σ + Σ_r mean_{τ→σ ∈ R_r} W_r h_τ, with
    every W a random orthogonal matrix (spectral norm 1, so α = β = 1 in the bound)."""

    def __init__(self, dim: int, relations: Sequence[str] = RELATIONS, layers: int = 2, seed: int = 0,
                 dtype: torch.dtype = torch.float64):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.relations = tuple(relations)

        def orthogonal() -> Tensor:
            q, _ = torch.linalg.qr(torch.randn(dim, dim, generator=g, dtype=dtype))
            return q

        self.w_self = nn.ParameterList([nn.Parameter(orthogonal()) for _ in range(layers)])
        self.w_rel = nn.ModuleList(
            nn.ParameterDict({r: nn.Parameter(orthogonal()) for r in self.relations}) for _ in range(layers))

    def embed(self, b: Batch, x: Tensor | None = None) -> Tensor:
        h = b.x if x is None else x
        for w0, ws in zip(self.w_self, self.w_rel, strict=True):
            out = h @ w0.T
            for r, w in ws.items():
                if r in b.rel:
                    out = out + aggregate(h @ w.T, *b.rel[r][:2], h.shape[0], mean=True)
            h = out
        return h


def jacobian_sensitivity(model: nn.Module, rs: RelationalStructure | Batch,
                         x: np.ndarray | Tensor | None = None,
                         targets: Sequence[int] | None = None) -> np.ndarray:
    """‖∂h_σ^(L)/∂h_τ^(0)‖₂ (spectral norm of the d_out × d_in block) for every target σ (rows; default all
    cells) and every cell τ (columns), from the exact Jacobian of `model.embed` (eval mode) at features x
    (default the structure's own)."""
    b = rs if isinstance(rs, Batch) else collate([rs], dtype=_dtype(model))
    x0 = b.x if x is None else torch.as_tensor(x, dtype=b.x.dtype)
    if x0.shape != b.x.shape:
        raise UserError(f"x must have shape {tuple(b.x.shape)}, got {tuple(x0.shape)}")
    if not torch.isfinite(x0).all():
        raise UserError("x holds NaN or inf")
    idx = torch.arange(b.num_cells) if targets is None else torch.as_tensor(list(targets), dtype=torch.long)
    if len(idx) and (idx.min() < 0 or idx.max() >= b.num_cells):
        raise UserError(f"targets must be cell indices in [0, {b.num_cells}), got {list(targets or [])}")
    was_training = model.training
    model.eval()
    try:
        d_out = model.embed(b, x0).shape[1]
        if len(idx) * d_out * x0.numel() > MAX_JACOBIAN_ENTRIES:
            raise UserError(f"the Jacobian would hold {len(idx) * d_out * x0.numel():,} entries; pass fewer "
                            f"targets")
        J = torch.autograd.functional.jacobian(lambda z: model.embed(b, z)[idx], x0)  # (T, d_out, N, d_in)
    finally:
        model.train(was_training)
    return torch.linalg.matrix_norm(J.permute(0, 2, 1, 3), ord=2).detach().numpy()


def _dtype(model: nn.Module) -> torch.dtype:
    p = next(model.parameters(), None)
    return p.dtype if p is not None else torch.float32
