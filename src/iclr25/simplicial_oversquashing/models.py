"""Relational message passing (RMP, Section 3): h_σ' = φ(h_σ, ⊕_i AGG_{(τ→σ) ∈ R_i} ψ_i(h_σ, h_τ, h_δ)).
Instances: RGCN, RGIN, SIN (MPSN), CIN (CWN) and, ignoring relation types, GCN and GIN. Pure PyTorch,
aggregation by index_add_ over the (src, dst, via) tuples of a Batch."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn

from iclr25.core.errors import UserError
from iclr25.simplicial_oversquashing.batch import Batch
from iclr25.simplicial_oversquashing.structure import RELATIONS

CONVS = ("rgcn", "rgin", "sin", "cin", "gcn", "gin")
READOUTS = ("mean", "root")


def aggregate(h: Tensor, src: Tensor, dst: Tensor, n: int, mean: bool = False) -> Tensor:
    """Σ (or mean) over tuples τ→σ of h_τ, for every receiver σ: (n, d)."""
    out = h.new_zeros(n, h.shape[1]).index_add_(0, dst, h[src])
    if mean:
        out = out / torch.bincount(dst, minlength=n).clamp(min=1).to(h.dtype)[:, None]
    return out


def aggregate_typed(h: Tensor, b: Batch, relations: tuple[str, ...], mean: bool = False) -> Tensor:
    """Per relation r, Σ (or mean) over the R_r-tuples τ→σ of h_τ: (N, R, d) in one scatter."""
    src, dst, _, rel, inv_deg = b.typed(relations)
    n, k = h.shape[0], len(relations)
    out = h.new_zeros(n * k, h.shape[1]).index_add_(0, dst * k + rel, h[src])
    return (out * inv_deg if mean else out).view(n, k, h.shape[1])


def base_mlp(in_dim: int, out_dim: int) -> nn.Sequential:
    """The two-layer MLP of the paper's GIN/SIN/CIN blocks: Linear-ReLU-BN-Linear-ReLU-BN."""
    return nn.Sequential(nn.Linear(in_dim, out_dim), nn.ReLU(), nn.BatchNorm1d(out_dim),
                         nn.Linear(out_dim, out_dim), nn.ReLU(), nn.BatchNorm1d(out_dim))


class GroupedMLP(nn.Module):
    """R independent base MLPs (one per relation) applied in one batched product: (N, R, in) → (N, R, out).
    Batch norm per feature is per relation already, so one BatchNorm1d over R·out features is exact."""

    def __init__(self, groups: int, in_dim: int, out_dim: int):
        super().__init__()
        self.w1 = nn.Parameter(torch.empty(groups, in_dim, out_dim))
        self.b1 = nn.Parameter(torch.empty(groups, out_dim))
        self.w2 = nn.Parameter(torch.empty(groups, out_dim, out_dim))
        self.b2 = nn.Parameter(torch.empty(groups, out_dim))
        self.bn1, self.bn2 = nn.BatchNorm1d(groups * out_dim), nn.BatchNorm1d(groups * out_dim)
        for w, b in ((self.w1, self.b1), (self.w2, self.b2)):  # nn.Linear's initialisation, per group
            bound = 1 / w.shape[1] ** 0.5
            nn.init.uniform_(w, -bound, bound)
            nn.init.uniform_(b, -bound, bound)

    def forward(self, z: Tensor) -> Tensor:
        n, g = z.shape[:2]
        h = torch.relu(torch.einsum("nri,rio->nro", z, self.w1) + self.b1)
        h = self.bn1(h.reshape(n, -1)).view(n, g, -1)
        h = torch.relu(torch.einsum("nri,rio->nro", h, self.w2) + self.b2)
        return self.bn2(h.reshape(n, -1)).view(n, g, -1)


class RGCNConv(nn.Module):
    """RGCN (Schlichtkrull et al. 2018): h_σ' = W_0 h_σ + b + Σ_r mean_{τ→σ ∈ R_r} W_r h_τ. Parameters laid
    out as torch-geometric's RGCNConv: `weight` (R, in, out), `root` (in → out, with bias)."""

    def __init__(self, in_dim: int, out_dim: int, relations: Sequence[str]):
        super().__init__()
        self.relations = tuple(relations)
        self.weight = nn.Parameter(torch.empty(len(self.relations), in_dim, out_dim))
        for w in self.weight.data:
            nn.init.xavier_uniform_(w)
        self.root = nn.Linear(in_dim, out_dim)

    def forward(self, h: Tensor, b: Batch) -> Tensor:
        agg = aggregate_typed(h, b, self.relations, mean=True)  # (N, R, in)
        return self.root(h) + agg.reshape(h.shape[0], -1) @ self.weight.reshape(-1, self.weight.shape[2])


