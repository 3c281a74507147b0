"""The one integrator / Radon-Nikodym core shared by all ten methods.

A forward path runs K steps from the prior to the target; the log-weight of a path is the log RND

    log w = log ρ(x_K) + log N(v_K; 0, M) - log p_prior(x_0) - log N(v_0; 0, M)
            + Σ_O-steps [log backward kernel - log forward kernel],

so E[log w] is the ELBO (≤ log Z) and logmeanexp(log w) the importance-sampling estimate of log Z.
A splitting integrator's step is a word over the moves O, B, A (kernels.py); only O-steps carry
densities, because A and B are volume-preserving shears whose inverses are exact. A backward path runs
the same word in reverse from samples of the target (the noising process of a diffusion model), with the
same log-weight.

The paper's Euler–Maruyama step ("em", its code's default for DBS-UD) is not a splitting: the force
enters the velocity kernel's mean, and its backward kernel is the discretised reverse SDE evaluated at the
new state, not the exact inverse of the forward moves:

    forward:  v' ~ N(v (1 − η) + 2η u_k(x, v) + dt F_k(x), 2η M),   x' = x + dt M⁻¹ v'
    backward: v  ~ N(v' (1 − η) + 2η b_{k+1}(x', v') + dt F_{k+1}(x'), 2η M),   x = x' − dt M⁻¹ v'

Our exactly reversible O·B·A word is kept as "oba" (it matches "em"'s forward move and undoes B and A).
The overdamped step is one Gaussian kernel on x: x' ~ N(x + η (F_k(x) + u), 2η), η = dt/γ.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import torch
from torch import Tensor

from iclr25.core.errors import UserError
from iclr25.underdamped_bridges.kernels import a_step, b_step, log_normal, o_coefficients, o_log_ratio
from iclr25.underdamped_bridges.params import SDEParams
from iclr25.underdamped_bridges.targets import Target

# (move, fraction of dt, time offset of an O-step within the step)
SCHEMES: dict[str, tuple[tuple, ...]] = {
    "obab": (("O", 1.0, 0.0), ("B", 0.5), ("A", 1.0), ("B", 0.5)),
    "obabo": (("O", 0.5, 0.0), ("B", 0.5), ("A", 1.0), ("B", 0.5), ("O", 0.5, 0.5)),
    "baoab": (("B", 0.5), ("A", 0.5), ("O", 1.0, 0.5), ("A", 0.5), ("B", 0.5)),
    "oba": (("O", 1.0, 0.0), ("B", 1.0), ("A", 1.0)),  # semi-implicit Euler, B and A undone exactly
}
EM_SCHEME = (("O", 1.0, 0.0), ("O", 1.0, 1.0))  # the paper's EM: O-kernels at k (forward) and k+1 (backward)
INTEGRATORS = ("em", *SCHEMES)
DRIFTS = ("anneal", "prior")


class Controls(Protocol):
    """Forward control u and backward control b at (x, v, t); None means zero. v is None when overdamped.
    `prepare` receives every time label a path will use before the path starts."""

    def prepare(self, times: list[float]) -> None: ...

    def forward_control(self, x: Tensor, v: Tensor | None, t: float) -> Tensor | None: ...

    def backward_control(self, x: Tensor, v: Tensor | None, t: float) -> Tensor | None: ...


class NoControls:
    """u = b = 0 (ULA and the uncontrolled reference processes)."""

    def prepare(self, times: list[float]) -> None:
        return None

    def forward_control(self, x: Tensor, v: Tensor | None, t: float) -> None:
        return None

    def backward_control(self, x: Tensor, v: Tensor | None, t: float) -> None:
        return None


@dataclass
class Path:
    """End of a path: the state at the far end (R, B, d) and the per-sample log-weight (R, B)."""

    x: Tensor
    v: Tensor | None
    log_w: Tensor
    xs: list[Tensor] | None = None  # positions x_0..x_K when kept


def _plus(a: Tensor, b: Tensor | None) -> Tensor:
    return a if b is None else a + b


def _mean(decay: Tensor, drive2: Tensor, v: Tensor, control: Tensor | None) -> Tensor:
    """O-kernel mean decay·v + 2·drive·u (kernels.o_mean with the step's coefficients precomputed)."""
    return decay * v if control is None else decay * v + drive2 * control


@dataclass
class _Consts:
    """A path's per-step constants, computed once per path from the (differentiable) SDE parameters and
    laid out step-first so that step k is one index: shapes broadcast against states (R, B, d)."""

    betas: Tensor  # (K + 1, R, 1, 1)
    dts: Tensor  # (K, R, 1, 1)
    mass: Tensor  # (R, 1, d)
    prior_mean: Tensor  # (R, 1, d)
    prior_precision: Tensor  # (R, 1, d)
    kernels: dict[float, tuple[Tensor, ...]]  # fraction -> decay, 2·drive, var, std, each (K, R, 1, d)


class Dynamics:
    """Simulate forward (prior -> target) or backward (target -> prior) paths and their log-weights.

    drift "anneal": F_k = β_k ∇log ρ + (1 - β_k) ∇log p_prior (ULA, MCD, CMCD, DBS);
    drift "prior":  F_k = ∇log p_prior (DIS: the prior-invariant reference process)."""

    def __init__(self, target: Target, params: SDEParams, controls: Controls, *, underdamped: bool = True,
                 integrator: str = "obabo", drift: str = "anneal", exact_o: bool = False) -> None:
        if integrator not in INTEGRATORS:
            raise UserError(f"unknown integrator {integrator!r}; choose from {', '.join(INTEGRATORS)}")
        if drift not in DRIFTS:
            raise UserError(f"unknown drift {drift!r}; choose from {', '.join(DRIFTS)}")
        self.target, self.params, self.controls = target, params, controls
        self.underdamped, self.drift, self.exact_o = underdamped, drift, exact_o
        self.integrator = integrator
        self.scheme = EM_SCHEME if integrator == "em" else SCHEMES[integrator]
        K = params.num_steps
        if underdamped:
            labels = {(k + m[2]) / K for k in range(K) for m in self.scheme if m[0] == "O"}
        else:
            labels = {k / K for k in range(K + 1)}
        self.times = sorted(labels)
        self._cache: tuple[Tensor, Tensor] | None = None

    @property
    def num_steps(self) -> int:
        return self.params.num_steps

    def _constants(self) -> _Consts:
        p = self.params
        self.controls.prepare(self.times)
        mass = p.mass()[:, None]  # (R, 1, d)
        etas = p.etas(self.underdamped).transpose(0, 1)[:, :, None]  # (K, R, 1, d)
        kernels = {}
        if self.underdamped:
            for frac in {m[1] for m in self.scheme if m[0] == "O"}:
                decay, drive, factor = o_coefficients(frac * etas, self.exact_o)
                var = factor * mass
                kernels[frac] = (decay, 2 * drive, var, torch.sqrt(var))
        else:  # x' ~ N(x + η(F + u), 2η): stored as (η, -, 2η, √(2η))
            kernels[1.0] = (etas, etas, 2 * etas, torch.sqrt(2 * etas))
        return _Consts(p.betas().T[:, :, None, None], p.dts().T[:, :, None, None], mass,
                       p.prior_mean[:, None], p.prior_std()[:, None] ** -2, kernels)

    def log_target(self, x: Tensor) -> Tensor:
        """log ρ on states (R, B, d) -> (R, B)."""
        return self.target.log_prob(x.reshape(-1, x.shape[-1])).reshape(x.shape[:-1])

    # ---- forces --------------------------------------------------------------------------------
    def target_score(self, x: Tensor) -> Tensor:
        """∇log ρ(x), cached for the last x (each position's score is needed by two B half-steps)."""
        if self._cache is None or self._cache[0] is not x:
            self._cache = (x, self.target.score(x.reshape(-1, x.shape[-1])).reshape(x.shape))
        return self._cache[1]

    def force(self, x: Tensor, k: int, c: _Consts) -> Tensor:
        """F_k(x) for the position at time index k (0..K)."""
        prior = (c.prior_mean - x) * c.prior_precision
        if self.drift == "prior":
            return prior
        return prior + c.betas[k] * (self.target_score(x) - prior)

    # ---- paths ---------------------------------------------------------------------------------
    def forward_path(self, n: int, generator: torch.Generator | None = None, detach: bool = False,
                     keep_path: bool = False) -> Path:
        """n paths per replica from the prior to the target. `detach` stops gradients through the states
        (the log-variance loss); the kernel densities keep theirs."""
        p = self.params
        self._cache = None
        c = self._constants()
        x = p.sample_prior(n, generator)
        x = x.detach() if detach else x
        log_w = -p.prior_log_prob(x)
        v = None
        if self.underdamped:
            v = torch.sqrt(c.mass) * self._noise(x, generator)
            v = v.detach() if detach else v
            log_w = log_w - log_normal(v, torch.zeros_like(v), c.mass)
        xs = [x.detach()] if keep_path else None
        step = (self._em_forward if self.integrator == "em" else self._ud_forward) if self.underdamped \
            else self._od_forward
        for k in range(self.num_steps):
            x, v, lw = step(x, v, k, c, generator, detach)
            log_w = log_w + lw
            if xs is not None:
                xs.append(x.detach())
        log_w = log_w + self.log_target(x)
        if self.underdamped:
            log_w = log_w + log_normal(v, torch.zeros_like(v), c.mass)
        return Path(x, v, log_w, xs)

    def backward_path(self, x_end: Tensor, generator: torch.Generator | None = None,
                      keep_path: bool = False) -> Path:
        """Paths from given target samples x_K, (B, d) or (R, B, d), back to the prior (v_K ~ N(0, M));
        returns the state at time 0 and the same log RND as a forward path, evaluated on these paths."""
        p = self.params
        self._cache = None
        c = self._constants()
        x = x_end.to(p.prior_mean.dtype)
        x = x.expand(p.replicas, *x.shape) if x.dim() == 2 else x
        log_w = self.log_target(x)
        v = None
        if self.underdamped:
            v = torch.sqrt(c.mass) * self._noise(x, generator)
            log_w = log_w + log_normal(v, torch.zeros_like(v), c.mass)
        xs = [x.detach()] if keep_path else None
        step = (self._em_backward if self.integrator == "em" else self._ud_backward) if self.underdamped \
            else self._od_backward
        for k in reversed(range(self.num_steps)):
            x, v, lw = step(x, v, k, c, generator)
            log_w = log_w + lw
            if xs is not None:
                xs.append(x.detach())
        log_w = log_w - p.prior_log_prob(x)
        if self.underdamped:
            log_w = log_w - log_normal(v, torch.zeros_like(v), c.mass)
        return Path(x, v, log_w, xs[::-1] if xs is not None else None)

    @staticmethod
    def _noise(like: Tensor, generator: torch.Generator | None) -> Tensor:
        return torch.randn(like.shape, generator=generator, dtype=like.dtype)

    # ---- underdamped steps ---------------------------------------------------------------------
    def _ud_forward(self, x, v, k, c, generator, detach):
        """One step k -> k+1 of the scheme's word; returns (x, v, Σ log bwd - log fwd over its O-steps)."""
        lw = 0.0
        moved = 0.0  # fraction of the step's A-moves done: the position's time is k + moved
        for move in self.scheme:
            if move[0] == "O":
                _, frac, offset = move
                decay, drive2, var, std = (a[k] for a in c.kernels[frac])
                t = (k + offset) / self.num_steps
                mean_f = _mean(decay, drive2, v, self.controls.forward_control(x, v, t))
                v_new = (mean_f.detach() if detach else mean_f) + std * self._noise(v, generator)
                v_new = v_new.detach() if detach else v_new
                mean_b = _mean(decay, drive2, v_new, self.controls.backward_control(x, v_new, t))
                lw = lw + o_log_ratio(v, mean_b, v_new, mean_f, var)
                v = v_new
            elif move[0] == "B":
                v = b_step(v, self.force(x, k + int(moved), c), move[1] * c.dts[k])
                v = v.detach() if detach else v
            else:
                x = a_step(x, v, move[1] * c.dts[k], c.mass)
                x = x.detach() if detach else x
                moved += move[1]
        return x, v, lw

    def _ud_backward(self, x, v, k, c, generator):
        """The inverse word: A and B undone exactly, each O-step drawn from its backward kernel."""
        lw = 0.0
        moved = 1.0
        for move in reversed(self.scheme):
            if move[0] == "O":
                _, frac, offset = move
                decay, drive2, var, std = (a[k] for a in c.kernels[frac])
                t = (k + offset) / self.num_steps
                mean_b = _mean(decay, drive2, v, self.controls.backward_control(x, v, t))
                v_old = mean_b + std * self._noise(v, generator)
                mean_f = _mean(decay, drive2, v_old, self.controls.forward_control(x, v_old, t))
                lw = lw + o_log_ratio(v_old, mean_b, v, mean_f, var)
                v = v_old
            elif move[0] == "B":
                v = b_step(v, self.force(x, k + int(moved), c), -move[1] * c.dts[k])
            else:
                x = a_step(x, v, -move[1] * c.dts[k], c.mass)
                moved -= move[1]
        return x, v, lw

    # ---- the paper's Euler-Maruyama step (not a splitting) ----------------------------------------
    def _em_means(self, x, v, k, c, forward: bool):
        """Mean of the forward kernel from (x_k, v_k), or of the backward kernel from (x_{k+1}, v_{k+1}):
        v (1 − η) + 2η control + dt F, all at step k's η and dt (the paper's code)."""
        decay, drive2, _, _ = (a[k] for a in c.kernels[1.0])
        if forward:
            control = self.controls.forward_control(x, v, k / self.num_steps)
            return _mean(decay, drive2, v, control) + c.dts[k] * self.force(x, k, c)
        control = self.controls.backward_control(x, v, (k + 1) / self.num_steps)
        return _mean(decay, drive2, v, control) + c.dts[k] * self.force(x, k + 1, c)

    def _em_forward(self, x, v, k, c, generator, detach):
        _, _, var, std = (a[k] for a in c.kernels[1.0])
        mean_f = self._em_means(x, v, k, c, True)
        v_new = (mean_f.detach() if detach else mean_f) + std * self._noise(v, generator)
        v_new = v_new.detach() if detach else v_new
        x_new = a_step(x, v_new, c.dts[k], c.mass)
        x_new = x_new.detach() if detach else x_new
        mean_b = self._em_means(x_new, v_new, k, c, False)
        return x_new, v_new, o_log_ratio(v, mean_b, v_new, mean_f, var)

    def _em_backward(self, x_new, v_new, k, c, generator):
        _, _, var, std = (a[k] for a in c.kernels[1.0])
        mean_b = self._em_means(x_new, v_new, k, c, False)
        v = mean_b + std * self._noise(v_new, generator)
        x = a_step(x_new, v_new, -c.dts[k], c.mass)
        mean_f = self._em_means(x, v, k, c, True)
        return x, v, o_log_ratio(v, mean_b, v_new, mean_f, var)

    # ---- overdamped steps ----------------------------------------------------------------------
    def _od_drifts(self, x: Tensor, k: int, c: _Consts, forward: bool) -> Tensor:
        t = k / self.num_steps
        control = self.controls.forward_control if forward else self.controls.backward_control
        ctrl = control(x, None, t)
        return _plus(self.force(x, k, c), ctrl)

    def _od_forward(self, x, v, k, c, generator, detach):
        eta, _, var, std = (a[k] for a in c.kernels[1.0])
        mean_f = x + eta * self._od_drifts(x, k, c, True)
        x_new = (mean_f.detach() if detach else mean_f) + std * self._noise(x, generator)
        x_new = x_new.detach() if detach else x_new
        mean_b = x_new + eta * self._od_drifts(x_new, k + 1, c, False)
        return x_new, None, o_log_ratio(x, mean_b, x_new, mean_f, var)

    def _od_backward(self, x_new, v, k, c, generator):
        eta, _, var, std = (a[k] for a in c.kernels[1.0])
        mean_b = x_new + eta * self._od_drifts(x_new, k + 1, c, False)
        x = mean_b + std * self._noise(x_new, generator)
        mean_f = x + eta * self._od_drifts(x, k, c, True)
        return x, None, o_log_ratio(x, mean_b, x_new, mean_f, var)
