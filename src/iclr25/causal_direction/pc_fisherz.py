"""causal-learn's PC (stable skeleton, Fisher-z tests, unshielded colliders by sepset with priority 2, Meek
rules) with the skeleton's conditional-independence tests batched by conditioning set.

Why: stable PC tests *every* conditioning set S ⊂ adj(x)∖{y} of the current size, not only up to the first
separating one (it collects them all), so when the graph stays dense — as it does on [X, Ỹ] when label noise
keeps every feature dependent on Ỹ — an edge of a 21-node graph costs 2¹⁹ tests. causal-learn runs them one
at a time in Python (twonorm, 7,400 rows: ~1e8 tests, hours). Here each conditioning set is factorised once
per depth and yields the partial correlation of every pair outside it at once,

    ρ_{xy·S} = R_xy / √(R_xx R_yy),   R = Σ − Σ_{·S} Σ_SS⁻¹ Σ_{S·}   (Σ the correlation matrix),

which is causal-learn's −P₀₁/√(P₀₀P₁₁), P = Σ[{x,y}∪S]⁻¹; its Fisher-z p-value exceeds α exactly when |ρ| is
below a critical value. A test whose |ρ| lies within 1e-6 of that value, or whose matrices are near-singular,
is run by causal-learn's own `FisherZ`, so every decision is causal-learn's. The bookkeeping (which edges
go, which separating sets are recorded, in which order) follows `SkeletonDiscovery.skeleton_discovery` step by
step, and the orientation is causal-learn's `UCSepset.uc_sepset` and `Meek.meek` on the resulting graph: the
same CausalGraph as `causallearn.search.ConstraintBased.PC.pc(data, alpha, "fisherz")` (tests check this)."""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from math import comb

import numpy as np

MAX_VARS = 62  # conditioning sets are int64 bit masks
NEAR = 1e-6  # |ρ| this close to the test's critical value: causal-learn's own test decides
DEGENERATE = 1e-3  # a residual variance (or pivot², or 1 − |ρ|) below this: causal-learn's own test decides
CELLS_PER_CHUNK = 4_000_000  # conditioning sets factorised together × p²: about 32 MB per (B, p, p) array


def pc(data: np.ndarray, alpha: float = 0.05):
    """The CausalGraph of causal-learn's `pc(data, alpha, indep_test="fisherz")` (stable=True, uc_rule=0,
    uc_priority=2, no background knowledge, unbounded depth); `.G.graph` holds the CPDAG.

    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(size=2000); c = rng.normal(size=2000)
    >>> b = a + c + rng.normal(size=2000)                 # collider a → b ← c
    >>> g = pc(np.column_stack([a, b, c])).G.graph
    >>> int(g[1, 0]), int(g[0, 1]), int(g[1, 2]), int(g[2, 1])   # graph[j, i] = 1, graph[i, j] = −1: i → j
    (1, -1, 1, -1)
    """
    from causallearn.graph.GraphClass import CausalGraph
    from causallearn.utils.cit import CIT
    from causallearn.utils.PCUtils import Meek, UCSepset
    from causallearn.utils.PCUtils.Helper import append_value

    data = np.asarray(data)
    n, p = data.shape
    if p > MAX_VARS or n < p + 3:  # outside the fast path's bit masks, or Fisher-z's n − |S| − 3 ≥ 0
        from causallearn.search.ConstraintBased.PC import pc as causallearn_pc

        return causallearn_pc(data, alpha=alpha, indep_test="fisherz", show_progress=False)
    assert 0 < alpha < 1
    test = CIT(data, "fisherz")  # causal-learn's test: the correlation matrix, and the near-α referee
    cg = CausalGraph(p)
    cg.set_ind_test(test)
    nodes = cg.G.nodes
    adj = ~np.eye(p, dtype=bool)
    depth = -1
    while adj.sum(axis=1).max() - 1 > depth:
        depth += 1
        found, union = _tests_at_depth(test, n, adj, depth, alpha)
        edge_removal = []
        for x in range(p):  # causal-learn's loop, with the test outcomes looked up
            neigh = np.flatnonzero(adj[x])
            if len(neigh) < depth - 1:
                continue
            for y in neigh:
                if found[x, y]:
                    edge_removal += [(x, y), (y, x)]
                if (x, y) in edge_removal:
                    sep = tuple(int(i) for i in np.flatnonzero((int(union[x, y]) >> np.arange(p)) & 1))
                    append_value(cg.sepset, x, y, sep)
                    append_value(cg.sepset, y, x, sep)
        for x, y in list(set(edge_removal)):
            edge = cg.G.get_edge(nodes[x], nodes[y])
            if edge is not None:
                cg.G.remove_edge(edge)
            adj[x, y] = adj[y, x] = False
    return Meek.meek(UCSepset.uc_sepset(cg, 2))


@lru_cache(maxsize=256)
def _subsets(m: int, k: int) -> np.ndarray:
    """All k-subsets of range(m) as rows, in itertools order. (C(m, k), k)"""
    if k == 0:
        return np.zeros((1, 0), dtype=np.int64)
    return np.array(list(combinations(range(m), k)), dtype=np.int64)


