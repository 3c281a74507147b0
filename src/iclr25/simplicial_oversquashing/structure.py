"""Relational structures (Section 3 of the paper): a set of cells S and relations R_i ⊆ S^{n_i}. A lifted
graph becomes cells (vertices, edges, triangles or rings) with the MPSN relations upper, lower, boundary,
coboundary, plus the REWIRE relation that relational rewiring fills. Each relation is stored as tuples
(src, dst, via): `dst` receives a message from `src`; `via` is the shared coface (upper) or face (lower),
-1 for binary relations."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import networkx as nx
import numpy as np

from iclr25.core.errors import UserError
from iclr25.simplicial_oversquashing.lifts import LIFTS, MAX_CELLS, Cell, clique_cells, ring_cells

MAX_TUPLES = 5_000_000  # relation tuples of one structure (about 0.5 GB while it is built)

RELATIONS = ("upper", "lower", "boundary", "coboundary", "rewire")
FORMAT = "iclr25.simplicial_oversquashing.relational_structure"
FORMAT_VERSION = 1


class Relation(NamedTuple):
    src: np.ndarray  # (m,) int64: the sending cell
    dst: np.ndarray  # (m,) int64: the receiving cell
    via: np.ndarray  # (m,) int64: shared coface (upper) / face (lower); -1 for binary relations

    @classmethod
    def empty(cls) -> Relation:
        z = np.zeros(0, dtype=np.int64)
        return cls(z, z.copy(), z.copy())

    @classmethod
    def of(cls, src: Iterable[int], dst: Iterable[int], via: Iterable[int] | None = None) -> Relation:
        s = np.asarray(list(src), dtype=np.int64)
        d = np.asarray(list(dst), dtype=np.int64)
        v = np.full(len(s), -1, dtype=np.int64) if via is None else np.asarray(list(via), dtype=np.int64)
        return cls(s, d, v)

    def __len__(self) -> int:
        return len(self.src)


# ---- input validation: edges and features -----------------------------------------------------------

def graph_from_edges(edges: Any) -> tuple[nx.Graph, np.ndarray]:
    """A networkx graph on vertices 0..n-1 from an edge list or an nx.Graph with integer node ids, and the
    original ids (sorted) so that vertex i is `node_ids[i]`. Self-loops, non-integer ids and an empty
    graph are user errors."""
    if isinstance(edges, nx.Graph):
        if edges.is_directed() or edges.is_multigraph():
            edges = nx.Graph(edges)
        nodes = list(edges.nodes)
        pairs = list(edges.edges)
    else:
        arr = np.asarray(edges, dtype=object)
        if arr.size == 0:
            raise UserError("empty graph: the edge list holds no edges")
        if arr.ndim != 2 or arr.shape[1] != 2:
            raise UserError(f"edges must be pairs (an (m, 2) array), got shape {arr.shape}")
        pairs = [tuple(p) for p in arr.tolist()]
        nodes = [v for p in pairs for v in p]
    bad = [v for v in nodes if not _is_int(v)]
    if bad:
        raise UserError(f"node id {bad[0]!r} is not an integer")
    if not nodes:
        raise UserError("empty graph: no nodes")
    loops = [(u, v) for u, v in pairs if int(u) == int(v)]
    if loops:
        raise UserError(f"self-loop at node {int(loops[0][0])}: a relational structure's graph has none")
    node_ids = np.array(sorted({int(v) for v in nodes}), dtype=np.int64)
    index = {int(v): i for i, v in enumerate(node_ids)}
    G = nx.Graph()
    G.add_nodes_from(range(len(node_ids)))
    G.add_edges_from((index[int(u)], index[int(v)]) for u, v in pairs)
    return G, node_ids


def _is_int(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, int | np.integer):
        return True
    return isinstance(v, float | np.floating) and float(v).is_integer()


def read_edge_list(path: str | Path) -> nx.Graph:
    """Read a graph from a text file: two integer node ids a line (space, tab or comma separated);
    blank lines and lines starting with # are skipped. Returns an nx.Graph on the original ids."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"edge file not found: {path}")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise UserError(f"cannot read {path}: {e}") from None
    pairs = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        tokens = line.replace(",", " ").split()
        if len(tokens) != 2:
            raise UserError(f"{path.name} line {lineno}: expected two node ids, got {line!r}")
        try:
            u, v = int(tokens[0]), int(tokens[1])
        except ValueError:
            raise UserError(f"{path.name} line {lineno}: node ids must be integers, got {line!r}") from None
        if u == v:
            raise UserError(f"{path.name} line {lineno}: self-loop at node {u}")
        pairs.append((u, v))
    if not pairs:
        raise UserError(f"empty graph: {path} holds no edges")
    G = nx.Graph()
    G.add_edges_from(pairs)
    return G


