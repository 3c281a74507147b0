"""Curvature from its formula against brute-force counts and hand-computed values; rewiring adds only
REWIRE pairs, deterministically per seed; FoSR raises the spectral gap; prune only removes."""

from itertools import permutations

import networkx as nx
import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.simplicial_oversquashing import (
    RelationalStructure,
    balanced_forman,
    dumbbell,
    long_dumbbell,
    ollivier_ricci,
    rewire,
    ring_of_cliques,
    spectral_gap,
    weighted_curvature,
)
from iclr25.simplicial_oversquashing.data import on_bridge
from iclr25.simplicial_oversquashing.rewiring import afrc4_values, fosr, sdrf


def bfc_brute(G, i, j):
    """BFC by enumerating triangles and every 4-cycle i-j-w-k-i, keeping those without a diagonal."""
    di, dj = G.degree(i), G.degree(j)
    if min(di, dj) == 1:
        return 0.0
    tri = sum(1 for k in G if k not in (i, j) and G.has_edge(i, k) and G.has_edge(j, k))
    cycles = [(w, k) for w, k in permutations(set(G) - {i, j}, 2)
              if G.has_edge(j, w) and G.has_edge(w, k) and G.has_edge(k, i)
              and not G.has_edge(i, w) and not G.has_edge(j, k)]
    sq_i = {k for _, k in cycles}
    sq_j = {w for w, _ in cycles}
    through = [sum(1 for _, k2 in cycles if k2 == k) for k in sq_i] + [sum(1 for w2, _ in cycles if w2 == w)
                                                                      for w in sq_j]
    out = 2 / di + 2 / dj - 2 + 2 * tri / max(di, dj) + tri / min(di, dj)
    if through:
        out += (len(sq_i) + len(sq_j)) / (max(through) * max(di, dj))
    return out


@pytest.mark.parametrize("seed", range(5))
def test_bfc_equals_brute_force_counts_on_random_graphs(seed):
    G = nx.gnp_random_graph(11, 0.35, seed=seed)
    for (i, j), k in balanced_forman(G).items():
        assert k == pytest.approx(bfc_brute(G, i, j), abs=1e-12), (i, j)


def test_bfc_hand_computed_values():
    d = balanced_forman(dumbbell(4))
    assert d[(3, 4)] == pytest.approx(2 / 4 + 2 / 4 - 2)  # the bridge: −1
    assert d[(0, 1)] == pytest.approx(2 / 3 + 2 / 3 - 2 + 2 * 2 / 3 + 2 / 3)  # inside K4: 4/3
    assert d[(2, 3)] == pytest.approx(2 / 3 + 2 / 4 - 2 + 2 * 2 / 4 + 2 / 3)  # to the bridge node: 5/6
    ld = balanced_forman(long_dumbbell(4, 3))
    assert ld[(3, 8)] == pytest.approx(2 / 4 + 2 / 2 - 2) and ld[(8, 9)] == pytest.approx(0.0)
    assert balanced_forman(nx.cycle_graph(4))[(0, 1)] == pytest.approx(1.0)
    assert balanced_forman(nx.cycle_graph(7))[(0, 1)] == pytest.approx(0.0)
    assert balanced_forman(nx.path_graph(3))[(0, 1)] == 0.0  # a leaf edge


def test_ollivier_ricci_known_values():
    assert ollivier_ricci(nx.complete_graph(4))[(0, 1)] == pytest.approx(2 / 3)
    assert ollivier_ricci(nx.cycle_graph(6))[(0, 1)] == pytest.approx(0.0)
    assert ollivier_ricci(dumbbell(4))[(3, 4)] == pytest.approx(-1.0)  # m_u, m_v are 3 hops apart but one


def test_weighted_curvature_is_twice_the_betweenness_weighted_sum():
    G = dumbbell(4)
    curv, ebc = balanced_forman(G), nx.edge_betweenness_centrality(G)
    wc, nwc = weighted_curvature(G)
    assert wc == pytest.approx(2 * sum(curv[e] * ebc[e] for e in curv))
    assert nwc == pytest.approx(2 * sum(min(curv[e] * ebc[e], 0) for e in curv)) and nwc < 0 < wc


def test_spectral_gap_known_values():
    assert spectral_gap(nx.complete_graph(5)) == pytest.approx(5 / 4)
    assert spectral_gap(nx.Graph([(0, 1), (2, 3)])) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("make", [dumbbell, long_dumbbell, ring_of_cliques])
@pytest.mark.parametrize("lift", ["none", "clique"])
def test_the_most_negative_edge_is_on_a_bridge(make, lift):
    G = make()
    rs = RelationalStructure.from_graph(G, lift=lift)
    curv = balanced_forman(rs)
    low = min(curv.values())
    assert all(on_bridge(rs, G.graph["bridges"], a, b) for (a, b), c in curv.items() if c <= low + 1e-9)


