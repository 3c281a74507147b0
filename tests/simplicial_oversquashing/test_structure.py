"""Relational structures: lift counts against an independent enumeration, the relations' invariants,
features, the influence graph, serialisation, and what bad input gets."""

from itertools import combinations

import networkx as nx
import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.simplicial_oversquashing import RelationalStructure, load_mutag, read_edge_list
from iclr25.simplicial_oversquashing.data import lift_dataset


def random_graphs(k=6, n=10, p=0.4):
    return [nx.gnp_random_graph(n, p, seed=s) for s in range(k)]


def chordless_cycles_brute(G, max_len):
    """Vertex sets of induced cycles (3..max_len) from networkx's simple cycles, not its chordless ones."""
    out = set()
    for c in nx.simple_cycles(G.to_directed(), length_bound=max_len):
        if len(c) >= 3 and G.subgraph(c).number_of_edges() == len(c):
            out.add(frozenset(c))
    return out


@pytest.mark.parametrize("G", random_graphs())
def test_clique_lift_counts_match_an_independent_enumeration(G):
    rs = RelationalStructure.from_graph(G, lift="clique", max_dim=3)
    c = rs.counts()
    triangles = sum(nx.triangles(G).values()) // 3
    tetra = sum(1 for q in combinations(G.nodes, 4) if all(G.has_edge(a, b) for a, b in combinations(q, 2)))
    assert (c["cells_dim0"], c["cells_dim1"]) == (G.number_of_nodes(), G.number_of_edges())
    assert c.get("cells_dim2", 0) == triangles and c.get("cells_dim3", 0) == tetra
    # boundary: every k-simplex has k+1 facets; lower among edges: pairs sharing a vertex
    assert c["tuples_boundary"] == 2 * G.number_of_edges() + 3 * triangles + 4 * tetra
    lower_edges = sum(d * (d - 1) for _, d in G.degree)
    low = rs.relations["lower"]
    lower_edge_tuples = sum(1 for s, d in zip(low.src, low.dst, strict=True)
                            if rs.cell_dim[s] == 1 and rs.cell_dim[d] == 1)
    assert lower_edge_tuples == lower_edges


@pytest.mark.parametrize("G", random_graphs(4, 9, 0.35))
def test_ring_lift_two_cells_are_exactly_the_chordless_cycles(G):
    rs = RelationalStructure.from_graph(G, lift="ring", max_ring=6)
    rings = {frozenset(c) for c, d in zip(rs.cells, rs.cell_dim, strict=True) if d == 2}
    assert rings == chordless_cycles_brute(G, 6)


def test_mutag_lift_sizes_match_the_spec():
    ds = load_mutag()
    clique = lift_dataset(ds, "clique").structures
    ring = lift_dataset(ds, "ring").structures
    assert sum(s.num_cells for s in clique) == 7092  # 3371 nodes + 3721 edges, MUTAG has no triangles
    assert sum(s.counts()["tuples"] for s in clique) == 33182  # 7442·3 + 10856
    assert sum(s.counts().get("cells_dim2", 0) for s in ring) == 538


def test_coboundary_is_boundary_reversed_and_upper_lower_are_symmetric():
    rs = RelationalStructure.from_graph(nx.complete_graph(5), lift="clique", max_dim=3)
    b, cb = rs.relations["boundary"], rs.relations["coboundary"]
    assert set(zip(b.src.tolist(), b.dst.tolist(), strict=True)) == set(zip(cb.dst.tolist(), cb.src.tolist(),
                                                                            strict=True))
    for name in ("upper", "lower"):
        r = rs.relations[name]
        triples = set(zip(r.src.tolist(), r.dst.tolist(), r.via.tolist(), strict=True))
        assert {(d, s, v) for s, d, v in triples} == triples


