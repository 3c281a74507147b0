"""Score matching maximises an ELBO even when only the velocity is noised (paper §3): for a diffusion model
whose noising process is underdamped (noise on v only, σ = √(2γM)), the ELBO of a generative model with
score s falls short of the ELBO with the exact score ∇log p_t by ½ ∫ E‖σᵀ(s - ∇log p_t)‖² dt.

Our check runs on the sampler's own RND core: the data are a 2-D Gaussian mixture augmented with
v ~ N(0, M); the noising process is the backward process of DIS-UD (uncontrolled, prior-invariant) and the
generative model its forward process with control u = v + M s(x, v, t). The discrete noising chain is
linear and Gaussian, so its marginal at every O-step is a Gaussian mixture, propagated exactly here: the
"exact" score is exact, and "perturbed" scores are the exact scores of perturbed data mixtures. The
backward kernels do not depend on s, so every score is evaluated on the same paths (common random
numbers) and the deficits carry no path-sampling noise. The score-matching integral is computed
independently, by Monte Carlo from the exact marginals."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from iclr25.underdamped_bridges.dynamics import Dynamics, NoControls
from iclr25.underdamped_bridges.kernels import o_coefficients
from iclr25.underdamped_bridges.params import SDEParams
from iclr25.underdamped_bridges.targets import GaussianMixture

DTYPE = torch.float64


@dataclass(frozen=True)
class ScoreMatchingConfig:
    means: tuple[tuple[float, float], ...] = ((-2.0, 0.0), (2.0, 1.0), (0.0, -2.0))
    std: float = 0.5
    num_steps: int = 256
    dt: float = 0.05  # horizon T = dt Σ c_k ≈ 6.5 with the cosine profile at K = 256
    friction: float = 1.0
    mass_std: float = 1.5  # M = 2.25 ≠ 1: a kernel variance of 2η instead of 2ηM would change the slope
    integrator: str = "obabo"
    n_paths: int = 2000
    n_mc: int = 2000  # draws per O-step for the score-matching integral
    # perturbed data mixtures: (scale of the means, scale of the component std)
    perturbations: tuple[tuple[float, float], ...] = (
        (1.05, 1.0), (1.1, 1.0), (1.2, 1.0), (1.3, 1.0), (0.8, 1.0),
        (1.0, 1.2), (1.0, 1.4), (1.0, 0.8), (1.1, 1.2), (0.9, 0.8))


class MixtureMarginals:
    """Gaussian-mixture marginals of (x, v) at every O-step of the noising chain, for S data mixtures at
    once (the exact one and its perturbations): data at k = K, the scheme's moves undone in reverse
    order; per variant s, component c and coordinate j a 2-D Gaussian over (x_j, v_j). The marginal
    recorded for an O-step is the one it noises (its input in noising order), whose score gives the
    first-order reversal of that O-step: u = v + M ∇_v log p(x, v)."""

    def __init__(self, dynamics: Dynamics, means: np.ndarray, stds: np.ndarray) -> None:
        p = dynamics.params
        with torch.no_grad():
            dts = p.dts()[0].double().numpy()  # (K,)
            etas = p.etas(True)[0].double().numpy()  # (K, d)
            mass = p.mass()[0].double().numpy()  # (d,)
            mu = p.prior_mean[0].double().numpy()
            prec = (p.prior_std()[0].double() ** -2).numpy()
        S_, C, d = means.shape
        m = np.zeros((S_, C, d, 2))
        m[..., 0] = means
        S = np.zeros((S_, C, d, 2, 2))
        S[..., 0, 0] = (stds ** 2)[:, None, None]
        S[..., 1, 1] = mass
        K = p.num_steps
        self.means: dict[float, np.ndarray] = {}
        self.covs: dict[float, np.ndarray] = {}
        self.etas: dict[float, np.ndarray] = {}
        for k in reversed(range(K)):
            for move in reversed(dynamics.scheme):
                J = np.tile(np.eye(2), (d, 1, 1))
                shift = np.zeros((d, 2))
                if move[0] == "A":  # undo x += h v / M
                    J[:, 0, 1] = -move[1] * dts[k] / mass
                elif move[0] == "B":  # undo v += h prec (μ - x)
                    b = move[1] * dts[k] * prec
                    J[:, 1, 0] = b
                    shift[:, 1] = -b * mu
                else:  # the noising O-kernel: v <- decay v + N(0, var)
                    eta = move[1] * etas[k]
                    decay, _, factor = (np.asarray(a) for a in o_coefficients(torch.from_numpy(eta), False))
                    J[:, 1, 1] = decay
                    t = (k + move[2]) / K
                    self.means[t], self.covs[t], self.etas[t] = m.copy(), S.copy(), eta
                m = np.einsum("jab,scjb->scja", J, m) + shift
                S = np.einsum("jab,scjbe,jfe->scjaf", J, S, J)
                if move[0] == "O":
                    S[..., 1, 1] += factor * mass
        self.mass = mass
        self.log_weight = -float(np.log(C))
        self._cache: dict[float, tuple[Tensor, ...]] = {}

    def _precision(self, t: float) -> tuple[Tensor, ...]:
        """(μ_x, μ_v, P_xx, P_xv, P_vv, log det) at t, each (S, 1, C, d), from the 2 × 2 covariances."""
        if t not in self._cache:
            m, S = self.means[t], self.covs[t]
            det = S[..., 0, 0] * S[..., 1, 1] - S[..., 0, 1] ** 2
            parts = (m[..., 0], m[..., 1], S[..., 1, 1] / det, -S[..., 0, 1] / det, S[..., 0, 0] / det,
                     np.log(det))
            self._cache[t] = tuple(torch.from_numpy(np.ascontiguousarray(a))[:, None] for a in parts)
        return self._cache[t]

    def score_v(self, t: float, x: Tensor, v: Tensor) -> Tensor:
        """∇_v log p_t(x, v) of every variant at the O-step labelled t: x, v (..., d) -> (S, N, d)."""
        d = x.shape[-1]
        x, v = x.reshape(1, -1, 1, d).to(DTYPE), v.reshape(1, -1, 1, d).to(DTYPE)
        mx, mv, pxx, pxv, pvv, logdet = self._precision(t)
        dx, dv = x - mx, v - mv  # (S, N, C, d)
        g_x, g_v = pxx * dx + pxv * dv, pxv * dx + pvv * dv  # P (z - μ)
        r = torch.softmax((-0.5 * (dx * g_x + dv * g_v + logdet)).sum(-1), -1)  # (S, N, C)
        return -(r[..., None] * g_v).sum(2)

    def sample(self, t: float, n: int, rng: np.random.Generator, variant: int = 0) -> tuple[Tensor, Tensor]:
        """n draws of (x, v) from one variant's marginal at t, each (n, d)."""
        means, covs = self.means[t][variant], self.covs[t][variant]
        comp = rng.integers(len(means), size=n)
        L = np.linalg.cholesky(covs)[comp]  # (n, d, 2, 2)
        z = means[comp] + np.einsum("njab,njb->nja", L, rng.standard_normal((n, L.shape[1], 2)))
        return torch.from_numpy(z[..., 0]), torch.from_numpy(z[..., 1])


