"""Graph lifts: the cells of a graph's clique complex (simplicial) or ring complex (cellular, CWN), each
cell given by its vertices and its facets. Pure functions of a networkx graph on vertices 0..n-1."""

from __future__ import annotations

import networkx as nx

LIFTS = ("none", "clique", "ring")

Cell = tuple[int, ...]


def clique_cells(G: nx.Graph, max_dim: int) -> tuple[list[Cell], list[list[Cell]]]:
    """Simplices of the clique complex up to dimension `max_dim` (every k-clique is a (k-1)-simplex),
    as sorted vertex tuples ordered by dimension, and the facets of each (a simplex minus one vertex).

    >>> cells, facets = clique_cells(nx.complete_graph(3), max_dim=2)
    >>> cells[-1], facets[-1]
    ((0, 1, 2), [(1, 2), (0, 2), (0, 1)])
    """
    by_dim: list[list[Cell]] = [[] for _ in range(max_dim + 1)]
    for clique in nx.enumerate_all_cliques(G):  # yields cliques by increasing size
        if len(clique) > max_dim + 1:
            break
        by_dim[len(clique) - 1].append(tuple(sorted(clique)))
    cells = [c for dim in by_dim for c in sorted(dim)]
    facets = [[c[:i] + c[i + 1:] for i in range(len(c))] if len(c) > 1 else [] for c in cells]
    return cells, facets


def ring_cells(G: nx.Graph, max_ring: int, max_dim: int = 2) -> tuple[list[Cell], list[list[Cell]]]:
    """Cells of the ring (cellular) lift of CWN: vertices, edges and, if `max_dim` >= 2, one 2-cell per
    chordless cycle of length 3..`max_ring`. A 2-cell is its cycle in order, starting at its smallest
    vertex; its facets are the cycle's edges.

    >>> cells, facets = ring_cells(nx.cycle_graph(4), max_ring=4)
    >>> cells[-1], facets[-1]
    ((0, 1, 2, 3), [(0, 1), (1, 2), (2, 3), (0, 3)])
    """
    vertices: list[Cell] = [(v,) for v in sorted(G.nodes)]
    edges: list[Cell] = sorted(tuple(sorted(e)) for e in G.edges)
    rings: list[Cell] = []
    if max_dim >= 2:
        for cycle in nx.chordless_cycles(G, length_bound=max_ring):
            if len(cycle) >= 3:
                rings.append(_canonical_cycle(cycle))
        rings.sort(key=lambda c: (len(c), c))
    cells = vertices + edges + rings
    facets: list[list[Cell]] = [[] for _ in vertices] + [[(e[0],), (e[1],)] for e in edges]
    for ring in rings:
        k = len(ring)
        facets.append([tuple(sorted((ring[i], ring[(i + 1) % k]))) for i in range(k)])
    return cells, facets


def _canonical_cycle(cycle: list[int]) -> Cell:
    """Rotate a cycle to start at its smallest vertex and orient it towards the smaller neighbour."""
    i = cycle.index(min(cycle))
    rot = cycle[i:] + cycle[:i]
    if rot[-1] < rot[1]:
        rot = [rot[0]] + rot[:0:-1]
    return tuple(rot)
