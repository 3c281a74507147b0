"""Many relational structures as one disjoint union of tensors, the input of every model."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from iclr25.core.errors import UserError
from iclr25.simplicial_oversquashing.structure import RELATIONS, RelationalStructure


@dataclass
class Batch:
    x: torch.Tensor  # (N, d) cell features
    rel: dict[str, tuple[torch.Tensor, torch.Tensor, torch.Tensor]]  # name -> (src, dst, via), each (m,)
    cell_dim: torch.Tensor  # (N,)
    graph: torch.Tensor  # (N,) which structure each cell belongs to
    num_graphs: int
    root: torch.Tensor  # (num_graphs,) the readout cell of each structure (readout="root")
    _typed: dict = field(default_factory=dict, repr=False)

    @property
    def num_cells(self) -> int:
        return self.x.shape[0]

    def typed(self, relations: tuple[str, ...]) -> tuple[torch.Tensor, ...]:
        """All tuples of `relations` at once: (src, dst, via, rel, inv_deg), rel = position in `relations`,
        inv_deg (N·R, 1) = 1 / (number of R_r-tuples into σ) at row σ·R + r, for mean aggregation. Cached."""
        if relations not in self._typed:
            parts = [(self.rel[r], k) for k, r in enumerate(relations) if r in self.rel]
            if parts:
                src, dst, via = (torch.cat([p[i] for p, _ in parts]) for i in range(3))
                rel = torch.cat([torch.full_like(p[0], k) for p, k in parts])
            else:
                src = dst = via = rel = torch.zeros(0, dtype=torch.long)
            key = dst * len(relations) + rel
            deg = torch.bincount(key, minlength=self.num_cells * len(relations))
            inv = 1.0 / deg.clamp(min=1).to(self.x.dtype)[:, None]
            self._typed[relations] = (src, dst, via, rel, inv)
        return self._typed[relations]


def collate(structures: Sequence[RelationalStructure], roots: Sequence[int] | None = None,
            dtype: torch.dtype = torch.float32) -> Batch:
    """Stack structures into one Batch (cell indices offset per structure). `roots[i]` is structure i's
    readout cell (default 0, its first vertex)."""
    if not structures:
        raise UserError("cannot batch an empty list of structures")
    dims = {s.x.shape[1] for s in structures}
    if len(dims) != 1:
        raise UserError(f"structures have different feature widths {sorted(dims)}")
    sizes = np.array([s.num_cells for s in structures])
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    rel = {}
    for name in RELATIONS:
        parts = [(s.relations[name], o) for s, o in zip(structures, offsets, strict=True)
                 if name in s.relations and len(s.relations[name])]
        if not parts:
            continue
        src = np.concatenate([r.src + o for r, o in parts])
        dst = np.concatenate([r.dst + o for r, o in parts])
        via = np.concatenate([np.where(r.via >= 0, r.via + o, -1) for r, o in parts])
        rel[name] = (torch.from_numpy(src), torch.from_numpy(dst), torch.from_numpy(via))
    roots_arr = np.zeros(len(structures), dtype=np.int64) if roots is None else np.asarray(roots)
    return Batch(
        x=torch.from_numpy(np.concatenate([s.x for s in structures])).to(dtype),
        rel=rel,
        cell_dim=torch.from_numpy(np.concatenate([s.cell_dim for s in structures])),
        graph=torch.from_numpy(np.repeat(np.arange(len(structures)), sizes)),
        num_graphs=len(structures),
        root=torch.from_numpy(offsets + roots_arr),
    )
