"""Reproduction of Taha et al. (ICLR 2025) at CPU scale: one framework for graph and simplicial message
passing, the sensitivity bound, lifting as a shortcut (RingTransfer), curvature bottlenecks, relational
rewiring (RingTransfer sweep) and lifting + rewiring on MUTAG. This module only measures: the rules are in
claims.py, fixed before measuring, and `Paper.reproduce` decides with them."""

from __future__ import annotations

import numpy as np

from iclr25.core.claims import Finding
from iclr25.core.runtime import RunContext, child_seeds
from iclr25.core.stats import mean_ci
from iclr25.simplicial_oversquashing import figures
from iclr25.simplicial_oversquashing import protocols as P
from iclr25.simplicial_oversquashing.claims import (
    CLIQUE_N,
    MUTAG_LIFT,
    MUTAG_MODEL,
    MUTAG_REWIRE,
    MUTAG_SPLITS,
    RING_N,
)
from iclr25.simplicial_oversquashing.data import DEMO_GRAPHS

RING_EVAL_N = RING_N
MUTAG_MODELS = ("rgcn", "sin")
MUTAG_LIFTS = ("none", "clique", "ring")
MUTAG_REWIRES = ("none", "fosr", "sdrf")


def spearman(x: list[float], y: list[float]) -> float:
    """Spearman's rank correlation; 0 when either side is constant."""
    from scipy.stats import spearmanr
    if len(set(y)) < 2 or len(set(x)) < 2:
        return 0.0
    return float(spearmanr(x, y).statistic)


# ---- the run ---------------------------------------------------------------------------------------

def run(profile: str, ctx: RunContext) -> list[Finding]:
    return [unifies_finding(ctx), sensitivity_finding(ctx), lifting_finding(ctx), curvature_finding(ctx),
            rewiring_finding(ctx), mutag_finding(ctx), other_tu_finding()]


def unifies_finding(ctx: RunContext) -> Finding:
    seeds = child_seeds(ctx.seed + 1, ctx.pick(smoke=2, quick=5, full=10))
    cases = [(P.random_graph(s), s) for s in seeds]
    cases = [(G, np.random.default_rng(s).normal(size=(G.number_of_nodes(), 4)), s) for G, s in cases]
    sin = max(P.sin_vs_mpsn(G, x, s) for G, x, s in cases)
    try:
        import torch_geometric  # noqa: F401
    except ImportError:
        return Finding.not_testable("unifies_mp", "torch-geometric (the bench extra) is not installed, so "
                                    "the RGCN half cannot be compared", max_abs_diff_sin_vs_mpsn=sin)
    rgcn = max(P.rgcn_vs_pyg(G, x, "none", s) for G, x, s in cases)
    rgcn4 = max(P.rgcn_vs_pyg(G, x, "clique", s) for G, x, s in cases)
    m = {"graphs": len(cases), "max_abs_diff_rgcn_vs_pyg": rgcn, "max_abs_diff_rgcn_clique_vs_pyg": rgcn4,
         "max_abs_diff_sin_vs_mpsn": sin}
    return Finding.measure("unifies_mp", m,
                   f"{len(cases)} random graphs: graph RGCN vs torch-geometric RGCNConv max |diff| "
                   f"{rgcn:.1e} (clique lift, 4 relations: {rgcn4:.1e}); clique-lift SIN vs MPSN's update "
                   f"{sin:.1e} (tolerance 1e-5)")


def sensitivity_finding(ctx: RunContext) -> Finding:
    max_layers = ctx.pick(smoke=2, quick=4, full=4)
    seeds = child_seeds(ctx.seed + 2, ctx.pick(smoke=4, quick=20, full=20))
    checks, scatter = [], ([], [])
    for i, s in enumerate(seeds):
        G = P.random_graph(s, 7, 11, 0.4)
        for layers in range(1, max_layers + 1):
            c = P.bound_check(G, "clique" if i % 2 == 0 else "ring", layers, s + layers)
            checks.append(c)
            if layers == max_layers:
                keep = c["bound"] > 0
                scatter[0].extend(c["bound"][keep])
                scatter[1].extend(c["jac"][keep])
    tight = P.unit_weight_gap(P.random_graph(seeds[0], 7, 11, 0.4), max_layers)
    ring = P.ring_sensitivity(RING_EVAL_N)
    m = {"complexes": len(seeds), "max_layers": max_layers,
         "cell_pairs_checked": sum(c["pairs"] for c in checks),
         "violations": sum(c["violations"] for c in checks),
         "pairs_beyond_L_hops": sum(c["beyond_pairs"] for c in checks),
         "max_jacobian_beyond_L_hops": max(c["max_beyond"] for c in checks),
         "median_jacobian_over_bound": float(np.median(np.array(scatter[1]) / np.array(scatter[0]))),
         "max_abs_diff_scalar_unit_weights": tight, **ring["measured"]}
    fig = figures.sensitivity(ctx.figure_path("sensitivity.png"), scatter, ring)
    return Finding.measure("sensitivity_bound", m,
                   f"{m['violations']} violations over {m['cell_pairs_checked']:,} (cell pair, L) checks on "
                   f"{len(seeds)} lifted complexes, L ≤ {max_layers}; max sensitivity beyond L hops "
                   f"{m['max_jacobian_beyond_L_hops']:.1e}; the bound is attained with unit scalar weights "
                   f"(|diff| {tight:.1e}); RingTransfer n={RING_EVAL_N}: the label node's share of the "
                   f"root's bound {m['bound_share_root_label_graph_L8']:.1e} (graph, L=8) vs "
                   f"{m['bound_share_root_label_ring_L3']:.1e} (ring lift, L=3)", figures=[fig.name])


