"""Relational rewiring (Section 5): run a graph rewirer on the symmetrised influence graph of a relational
structure and add the new pairs, both directions, as the REWIRE relation (SDRF, FoSR, AFRC-4/BORF), or
delete the most positively curved influence edges ("prune"). Seeded: same seed, same pairs."""

from __future__ import annotations

import networkx as nx
import numpy as np

from iclr25.core.errors import UserError
from iclr25.simplicial_oversquashing.curvature import bfc_edge
from iclr25.simplicial_oversquashing.structure import Relation, RelationalStructure

REWIRINGS = ("none", "sdrf", "fosr", "afrc4", "prune")
Pair = tuple[int, int]


def sdrf(G: nx.Graph, iterations: int, tau: float = 1.0, seed: int = 0) -> list[Pair]:
    """Stochastic Discrete Ricci Flow (Topping et al. 2022, Alg. 1) without edge removal, as the paper runs
    it: each iteration takes the edge (x, y) of least Balanced Forman curvature (ties: smallest edge), and
    among the non-edges (k, l), k ∈ N(x)∪{x}, l ∈ N(y)∪{y}, adds one sampled with probability
    softmax(τ · (Ric_xy after adding (k, l) − Ric_xy before)). Stops early when (x, y) has no candidate."""
    rng = np.random.default_rng(seed)
    nbr = {v: set(G[v]) for v in G}
    added: list[Pair] = []
    for _ in range(iterations):
        edges = sorted((min(u, v), max(u, v)) for u in nbr for v in nbr[u] if u < v)
        if not edges:
            break
        curv = [bfc_edge(nbr, u, v) for u, v in edges]
        x, y = edges[int(np.argmin(curv))]
        before = min(curv)
        cands = [(k, l) for k in sorted(nbr[x] | {x}) for l in sorted(nbr[y] | {y})
                 if k != l and l not in nbr[k]]
        if not cands:
            break
        gains = np.array([_bfc_after(nbr, x, y, k, l) - before for k, l in cands])
        p = np.exp(tau * (gains - gains.max()))  # softmax, shifted for stability
        k, l = cands[rng.choice(len(cands), p=p / p.sum())]
        nbr[k].add(l)
        nbr[l].add(k)
        added.append((k, l))
    return added


def _bfc_after(nbr: dict[int, set[int]], x: int, y: int, k: int, l: int) -> float:
    nbr[k].add(l)
    nbr[l].add(k)
    try:
        return bfc_edge(nbr, x, y)
    finally:
        nbr[k].discard(l)
        nbr[l].discard(k)


def fosr(G: nx.Graph, iterations: int, seed: int = 0, initial_power_iters: int = 5) -> list[Pair]:
    """First-order Spectral Rewiring (Karhadkar et al. 2023, Alg. 1): keep x ≈ the second eigenvector of
    the normalised adjacency by power iteration (orthogonal to √d); each iteration adds the non-edge
    (u, v) minimising y_u·y_v with y = x/√(d+1), the first-order largest increase of the spectral gap, then
    updates the degrees and takes one more power step."""
    nodes = sorted(G.nodes)
    n = len(nodes)
    pos = {v: i for i, v in enumerate(nodes)}
    A = np.zeros((n, n), dtype=bool)
    for u, v in G.edges:
        A[pos[u], pos[v]] = A[pos[v], pos[u]] = True
    d = A.sum(1).astype(np.float64)
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, n)

    def power_step(x: np.ndarray) -> np.ndarray:
        sd = np.sqrt(np.maximum(d, 1.0))
        x = x - x.dot(sd) * sd / sd.dot(sd)  # remove the top eigenvector √d
        y = x + (A @ (x / sd)) / sd
        return y / max(np.linalg.norm(y), 1e-300)

    for _ in range(initial_power_iters):
        x = power_step(x)
    added: list[Pair] = []
    for _ in range(iterations):
        y = x / np.sqrt(d + 1)
        prod = np.outer(y, y)
        prod[A] = np.inf
        np.fill_diagonal(prod, np.inf)
        if not np.isfinite(prod).any():  # complete graph
            break
        i, j = np.unravel_index(int(np.argmin(prod)), prod.shape)
        A[i, j] = A[j, i] = True
        d[i] += 1
        d[j] += 1
        added.append((nodes[min(i, j)], nodes[max(i, j)]))
        x = power_step(x)
    return added


def afrc4_values(nbr: dict[int, set[int]]) -> dict[Pair, float]:
    """Augmented Forman curvature with 3- and 4-cycles: AFRC₄(u,v) = 4 − d_u − d_v + 3·#△ + 2·#□, #□ the
    4-cycles u~v~b~a~u through the edge."""
    out = {}
    for u in nbr:
        for v in nbr[u]:
            if u < v:
                tri = len(nbr[u] & nbr[v])
                quad = sum(len(nbr[a] & (nbr[v] - {u, a})) for a in nbr[u] - {v})
                out[(u, v)] = 4 - len(nbr[u]) - len(nbr[v]) + 3 * tri + 2 * quad
    return out