def test_relations_follow_their_definitions():
    rs = RelationalStructure.from_graph(nx.complete_graph(4), lift="clique")
    cells = [frozenset(c) for c in rs.cells]
    for s, d in zip(*rs.relations["boundary"][:2], strict=True):  # src is a facet of dst
        assert cells[s] < cells[d] and len(cells[d]) == len(cells[s]) + 1
    for s, d, v in zip(*rs.relations["upper"], strict=True):  # both are facets of the coface via
        assert cells[s] < cells[v] and cells[d] < cells[v] and len(cells[s]) == len(cells[d])
    for s, d, v in zip(*rs.relations["lower"], strict=True):  # via is their common facet
        assert cells[s] & cells[d] == cells[v] and len(cells[v]) == len(cells[s]) - 1


def test_plain_graph_is_vertices_and_upper_pairs():
    rs = RelationalStructure.from_graph([(10, 20), (20, 30)])
    assert rs.num_cells == 3 and rs.relation_names == ("upper",)
    assert rs.node_ids.tolist() == [10, 20, 30]
    assert sorted(zip(*rs.relations["upper"][:2], strict=True)) == [(0, 1), (1, 0), (1, 2), (2, 1)]
    assert (rs.relations["upper"].via == -1).all()


def test_higher_cells_average_their_vertices():
    x = np.arange(8.0).reshape(4, 2)
    rs = RelationalStructure.from_graph(nx.cycle_graph(4), lift="ring", max_ring=4, x=x)
    for cell, feat in zip(rs.cells, rs.x, strict=True):
        np.testing.assert_allclose(feat, x[list(cell)].mean(0))
    assert rs.cells[-1] == (0, 1, 2, 3) and rs.cell_dim[-1] == 2


def test_influence_matrix_rows_are_mean_normalised_per_relation():
    rs = RelationalStructure.from_graph(nx.complete_graph(4), lift="clique")
    A = rs.influence_matrix(normalize=True).toarray()
    in_relations = [sum(1 for r in rs.relations.values() if (r.dst == s).any()) for s in range(rs.num_cells)]
    np.testing.assert_allclose(A.sum(1), in_relations)
    counts = rs.influence_matrix(normalize=False).toarray()
    assert counts.sum() == rs.counts()["tuples"]
    G = rs.influence_graph()
    assert G.number_of_nodes() == rs.num_cells and nx.is_connected(G)


def test_json_round_trip(tmp_path):
    rs = RelationalStructure.from_graph([(1, 2), (2, 3), (3, 1), (3, 4)], lift="clique", x=np.eye(4))
    rs.save(tmp_path / "rs.json")
    back = RelationalStructure.load(tmp_path / "rs.json")
    assert back.cells == rs.cells and back.lift == "clique"
    np.testing.assert_array_equal(back.x, rs.x)
    for k in rs.relations:
        for a, b in zip(back.relations[k], rs.relations[k], strict=True):
            np.testing.assert_array_equal(a, b)


def test_read_edge_list(tmp_path):
    p = tmp_path / "g.txt"
    p.write_text("# a triangle and a tail\n1 2\n2,3\n3\t1\n\n3 4\n", encoding="utf-8")
    G = read_edge_list(p)
    assert sorted(G.nodes) == [1, 2, 3, 4] and G.number_of_edges() == 4


@pytest.mark.parametrize("edges, kwargs, needle", [
    ([(0, 0), (0, 1)], {}, "self-loop"),
    ([], {}, "empty graph"),
    ([("a", "b")], {}, "not an integer"),
    ([(0, 1)], {"lift": "simplicial"}, "unknown lift"),
    ([(0, 1)], {"lift": "ring", "max_ring": 2}, "max_ring"),
    ([(0, 1)], {"lift": "clique", "max_dim": 0}, "max_dim"),
    ([(0, 1)], {"x": np.ones((3, 2))}, "shape"),
    ([(0, 1)], {"x": [[1.0], [np.nan]]}, "NaN"),
])
def test_bad_input_is_a_one_line_user_error(edges, kwargs, needle):
    with pytest.raises(UserError, match=needle) as e:
        RelationalStructure.from_graph(edges, **kwargs)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("text, needle", [("1 x\n", "integers"), ("1 1\n", "self-loop"),
                                          ("# nothing\n", "empty"), ("1 2 3\n", "two node ids")])
def test_bad_edge_files(tmp_path, text, needle):
    p = tmp_path / "g.txt"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(UserError, match=needle):
        read_edge_list(p)