class RGINConv(nn.Module):
    """RGIN (as in FoSR's code): h_σ' = W_0 h_σ + Σ_r MLP_r((1+ε_r) h_σ + Σ_{τ→σ ∈ R_r} h_τ)."""

    def __init__(self, in_dim: int, out_dim: int, relations: Sequence[str]):
        super().__init__()
        self.relations = tuple(relations)
        self.self_loop = nn.Linear(in_dim, out_dim)
        self.mlp = GroupedMLP(len(self.relations), in_dim, out_dim)
        self.eps = nn.Parameter(torch.zeros(len(self.relations)))

    def forward(self, h: Tensor, b: Batch) -> Tensor:
        z = (1 + self.eps)[None, :, None] * h[:, None, :] + aggregate_typed(h, b, self.relations)
        return self.self_loop(h) + self.mlp(z).sum(1)


class SINConv(nn.Module):
    """SIN / MPSN (Bodnar et al. 2021): per relation m_r = MLP_r((1+ε_r) h_σ + Σ_{τ→σ ∈ R_r} h_τ), then
    h_σ' = MLP_U(m_{r_1} ‖ … ‖ m_{r_k})."""

    def __init__(self, in_dim: int, out_dim: int, relations: Sequence[str]):
        super().__init__()
        self.relations = tuple(relations)
        self.mlp = GroupedMLP(len(self.relations), in_dim, out_dim)
        self.eps = nn.Parameter(torch.zeros(len(self.relations)))
        self.update = base_mlp(out_dim * len(self.relations), out_dim)

    def messages(self, h: Tensor, b: Batch) -> Tensor:
        return aggregate_typed(h, b, self.relations)

    def forward(self, h: Tensor, b: Batch) -> Tensor:
        z = (1 + self.eps)[None, :, None] * h[:, None, :] + self.messages(h, b)  # (N, R, in)
        return self.update(self.mlp(z).reshape(h.shape[0], -1))  # concatenation in relation order


class CINConv(SINConv):
    """CIN (Bodnar et al. 2021, CWN): as SIN, but a message along upper/lower adjacency also sees the shared
    coface/face δ: Σ_{(τ→σ via δ)} W_r [h_τ ‖ h_δ] (h_δ = 0 when there is no δ, e.g. a plain graph)."""

    TERNARY = ("upper", "lower")

    def __init__(self, in_dim: int, out_dim: int, relations: Sequence[str]):
        super().__init__(in_dim, out_dim, relations)
        self.msg = nn.ModuleDict({r: nn.Linear(2 * in_dim, in_dim)
                                  for r in self.relations if r in self.TERNARY})

    def messages(self, h: Tensor, b: Batch) -> Tensor:
        parts = list(aggregate_typed(h, b, self.relations).unbind(1))
        for k, r in enumerate(self.relations):
            if r in self.msg and r in b.rel:
                src, dst, via = b.rel[r]
                h_via = torch.where((via >= 0)[:, None], h[via.clamp(min=0)], torch.zeros_like(h[src]))
                m = self.msg[r](torch.cat([h[src], h_via], dim=-1))
                parts[k] = h.new_zeros(h.shape[0], m.shape[1]).index_add_(0, dst, m)
        return torch.stack(parts, dim=1)


class GCNConv(nn.Module):
    """GCN (Kipf & Welling) on the influence graph, relation types ignored: D^{-1/2}(A + I)D^{-1/2} h W."""

    def __init__(self, in_dim: int, out_dim: int, relations: Sequence[str]):
        super().__init__()
        self.relations = tuple(relations)
        self.lin = nn.Linear(in_dim, out_dim)

    def forward(self, h: Tensor, b: Batch) -> Tensor:
        n = h.shape[0]
        src, dst = b.typed(self.relations)[:2]
        loop = torch.arange(n)
        src, dst = torch.cat([src, loop]), torch.cat([dst, loop])
        deg = torch.bincount(dst, minlength=n).to(h.dtype)
        w = (deg[src] * deg[dst]).rsqrt()[:, None]
        hw = h @ self.lin.weight.T  # (n, out): transform first, then propagate
        return h.new_zeros(n, hw.shape[1]).index_add_(0, dst, hw[src] * w) + self.lin.bias


