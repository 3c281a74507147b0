"""MPSN's simplicial update written straight from its definitions (Bodnar et al. 2021, Sec. 3), cell by
cell over a clique complex enumerated by brute force. Shares only the learned parameters with SINConv, so
agreement checks the relational structure (lift, relations) and the batched message passing together."""

from __future__ import annotations

from itertools import combinations

import networkx as nx
import numpy as np
import torch

from iclr25.simplicial_oversquashing.models import SINConv

Simplex = frozenset[int]


def clique_complex(G: nx.Graph, max_dim: int) -> list[Simplex]:
    """All simplices up to `max_dim` of the clique complex, by testing every vertex subset."""
    nodes = sorted(G.nodes)
    out: list[Simplex] = []
    for k in range(1, max_dim + 2):
        out += [frozenset(c) for c in combinations(nodes, k)
                if all(G.has_edge(a, b) for a, b in combinations(c, 2))]
    return out


def mpsn_neighbourhoods(K: list[Simplex]) -> dict[str, dict[Simplex, list[Simplex]]]:
    """B(σ) faces, C(σ) cofaces, N↑(σ) simplices sharing a coface, N↓(σ) simplices sharing a face."""
    in_k = set(K)
    nb: dict[str, dict[Simplex, list[Simplex]]] = {r: {} for r in
                                                   ("boundary", "coboundary", "upper", "lower")}
    for s in K:
        same = [t for t in K if len(t) == len(s) and t != s]
        nb["boundary"][s] = [s - {v} for v in s] if len(s) > 1 else []
        nb["coboundary"][s] = [t for t in K if len(t) == len(s) + 1 and s < t]
        nb["upper"][s] = [t for t in same if (s | t) in in_k]
        nb["lower"][s] = [t for t in same if len(s) > 1 and len(s & t) == len(s) - 1]
    return nb


@torch.no_grad()
def mpsn_sin_update(conv: SINConv, G: nx.Graph, x_nodes: np.ndarray,
                    max_dim: int = 2) -> dict[Simplex, np.ndarray]:
    """One SIN layer (eval mode) by its equations: for each relation r of `conv`,
    m_r(σ) = MLP_r((1 + ε_r) h_σ + Σ_{τ ∈ N_r(σ)} h_τ), h_σ' = MLP_U(m_{r_1}(σ) ‖ … ‖ m_{r_k}(σ)),
    with h_σ the mean of σ's vertex features. Returns {simplex: h_σ'}."""
    K = clique_complex(G, max_dim)
    nb = mpsn_neighbourhoods(K)
    dtype = conv.eps.dtype
    h = {s: torch.as_tensor(x_nodes[sorted(s)], dtype=dtype).mean(0) for s in K}
    g = conv.mlp
    parts = []
    for k, r in enumerate(conv.relations):
        z = torch.stack([(1 + conv.eps[k]) * h[s] + sum((h[t] for t in nb[r][s]), torch.zeros_like(h[s]))
                         for s in K])
        width = g.w1.shape[2]
        sl = slice(k * width, (k + 1) * width)
        m = torch.relu(z @ g.w1[k] + g.b1[k])
        m = _bn(m, g.bn1, sl)
        m = torch.relu(m @ g.w2[k] + g.b2[k])
        parts.append(_bn(m, g.bn2, sl))
    out = conv.update(torch.cat(parts, dim=-1))
    return {s: out[i].numpy() for i, s in enumerate(K)}


def _bn(z: torch.Tensor, bn: torch.nn.BatchNorm1d, sl: slice) -> torch.Tensor:
    """Batch norm in eval mode, restricted to the features of one relation."""
    return (z - bn.running_mean[sl]) / torch.sqrt(bn.running_var[sl] + bn.eps) * bn.weight[sl] + bn.bias[sl]