def lifting_finding(ctx: RunContext) -> Finding:
    """The two decided comparisons (ring lift vs graph at n = 16, clique lift vs graph at n = 10) on 3
    training seeds each in every profile; the full profile also sweeps n = 6…18 for all three lifts."""
    samples = ctx.pick(smoke=60, quick=1000, full=1000)
    epochs = ctx.pick(smoke=2, quick=30, full=30)
    seeds = child_seeds(ctx.seed + 3, 3)
    cells = [(RING_N, "none"), (RING_N, "ring"), (CLIQUE_N, "none"), (CLIQUE_N, "clique")]
    if ctx.profile == "full":
        cells += [(n, lift) for n in range(6, 19, 2) for lift in ("none", "clique", "ring")
                  if (n, lift) not in cells]
    tasks = [{"n": n, "lift": lift, "layers": P.layers_for(lift, n), "seed": s, "samples": samples,
              "epochs": epochs} for n, lift in sorted(cells) for s in seeds]
    acc: dict[tuple[str, int], list[float]] = {}
    for t, r in zip(tasks, ctx.map(P.transfer_run, tasks, "RingTransfer (lifting)"), strict=True):
        acc.setdefault((t["lift"], t["n"]), []).append(r["test_acc"])
    m: dict[str, float | int | str | list] = {"samples": samples, "epochs": epochs,
                                              "hidden": P.TRANSFER["hidden"], "chance": 0.2,
                                              "seeds": len(seeds)}
    for (lift, n), a in sorted(acc.items()):
        m[f"acc_{lift}_n{n}_L{P.layers_for(lift, n)}"] = a  # one value per training seed
    ring, graph = mean_ci(acc[("ring", RING_N)]), mean_ci(acc[("none", RING_N)])
    clique, graph10 = mean_ci(acc[("clique", CLIQUE_N)]), mean_ci(acc[("none", CLIQUE_N)])
    m["signal_ring_minus_graph"] = ring.mean - graph.mean
    m["signal_clique_minus_graph"] = clique.mean - graph10.mean
    fig = figures.ring_transfer(ctx.figure_path("ring_transfer.png"), acc)
    sizes = sorted({n for n, _ in cells})
    return Finding.measure(
        "lifting_shortcut", m,
        f"RingTransfer n={RING_N}: ring lift (L=3) {ring} vs graph (L={RING_N // 2}) {graph}; n={CLIQUE_N}: "
        f"clique lift {clique} vs graph {graph10} (L={CLIQUE_N // 2} both); test accuracy over "
        f"{len(seeds)} seeds, {epochs} epochs, chance 0.20; sizes {sizes}", figures=[fig.name])


def curvature_finding(ctx: RunContext) -> Finding:
    cases = {(name, lift): P.curvature_case(name, lift)
             for name in DEMO_GRAPHS for lift in ("none", "clique")}
    m: dict[str, float | int | str] = {}
    for (name, lift), c in cases.items():
        tag = f"{name}_{'graph' if lift == 'none' else 'clique'}"
        m.update({f"min_bfc_{tag}": c["min_bfc"], f"minima_{tag}": c["n_minima"],
                  f"min_on_bridge_{tag}": int(c["minima_on_bridge"]), f"min_orc_{tag}": c["min_orc"],
                  f"wc_bfc_{tag}": c["wc_bfc"], f"nwc_bfc_{tag}": c["nwc_bfc"]})
    limit = ctx.pick(smoke=12, quick=None, full=None)
    wc = {k: P.mutag_wc(k, limit) for k in ctx.pick(smoke=("bfc",), quick=("bfc",), full=("bfc", "ollivier"))}
    for k, w in wc.items():
        for name in ("wc", "nwc"):
            m.update({f"mutag_{name}_{k}_{stat}": w[name][stat]
                      for stat in ("graph_mean", "lift_mean", "slope", "r2")})
    m["mutag_graphs"] = len(wc["bfc"]["graph"])
    flags = [c["minima_on_bridge"] for c in cases.values()]
    figs = [figures.curvature_demo(ctx.figure_path("curvature_demo.png"), cases).name,
            figures.mutag(ctx.figure_path("mutag.png"), wc, None).name]
    w = wc["bfc"]["wc"]
    mins = ", ".join(f"{n} {cases[(n, 'none')]['min_bfc']:.2f}/{cases[(n, 'clique')]['min_bfc']:.2f}"
                     for n in DEMO_GRAPHS)
    m["cases_min_on_bridge"] = sum(flags)
    m["cases"] = len(flags)
    return Finding.measure("bottleneck_curvature", m,
                   f"most negative BFC edge on a bridge in {sum(flags)}/{len(flags)} cases (min BFC "
                   f"graph/clique lift: {mins}); MUTAG ({m['mutag_graphs']} graphs) WC(BFC) graph "
                   f"{w['graph_mean']:.2f} vs clique lift {w['lift_mean']:.2f}, fit slope {w['slope']:.2f}, "
                   f"R² {w['r2']:.2f}", figures=figs)


