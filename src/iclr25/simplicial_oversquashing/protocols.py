"""The measurements behind each claim, as module-level functions of plain arguments (so `ctx.map` can ship
them to worker processes): implementation-equality checks, the bound check, one RingTransfer or MUTAG
training run, curvature cases, rewiring pairs."""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import torch

from iclr25.core.runtime import atomic_write, cache_dir, child_seeds, config_hash
from iclr25.simplicial_oversquashing.batch import collate
from iclr25.simplicial_oversquashing.curvature import balanced_forman, ollivier_ricci, weighted_curvature
from iclr25.simplicial_oversquashing.data import (
    DEMO_GRAPHS,
    lift_dataset,
    load_mutag,
    on_bridge,
    ring_transfer,
)
from iclr25.simplicial_oversquashing.models import RGCNConv, SINConv
from iclr25.simplicial_oversquashing.reference import mpsn_sin_update
from iclr25.simplicial_oversquashing.rewiring import fosr, sdrf, with_rewire_pairs
from iclr25.simplicial_oversquashing.sensitivity import (
    LinearRMP,
    hop_distances,
    jacobian_sensitivity,
    sensitivity_bound,
)
from iclr25.simplicial_oversquashing.structure import RelationalStructure
from iclr25.simplicial_oversquashing.training import TrainConfig, split_indices, train

CODE_VERSION = 1  # bump when a change alters cached rewiring pairs
TRANSFER = {"hidden": 32, "dropout": 0.0, "lr": 1e-3, "batch_size": 64, "readout": "root"}
REWIRE_N, REWIRE_L, REWIRE_MAX = 10, 4, 10  # the paper's rewire sweep: RingTransfer n = 10, depth 4, 0–10


def random_graph(seed: int, n_lo: int = 8, n_hi: int = 13, p: float = 0.35) -> nx.Graph:
    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(int(rng.integers(n_lo, n_hi)), p, seed=int(rng.integers(2**31)))
    if G.number_of_edges() == 0:
        G.add_edge(0, 1)
    return G


# ---- unifies_mp ---------------------------------------------------------------------------------------

def rgcn_vs_pyg(G: nx.Graph, x: np.ndarray, lift: str, seed: int) -> float:
    """max |our RGCN layer − torch-geometric's RGCNConv| with shared weights (float64)."""
    from torch_geometric.nn import RGCNConv as PygRGCNConv  # the bench extra; imported only here
    torch.manual_seed(seed)
    rs = RelationalStructure.from_graph(G, lift=lift, x=x)
    rels = rs.relation_names
    ours = RGCNConv(x.shape[1], 6, rels).double()
    pyg = PygRGCNConv(x.shape[1], 6, len(rels), aggr="mean").double()
    with torch.no_grad():
        pyg.weight.copy_(ours.weight)
        pyg.root.copy_(ours.root.weight.T)
        pyg.bias.copy_(ours.root.bias)
        b = collate([rs], dtype=torch.float64)
        edge_index = torch.cat([torch.stack(b.rel[r][:2]) for r in rels], dim=1)  # (2, m): src, dst
        edge_type = torch.cat([torch.full_like(b.rel[r][0], k) for k, r in enumerate(rels)])
        return float((ours(b.x, b) - pyg(b.x, edge_index, edge_type)).abs().max())


def sin_vs_mpsn(G: nx.Graph, x: np.ndarray, seed: int) -> float:
    """max |SINConv on the clique lift − MPSN's update from its definitions| (eval mode, float64, random
    ε and batch-norm statistics so that every parameter matters)."""
    torch.manual_seed(seed)
    rs = RelationalStructure.from_graph(G, lift="clique", x=x)
    conv = SINConv(x.shape[1], 5, ("upper", "lower", "boundary", "coboundary")).double()
    with torch.no_grad():
        conv.eps.uniform_(-0.5, 0.5)
        for bn in (m for m in conv.modules() if isinstance(m, torch.nn.BatchNorm1d)):
            bn.running_mean.normal_()
            bn.running_var.uniform_(0.5, 2.0)
            bn.weight.normal_()
            bn.bias.normal_()
    conv.eval()
    with torch.no_grad():
        b = collate([rs], dtype=torch.float64)
        ours = conv(b.x, b).numpy()
    ref = mpsn_sin_update(conv, G, x)
    ids = rs.node_ids
    return float(max(np.abs(ours[i] - ref[frozenset(int(ids[v]) for v in c)]).max()
                     for i, c in enumerate(rs.cells)))