class ScoreControls:
    """The generative models' controls, one per variant: u = v + M s(x, v, t), b = 0. The S controls
    broadcast against the single path (1, N, d), so one backward path scores every variant (common
    random numbers by construction)."""

    def __init__(self, marginals: MixtureMarginals) -> None:
        self.marginals = marginals
        self.mass = torch.from_numpy(marginals.mass)

    def prepare(self, times: list[float]) -> None:
        return None

    def forward_control(self, x: Tensor, v: Tensor | None, t: float) -> Tensor:
        return v + self.mass * self.marginals.score_v(t, x, v)

    def backward_control(self, x: Tensor, v: Tensor | None, t: float) -> None:
        return None


def score_matching_gap(config: ScoreMatchingConfig, seed: int) -> dict:
    """ELBO deficits of the perturbed scores against their score-matching integrals, on one seed:
    {"deficit": [...], "sm": [...], "elbo_exact", "data_log_lik", "slope", "slope_se" (its least-squares
    standard error), "intercept", "r2"}."""
    from scipy.stats import linregress

    means = np.asarray(config.means, dtype=np.float64)
    data = GaussianMixture(means, config.std, "sm-data")
    params = SDEParams(means.shape[1], config.num_steps, dt=config.dt, friction=config.friction, init_std=1.0,
                       mass=config.mass_std, learn=frozenset(), dtype=DTYPE)
    base = Dynamics(data, params, NoControls(), integrator=config.integrator, drift="prior")
    variants = [(1.0, 1.0), *config.perturbations]  # variant 0: the exact score
    marginals = MixtureMarginals(base, np.stack([means * a for a, _ in variants]),
                                 np.array([config.std * b for _, b in variants]))
    x_data = data.sample(config.n_paths, torch.Generator().manual_seed(seed))
    dyn = Dynamics(data, params, ScoreControls(marginals), integrator=config.integrator, drift="prior")
    with torch.no_grad():
        log_w = dyn.backward_path(x_data, torch.Generator().manual_seed(seed + 1)).log_w  # (S, N)
    deficits = (log_w[1:] - log_w[:1]).mean(1).tolist()
    rng = np.random.default_rng(seed + 2)
    sm = np.zeros(len(variants) - 1)
    for t, eta in marginals.etas.items():  # Σ_O-steps E[Σ_i η M_i (s - ∇log p)_i²] ≈ ½∫E‖σᵀ(s - ∇log p_t)‖²dt
        x, v = marginals.sample(t, config.n_mc, rng)
        scores = marginals.score_v(t, x, v)  # (S, n, d)
        weight = torch.from_numpy(eta * marginals.mass)
        sm += (weight * (scores[1:] - scores[:1]) ** 2).sum(-1).mean(-1).numpy()
    fit = linregress(sm, deficits)
    log_rho = data.log_prob(x_data)
    return {"deficit": deficits, "sm": sm.tolist(), "elbo_exact": float((log_rho - log_w[0]).mean()),
            "data_log_lik": float(log_rho.mean()), "slope": float(fit.slope),
            "slope_se": float(fit.stderr), "intercept": float(fit.intercept), "r2": float(fit.rvalue ** 2)}
