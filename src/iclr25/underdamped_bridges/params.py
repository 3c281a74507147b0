"""The SDE's own parameters, learned end to end with the controls (the paper's "no tuning" claim): the
annealing schedule β, the step size dt (global scale × cosine profile), per-dimension friction γ, the
Gaussian prior and the mass. A parameter not in `learn` is frozen at its initial value.

Every tensor carries a leading replica axis R: R independent samplers (e.g. seeds) share one batched
computation; R = 1 is the ordinary case."""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from iclr25.core.errors import UserError

LEARNABLE = ("betas", "dt", "friction", "prior", "mass")


def inverse_softplus(y: float) -> float:
    """x with softplus(x) = y (y > 0).

    >>> round(inverse_softplus(math.log(2.0)), 6)
    0.0
    """
    return y + math.log(-math.expm1(-y))


def cosine_profile(num_steps: int, minimum: float = 0.01, s: float = 0.008, power: float = 2.0) -> Tensor:
    """Relative step sizes c_k, k = 0..K-1: c = (1 - min) cos(π/2 (1 + s - τ)/(1 + s))^pow + min with
    τ = (K - k)/K, so steps start near 1 at the prior and shrink to `minimum` at the target."""
    k = torch.arange(num_steps, dtype=torch.float64)
    tau = (num_steps - k) / num_steps
    return (1 - minimum) * torch.cos(0.5 * math.pi * (1 + s - tau) / (1 + s)) ** power + minimum


class SDEParams(nn.Module):
    """β (R, K+1), dt (R, K), γ (R, d), prior N(μ, diag σ²) (R, d) and mass M = m² (R, d).

    β_k = Σ_{j<k} softplus(b_j) / Σ_j softplus(b_j): β_0 = 0 (prior) and β_K = 1 (target) are fixed by
    construction; dt_k = softplus(δ) c_k (cosine profile c). Positivity everywhere through softplus."""

    def __init__(self, dim: int, num_steps: int, *, dt: float, friction: float, init_std: float,
                 mass: float = 1.0, learn: frozenset[str] = frozenset(LEARNABLE[:4]), replicas: int = 1,
                 dtype: torch.dtype = torch.float32) -> None:
        super().__init__()
        unknown = set(learn) - set(LEARNABLE)
        if unknown:
            raise UserError(f"learn: unknown parameter {sorted(unknown)[0]!r}; choose from "
                            f"{', '.join(LEARNABLE)}")
        for name, value in (("dt", dt), ("friction", friction), ("init_std", init_std), ("mass", mass)):
            if not (math.isfinite(value) and value > 0):
                raise UserError(f"{name} must be a positive number, got {value}")
        self.dim, self.num_steps, self.replicas = dim, num_steps, replicas
        self.learn = frozenset(learn)
        R = replicas

        def param(value: float, shape: tuple[int, ...], key: str) -> nn.Parameter:
            return nn.Parameter(torch.full(shape, value, dtype=dtype), requires_grad=key in self.learn)

        self.beta_raw = param(inverse_softplus(1.0), (R, num_steps), "betas")
        self.dt_raw = param(inverse_softplus(dt), (R,), "dt")
        self.friction_raw = param(inverse_softplus(friction), (R, dim), "friction")
        self.prior_mean = param(0.0, (R, dim), "prior")
        self.prior_std_raw = param(inverse_softplus(init_std), (R, dim), "prior")
        self.mass_raw = param(inverse_softplus(mass), (R, dim), "mass")
        self.register_buffer("profile", cosine_profile(num_steps).to(dtype))

    def betas(self) -> Tensor:
        """(R, K + 1) annealing schedule from 0 to 1."""
        w = nn.functional.softplus(self.beta_raw)
        return torch.cat([w.new_zeros(self.replicas, 1), torch.cumsum(w, 1) / w.sum(1, keepdim=True)], 1)

    def dts(self) -> Tensor:
        """(R, K) step sizes."""
        return nn.functional.softplus(self.dt_raw)[:, None] * self.profile

    def friction(self) -> Tensor:
        return nn.functional.softplus(self.friction_raw)

    def mass(self) -> Tensor:
        """Diagonal of M = m² (R, d)."""
        return nn.functional.softplus(self.mass_raw) ** 2

    def prior_std(self) -> Tensor:
        return nn.functional.softplus(self.prior_std_raw)

    def prior_log_prob(self, x: Tensor) -> Tensor:
        """log N(x; μ, diag σ²) for x (R, B, d) -> (R, B)."""
        mean, std = self.prior_mean[:, None], self.prior_std()[:, None]
        return (-0.5 * ((x - mean) / std) ** 2 - torch.log(std) - 0.5 * math.log(2 * math.pi)).sum(-1)

    def sample_prior(self, n: int, generator: torch.Generator | None = None) -> Tensor:
        """x_0 = μ + σ ε (reparameterised): (R, n, d)."""
        eps = torch.randn(self.replicas, n, self.dim, generator=generator, dtype=self.prior_mean.dtype)
        return self.prior_mean[:, None] + self.prior_std()[:, None] * eps

    def etas(self, underdamped: bool) -> Tensor:
        """(R, K, d) η per step and dimension: γ dt_k (underdamped) or dt_k / γ (overdamped: γ = 1/σ²)."""
        dts = self.dts()[:, :, None]
        friction = self.friction()[:, None]
        return dts * friction if underdamped else dts / friction

    def set_dt(self, dt: Tensor) -> None:
        """Overwrite the global step-size scale per replica (R,), e.g. after `Sampler.tune_dt`."""
        with torch.no_grad():
            self.dt_raw.copy_(dt + torch.log(-torch.expm1(-dt)))

    def check_eta(self, underdamped: bool, first_order: bool) -> None:
        """The first-order O-step needs η < 1 (its decay 1 - η must stay positive)."""
        if not (underdamped and first_order):
            return
        with torch.no_grad():
            eta = self.etas(True).amax(dim=(0, 2))  # (K,)
            step = int(eta.argmax())
            value = float(eta[step])
        if value >= 1:
            dt = float(self.dts().detach()[:, step].max())
            gamma = float(self.friction().detach().max())
            raise UserError(f"η = γ·dt = {value:.3g} ≥ 1 at step {step} (dt {dt:.3g}, friction up to "
                            f"{gamma:.3g}); the first-order O-step needs η < 1: lower dt or friction, or use "
                            f"o_step='exact'")
