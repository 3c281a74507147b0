"""`iclr25 simplicial_oversquashing ...`: lift your graph, find its bottlenecks, rewire it, train on TU data.

    iclr25 simplicial_oversquashing lift --edges g.txt --lift clique -o rs.json
    iclr25 simplicial_oversquashing curvature --edges g.txt --lift clique
    iclr25 simplicial_oversquashing rewire --edges g.txt --method fosr -o new_pairs.txt
    iclr25 simplicial_oversquashing train --tu-dir DATA/ --lift clique --rewire fosr
    iclr25 simplicial_oversquashing transfer --task ring --sizes 8,12,16 --lifts none,ring
    iclr25 simplicial_oversquashing transfer --task ring --sizes 10 --rewire sdrf --pairs 0,1,5,10
    iclr25 simplicial_oversquashing transfer --task nmatch --sizes 2,3 --hidden 8,32
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from iclr25.core.errors import UserError
from iclr25.core.io import output_path
from iclr25.core.options import Seed, count

app = typer.Typer(help="Oversquashing in topological message passing (relational structures): lift graphs to "
                       "simplicial/cell complexes, locate bottlenecks by curvature, rewire, train.",
                  no_args_is_help=True, add_completion=False)

EdgesOpt = Annotated[Path, typer.Option("--edges", help="graph file: two integer node ids a line")]
LiftOpt = Annotated[str, typer.Option(help="none | clique | ring")]
# Caps refuse typos (1e9) before work starts; they sit far above any sensible setting.
MaxDimOpt = Annotated[int, count("highest cell dimension of the clique lift (a lift over 200,000 cells or "
                                 "5,000,000 relation tuples is refused)", 10)]
MaxRingOpt = Annotated[int, count("longest chordless cycle that becomes a 2-cell (ring lift)", 64, low=3)]
StepsOpt = Annotated[int, count("rewiring steps: pairs added or removed (one per iteration)", 10_000, low=0,
                               flag="--steps")]
# Old spellings, kept as hidden aliases (issue #48: one word per concept).
IterAlias = Annotated[int | None, typer.Option("--iterations", hidden=True, min=0, max=10_000)]


def _structure(edges: Path, lift: str, max_dim: int, max_ring: int):
    from iclr25.simplicial_oversquashing.structure import RelationalStructure, read_edge_list
    G = read_edge_list(edges)
    return RelationalStructure.from_graph(G, lift=lift, max_dim=max_dim, max_ring=max_ring)


def _cell_name(rs, i: int) -> str:
    """A cell by its original vertex ids: '7' (vertex), '3-4' (edge), '1-2-5-6' (triangle or ring)."""
    return "-".join(str(int(rs.node_ids[v])) for v in rs.cells[i])


@app.command()
def lift(
    edges: EdgesOpt,
    lift: LiftOpt = "clique",
    max_dim: MaxDimOpt = 2,
    max_ring: MaxRingOpt = 7,
    out: Annotated[Path | None, typer.Option("-o", "--out", help="write the structure as JSON")] = None,
) -> None:
    """Lift a graph to a relational structure; print cells by dimension, tuples by relation, blow-up."""
    if out is not None:
        output_path(out, "--out", suffixes=(".json",))
    rs = _structure(edges, lift, max_dim, max_ring)
    c = rs.counts()
    dims = ", ".join(f"dim {k[len('cells_dim'):]}: {v}" for k, v in c.items() if k.startswith("cells_dim"))
    rels = ", ".join(f"{k[len('tuples_'):]}: {v}" for k, v in c.items() if k.startswith("tuples_"))
    typer.echo(f"lift={lift} nodes={c['nodes']} edges={c['graph_edges']} cells={c['cells']} ({dims})")
    typer.echo(f"relation tuples={c['tuples']} ({rels})")
    typer.echo(f"blow-up: cells/nodes={c['blow_up_cells']:.2f}x "
               f"tuples/directed edges={c['blow_up_tuples']:.2f}x")
    if out is not None:
        rs.save(out)
        typer.echo(f"wrote {out}")


@app.command()
def curvature(
    edges: EdgesOpt,
    lift: LiftOpt = "none",
    max_dim: MaxDimOpt = 2,
    max_ring: MaxRingOpt = 7,
    kappa: Annotated[str, typer.Option(help="bfc (Balanced Forman) | ollivier (Ollivier-Ricci)")] = "bfc",
    top: Annotated[int, count("how many of the most negatively curved edges to list", 100_000)] = 5,
) -> None:
    """Curvature of the (lifted) influence graph: min / mean, WC and NWC, the worst (bottleneck) edges."""
    import numpy as np

    from iclr25.simplicial_oversquashing.curvature import edge_curvature, weighted_curvature, worst_edges
    rs = _structure(edges, lift, max_dim, max_ring)
    curv = edge_curvature(rs, kappa)
    if not curv:
        raise UserError("the influence graph has no edges: nothing to measure")
    wc, nwc = weighted_curvature(rs, kappa)
    vals = np.array(list(curv.values()))
    typer.echo(f"{kappa} on the {lift} influence graph: {len(curv)} edges, min {vals.min():.4f}, "
               f"mean {vals.mean():.4f}, max {vals.max():.4f}; WC {wc:.4f}, NWC {nwc:.4f}")
    typer.echo("most negatively curved (bottleneck) edges:")
    for (a, b), k in worst_edges(curv, top):
        typer.echo(f"  {_cell_name(rs, a)}  {_cell_name(rs, b)}  {k:.4f}")


@app.command()
def rewire(
    edges: EdgesOpt,
    method: Annotated[str, typer.Option(help="sdrf | fosr | afrc4 | prune")] = "fosr",
    steps: StepsOpt = 40,
    iterations: IterAlias = None,
    lift: LiftOpt = "none",
    max_dim: MaxDimOpt = 2,
    max_ring: MaxRingOpt = 7,
    seed: Seed = 0,
    out: Annotated[Path | None, typer.Option(
        "-o", "--out", help="write the added (prune: removed) pairs, one 'cell cell' a line (a cell is its "
                            "vertex ids joined by '-'); with --lift none, an edge list")] = None,
) -> None:
    """Rewire the influence graph: new pairs join the REWIRE relation; prints spectral gap and min BFC."""
    from iclr25.simplicial_oversquashing.curvature import balanced_forman, spectral_gap
    from iclr25.simplicial_oversquashing.rewiring import REWIRINGS
    from iclr25.simplicial_oversquashing.rewiring import rewire as do_rewire
    if method not in REWIRINGS or method == "none":
        raise UserError(f"unknown rewiring {method!r}; choose from sdrf, fosr, afrc4, prune")
    if out is not None:
        output_path(out, "--out")
    rs = _structure(edges, lift, max_dim, max_ring)
    steps = steps if iterations is None else iterations
    new = do_rewire(rs, method, iterations=steps, seed=seed)
    before, after = rs.influence_graph(), new.influence_graph()
    old_e, new_e = ({tuple(sorted(e)) for e in g.edges} for g in (before, after))
    changed = sorted(old_e - new_e if method == "prune" else new_e - old_e)
    verb = "removed" if method == "prune" else "added"
    typer.echo(f"{method}: {verb} {len(changed)} pairs on the {lift} influence graph "
               f"({before.number_of_nodes()} cells, {before.number_of_edges()} → {after.number_of_edges()} "
               f"edges)")
    low = [round(min(balanced_forman(g).values(), default=0.0), 12) + 0.0 for g in (before, after)]
    typer.echo(f"spectral gap {spectral_gap(before):.4f} → {spectral_gap(after):.4f}; min BFC "
               f"{low[0]:.4f} → {low[1]:.4f}")
    if out is not None:
        lines = [f"{_cell_name(rs, a)} {_cell_name(rs, b)}\n" for a, b in changed]
        out.write_text("".join(lines), encoding="utf-8")
        typer.echo(f"wrote {out}")


@app.command()
def train(
    tu_dir: Annotated[Path | None, typer.Option(
        help="TU-format folder (NAME_A.txt, NAME_graph_indicator.txt, NAME_graph_labels.txt, "
             "optional NAME_node_labels.txt / NAME_node_attributes.txt); default: MUTAG (grakel wheel)")]
    = None,
    name: Annotated[str | None, typer.Option(help="data set NAME in the folder (default: the only one)")]
    = None,
    lift: LiftOpt = "none",
    rewire: Annotated[str, typer.Option("--rewire", help="none | sdrf | fosr | afrc4 | prune")] = "none",
    steps: Annotated[int, count("rewiring steps per graph (pairs added or removed)", 10_000, low=0,
                                flag="--steps")] = 40,
    iterations: IterAlias = None,
    model: Annotated[str, typer.Option(help="rgcn | rgin | sin | cin | gcn | gin")] = "rgcn",
    n_seeds: Annotated[int, count("random splits (80/10/10) and initialisations, seeds 0..N-1", 100,
                                  flag="--n-seeds")] = 5,
    seeds: Annotated[int | None, typer.Option("--seeds", hidden=True, min=1, max=100)] = None,
    epochs: Annotated[int, count("maximum epochs", 10_000)] = 200,
    patience: Annotated[int, count("early-stopping patience on validation accuracy (epochs)", 10_000)] = 50,
    hidden: Annotated[int, count("hidden width", 1024)] = 64,
    layers: Annotated[int, count("message-passing layers", 32)] = 4,
    max_dim: MaxDimOpt = 2,
    max_ring: MaxRingOpt = 7,
) -> None:
    """Graph classification: lift, rewire, train; prints test accuracy at the best validation epoch."""
    from iclr25.core.runtime import pin_threads, progress
    from iclr25.core.stats import mean_ci
    from iclr25.simplicial_oversquashing.data import lift_dataset, load_mutag, load_tu
    from iclr25.simplicial_oversquashing.rewiring import REWIRINGS
    from iclr25.simplicial_oversquashing.rewiring import rewire as do_rewire
    from iclr25.simplicial_oversquashing.training import TrainConfig, split_indices
    from iclr25.simplicial_oversquashing.training import train as fit

    pin_threads()
    if rewire not in REWIRINGS:
        raise UserError(f"unknown rewiring {rewire!r}; choose from {', '.join(REWIRINGS)}")
    cfg = TrainConfig(conv=model, hidden=hidden, layers=layers, max_epochs=epochs, patience=patience)
    ds = load_mutag() if tu_dir is None else load_tu(tu_dir, name)
    task = lift_dataset(ds, lift, max_dim=max_dim, max_ring=max_ring)
    if rewire != "none":
        steps = steps if iterations is None else iterations
        task.structures = [do_rewire(s, rewire, iterations=steps, seed=i)
                           for i, s in enumerate(progress(task.structures, f"rewiring ({rewire})"))]
    accs = []
    seeds = n_seeds if seeds is None else seeds
    for s in progress(range(seeds), "training", total=seeds):
        res = fit(task, cfg, split_indices(len(task.structures), s), seed=s)
        accs.append(res.test_acc)
        typer.echo(f"seed {s}: test {res.test_acc:.4f} (val {res.val_acc:.4f}, best epoch {res.best_epoch}/"
                   f"{res.epochs})")
    iv = mean_ci(accs)
    typer.echo(f"{ds.name} ({len(ds)} graphs, {ds.classes} classes) model={model} lift={lift} "
               f"rewire={rewire}: test accuracy {iv}")


def _accuracy(accs: list[float]) -> str:
    """Mean accuracy and its 95% interval over seeds, clipped to [0, 1] (one seed: no interval)."""
    from iclr25.core.stats import mean_ci

    if len(accs) < 2:
        return f"{accs[0]:.3f} (1 seed)"
    iv = mean_ci(accs)
    return f"{iv.mean:.3f} [{max(0.0, iv.lo):.3f}, {min(1.0, iv.hi):.3f}] ({len(accs)} seeds)"


def _int_list(text: str, flag: str, low: int, high: int) -> list[int]:
    try:
        vals = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise UserError(f"{flag} expects comma-separated integers, got {text!r}") from None
    if not vals or any(not low <= v <= high for v in vals):
        raise UserError(f"{flag} values must be integers in [{low}, {high}], got {text!r}")
    return vals


@app.command()
def transfer(
    task: Annotated[str, typer.Option(help="ring (RingTransfer) | nmatch (NeighborsMatch on a path of "
                                           "cliques) | tree (binary tree with tails)")] = "ring",
    sizes: Annotated[str, typer.Option(help="comma-separated sizes: ring length n (ring), number of "
                                            "cliques (nmatch) or tree depth (tree)")] = "10",
    lifts: Annotated[str, typer.Option(help="comma-separated lifts: none, clique, ring")] = "none",
    hidden: Annotated[str, typer.Option(help="comma-separated hidden widths (the width sweep)")] = "32",
    rewire: Annotated[str, typer.Option(help="none | sdrf | fosr: pairs added to each graph's influence "
                                             "graph")] = "none",
    pairs: Annotated[str, typer.Option(help="comma-separated numbers of rewired pairs (the rewiring sweep; "
                                            "needs --rewire)")] = "0",
    layers: Annotated[int | None, count("message-passing layers (default: enough to reach the label)",
                                        64)] = None,
    samples: Annotated[int, count("graphs per data set (80/10/10 split)", 100_000, low=10)] = 1000,
    epochs: Annotated[int, count("training epochs: passes over the generated graphs", 10_000)] = 30,
    n_seeds: Annotated[int, count("training seeds per setting", 100)] = 3,
    clique_size: Annotated[int, count("nmatch: nodes per clique", 50, low=3)] = 5,
    cycles: Annotated[bool, typer.Option(help="tree: 4-cycles instead of lines at the leaves")] = False,
    out: Annotated[Path | None, typer.Option("-o", "--out", help="write one row per run as CSV")] = None,
) -> None:
    """The paper's synthetic transfer sweeps: accuracy at the root against size, lift, hidden width or
    rewired pairs, mean and 95% interval over seeds, beside chance."""
    import csv

    import numpy as np

    from iclr25.core.runtime import pin_threads
    from iclr25.simplicial_oversquashing.sweeps import transfer_sweep

    if out is not None:
        output_path(out, "--out", suffixes=(".csv",))
    pin_threads()
    rows = transfer_sweep(task, _int_list(sizes, "--sizes", 2, 64), [v.strip() for v in lifts.split(",")],
                          _int_list(hidden, "--hidden", 1, 1024), rewire,
                          _int_list(pairs, "--pairs", 0, 1000),
                          layers, samples, epochs, n_seeds, clique_size, cycles)
    groups: dict[tuple, list[float]] = {}
    for r in rows:
        key = (r["size"], r["lift"], r["layers"], r["hidden"], r["pairs"])
        groups.setdefault(key, []).append(r["test_acc"])
    chance = rows[0]["chance"]
    typer.echo(f"{task}: test accuracy at the root over {n_seeds} seed(s), {epochs} epochs; chance "
               f"{chance:.2f}")
    typer.echo(f"{'size':>5} {'lift':>7} {'layers':>6} {'hidden':>6} {'pairs':>5}  accuracy")
    below = 0
    for (n, lift, depth, h, k), accs in groups.items():
        below += float(np.mean(accs)) <= chance + 0.05
        typer.echo(f"{n:>5} {lift:>7} {depth:>6} {h:>6} {k:>5}  {_accuracy(accs)}")
    if below:
        typer.echo(f"{below} setting(s) within 0.05 of chance ({chance:.2f}): the root did not learn the "
                   f"label "
                   "there (oversquashing, too few layers or too few epochs)")
    if out is not None:
        with out.open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        typer.echo(f"wrote {out}")