def _node_features(x: Any, n: int) -> np.ndarray:
    if x is None:
        return np.ones((n, 1))  # the paper's default for featureless graphs
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise UserError("node features x must be numeric") from None
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[0] != n:
        raise UserError(f"node features x must have shape ({n}, d), one row per node, got {arr.shape}")
    if not np.isfinite(arr).all():
        raise UserError("node features x hold NaN or inf")
    return arr


# ---- the structure ------------------------------------------------------------------------------------

@dataclass
class RelationalStructure:
    """Cells (vertex tuples; vertices first, as cells 0..n-1), their dimensions, features (higher cells: the
    mean of their vertices' features), and the relations by name."""

    cells: list[Cell]
    cell_dim: np.ndarray  # (N,) int64
    x: np.ndarray  # (N, d) float64
    relations: dict[str, Relation]
    lift: str = "none"
    node_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    # -- construction --------------------------------------------------------------------------------
    @classmethod
    def from_graph(cls, edges: Any, lift: str = "none", max_dim: int = 2, max_ring: int = 7,
                   x: Any = None) -> RelationalStructure:
        """Lift a graph (an (m, 2) edge list or an nx.Graph with integer ids) to a relational structure.

        lift: "none" (the graph: vertices and UPPER pairs), "clique" (clique complex up to `max_dim`) or
        "ring" (CWN cell complex: chordless cycles of length <= `max_ring` become 2-cells). `x`: (n, d)
        node features, rows in sorted node-id order; default all ones. A lift over the budget (MAX_CELLS
        cells or MAX_TUPLES relation tuples) is refused with a UserError before it is built.

        >>> rs = RelationalStructure.from_graph([(0, 1), (1, 2), (2, 0)], lift="clique")
        >>> rs.num_cells, {k: len(v) for k, v in rs.relations.items()}["upper"]
        (7, 12)
        """
        if lift not in LIFTS:
            raise UserError(f"unknown lift {lift!r}; choose from {', '.join(LIFTS)}")
        if not _is_int(max_dim) or int(max_dim) < 1:
            raise UserError(f"max_dim must be an integer >= 1, got {max_dim!r}")
        if not _is_int(max_ring) or int(max_ring) < 3:
            raise UserError(f"max_ring must be an integer >= 3 (a ring has at least 3 edges), "
                            f"got {max_ring!r}")
        G, node_ids = graph_from_edges(edges)
        xn = _node_features(x, G.number_of_nodes())
        if lift == "none":
            rs = cls._graph(G, xn)
        else:
            cells, facets = (clique_cells(G, int(max_dim), MAX_CELLS) if lift == "clique"
                             else ring_cells(G, int(max_ring), int(max_dim), MAX_CELLS))
            rs = cls._complex(cells, facets, xn)
        rs.lift = lift
        rs.node_ids = node_ids
        return rs

    @classmethod
    def _graph(cls, G: nx.Graph, xn: np.ndarray) -> RelationalStructure:
        """A plain graph: vertices, and UPPER pairs in both directions (no edge cells, so no `via`)."""
        e = np.array(list(G.edges), dtype=np.int64).reshape(-1, 2)
        u, v = e[:, 0], e[:, 1]
        rel = {name: Relation.empty() for name in RELATIONS}
        rel["upper"] = Relation.of(np.concatenate([u, v]), np.concatenate([v, u]))
        cells = [(i,) for i in range(G.number_of_nodes())]
        return cls(cells, np.zeros(len(cells), dtype=np.int64), xn.copy(), rel)

    @classmethod
    def _complex(cls, cells: list[Cell], facets: list[list[Cell]], xn: np.ndarray) -> RelationalStructure:
        index = {frozenset(c): i for i, c in enumerate(cells)}
        faces = [[index[frozenset(f)] for f in fs] for fs in facets]  # facet indices of each cell
        cofaces: list[list[int]] = [[] for _ in cells]
        for c, fs in enumerate(faces):
            for f in fs:
                cofaces[f].append(c)
        tuples = sum(len(g) * (len(g) - 1) for g in (*faces, *cofaces)) + 2 * sum(len(fs) for fs in faces)
        if tuples > MAX_TUPLES:
            raise UserError(f"the lift would hold {tuples:,} relation tuples, more than the budget of "
                            f"{MAX_TUPLES:,} (about 0.5 GB): refused; lower --max-dim / --max-ring")
        b_src, b_dst = [], []
        for c, fs in enumerate(faces):  # B(σ): σ receives from each facet τ
            b_src += fs
            b_dst += [c] * len(fs)
        up, low = ([], [], []), ([], [], [])
        for c in range(len(cells)):
            # U: facets of a common coface c are upper adjacent via c; L: cofaces of a common face c are
            # lower adjacent via c (both directions, one tuple per shared cell)
            for group, out in ((faces[c], up), (cofaces[c], low)):
                for s in group:
                    for d in group:
                        if s != d:
                            out[0].append(s)
                            out[1].append(d)
                            out[2].append(c)
        rel = {"upper": Relation.of(*up), "lower": Relation.of(*low), "boundary": Relation.of(b_src, b_dst),
               "coboundary": Relation.of(b_dst, b_src), "rewire": Relation.empty()}
        dims = np.zeros(len(cells), dtype=np.int64)
        for c, fs in enumerate(faces):  # facets precede their cofaces in `cells`
            dims[c] = dims[fs[0]] + 1 if fs else 0
        rs = cls(list(cells), dims, np.zeros((len(cells), xn.shape[1])), rel)
        rs.x = rs.lift_features(xn)
        return rs

    # -- features ------------------------------------------------------------------------------------
    @property
    def num_cells(self) -> int:
        return len(self.cells)

    @property
    def num_nodes(self) -> int:
        return int((self.cell_dim == 0).sum())

    def lift_features(self, x_nodes: Any) -> np.ndarray:
        """(N, d) cell features from (n, d) node features: each cell gets the mean of its vertices'."""
        xn = _node_features(x_nodes, self.num_nodes)
        out = np.empty((self.num_cells, xn.shape[1]))
        for i, c in enumerate(self.cells):
            out[i] = xn[list(c)].mean(axis=0)
        return out

    def with_node_features(self, x_nodes: Any) -> RelationalStructure:
        """The same cells and relations (shared, not copied) with new node features."""
        return RelationalStructure(self.cells, self.cell_dim, self.lift_features(x_nodes), self.relations,
                                   self.lift, self.node_ids)

    # -- relations -----------------------------------------------------------------------------------
    @property
    def relation_names(self) -> tuple[str, ...]:
        """Relations holding at least one tuple, in the canonical order of RELATIONS."""
        return tuple(r for r in RELATIONS if len(self.relations.get(r, ())) > 0)

    def with_relation(self, name: str, relation: Relation) -> RelationalStructure:
        """A copy with `name` replaced by `relation` (cells and other relations shared)."""
        if name not in RELATIONS:
            raise UserError(f"unknown relation {name!r}; choose from {', '.join(RELATIONS)}")
        return RelationalStructure(self.cells, self.cell_dim, self.x, {**self.relations, name: relation},
                                   self.lift, self.node_ids)

    def rewire(self, method: str, iterations: int = 40, seed: int = 0) -> RelationalStructure:
        """Relational rewiring (see rewiring.rewire): new pairs go to the REWIRE relation."""
        from iclr25.simplicial_oversquashing.rewiring import rewire
        return rewire(self, method, iterations=iterations, seed=seed)

    def influence_matrix(self, normalize: bool = True, self_loops: bool = False,
                         relations: Iterable[str] | None = None):
        """The influence graph G_R as a sparse (N, N) matrix A[σ, τ]: how τ feeds σ (row = receiver).

        normalize=True sums the relation-wise mean-normalised adjacencies Σ_i A_i (A_i[σ, τ] = number of
        R_i-tuples τ→σ over σ's R_i in-degree), the Â of the sensitivity bound when `self_loops` adds I.
        normalize=False counts tuples."""
        import scipy.sparse as sp
        n = self.num_cells
        total = sp.csr_matrix((n, n))
        for name in relations or RELATIONS:
            r = self.relations.get(name)
            if r is None or len(r) == 0:
                continue
            w = np.ones(len(r))
            if normalize:
                w = w / np.bincount(r.dst, minlength=n)[r.dst]
            total = total + sp.csr_matrix((w, (r.dst, r.src)), shape=(n, n))
        if self_loops:
            total = total + sp.identity(n, format="csr")
        return total.tocsr()

    def influence_graph(self) -> nx.Graph:
        """The symmetrised influence graph as a simple undirected networkx graph on cells 0..N-1 (an
        edge σ–τ when either sends to the other in any relation): what curvature and rewiring act on."""
        G = nx.Graph()
        G.add_nodes_from(range(self.num_cells))
        for r in self.relations.values():
            G.add_edges_from((int(s), int(d)) for s, d in zip(r.src, r.dst, strict=True) if s != d)
        return G

    def counts(self) -> dict[str, float | int]:
        """Cells by dimension, tuples by relation, and the blow-up against the graph (cells / nodes and
        relation tuples / directed graph edges)."""
        out: dict[str, float | int] = {"nodes": self.num_nodes, "cells": self.num_cells}
        for d in range(int(self.cell_dim.max()) + 1 if self.num_cells else 0):
            out[f"cells_dim{d}"] = int((self.cell_dim == d).sum())
        total = 0
        for name in RELATIONS:
            out[f"tuples_{name}"] = len(self.relations.get(name, Relation.empty()))
            total += out[f"tuples_{name}"]
        out["tuples"] = total
        graph_edges = self._graph_edge_count()
        out["graph_edges"] = graph_edges
        out["blow_up_cells"] = self.num_cells / max(1, self.num_nodes)
        out["blow_up_tuples"] = total / max(1, 2 * graph_edges)
        return out

    def _graph_edge_count(self) -> int:
        if self.lift == "none":
            up = self.relations["upper"]
            return int((up.src < up.dst).sum())  # each graph edge is stored in both directions
        return int((self.cell_dim == 1).sum())

    # -- serialisation -------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": FORMAT_VERSION, "lift": self.lift,
                "node_ids": self.node_ids.tolist(), "cells": [list(c) for c in self.cells],
                "cell_dim": self.cell_dim.tolist(), "x": self.x.tolist(),
                "relations": {k: {"src": r.src.tolist(), "dst": r.dst.tolist(), "via": r.via.tolist()}
                              for k, r in self.relations.items()}}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RelationalStructure:
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise UserError("not a relational-structure file (missing its format tag)")
        if d.get("version") != FORMAT_VERSION:
            raise UserError(f"relational-structure file version {d.get('version')!r}; this code reads "
                            f"version {FORMAT_VERSION}")
        rel = {k: Relation.of(v["src"], v["dst"], v["via"]) for k, v in d["relations"].items()}
        return cls([tuple(c) for c in d["cells"]], np.asarray(d["cell_dim"], dtype=np.int64),
                   np.asarray(d["x"], dtype=np.float64).reshape(len(d["cells"]), -1), rel, d["lift"],
                   np.asarray(d["node_ids"], dtype=np.int64))

    def save(self, path: str | Path) -> None:
        from iclr25.core.runtime import atomic_write
        with atomic_write(path, "w") as f:
            json.dump(self.to_dict(), f)

    @classmethod
    def load(cls, path: str | Path) -> RelationalStructure:
        try:
            return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise UserError(f"cannot read relational structure {path}: {e}") from None

