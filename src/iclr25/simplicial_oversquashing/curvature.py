"""Edge curvatures that locate bottlenecks, on a graph or on a relational structure's (symmetrised)
influence graph: Balanced Forman (Topping et al. 2022, written from its formula), Ollivier-Ricci (optimal
transport with POT), the weighted curvature WC / NWC of the paper, and the spectral gap."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np

from iclr25.core.errors import UserError

if TYPE_CHECKING:
    from iclr25.simplicial_oversquashing.structure import RelationalStructure

Edge = tuple[int, int]
CURVATURES = ("bfc", "ollivier")


def as_graph(obj: nx.Graph | RelationalStructure) -> nx.Graph:
    """A simple undirected graph: a relational structure gives its influence graph."""
    from iclr25.simplicial_oversquashing.structure import RelationalStructure
    if isinstance(obj, RelationalStructure):
        return obj.influence_graph()
    if not isinstance(obj, nx.Graph):
        raise UserError(f"expected a networkx graph or a RelationalStructure, got {type(obj).__name__}")
    G = nx.Graph(obj) if obj.is_directed() or obj.is_multigraph() else obj
    if nx.number_of_selfloops(G):
        raise UserError("curvature needs a graph without self-loops")
    return G


def balanced_forman(G: nx.Graph | RelationalStructure) -> dict[Edge, float]:
    """Balanced Forman curvature of every edge i~j (Topping et al. 2022, Def. 1):

        Ric(i,j) = 2/d_i + 2/d_j − 2 + 2·#△/max(d_i,d_j) + #△/min(d_i,d_j)
                   + (#□_i + #□_j) / (γ_max · max(d_i,d_j))       (last term only if γ_max > 0),

    and 0 if min(d_i, d_j) = 1. #△: common neighbours; #□_i: neighbours k of i (not j, not adjacent to j)
    that close a 4-cycle i~j~w~k~i whose w is not adjacent to i (no diagonal); γ_max: the most such
    4-cycles through one node k (or w).

    >>> round(balanced_forman(nx.cycle_graph(4))[(0, 1)], 6)     # 4-cycle: 2/2 + 2/2 − 2 + (1 + 1)/(1·2)
    1.0
    """
    G = as_graph(G)
    nbr = {v: set(G[v]) for v in G}
    return {(i, j): bfc_edge(nbr, i, j) for i, j in G.edges}


def bfc_edge(nbr: dict[int, set[int]], i: int, j: int) -> float:
    """Balanced Forman curvature of the edge i~j given every node's neighbour set."""
    di, dj = len(nbr[i]), len(nbr[j])
    if min(di, dj) == 1:
        return 0.0
    dmax, dmin = max(di, dj), min(di, dj)
    tri = len(nbr[i] & nbr[j])
    sq_i = _squares_at(i, j, nbr)
    sq_j = _squares_at(j, i, nbr)
    ric = 2 / di + 2 / dj - 2 + 2 * tri / dmax + tri / dmin
    gamma = max([*sq_i.values(), *sq_j.values()], default=0)
    if gamma > 0:
        ric += (len(sq_i) + len(sq_j)) / (gamma * dmax)
    return ric


def _squares_at(i: int, j: int, nbr: dict[int, set[int]]) -> dict[int, int]:
    """{k: number of diagonal-free 4-cycles i~j~w~k~i through k} for the k ∈ #□_i(i, j)."""
    out = {}
    for k in nbr[i] - nbr[j] - {j}:
        n = len((nbr[k] & nbr[j]) - nbr[i] - {i})
        if n:
            out[k] = n
    return out


POT_ABOVE = 200  # edges: below, each W1 is a small linear program (scipy); above, POT's emd2 pays its import


def ollivier_ricci(G: nx.Graph | RelationalStructure, alpha: float = 0.0, solver: str = "auto"
                   ) -> dict[Edge, float]:
    """Ollivier-Ricci curvature κ(u,v) = 1 − W₁(m_u, m_v) for every edge, with m_u = α at u and (1−α)/d_u
    on each neighbour, W₁ under shortest-path distance (exact optimal transport). α = 0 as in the paper's
    code. `solver`: 'linprog' (scipy's HiGHS, no extra import), 'pot' (POT's emd2: faster per edge, but
    importing POT costs seconds) or 'auto' (POT for graphs over POT_ABOVE edges). Values are rounded to
    12 decimals, so both solvers give the same numbers.

    >>> round(ollivier_ricci(nx.complete_graph(4))[(0, 1)], 6)   # K_n: n/(n−1) − 1 ... = 2/3 for n = 4
    0.666667
    """
    if not 0.0 <= alpha < 1.0:
        raise UserError(f"alpha must be in [0, 1), got {alpha}")
    if solver not in ("auto", "linprog", "pot"):
        raise UserError(f"unknown optimal-transport solver {solver!r}; choose auto, linprog or pot")
    G = as_graph(G)
    if solver == "auto":
        solver = "pot" if G.number_of_edges() > POT_ABOVE else "linprog"
    if solver == "pot":
        import ot
        w1 = ot.emd2
    else:
        w1 = _w1_linprog
    nodes = list(G.nodes)
    pos = {v: i for i, v in enumerate(nodes)}
    D = _hop_matrix(G, nodes)
    out: dict[Edge, float] = {}
    for u, v in G.edges:
        su, sv = [pos[u], *(pos[w] for w in G[u])], [pos[v], *(pos[w] for w in G[v])]
        mu = np.full(len(su), (1 - alpha) / (len(su) - 1))
        mv = np.full(len(sv), (1 - alpha) / (len(sv) - 1))
        mu[0], mv[0] = alpha, alpha
        out[(u, v)] = round(1.0 - float(w1(mu, mv, D[np.ix_(su, sv)])), 12) + 0.0
    return out


def _w1_linprog(mu: np.ndarray, mv: np.ndarray, cost: np.ndarray) -> float:
    """Exact W₁ between two small discrete measures: the transport linear program (n·m flows, row sums
    mu, column sums mv) solved by scipy's HiGHS."""
    from scipy.optimize import linprog
    n, m = cost.shape
    A = np.zeros((n + m, n * m))
    for i in range(n):
        A[i, i * m:(i + 1) * m] = 1.0
    for j in range(m):
        A[n + j, j::m] = 1.0
    res = linprog(cost.ravel(), A_eq=A, b_eq=np.concatenate([mu, mv]), bounds=(0, None), method="highs")
    if res.status != 0:
        raise UserError(f"optimal transport failed: {res.message}")
    return float(res.fun)


def _hop_matrix(G: nx.Graph, nodes: list) -> np.ndarray:
    """All-pairs hop distances (dense); the two neighbourhoods of an edge are always within 3 hops."""
    from scipy.sparse.csgraph import shortest_path
    A = nx.to_scipy_sparse_array(G, nodelist=nodes, format="csr")
    return shortest_path(A, unweighted=True, directed=False)


def edge_curvature(G: nx.Graph | RelationalStructure, kappa: str = "bfc") -> dict[Edge, float]:
    if kappa == "bfc":
        return balanced_forman(G)
    if kappa == "ollivier":
        return ollivier_ricci(G)
    raise UserError(f"unknown curvature {kappa!r}; choose from {', '.join(CURVATURES)}")


def weighted_curvature(G: nx.Graph | RelationalStructure, kappa: str = "bfc") -> tuple[float, float]:
    """(WC, NWC): WC(G) = 2·Σ_e κ(e)·EBC(e), with EBC the (normalised) edge betweenness centrality;
    NWC = 2·Σ of the negative terms, the part of WC carried by negatively curved edges."""
    G = as_graph(G)
    curv = edge_curvature(G, kappa)
    ebc = nx.edge_betweenness_centrality(G)
    terms = np.array([curv[e] * ebc[e] for e in curv])
    return float(2 * terms.sum()), float(2 * terms[terms < 0].sum())


def worst_edges(curv: dict[Edge, Any], k: int = 5) -> list[tuple[Edge, float]]:
    """The `k` most negatively curved edges, most negative first (ties by edge)."""
    return sorted(((e, float(c)) for e, c in curv.items()), key=lambda t: (t[1], t[0]))[:k]


def spectral_gap(G: nx.Graph | RelationalStructure) -> float:
    """λ₁ of the normalised Laplacian I − D^{-1/2} A D^{-1/2}: 0 for a disconnected graph; FoSR raises it."""
    G = as_graph(G)
    if G.number_of_nodes() < 2:
        return 0.0
    L = nx.normalized_laplacian_matrix(G, nodelist=sorted(G.nodes)).toarray()
    return float(np.sort(np.linalg.eigvalsh(L))[1])
