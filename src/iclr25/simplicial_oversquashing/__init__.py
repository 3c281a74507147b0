"""Oversquashing in topological message passing via relational structures (Taha et al., ICLR 2025): lift
graphs to simplicial or cell complexes, read them as relational structures, bound and measure how
sensitive cells are to each other, find bottlenecks by curvature, rewire, and train relational GNNs."""

from iclr25.core.registry import make_paper
from iclr25.simplicial_oversquashing.batch import Batch, collate
from iclr25.simplicial_oversquashing.curvature import (
    balanced_forman,
    ollivier_ricci,
    spectral_gap,
    weighted_curvature,
    worst_edges,
)
from iclr25.simplicial_oversquashing.data import (
    GraphTask,
    TUDataset,
    dumbbell,
    lift_dataset,
    load_mutag,
    load_tu,
    long_dumbbell,
    ring_of_cliques,
    ring_transfer,
)
from iclr25.simplicial_oversquashing.experiments import CLAIMS, run
from iclr25.simplicial_oversquashing.lifts import LIFTS
from iclr25.simplicial_oversquashing.models import CONVS, GCN, GIN, RelationalGNN
from iclr25.simplicial_oversquashing.rewiring import REWIRINGS, afrc4, fosr, prune, rewire, sdrf
from iclr25.simplicial_oversquashing.sensitivity import (
    LinearRMP,
    hop_distances,
    jacobian_sensitivity,
    sensitivity_bound,
)
from iclr25.simplicial_oversquashing.structure import (
    RELATIONS,
    Relation,
    RelationalStructure,
    read_edge_list,
)
from iclr25.simplicial_oversquashing.training import TrainConfig, TrainResult, split_indices, train

PAPER = make_paper("simplicial_oversquashing", CLAIMS, run)

__all__ = [
    "CLAIMS", "CONVS", "GCN", "GIN", "LIFTS", "PAPER", "RELATIONS", "REWIRINGS", "Batch", "GraphTask",
    "LinearRMP", "Relation", "RelationalGNN", "RelationalStructure", "TUDataset", "TrainConfig",
    "TrainResult", "afrc4", "balanced_forman", "collate", "dumbbell", "fosr", "hop_distances",
    "jacobian_sensitivity", "lift_dataset", "load_mutag", "load_tu", "long_dumbbell", "ollivier_ricci",
    "prune", "read_edge_list", "rewire", "ring_of_cliques", "ring_transfer", "run", "sdrf",
    "sensitivity_bound", "spectral_gap", "split_indices", "train", "weighted_curvature", "worst_edges",
]
