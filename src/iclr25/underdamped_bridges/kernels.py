"""The moves every integrator is built from. Only the O-step (velocity noise, Ornstein-Uhlenbeck) is
stochastic and carries a density; the A (position) and B (force) steps are shears with unit Jacobian, so
they leave the Radon-Nikodym derivative untouched (paper §3, "only velocity transitions are stochastic").

O-step, first order (the paper's code):  v' ~ N(v (1 - η) + 2 η u,  2 η M),       η = γ dt < 1
O-step, exact OU solution (our variant): v' ~ N(v e^{-η} + (1 - e^{-η}) 2 u,  (1 - e^{-2η}) M)
The two agree to first order in η; the exact one keeps N(0, M) invariant at every η.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

LOG_2PI = math.log(2 * math.pi)


def log_normal(y: Tensor, mean: Tensor, var: Tensor) -> Tensor:
    """log N(y; mean, diag(var)) summed over the last axis: (B, d) -> (B,)."""
    var = torch.as_tensor(var, dtype=y.dtype)
    return -0.5 * (((y - mean) ** 2) / var + torch.log(var) + LOG_2PI).sum(-1)


def o_coefficients(eta: Tensor, exact: bool = False) -> tuple[Tensor, Tensor, Tensor]:
    """(decay, drive, variance factor) of one O-step: mean = decay·v + drive·2u, var = factor·M."""
    if exact:
        decay = torch.exp(-eta)
        return decay, 1 - decay, -torch.expm1(-2 * eta)
    return 1 - eta, eta, 2 * eta


def o_mean(v: Tensor, control: Tensor | None, eta: Tensor, exact: bool = False) -> Tensor:
    """Mean of the O-kernel from velocity v with control u (None: no control)."""
    decay, drive, _ = o_coefficients(eta, exact)
    mean = decay * v
    return mean if control is None else mean + 2 * drive * control


def o_variance(eta: Tensor, mass: Tensor, exact: bool = False) -> Tensor:
    """Variance of the O-kernel: 2ηM (first order) or (1 - e^{-2η})M (exact)."""
    return o_coefficients(eta, exact)[2] * mass


def o_log_prob(v_new: Tensor, v: Tensor, control: Tensor | None, eta: Tensor, mass: Tensor,
               exact: bool = False) -> Tensor:
    """log density of the O-kernel v -> v_new: log N(v_new; o_mean(v, u), o_variance)."""
    return log_normal(v_new, o_mean(v, control, eta, exact), o_variance(eta, mass, exact))


def o_log_ratio(v: Tensor, mean_b: Tensor, v_new: Tensor, mean_f: Tensor, var: Tensor) -> Tensor:
    """log N(v; mean_b, var) - log N(v_new; mean_f, var) for one O-step and its backward kernel (same
    variance, so the normalisers cancel): (B, d) -> (B,)."""
    return -0.5 * (((v - mean_b) ** 2 - (v_new - mean_f) ** 2) / var).sum(-1)


def a_step(x: Tensor, v: Tensor, h: Tensor, mass: Tensor) -> Tensor:
    """A: x + h M^{-1} v (a shear in x given v, Jacobian 1)."""
    return x + h * v / mass


def b_step(v: Tensor, force: Tensor, h: Tensor) -> Tensor:
    """B: v + h F(x) (a shear in v given x, Jacobian 1)."""
    return v + h * force