# ---- sensitivity_bound ----------------------------------------------------------------------------------

def bound_check(G: nx.Graph, lift: str, layers: int, seed: int) -> dict:
    """Jacobian norms of a linear RMP (orthogonal weights) against the bound, over all cell pairs."""
    x = np.random.default_rng(seed).normal(size=(G.number_of_nodes(), 3))
    rs = RelationalStructure.from_graph(G, lift=lift, max_ring=6, x=x)
    jac = jacobian_sensitivity(LinearRMP(3, rs.relation_names, layers, seed=seed), rs)
    bound = sensitivity_bound(rs, layers)
    far = hop_distances(rs) > layers
    return {"jac": jac, "bound": bound, "pairs": jac.size, "cells": rs.num_cells,
            "violations": int((jac > bound * (1 + 1e-9) + 1e-12).sum()),
            "max_beyond": float(jac[far].max()) if far.any() else 0.0, "beyond_pairs": int(far.sum())}


def unit_weight_gap(G: nx.Graph, layers: int) -> float:
    """With scalar features and every weight 1 the Jacobian is exactly Â^L: max |Jacobian − bound|."""
    rs = RelationalStructure.from_graph(G, lift="clique")
    model = LinearRMP(1, rs.relation_names, layers)
    with torch.no_grad():
        for p in model.parameters():
            p.fill_(1.0)
    return float(np.abs(jacobian_sensitivity(model, rs) - sensitivity_bound(rs, layers)).max())