def rewiring_finding(ctx: RunContext) -> Finding:
    samples = ctx.pick(smoke=60, quick=200, full=1000)  # quick: the structure only, 200 rings suffice
    seeds = child_seeds(ctx.seed + 4, ctx.pick(smoke=1, quick=1, full=3))
    methods = ("sdrf", "fosr")
    pairs = {(mth, s): P.ring_rewire_pairs(mth, samples, s) for mth in methods for s in seeds}
    reach = {mth: [P.reach_fraction(pairs[(mth, seeds[0])], k) for k in range(P.REWIRE_MAX + 1)]
             for mth in methods}
    m: dict[str, float | int | str] = {f"reach_L4_{mth}_k{k}": reach[mth][k]
                                       for mth in methods for k in (0, 1, 5, 10)}
    if ctx.profile != "full":
        fig = figures.rewiring(ctx.figure_path("rewiring.png"), reach, None)
        r = {mth: "/".join(f"{reach[mth][k]:.2f}" for k in (0, 1, 5, 10)) for mth in methods}
        deferred = Finding.deferred(
            "relational_rewiring",
            f"quick measured the structure only: share of rings (n={P.REWIRE_N}) whose label node is within "
            f"L={P.REWIRE_L} hops of the root after 0/1/5/10 pairs: SDRF {r['sdrf']}, FoSR {r['fosr']}; the "
            f"accuracy sweep (2 methods × 11 pair counts × 3 seeds) runs in the full profile", **m)
        deferred.figures = [fig.name]
        return deferred
    return rewiring_sweep(ctx, pairs, reach, m, samples=samples, epochs=40)


def rewiring_sweep(ctx: RunContext, pairs: dict[tuple[str, int], list], reach: dict[str, list[float]],
                   m: dict, samples: int, epochs: int) -> Finding:
    """The full profile's accuracy sweep: RGCN (L = 4) on RingTransfer n = 10 with the first k pairs of
    each graph's SDRF or FoSR rewiring, k = 0..10, for every seed in `pairs`."""
    methods = sorted({mth for mth, _ in pairs})
    seeds = sorted({s for _, s in pairs})
    tasks = [{"n": P.REWIRE_N, "lift": "none", "layers": P.REWIRE_L, "seed": s, "samples": samples,
              "epochs": epochs, "k": k, "method": mth, "pairs": pairs[(mth, s)] if k else None}
             for s in seeds for mth in methods for k in range(P.REWIRE_MAX + 1) if k or mth == methods[0]]
    acc: dict[tuple[str, int], list[float]] = {}
    for t, res in zip(tasks, ctx.map(P.transfer_run, tasks, "RingTransfer (rewiring)"), strict=True):
        for mth in (methods if t["k"] == 0 else (t["method"],)):  # k = 0 is every method's baseline
            acc.setdefault((mth, t["k"]), []).append(res["test_acc"])
    ks = list(range(P.REWIRE_MAX + 1))
    m.update(epochs=epochs, seeds=len(seeds))
    m["acc_none_k0"] = acc[(methods[0], 0)]  # one value per seed, the shared baseline of both methods
    for mth in methods:
        for k in ks[1:]:
            m[f"acc_{mth}_k{k}"] = acc[(mth, k)]
        per_seed = [[acc[(mth, k)][i] for k in ks] for i in range(len(seeds))]
        m[f"spearman_{mth}"] = [spearman(ks, a) for a in per_seed]
    base = mean_ci(acc[(methods[0], 0)])
    series = {mth: [acc[(mth, k)] for k in ks] for mth in methods}
    fig = figures.rewiring(ctx.figure_path("rewiring.png"), reach, series)
    parts = []
    for mth in methods:
        gain = mean_ci(np.subtract(acc[(mth, P.REWIRE_MAX)], acc[(mth, 0)]))
        parts.append(f"{mth.upper()} 10 pairs − none {gain}, Spearman per seed "
                     + "/".join(f"{r:.2f}" for r in m[f"spearman_{mth}"]))
    return Finding.measure(
        "relational_rewiring", m,
        f"RingTransfer n={P.REWIRE_N}, L={P.REWIRE_L}, {len(seeds)} seeds, {epochs} epochs: no rewiring "
        f"{base}; "
        + "; ".join(parts), figures=[fig.name])


