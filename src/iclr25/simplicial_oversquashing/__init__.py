"""Oversquashing in topological message passing via relational structures (Taha et al., ICLR 2025): lift
graphs to simplicial or cell complexes, read them as relational structures, bound and measure how
sensitive cells are to each other, find bottlenecks by curvature, rewire, and train relational GNNs."""

from iclr25.core.lazy import lazy_package

__getattr__, __dir__, __all__ = lazy_package(__name__, {
    "batch": ["Batch", "collate"],
    "curvature": ["balanced_forman", "ollivier_ricci", "spectral_gap", "weighted_curvature", "worst_edges"],
    "data": ["GraphTask", "TUDataset", "dumbbell", "lift_dataset", "load_mutag", "load_tu",
        "long_dumbbell", "ring_of_cliques", "ring_transfer"],
    "claims": ["CLAIMS"],
    "experiments": ["run"],
    "lifts": ["LIFTS"],
    "models": ["CONVS", "GCN", "GIN", "RelationalGNN"],
    "rewiring": ["REWIRINGS", "afrc4", "fosr", "prune", "rewire", "sdrf"],
    "sensitivity": ["LinearRMP", "hop_distances", "jacobian_sensitivity", "sensitivity_bound"],
    "structure": ["RELATIONS", "Relation", "RelationalStructure", "read_edge_list"],
    "training": ["TrainConfig", "TrainResult", "split_indices", "train"],
})