def ring_sensitivity(n: int) -> dict:
    """The bound's root row on RingTransfer's ring, graph with L = n/2 vs ring lift with L = 3: raw, and as
    the share of the row's total (how much of the root's sensitivity the label node gets)."""
    ring = [(i, (i + 1) % n) for i in range(n)]
    out: dict = {"n": n, "profiles": {}, "measured": {}}
    for lift, L in (("none", n // 2), ("ring", 3)):
        rs = RelationalStructure.from_graph(ring, lift=lift, max_ring=n)
        row = sensitivity_bound(rs, L)[0]  # the root is node 0
        tag = f"{'graph' if lift == 'none' else 'ring'}_L{L}"
        out["profiles"][f"{lift} (L={L})"] = row[:n] / row.sum()
        out["measured"][f"bound_root_label_{tag}"] = float(row[n // 2])
        out["measured"][f"bound_share_root_label_{tag}"] = float(row[n // 2] / row.sum())
    return out


# ---- RingTransfer ------------------------------------------------------------------------------------

def layers_for(lift: str, n: int) -> int:
    """Depth: 3 with a ring lift (node → edge → edge → node), else n/2 (the distance to the label)."""
    return 3 if lift == "ring" else n // 2


def transfer_run(task: dict) -> dict:
    """One RGCN on RingTransfer (optionally with each graph's first k REWIRE pairs); test accuracy at the
    best validation epoch."""
    torch.set_num_threads(1)
    data = ring_transfer(task["n"], samples=task["samples"], lift=task["lift"])
    if task.get("pairs"):
        data.structures = [with_rewire_pairs(s, [tuple(p) for p in ps[:task["k"]]])
                           for s, ps in zip(data.structures, task["pairs"], strict=True)]
    cfg = TrainConfig(conv="rgcn", layers=task["layers"], max_epochs=task["epochs"], patience=task["epochs"],
                      **TRANSFER)
    res = train(data, cfg, split_indices(task["samples"], task["seed"]), seed=task["seed"])
    return {"test_acc": res.test_acc, "val_acc": res.val_acc, "best_epoch": res.best_epoch}


def ring_rewire_pairs(method: str, samples: int, seed: int, iterations: int = REWIRE_MAX) -> list[list]:
    """Rewiring pairs of every RingTransfer graph of the rewire sweep (graph i with its own seed, as the
    paper rewires each graph separately); the first k pairs are what k iterations add."""
    G = nx.cycle_graph(REWIRE_N)
    fn = sdrf if method == "sdrf" else fosr
    return [[list(p) for p in fn(G, iterations, seed=s)] for s in child_seeds(seed, samples)]


def reach_fraction(pairs: list[list], k: int, n: int = REWIRE_N, layers: int = REWIRE_L) -> float:
    """Share of rings whose label node n//2 is within `layers` hops of the root after k rewiring pairs."""
    ok = 0
    for ps in pairs:
        G = nx.cycle_graph(n)
        G.add_edges_from(tuple(p) for p in ps[:k])
        ok += nx.shortest_path_length(G, n // 2, 0) <= layers
    return ok / len(pairs)


# ---- curvature -----------------------------------------------------------------------------------------

def curvature_case(name: str, lift: str) -> dict:
    """BFC of a demo graph's (lifted) influence graph; whether every tied minimum touches a bridge."""
    G = DEMO_GRAPHS[name]()
    rs = RelationalStructure.from_graph(G, lift=lift)
    curv = balanced_forman(rs)
    low = min(curv.values())
    minima = [e for e, c in curv.items() if c <= low + 1e-9]
    wc, nwc = weighted_curvature(rs, "bfc")
    return {"rs": rs, "G": G, "curv": curv, "min_bfc": low, "n_minima": len(minima),
            "minima_on_bridge": all(on_bridge(rs, G.graph["bridges"], a, b) for a, b in minima),
            "min_orc": min(ollivier_ricci(rs).values()), "wc_bfc": wc, "nwc_bfc": nwc}


def mutag_wc(kappa: str, limit: int | None = None) -> dict:
    """WC and NWC of every MUTAG graph and of its clique lift's influence graph, and the linear fit."""
    graphs = load_mutag().head(limit).graphs
    out: dict = {"graph": [], "lift": []}
    for G in graphs:
        out["graph"].append(weighted_curvature(RelationalStructure.from_graph(G, lift="none"), kappa))
        out["lift"].append(weighted_curvature(RelationalStructure.from_graph(G, lift="clique"), kappa))
    for i, name in enumerate(("wc", "nwc")):
        g = np.array([w[i] for w in out["graph"]])
        c = np.array([w[i] for w in out["lift"]])
        slope, intercept = np.polyfit(g, c, 1)
        resid = c - (slope * g + intercept)
        out[name] = {"graph_mean": float(g.mean()), "lift_mean": float(c.mean()), "slope": float(slope),
                     "intercept": float(intercept), "graph": g, "lift": c,
                     "r2": float(1 - resid.var() / c.var()) if c.var() > 0 else float("nan")}
    return out


# ---- MUTAG ----------------------------------------------------------------------------------------------

def mutag_blow_up(lifts: tuple[str, ...]) -> dict[str, tuple[int, int]]:
    """(cells, relation tuples) of all MUTAG graphs under each lift."""
    ds = load_mutag()
    out = {}
    for lift in lifts:
        task = lift_dataset(ds, lift)
        out[lift] = (sum(s.num_cells for s in task.structures),
                     sum(s.counts()["tuples"] for s in task.structures))
    return out


def mutag_pairs(item: dict) -> list[list[list[int]]]:
    """Rewiring pairs for every MUTAG graph's lifted structure (graph i: seed + i), cached on disk."""
    key = config_hash({**item, "code": CODE_VERSION})
    path = cache_dir() / "simplicial_oversquashing" / f"mutag_pairs_{key}.json"
    if path.is_file():
        return json.loads(path.read_text(encoding="utf-8"))
    task = lift_dataset(load_mutag().head(item.get("limit")), item["lift"])
    fn = sdrf if item["method"] == "sdrf" else fosr
    out = [[list(p) for p in fn(s.influence_graph(), item["iterations"], seed=item["seed"] + i)]
           for i, s in enumerate(task.structures)]
    with atomic_write(path, "w") as f:
        json.dump(out, f)
    return out


def mutag_run(task: dict) -> dict:
    """One model on MUTAG (lift, optional REWIRE pairs) on one shared split; test accuracy at best val."""
    torch.set_num_threads(1)
    data = lift_dataset(load_mutag().head(task.get("limit")), task["lift"])
    if task["pairs"] is not None:
        data.structures = [with_rewire_pairs(s, [tuple(p) for p in ps])
                           for s, ps in zip(data.structures, task["pairs"], strict=True)]
    cfg = TrainConfig(conv=task["model"], hidden=64, layers=4, dropout=0.5, max_epochs=task["epochs"],
                      patience=task["patience"])
    res = train(data, cfg, split_indices(len(data.structures), task["split"]), seed=task["split"])
    return {"test_acc": res.test_acc, "val_acc": res.val_acc, "epochs": res.epochs}