def test_afrc4_hand_values():
    nbr = {v: set(nx.cycle_graph(4)[v]) for v in range(4)}
    assert afrc4_values(nbr)[(0, 1)] == 4 - 2 - 2 + 0 + 2 * 1
    nbr = {v: set(nx.complete_graph(4)[v]) for v in range(4)}
    assert afrc4_values(nbr)[(0, 1)] == 4 - 3 - 3 + 3 * 2 + 2 * 2


@pytest.mark.parametrize("method", ["sdrf", "fosr", "afrc4"])
@pytest.mark.parametrize("lift", ["none", "clique"])
def test_rewiring_only_adds_rewire_pairs_and_is_seed_deterministic(method, lift):
    rs = RelationalStructure.from_graph(long_dumbbell(4, 3), lift=lift)
    out = rewire(rs, method, iterations=5, seed=3)
    for name, r in rs.relations.items():
        if name != "rewire":
            assert out.relations[name] is r  # untouched
    new = out.relations["rewire"]
    assert len(new) > 0 and (new.via == -1).all()
    pairs = set(zip(new.src.tolist(), new.dst.tolist(), strict=True))
    assert {(d, s) for s, d in pairs} == pairs  # both directions
    old = set(rs.influence_graph().edges)
    assert not any((s, d) in old or (d, s) in old for s, d in pairs)  # new pairs only
    again = rewire(rs, method, iterations=5, seed=3).relations["rewire"]
    np.testing.assert_array_equal(again.src, new.src)
    np.testing.assert_array_equal(again.dst, new.dst)


def test_different_seeds_give_different_fosr_pairs_on_a_symmetric_ring():
    G = nx.cycle_graph(12)
    assert {tuple(fosr(G, 3, seed=s)) for s in range(6)} != {tuple(fosr(G, 3, seed=0))}


def test_fosr_raises_the_spectral_gap():
    for G in (nx.cycle_graph(14), long_dumbbell(4, 3), ring_of_cliques(4, 4)):
        H = G.copy()
        H.add_edges_from(fosr(G, 4, seed=0))
        assert spectral_gap(H) > spectral_gap(G)


def test_sdrf_raises_the_bottleneck_curvature():
    G = dumbbell(4)
    H = G.copy()
    H.add_edges_from(sdrf(G, 2, seed=0))
    assert balanced_forman(H)[(3, 4)] > balanced_forman(G)[(3, 4)]


def test_prune_only_removes_and_keeps_the_graph_connected():
    rs = RelationalStructure.from_graph(ring_of_cliques(3, 4), lift="clique")
    out = rewire(rs, "prune", iterations=6)
    before, after = rs.influence_graph(), out.influence_graph()
    assert set(after.edges) < set(before.edges) and before.number_of_edges() - after.number_of_edges() == 6
    assert nx.is_connected(after) and len(out.relations["rewire"]) == 0


def test_rewire_bad_input():
    rs = RelationalStructure.from_graph(nx.cycle_graph(5))
    with pytest.raises(UserError, match="unknown rewiring"):
        rewire(rs, "digl")
    with pytest.raises(UserError, match="iterations"):
        rewire(rs, "fosr", iterations=-1)
    assert rewire(rs, "none") is rs


# ---- Ollivier-Ricci without POT's import (issue #48) -------------------------------------------------------

def test_ollivier_linprog_equals_pot_on_random_graphs():
    pytest.importorskip("ot")
    from iclr25.simplicial_oversquashing.curvature import ollivier_ricci
    for seed in range(4):
        G = nx.gnp_random_graph(12, 0.35, seed=seed)
        for alpha in (0.0, 0.5):
            a = ollivier_ricci(G, alpha, solver="linprog")
            b = ollivier_ricci(G, alpha, solver="pot")
            assert a.keys() == b.keys() and max(abs(a[e] - b[e]) for e in a) < 1e-9


def test_cli_ollivier_on_a_small_graph_does_not_import_pot(tmp_path):
    import subprocess
    import sys
    p = tmp_path / "g.txt"
    p.write_text("".join(f"{i} {(i + 1) % 16}\n" for i in range(16)) + "0 8\n")
    code = ("import sys\nfrom iclr25.core.cli import main\ntry:\n    main(['iclr25', "
            "'simplicial_oversquashing', "
            f"'curvature', '--edges', {str(p)!r}, '--kappa', 'ollivier'])\nexcept SystemExit as e:\n"
            "    assert not e.code, e.code\nprint('POT imported' if 'ot' in sys.modules else 'POT not "
            "imported')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-1500:]
    assert "ollivier on the none influence graph: 17 edges" in out.stdout
    assert out.stdout.strip().endswith("POT not imported")