def mutag_finding(ctx: RunContext) -> Finding:
    blow = P.mutag_blow_up(MUTAG_LIFTS)
    m: dict[str, float | int | str] = {f"cells_{li}": c for li, (c, _) in blow.items()}
    m.update({f"tuples_{li}": t for li, (_, t) in blow.items()})
    m["blow_up_cells_clique"] = blow["clique"][0] / blow["none"][0]
    m["blow_up_tuples_clique"] = blow["clique"][1] / blow["none"][1]
    if ctx.profile != "full":
        return Finding.deferred(
            "mutag_lift_rewire",
            f"quick measured the lifts only: MUTAG's {blow['none'][0]} nodes become {blow['clique'][0]} "
            f"cells ({m['blow_up_cells_clique']:.2f}×) and {blow['clique'][1]} relation tuples "
            f"({m['blow_up_tuples_clique']:.2f}× the directed edges) under the clique lift, "
            f"{blow['ring'][0]} cells under the ring lift; the 2 models × 3 lifts × 3 rewirings × "
            f"{MUTAG_SPLITS} splits grid runs in the full profile", **m)
    return mutag_grid(ctx, m, splits=child_seeds(ctx.seed + 5, MUTAG_SPLITS), epochs=200, patience=50)


def mutag_grid(ctx: RunContext, m: dict, splits: list[int], epochs: int, patience: int,
               limit: int | None = None) -> Finding:
    """The full profile's grid: {RGCN, SIN} × lifts × {none, FoSR, SDRF} (40 iterations) on shared splits;
    `limit` keeps the first graphs only (tests)."""
    items = [{"lift": li, "method": rw, "iterations": 40, "seed": ctx.seed, "limit": limit}
             for li in MUTAG_LIFTS for rw in MUTAG_REWIRES if rw != "none"]
    found = ctx.map(P.mutag_pairs, items, "MUTAG rewiring")
    pairs = {(i["lift"], i["method"]): p for i, p in zip(items, found, strict=True)}
    tasks = [{"model": mo, "lift": li, "rewire": rw, "split": s, "epochs": epochs, "patience": patience,
              "pairs": pairs.get((li, rw)), "limit": limit}
             for mo in MUTAG_MODELS for li in MUTAG_LIFTS for rw in MUTAG_REWIRES for s in splits]
    acc: dict[tuple[str, str, str], list[float]] = {}
    for t, r in zip(tasks, ctx.map(P.mutag_run, tasks, "MUTAG grid"), strict=True):
        acc.setdefault((t["model"], t["lift"], t["rewire"]), []).append(r["test_acc"])
    m.update(splits=len(splits), max_epochs=epochs, patience=patience)
    m.update({f"acc_{mo}_{li}_{rw}": a for (mo, li, rw), a in acc.items()})  # one value per split
    plain = acc[(MUTAG_MODEL, "none", "none")]
    ours = acc[(MUTAG_MODEL, MUTAG_LIFT, MUTAG_REWIRE)]
    gain = mean_ci(np.subtract(ours, plain))
    grid = "; ".join(f"{mo.upper()} {li}/{rw} {np.mean(a):.3f}" for (mo, li, rw), a in sorted(acc.items()))
    fig = figures.mutag(ctx.figure_path("mutag.png"), {"bfc": P.mutag_wc("bfc", limit)}, acc)
    return Finding.measure(
        "mutag_lift_rewire", m,
        f"MUTAG, {len(splits)} shared splits, ≤ {epochs} epochs (patience {patience}), test accuracy at best "
        f"validation: {MUTAG_MODEL.upper()} plain {np.mean(plain):.3f}, {MUTAG_LIFT} lift + "
        f"{MUTAG_REWIRE.upper()} {np.mean(ours):.3f}, paired gain {gain} (the pre-registered comparison); "
        f"the grid, not decided: {grid}", figures=[fig.name])


def other_tu_finding() -> Finding:
    return Finding.not_testable(
        "other_tu_datasets",
        "ENZYMES, PROTEINS, NCI1, IMDB-BINARY and ZINC ship in no installable wheel (torch-geometric, "
        "gklearn and toponetx download them at run time); with a local TU folder the same path runs: "
        "`iclr25 simplicial_oversquashing train --tu-dir DATA/ --lift clique --rewire fosr`")
