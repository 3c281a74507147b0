"""Graph lifts: the cells of a graph's clique complex (simplicial) or ring complex (cellular, CWN), each
cell given by its vertices and its facets. Pure functions of a networkx graph on vertices 0..n-1."""

from __future__ import annotations

import networkx as nx

from iclr25.core.errors import UserError

LIFTS = ("none", "clique", "ring")
# A lift's budget: a structure holds at most this many cells (and, see structure.MAX_TUPLES, relation
# tuples); larger lifts are refused while they are enumerated, before their relations are built.
MAX_CELLS = 200_000

Cell = tuple[int, ...]


def _too_many(what: str, cap: int) -> UserError:
    return UserError(f"the {what} has more than {cap:,} cells: refused (the budget of one structure; lower "
                     f"--max-dim / --max-ring or lift a sparser graph)")


def _cliques(G: nx.Graph, max_size: int, cap: int):
    """Every clique of at most `max_size` vertices, depth first (memory grows with the depth, not with
    the number of cliques); a UserError as soon as there are more than `cap`."""
    order = {v: i for i, v in enumerate(sorted(G.nodes))}
    found = 0

    def grow(clique: list[int], cands: list[int]):
        nonlocal found
        found += 1
        if found > cap:
            raise _too_many(f"clique lift up to dimension {max_size - 1}", cap)
        yield clique
        if len(clique) < max_size:
            for i, v in enumerate(cands):
                yield from grow([*clique, v], [w for w in cands[i + 1:] if w in G[v]])

    for v in sorted(G.nodes):
        yield from grow([v], sorted((w for w in G[v] if order[w] > order[v]), key=order.get))


def clique_cells(G: nx.Graph, max_dim: int, max_cells: int = MAX_CELLS
                 ) -> tuple[list[Cell], list[list[Cell]]]:
    """Simplices of the clique complex up to dimension `max_dim` (every k-clique is a (k-1)-simplex),
    as sorted vertex tuples ordered by dimension, and the facets of each (a simplex minus one vertex).
    More than `max_cells` simplices: a UserError, raised while enumerating.

    >>> cells, facets = clique_cells(nx.complete_graph(3), max_dim=2)
    >>> cells[-1], facets[-1]
    ((0, 1, 2), [(1, 2), (0, 2), (0, 1)])
    """
    by_dim: list[list[Cell]] = [[] for _ in range(max_dim + 1)]
    for clique in _cliques(G, max_dim + 1, max_cells):
        by_dim[len(clique) - 1].append(tuple(sorted(clique)))
    cells = [c for dim in by_dim for c in sorted(dim)]
    facets = [[c[:i] + c[i + 1:] for i in range(len(c))] if len(c) > 1 else [] for c in cells]
    return cells, facets


def ring_cells(G: nx.Graph, max_ring: int, max_dim: int = 2, max_cells: int = MAX_CELLS
               ) -> tuple[list[Cell], list[list[Cell]]]:
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
    if len(vertices) + len(edges) > max_cells:
        raise _too_many("ring lift", max_cells)
    if max_dim >= 2:
        for cycle in nx.chordless_cycles(G, length_bound=max_ring):
            if len(cycle) >= 3:
                rings.append(_canonical_cycle(cycle))
                if len(vertices) + len(edges) + len(rings) > max_cells:
                    raise _too_many(f"ring lift with rings up to length {max_ring}", max_cells)
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
