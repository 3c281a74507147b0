"""The component graph of a binary prediction P against its ground truth G (paper: "component graph"), and the
critical-node test that decides which wrong components change the topology.

How we resolve connectivity. The paper thickens P by eps and G by 2*eps so that foreground is
8-connected and background 4-connected. We encode the same thing exactly on a cell complex: the padded
image is refined to a (2H+3)x(2W+3) grid of pixels (even, even), edges (one odd index) and corners (odd,
odd); an edge or corner gets the bitwise OR of the class codes (P=1, G=2) of the pixels it touches. Then
P and G are unions of *closed* squares (8-connected foreground, 4-connected background), P & G is the
set of cells with code 3, and plain 4-connected labelling of the refined grid is exact for all four
classes. A TP component made only of edges/corners ("virtual") appears where an FP pixel touches an FN
pixel: there the thickened P and G overlap, as in the paper's thickening.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import ndimage
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from iclr25.topograph.checks import check_pair

TN, FP, FN, TP = 0, 1, 2, 3  # C = P + 2G (paper: combined 4-class image)
CLASS_NAMES = ("TN", "FP", "FN", "TP")


def refine(pred: np.ndarray, gt: np.ndarray, pad: bool = True, pad_value: int = TN) -> np.ndarray:
    """Class codes on the refined cell grid of the 1-pixel background-padded image (`pad=False`: of the
    image itself, so background regions that touch the border are not joined through the outside).

    >>> refine(np.array([[1]]), np.array([[0]])).shape, refine(np.array([[1]]), np.array([[0]]), False).shape
    ((5, 5), (1, 1))
    """
    c = pred.astype(np.uint8) + 2 * gt.astype(np.uint8)
    if pad:
        c = np.pad(c, 1, constant_values=pad_value)  # (H+2, W+2), outside = TN (or pad_value)
    h, w = c.shape
    r = np.zeros((2 * h - 1, 2 * w - 1), dtype=np.uint8)
    r[0::2, 0::2] = c                                   # pixels
    r[0::2, 1::2] = c[:, :-1] | c[:, 1:]                # edges between horizontal neighbours
    r[1::2, 0::2] = c[:-1, :] | c[1:, :]                # edges between vertical neighbours
    r[1::2, 1::2] = c[:-1, :-1] | c[:-1, 1:] | c[1:, :-1] | c[1:, 1:]  # corners
    return r


def _label_classes(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """4-connected components of each class on the refined grid -> (labels, class of each node).

    TN is labelled on the pixel grid (4-connected) and copied to the refined cells: a TN edge or corner
    only exists between TN pixels, so its component is that of its top-left pixel (a 4x cheaper pass
    over the usually largest class)."""
    labels = np.zeros(r.shape, dtype=np.int32)
    tn_pix, n_tn = ndimage.label(r[0::2, 0::2] == TN)
    up = np.repeat(np.repeat(tn_pix, 2, axis=0), 2, axis=1)[: r.shape[0], : r.shape[1]]
    m = r == TN
    labels[m] = up[m] - 1
    node_class = [np.full(n_tn, TN, dtype=np.int8)]
    offset = n_tn
    for k in (FP, FN, TP):
        lab, n = ndimage.label(r == k)
        m = lab > 0
        labels[m] = lab[m] - 1 + offset
        node_class.append(np.full(n, k, dtype=np.int8))
        offset += n
    return labels, np.concatenate(node_class)


def _unique_pairs(labels: np.ndarray) -> np.ndarray:
    """Unordered pairs of distinct labels that touch (4-neighbours on the refined grid), shape (E, 2)."""
    n = np.int64(labels.max()) + 1
    keys = []
    for a, b in ((labels[:, :-1], labels[:, 1:]), (labels[:-1, :], labels[1:, :])):
        m = a != b
        x, y = a[m].astype(np.int64), b[m].astype(np.int64)
        keys.append(np.minimum(x, y) * n + np.maximum(x, y))
    k = np.unique(np.concatenate(keys))
    return np.stack([k // n, k % n], axis=1)


def _clusters(n: int, edges: np.ndarray, member: np.ndarray) -> np.ndarray:
    """Union-find over edges whose two ends are both members (connected components of that subgraph)."""
    keep = member[edges[:, 0]] & member[edges[:, 1]]
    e = edges[keep]
    adj = coo_matrix((np.ones(len(e), dtype=np.int8), (e[:, 0], e[:, 1])), shape=(n, n))
    return connected_components(adj, directed=False)[1]


@dataclass(frozen=True)
class ComponentGraph:
    """Nodes are connected components of the four classes; edges join touching components.

    Attributes: `node_class` (TN/FP/FN/TP per node), `edges` (E, 2), `pixel_node` (H, W: the node of
    each pixel), `pred_cluster` / `gt_cluster` (the P- / G-component a foreground node belongs to),
    `critical` (bool per node), `n_pixels` (pixels per node; 0 for virtual TP nodes).
    """

    node_class: np.ndarray
    edges: np.ndarray
    pixel_node: np.ndarray
    pred_cluster: np.ndarray
    gt_cluster: np.ndarray
    critical: np.ndarray
    n_pixels: np.ndarray

    @property
    def n_nodes(self) -> int:
        return len(self.node_class)

    @property
    def critical_nodes(self) -> np.ndarray:
        return np.flatnonzero(self.critical)

    def critical_mask(self) -> np.ndarray:
        """(H, W) bool: pixels that belong to a critical node."""
        return self.critical[self.pixel_node]

    def to_networkx(self):
        """The same graph as a networkx.Graph (node attrs: pred, gt, pixels, clusters, critical)."""
        import networkx as nx
        g = nx.Graph()
        for v, k in enumerate(self.node_class):
            g.add_node(v, pred=int(k) & 1, gt=int(k) >> 1, pixels=int(self.n_pixels[v]),
                       pred_cluster=int(self.pred_cluster[v]), gt_cluster=int(self.gt_cluster[v]),
                       critical=bool(self.critical[v]))
        g.add_edges_from(map(tuple, self.edges.tolist()))
        return g


def critical_test(node_class: np.ndarray, edges: np.ndarray, pred_cluster: np.ndarray,
                  gt_cluster: np.ndarray) -> np.ndarray:
    """Paper, critical nodes: a wrong node (FP or FN) is *regular* iff it touches exactly one
    correct-background (TN) node and its other neighbours lie in exactly one foreground cluster of the
    counter class (G-clusters for FP, P-clusters for FN). Every other wrong node is critical."""
    n = len(node_class)
    u = np.concatenate([edges[:, 0], edges[:, 1]])  # directed view of each undirected edge
    w = np.concatenate([edges[:, 1], edges[:, 0]])
    wrong = (node_class == FP) | (node_class == FN)
    m = wrong[u]
    u, w = u[m], w[m]
    to_tn = node_class[w] == TN
    n_tn = np.bincount(u[to_tn], minlength=n)  # edges are unique, so this counts distinct TN nbrs
    uf, wf = u[~to_tn], w[~to_tn]
    counter = np.where(node_class[uf] == FP, gt_cluster[wf], pred_cluster[wf])
    pairs = np.unique(uf * n + counter)
    n_cl = np.bincount(pairs // n, minlength=n)
    return wrong & ((n_tn != 1) | (n_cl != 1))


def component_graph(pred, gt) -> ComponentGraph:
    """Build the component graph of binary `pred` vs `gt` and mark its critical nodes.

    >>> gt = np.zeros((7, 7), int); gt[1:6, 1:6] = 1; gt[2:5, 2:5] = 0      # a ring
    >>> pred = gt.copy(); pred[1, 3] = 0                                   # ... with one gap
    >>> int(component_graph(pred, gt).critical.sum())                      # the gap is critical
    1
    """
    p, g = check_pair(pred, gt)
    r = refine(p, g)
    labels, node_class = _label_classes(r)
    n = len(node_class)
    edges = _unique_pairs(labels) if n > 1 else np.zeros((0, 2), dtype=np.int64)
    pred_cluster = _clusters(n, edges, (node_class & 1).astype(bool))
    gt_cluster = _clusters(n, edges, (node_class & 2).astype(bool))
    crit = critical_test(node_class, edges, pred_cluster, gt_cluster)
    pixel_node = labels[2:-2:2, 2:-2:2]  # drop the padding ring of pixels
    n_pixels = np.bincount(pixel_node.ravel(), minlength=n)
    return ComponentGraph(node_class, edges, pixel_node, pred_cluster, gt_cluster, crit, n_pixels)


def critical_regions(pred, gt) -> list[np.ndarray]:
    """One (H, W) bool mask per critical node: the pixels whose flip the Topograph loss asks for.

    >>> gt = np.zeros((5, 9), int); gt[2, 1:8] = 1          # a line ...
    >>> pred = gt.copy(); pred[2, 4] = 0                    # ... broken in the middle
    >>> [int(m.sum()) for m in critical_regions(pred, gt)]
    [1]
    """
    cg = component_graph(pred, gt)
    return [cg.pixel_node == v for v in cg.critical_nodes]