class GINConv(nn.Module):
    """GIN (Xu et al. 2019) on the influence graph, relation types ignored: MLP((1+ε) h_σ + Σ_τ h_τ)."""

    def __init__(self, in_dim: int, out_dim: int, relations: Sequence[str]):
        super().__init__()
        self.relations = tuple(relations)
        self.mlp = base_mlp(in_dim, out_dim)
        self.eps = nn.Parameter(torch.zeros(1))

    def forward(self, h: Tensor, b: Batch) -> Tensor:
        src, dst = b.typed(self.relations)[:2]
        return self.mlp((1 + self.eps) * h + aggregate(h, src, dst, h.shape[0]))


_CONV = {"rgcn": RGCNConv, "rgin": RGINConv, "sin": SINConv, "cin": CINConv, "gcn": GCNConv, "gin": GINConv}


class RelationalGNN(nn.Module):
    """`layers` RMP layers (ReLU after each) and a readout: "mean" pools all cells of a structure, then
    Linear-ReLU-Dropout-Linear (graph classification); "root" reads one cell (transfer tasks).

    >>> from iclr25.simplicial_oversquashing.structure import RelationalStructure
    >>> from iclr25.simplicial_oversquashing.batch import collate
    >>> rs = RelationalStructure.from_graph([(0, 1), (1, 2)], lift="clique")
    >>> RelationalGNN(1, 8, 2, relations=rs.relation_names, layers=2, conv="sin")(collate([rs])).shape
    torch.Size([1, 2])
    """

    def __init__(self, in_dim: int, hidden: int, out_dim: int, relations: Sequence[str] = RELATIONS,
                 layers: int = 4, conv: str = "rgcn", dropout: float = 0.5, readout: str = "mean"):
        super().__init__()
        if conv not in _CONV:
            raise UserError(f"unknown conv {conv!r}; choose from {', '.join(CONVS)}")
        if readout not in READOUTS:
            raise UserError(f"unknown readout {readout!r}; choose from {', '.join(READOUTS)}")
        unknown = [r for r in relations if r not in RELATIONS]
        if unknown:
            raise UserError(f"unknown relation {unknown[0]!r}; choose from {', '.join(RELATIONS)}")
        if not relations:
            raise UserError("a relational GNN needs at least one relation")
        for name, v in (("in_dim", in_dim), ("hidden", hidden), ("out_dim", out_dim), ("layers", layers)):
            if not isinstance(v, int) or v < 1:
                raise UserError(f"{name} must be a positive integer, got {v!r}")
        if not 0.0 <= dropout < 1.0:
            raise UserError(f"dropout must be in [0, 1), got {dropout}")
        self.relations = tuple(relations)
        self.conv_name, self.readout = conv, readout
        dims = [in_dim] + [hidden] * layers
        self.convs = nn.ModuleList(_CONV[conv](a, b, self.relations)
                                   for a, b in zip(dims[:-1], dims[1:], strict=True))
        self.dropout = nn.Dropout(dropout)
        if readout == "mean":
            self.head = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), self.dropout,
                                      nn.Linear(hidden, out_dim))
        else:
            self.head = nn.Sequential(self.dropout, nn.Linear(hidden, out_dim))

    def embed(self, b: Batch, x: Tensor | None = None) -> Tensor:
        """Cell features after all layers, (N, hidden); `x` replaces b.x (for Jacobians)."""
        h = b.x if x is None else x
        for conv in self.convs:
            h = torch.relu(conv(h, b))
        return h

    def forward(self, b: Batch) -> Tensor:
        h = self.embed(b)
        if self.readout == "root":
            return self.head(h[b.root])
        pooled = h.new_zeros(b.num_graphs, h.shape[1]).index_add_(0, b.graph, h)
        pooled = pooled / torch.bincount(b.graph, minlength=b.num_graphs).clamp(min=1).to(h.dtype)[:, None]
        return self.head(pooled)


class GCN(RelationalGNN):
    """GCN baseline: RelationalGNN with relation types merged."""

    def __init__(self, in_dim: int, hidden: int, out_dim: int, **kw):
        super().__init__(in_dim, hidden, out_dim, conv="gcn", **kw)


class GIN(RelationalGNN):
    """GIN baseline: RelationalGNN with relation types merged."""

    def __init__(self, in_dim: int, hidden: int, out_dim: int, **kw):
        super().__init__(in_dim, hidden, out_dim, conv="gin", **kw)