def _conditioning_sets(adj: np.ndarray, k: int, bit: np.ndarray, neigh_mask: np.ndarray) -> np.ndarray:
    """Every S (bit mask) some test at depth k needs: S ⊂ adj(x), |S| = k, with a y ∈ adj(x)∖S left; each
    once, ascending. (m,)"""
    p = len(adj)
    deg = adj.sum(axis=1)
    xs = np.flatnonzero(deg > k)
    if len(xs) == 0:
        return np.zeros(0, dtype=np.int64)
    per_node = sum(comb(int(deg[x]), k) for x in xs)
    if per_node > comb(p, k):  # dense graph: filter all k-subsets rather than merge per-node ones
        S = bit[_subsets(p, k)].sum(axis=1)
        keep = np.zeros(len(S), dtype=bool)
        for x in xs:
            keep |= (S & ~neigh_mask[x]) == 0
        return np.sort(S[keep])
    return np.unique(np.concatenate([bit[np.flatnonzero(adj[x])][_subsets(int(deg[x]), k)].sum(axis=1)
                                     for x in xs]))


def _tests_at_depth(test, n: int, adj: np.ndarray, k: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """For every ordered edge (x, y): is there an S ⊂ adj(x)∖{y}, |S| = k, with p(x ⫫ y | S) > α, and the
    union of all such S as a bit mask. (p, p) bool, (p, p) int64

    p > α  ⟺  |ρ_{xy·S}| < r_k = tanh(Φ⁻¹(1 − α/2) / √(n − k − 3)), so no p-value is computed except by
    causal-learn for the tests within NEAR of r_k."""
    from scipy.special import ndtri

    p = adj.shape[0]
    bit = np.int64(1) << np.arange(p, dtype=np.int64)  # (p,)
    neigh_mask = (adj * bit[None, :]).sum(axis=1)  # (p,) adj(x) as a mask
    found = np.zeros((p, p), dtype=bool)
    union = np.zeros((p, p), dtype=np.int64)
    sets = _conditioning_sets(adj, k, bit, neigh_mask)
    r_crit = np.tanh(ndtri(1 - alpha / 2) / np.sqrt(n - k - 3))
    chunk = max(64, CELLS_PER_CHUNK // (p * p))
    for lo in range(0, len(sets), chunk):
        S = sets[lo:lo + chunk]  # (B,)
        in_s = ((S[:, None] >> np.arange(p)) & 1).astype(bool)  # (B, p)
        # the tests this chunk answers: x with S ⊂ adj(x), y ∈ adj(x)∖S
        need = ((S[:, None] & ~neigh_mask[None, :]) == 0)[:, :, None] & adj[None] & ~in_s[:, None, :]
        a, degenerate = _abs_partial_correlations(test.correlation_matrix, in_s, k)  # (B, p, p)
        indep = need & (a < r_crit)
        check = need & (degenerate | (np.abs(a - r_crit) <= NEAR))
        if check.any():  # causal-learn decides these itself
            for b, x, y in zip(*np.nonzero(check), strict=True):
                indep[b, x, y] = test(int(x), int(y), np.flatnonzero(in_s[b]).tolist()) > alpha
        rows = np.flatnonzero(indep.any(axis=(1, 2)))
        if len(rows):
            found |= indep[rows].any(axis=0)
            union |= np.bitwise_or.reduce(np.where(indep[rows], S[rows, None, None], 0), axis=0)
    return found, union


def _abs_partial_correlations(corr: np.ndarray, in_s: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """|ρ_{xy·S}| for every pair and every conditioning set in the chunk, and where the factorisation is too
    close to singular to trust (causal-learn's own test is then used). (B, p, p) float, (B, p, p) bool"""
    B, p = in_s.shape
    if k == 0:
        R = np.broadcast_to(corr, (B, p, p))
        bad = np.zeros(B, dtype=bool)
    else:
        idx = np.nonzero(in_s)[1].reshape(B, k)  # (B, k) the members of S, ascending
        sigma_ss = corr[idx[:, :, None], idx[:, None, :]]  # (B, k, k)
        try:
            L = np.linalg.cholesky(sigma_ss)  # (B, k, k)
        except np.linalg.LinAlgError:  # a singular Σ_SS somewhere in the chunk: causal-learn decides all
            return np.zeros((B, p, p)), np.ones((B, p, p), dtype=bool)
        bad = np.diagonal(L, axis1=1, axis2=2).min(axis=1) ** 2 < DEGENERATE  # (B,)
        W = np.linalg.solve(L, corr[idx])  # (B, k, p) L⁻¹Σ_{S·}
        R = corr[None] - np.matmul(W.transpose(0, 2, 1), W)  # (B, p, p) residual covariance given S
    var = np.diagonal(R, axis1=1, axis2=2)  # (B, p)
    row_bad = (var < DEGENERATE) | bad[:, None]  # (B, p)
    inv_sd = 1 / np.sqrt(np.where(row_bad, 1.0, var))
    a = np.abs(R) * inv_sd[:, :, None]
    a *= inv_sd[:, None, :]
    degenerate = row_bad[:, :, None] | row_bad[:, None, :] | (a > 1 - DEGENERATE)
    return a, degenerate
