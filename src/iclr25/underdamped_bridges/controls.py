"""The five method families as choices of drift and controls (paper §4 and Table 1). Each exists in an
overdamped and an underdamped version; the underdamped nets read concat(x, v).

| method | drift F_k                      | forward control u | backward control b |
|--------|--------------------------------|-------------------|--------------------|
| ula    | β_k ∇log ρ + (1-β_k) ∇log prior | 0                 | 0                  |
| mcd    | annealed, as ULA                | 0                 | net                |
| cmcd   | annealed, as ULA                | net               | -(the same net)    |
| dis    | ∇log prior (reference process)  | net               | 0                  |
| dbs    | annealed, as ULA                | net               | its own net        |
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from iclr25.core.errors import UserError
from iclr25.underdamped_bridges.networks import PISGRADNet


@dataclass(frozen=True)
class MethodSpec:
    drift: str  # "anneal" | "prior"
    forward_net: bool
    backward: str  # "none" | "own" | "minus_forward"


METHODS: dict[str, MethodSpec] = {
    "ula": MethodSpec("anneal", False, "none"),
    "mcd": MethodSpec("anneal", False, "own"),
    "cmcd": MethodSpec("anneal", True, "minus_forward"),
    "dis": MethodSpec("prior", True, "none"),
    "dbs": MethodSpec("anneal", True, "own"),
}


def method_spec(method: str) -> MethodSpec:
    if method not in METHODS:
        raise UserError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
    return METHODS[method]


class NetControls(nn.Module):
    """PISGRADNet controls for a method (R replicas); counts network evaluations (for cost comparisons).

    `prepare(times)` computes the time features of all of a path's time labels at once; the controls
    then look them up."""

    def __init__(self, method: str, dim: int, underdamped: bool, hidden: int = 128, layers: int = 2,
                 replicas: int = 1) -> None:
        super().__init__()
        spec = method_spec(method)
        in_dim = 2 * dim if underdamped else dim
        net = lambda: PISGRADNet(in_dim, dim, hidden, layers, replicas)  # noqa: E731
        self.forward_net = net() if spec.forward_net else None
        self.backward_net = net() if spec.backward == "own" else None
        self.minus_forward = spec.backward == "minus_forward"
        self.evaluations = 0
        self._emb: dict[str, dict[float, Tensor]] = {}

    def prepare(self, times: list[float]) -> None:
        ts = torch.tensor(times, dtype=torch.float64)
        self._emb = {}
        for key, net in (("f", self.forward_net), ("b", self.backward_net)):
            if net is not None:
                feats = net.time_features(ts)  # (R, T, hidden)
                self._emb[key] = {t: feats[:, j:j + 1] for j, t in enumerate(times)}

    @staticmethod
    def _input(x: Tensor, v: Tensor | None) -> Tensor:
        return x if v is None else torch.cat([x, v], -1)

    def forward_control(self, x: Tensor, v: Tensor | None, t: float) -> Tensor | None:
        if self.forward_net is None:
            return None
        self.evaluations += 1
        return self.forward_net(self._input(x, v), self._emb["f"][t])

    def backward_control(self, x: Tensor, v: Tensor | None, t: float) -> Tensor | None:
        if self.backward_net is not None:
            self.evaluations += 1
            return self.backward_net(self._input(x, v), self._emb["b"][t])
        if self.minus_forward:
            self.evaluations += 1
            return -self.forward_net(self._input(x, v), self._emb["f"][t])
        return None
