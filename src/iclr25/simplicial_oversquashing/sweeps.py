"""The paper's synthetic transfer experiments as sweeps a user can run: RingTransfer, NeighborsMatch (a
path of cliques) and the tree task, over sizes, lifts, hidden widths and numbers of rewired pairs (SDRF or
FoSR on each graph's influence graph, the first k pairs of each graph), several seeds per setting. Each
run trains an RGCN that reads the root cell (test accuracy at the best validation epoch).

>>> rows = transfer_sweep("ring", sizes=[6], lifts=["none"], samples=40, epochs=1, n_seeds=1)
>>> sorted(rows[0])[:4], rows[0]["chance"]
(['chance', 'epochs', 'hidden', 'layers'], 0.2)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import networkx as nx

from iclr25.core.errors import UserError
from iclr25.core.runtime import child_seeds, progress
from iclr25.simplicial_oversquashing.data import GraphTask, neighbors_match, ring_transfer, tree_match
from iclr25.simplicial_oversquashing.lifts import LIFTS

TASKS = ("ring", "nmatch", "tree")
SWEEP_REWIRINGS = ("none", "sdrf", "fosr")
MAX_RUNS = 10_000  # settings × seeds of one sweep


def make_task(task: str, size: int, lift: str, samples: int, seed: int = 0, clique_size: int = 5,
              cycles: bool = False) -> GraphTask:
    """`size`: ring length (ring), number of cliques (nmatch) or tree depth (tree)."""
    if task == "ring":
        return ring_transfer(size, samples=samples, lift=lift)
    if task == "nmatch":
        return neighbors_match(size, clique_size, samples=samples, lift=lift, seed=seed)
    if task == "tree":
        return tree_match(size, cycles=cycles, samples=samples, lift=lift, seed=seed)
    raise UserError(f"unknown task {task!r}; choose from {', '.join(TASKS)}")


def default_layers(task: str, data: GraphTask, lift: str) -> int:
    """Enough layers to reach every cell that matters from the root: 3 for a ring-lifted RingTransfer
    (node → edge → edge → node), n/2 on its graph, else the root's hop distance to the farthest cell of
    the influence graph."""
    if task == "ring":
        n = data.structures[0].num_nodes
        return 3 if lift == "ring" else n // 2
    G = data.structures[0].influence_graph()
    return max(1, max(nx.single_source_shortest_path_length(G, int(data.roots[0])).values()))


def rewired(data: GraphTask, method: str, k: int, seed: int) -> GraphTask:
    """Each graph with the first k pairs its own `method` run adds to its influence graph (graph i rewired
    with seed child i, as the paper rewires every graph separately)."""
    if method == "none" or k == 0:
        return data
    from iclr25.simplicial_oversquashing.rewiring import fosr, sdrf, with_rewire_pairs

    fn = sdrf if method == "sdrf" else fosr
    seeds = child_seeds(seed, len(data.structures))
    structures = [with_rewire_pairs(s, fn(s.influence_graph(), k, seed=sd))
                  for s, sd in zip(data.structures, seeds, strict=True)]
    return GraphTask(structures, data.labels, data.roots, data.classes, data.name + f" +{k} {method}")


def transfer_sweep(task: str = "ring", sizes: Sequence[int] = (10,), lifts: Sequence[str] = ("none",),
                   hiddens: Sequence[int] = (32,), rewire: str = "none", pairs: Sequence[int] = (0,),
                   layers: int | None = None, samples: int = 1000, epochs: int = 30, n_seeds: int = 3,
                   clique_size: int = 5, cycles: bool = False, show: bool = True) -> list[dict[str, Any]]:
    """Every combination of sizes × lifts × hidden widths × pair counts, `n_seeds` training seeds each;
    one row per run (task, size, lift, layers, hidden, rewire, pairs, seed, test_acc, val_acc, chance)."""
    import torch

    from iclr25.simplicial_oversquashing.training import TrainConfig, split_indices, train

    if task not in TASKS:
        raise UserError(f"unknown task {task!r}; choose from {', '.join(TASKS)}")
    bad = [li for li in lifts if li not in LIFTS]
    if bad:
        raise UserError(f"unknown lift {bad[0]!r}; choose from {', '.join(LIFTS)}")
    if rewire not in SWEEP_REWIRINGS:
        raise UserError(f"unknown rewiring {rewire!r}; choose from {', '.join(SWEEP_REWIRINGS)}")
    if rewire == "none" and any(pairs):
        raise UserError("--pairs needs --rewire sdrf or fosr")
    runs = len(sizes) * len(lifts) * len(hiddens) * len(pairs) * n_seeds
    if runs > MAX_RUNS:
        raise UserError(f"the sweep has {runs:,} runs, more than {MAX_RUNS:,}: refused")
    torch.set_num_threads(1)
    rows = []
    cells = [(n, li, h, k, s) for n in sizes for li in lifts for h in hiddens for k in pairs
             for s in range(n_seeds)]
    base: dict[tuple[int, str, int], GraphTask] = {}
    for n, lift, hidden, k, s in (progress(cells, f"{task} sweep", total=len(cells)) if show else cells):
        key = (n, lift, s)
        if key not in base:
            base[key] = make_task(task, n, lift, samples, seed=s, clique_size=clique_size, cycles=cycles)
        data = rewired(base[key], rewire, k, seed=s)
        depth = layers or default_layers(task, base[key], lift)
        cfg = TrainConfig(conv="rgcn", hidden=hidden, layers=depth, dropout=0.0, lr=1e-3, batch_size=64,
                          max_epochs=epochs, patience=epochs, readout="root")
        res = train(data, cfg, split_indices(len(data.structures), s), seed=s)
        rows.append({"task": task, "size": n, "lift": lift, "layers": depth, "hidden": hidden,
                     "rewire": rewire, "pairs": k, "seed": s, "test_acc": res.test_acc,
                     "val_acc": res.val_acc,
                     "epochs": epochs, "chance": 1.0 / data.classes})
    return rows