def afrc4(G: nx.Graph, iterations: int, seed: int = 0) -> list[Pair]:
    """BORF-style rewiring with AFRC-4 (Fesser & Weber 2023): fit a 2-component Gaussian mixture to the
    first iteration's curvatures; the lower threshold is the std-weighted midpoint of the two means. Each
    iteration, for every edge (u, v) below it (most negative first), connect v to a random neighbour of u
    not adjacent to v (else u to one of v's). Several pairs per iteration; stops when none is below."""
    from sklearn.mixture import GaussianMixture
    rng = np.random.default_rng(seed)
    nbr = {v: set(G[v]) for v in G}
    added: list[Pair] = []
    lower = None
    for _ in range(iterations):
        curv = afrc4_values(nbr)
        vals = np.array(list(curv.values()), dtype=np.float64)
        if lower is None:
            if len(np.unique(vals)) < 2:
                break
            gmm = GaussianMixture(n_components=2, random_state=0).fit(vals[:, None])
            m, s = gmm.means_[:, 0], np.sqrt(gmm.covariances_.reshape(2))
            lower = float((m[0] * s[1] + m[1] * s[0]) / (s[0] + s[1])) if s.sum() > 0 else float(m.mean())
        negative = sorted((c, e) for e, c in curv.items() if c < lower)
        if not negative:
            break
        for _, (u, v) in negative:
            for a, b in ((u, v), (v, u)):
                choices = sorted(nbr[a] - nbr[b] - {b})
                if choices:
                    w = int(choices[rng.integers(len(choices))])
                    nbr[b].add(w)
                    nbr[w].add(b)
                    added.append((min(b, w), max(b, w)))
                    break
    return added


def prune(G: nx.Graph, iterations: int) -> list[Pair]:
    """Delete, one at a time, the influence edge of largest Balanced Forman curvature whose removal keeps
    the graph connected (the paper's "prune" removes max-curvature edges; we never disconnect)."""
    H = nx.Graph(G)
    removed: list[Pair] = []
    for _ in range(iterations):
        bridges = {frozenset(e) for e in nx.bridges(H)}
        nbr = {v: set(H[v]) for v in H}
        options = [((u, v), bfc_edge(nbr, u, v)) for u, v in H.edges if frozenset((u, v)) not in bridges]
        if not options:
            break
        (u, v), _ = max(options, key=lambda t: (t[1], -min(t[0]), -max(t[0])))
        H.remove_edge(u, v)
        removed.append((min(u, v), max(u, v)))
    return removed


def rewire(rs: RelationalStructure, method: str, iterations: int = 40, seed: int = 0,
           tau: float = 1.0) -> RelationalStructure:
    """Relational rewiring of `rs`: `method` ∈ sdrf | fosr | afrc4 | prune | none runs on the symmetrised
    influence graph; sdrf/fosr/afrc4 add each new pair (u, v) to the REWIRE relation as u→v and v→u (no
    other relation changes); prune deletes every tuple between the pairs it removes.

    >>> from iclr25.simplicial_oversquashing.structure import RelationalStructure
    >>> rs = RelationalStructure.from_graph([(i, (i + 1) % 8) for i in range(8)])
    >>> len(rewire(rs, "fosr", iterations=2).relations["rewire"])
    4
    """
    if method not in REWIRINGS:
        raise UserError(f"unknown rewiring {method!r}; choose from {', '.join(REWIRINGS)}")
    if isinstance(iterations, bool) or not isinstance(iterations, int | np.integer) or iterations < 0:
        raise UserError(f"iterations must be an integer >= 0, got {iterations!r}")
    if method == "none" or iterations == 0:
        return rs
    G = rs.influence_graph()
    if method == "prune":
        return _without_pairs(rs, prune(G, int(iterations)))
    if method == "sdrf":
        pairs = sdrf(G, int(iterations), tau=tau, seed=seed)
    elif method == "fosr":
        pairs = fosr(G, int(iterations), seed=seed)
    else:
        pairs = afrc4(G, int(iterations), seed=seed)
    return with_rewire_pairs(rs, pairs)


def with_rewire_pairs(rs: RelationalStructure, pairs: list[Pair]) -> RelationalStructure:
    """`rs` with each pair added to REWIRE in both directions."""
    if not pairs:
        return rs
    u, v = (np.array(a, dtype=np.int64) for a in zip(*pairs, strict=True))
    old = rs.relations.get("rewire", Relation.empty())
    new = Relation.of(np.concatenate([old.src, u, v]), np.concatenate([old.dst, v, u]))
    return rs.with_relation("rewire", new)


def _without_pairs(rs: RelationalStructure, pairs: list[Pair]) -> RelationalStructure:
    drop = {frozenset(p) for p in pairs}
    out = rs
    for name, r in rs.relations.items():
        keep = np.array([frozenset((int(s), int(d))) not in drop for s, d in zip(r.src, r.dst, strict=True)],
                        dtype=bool)
        if len(r) and not keep.all():
            out = out.with_relation(name, Relation(r.src[keep], r.dst[keep], r.via[keep]))
    return out
