"""Unnormalised target densities ρ on R^d: what every sampler reads (log ρ and its score, with exact
samples and log Z where known), a wrapper for the user's own log-density, and the paper's benchmark
targets (Funnel, Many-Well, GMM40, Bayesian logistic regression, Seeds, LGCP).

Each target also carries the paper's per-target initialisation: the step size `dt`, the prior's
`init_std` and whether the prior is learned (`learn_prior`)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor
from torch.nn.functional import softplus

from iclr25.core.errors import UserError

LOG_2PI = math.log(2 * math.pi)


class Target:
    """An unnormalised density ρ on R^d; `log_prob` maps (B, d) -> (B,)."""

    name = "target"
    log_Z: float | None = None  # known normaliser (reference values for real data come from reference.py)
    dt = 0.01  # initial global step size (paper, per target)
    init_std = 1.0  # initial (or fixed) prior standard deviation
    learn_prior = True
    can_sample = False

    def __init__(self, dim: int) -> None:
        if int(dim) < 1:
            raise UserError(f"dimension must be >= 1, got {dim}")
        self.dim = int(dim)

    def log_prob(self, x: Tensor) -> Tensor:
        raise NotImplementedError

    def score(self, x: Tensor) -> Tensor:
        """∇ log ρ(x), (B, d). Differentiable when x carries a graph (reparameterised training)."""
        need_graph = torch.is_grad_enabled() and x.requires_grad
        with torch.enable_grad():
            xi = x if need_graph else x.detach().requires_grad_(True)
            (g,) = torch.autograd.grad(self.log_prob(xi).sum(), xi, create_graph=need_graph)
        return g

    def sample(self, n: int, generator: torch.Generator | None = None) -> Tensor:
        raise UserError(f"target {self.name!r} has no exact sampler (ground-truth samples unknown)")

    def check(self, dtype: torch.dtype = torch.float32) -> None:
        """Evaluate log ρ and its score on 4 prior draws: right shapes and finite values, or a UserError."""
        x = self.init_std * torch.randn(4, self.dim, generator=torch.Generator().manual_seed(0), dtype=dtype)
        try:
            lp = self.log_prob(x)
            g = self.score(x)
        except UserError:
            raise
        except Exception as e:  # the user's function failed on a (4, d) batch: most often a wrong dim
            raise UserError(f"log_prob of {self.name!r} failed on a (4, {self.dim}) batch "
                            f"({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}); "
                            f"is the dimension {self.dim} right?") from None
        if not isinstance(lp, Tensor) or tuple(lp.shape) != (4,):
            shape = tuple(lp.shape) if isinstance(lp, Tensor) else type(lp).__name__
            raise UserError(f"log_prob of {self.name!r} must map a (B, {self.dim}) batch to (B,), "
                            f"got {shape} for B = 4; is the dimension {self.dim} right?")
        if not torch.isfinite(lp).all() or not torch.isfinite(g).all():
            raise UserError(f"log_prob of {self.name!r} is not finite at draws from the prior "
                            f"N(0, {self.init_std:g}²): {lp.tolist()}")


class FunctionTarget(Target):
    """A target from the user's own function `fn(x: Tensor (B, d)) -> Tensor (B,)`."""

    def __init__(self, fn: Callable[[Tensor], Tensor], dim: int, name: str = "custom",
                 log_Z: float | None = None, dt: float = 0.01, init_std: float = 1.0,
                 learn_prior: bool = True) -> None:
        super().__init__(dim)
        if not callable(fn):
            raise UserError(f"log_prob must be callable, got {type(fn).__name__}")
        self.fn, self.name, self.log_Z = fn, name, log_Z
        self.dt, self.init_std, self.learn_prior = dt, init_std, learn_prior

    def log_prob(self, x: Tensor) -> Tensor:
        return self.fn(x)


def from_log_prob(fn: Callable[[Tensor], Tensor], dim: int, name: str = "custom", *,
                  log_Z: float | None = None, dt: float = 0.01, init_std: float = 1.0,
                  learn_prior: bool = True) -> FunctionTarget:
    """Wrap the user's unnormalised log-density (torch ops, batched) as a target and check it.

    >>> t = from_log_prob(lambda x: -0.5 * (x ** 2).sum(-1), dim=3)
    >>> t.log_prob(torch.zeros(2, 3)).tolist()
    [-0.0, -0.0]
    """
    target = FunctionTarget(fn, dim, name, log_Z, dt, init_std, learn_prior)
    target.check()
    return target


# ---- synthetic benchmark targets ----------------------------------------------------------------

class Funnel(Target):
    """Neal's funnel: x_0 ~ N(0, 3²), x_{1..d-1} | x_0 ~ N(0, e^{x_0} I); log Z = 0."""

    name, log_Z, can_sample = "funnel", 0.0, True

    def __init__(self, dim: int = 10) -> None:
        if dim < 2:
            raise UserError(f"funnel needs dim >= 2, got {dim}")
        super().__init__(dim)

    def log_prob(self, x: Tensor) -> Tensor:
        x0, rest = x[:, 0], x[:, 1:]
        lp0 = -0.5 * x0 ** 2 / 9 - math.log(3) - 0.5 * LOG_2PI
        lp_rest = (-0.5 * rest ** 2 * torch.exp(-x0)[:, None] - 0.5 * x0[:, None] - 0.5 * LOG_2PI).sum(-1)
        return lp0 + lp_rest

    def score(self, x: Tensor) -> Tensor:
        x0, rest = x[:, :1], x[:, 1:]
        inv = torch.exp(-x0)
        g0 = -x0 / 9 + (0.5 * rest ** 2 * inv - 0.5).sum(-1, keepdim=True)
        return torch.cat([g0, -rest * inv], -1)

    def sample(self, n: int, generator: torch.Generator | None = None) -> Tensor:
        x0 = 3 * torch.randn(n, 1, generator=generator, dtype=torch.float64)
        rest = torch.exp(0.5 * x0) * torch.randn(n, self.dim - 1, generator=generator, dtype=torch.float64)
        return torch.cat([x0, rest], -1)


def double_well_log_z(delta: float = 2.0) -> float:
    """log Z₁ = log ∫ exp(-(t² - δ)²) dt by quadrature (Z₁ = 1.3404 at δ = 2).

    >>> round(math.exp(double_well_log_z(2.0)), 4)
    1.3404
    """
    from scipy.integrate import quad
    value, _ = quad(lambda t: math.exp(-((t * t - delta) ** 2)), -10, 10, limit=200)
    return math.log(value)


class ManyWell(Target):
    """Many-Well: log ρ = -Σ_{i<m} (x_i² - δ)² - ½ Σ_{i>=m} x_i²; 2^m modes; log Z in closed form."""

    name, dt, learn_prior, can_sample = "many_well", 0.1, False, True

    def __init__(self, dim: int = 50, m: int = 5, delta: float = 2.0) -> None:
        if not 1 <= m <= dim:
            raise UserError(f"many_well needs 1 <= m <= dim, got m={m}, dim={dim}")
        super().__init__(dim)
        self.m, self.delta = m, delta
        self.log_Z = m * double_well_log_z(delta) + 0.5 * (dim - m) * LOG_2PI

    def log_prob(self, x: Tensor) -> Tensor:
        w, g = x[:, :self.m], x[:, self.m:]
        return -((w ** 2 - self.delta) ** 2).sum(-1) - 0.5 * (g ** 2).sum(-1)

    def score(self, x: Tensor) -> Tensor:
        w, g = x[:, :self.m], x[:, self.m:]
        return torch.cat([-4 * w * (w ** 2 - self.delta), -g], -1)

    @property
    def n_modes(self) -> int:
        return 2 ** self.m

    def modes(self, x: Tensor) -> Tensor:
        """Mode index per sample: the signs of the m double-well coordinates as a binary number (EMC)."""
        bits = (x[:, :self.m] > 0).long()
        return (bits * (2 ** torch.arange(self.m))).sum(-1)

    def sample(self, n: int, generator: torch.Generator | None = None) -> Tensor:
        """Exact: the double-well coordinates by inverse CDF on a fine grid, the rest Gaussian."""
        grid = np.linspace(-4, 4, 200_001)
        cdf = np.cumsum(np.exp(-((grid ** 2 - self.delta) ** 2)))
        cdf /= cdf[-1]
        u = torch.rand(n, self.m, generator=generator, dtype=torch.float64).numpy()
        wells = torch.from_numpy(np.interp(u, cdf, grid))
        rest = torch.randn(n, self.dim - self.m, generator=generator, dtype=torch.float64)
        return torch.cat([wells, rest], -1)


class GaussianMixture(Target):
    """Equal-weight mixture of N(μ_i, σ² I); normalised, so log Z = 0."""

    name, log_Z, can_sample = "gmm", 0.0, True

    def __init__(self, means: np.ndarray, std: float = 1.0, name: str = "gmm") -> None:
        means = np.asarray(means, dtype=np.float64)
        if means.ndim != 2 or not np.isfinite(means).all():
            raise UserError("mixture means must be a finite (components, dim) array")
        super().__init__(means.shape[1])
        self.means, self.std, self.name = torch.from_numpy(means), float(std), name

    def _log_components(self, x: Tensor) -> Tensor:
        mu = self.means.to(x.dtype)
        sq = (x ** 2).sum(-1, keepdim=True) - 2 * x @ mu.T + (mu ** 2).sum(-1)  # (B, C)
        return -0.5 * sq / self.std ** 2 - self.dim * (math.log(self.std) + 0.5 * LOG_2PI)

    def log_prob(self, x: Tensor) -> Tensor:
        return torch.logsumexp(self._log_components(x), -1) - math.log(len(self.means))

    def score(self, x: Tensor) -> Tensor:
        r = torch.softmax(self._log_components(x), -1)  # (B, C) responsibilities
        return (r @ self.means.to(x.dtype) - x) / self.std ** 2

    def sample(self, n: int, generator: torch.Generator | None = None) -> Tensor:
        idx = torch.randint(len(self.means), (n,), generator=generator)
        return self.means[idx] + self.std * torch.randn(n, self.dim, generator=generator, dtype=torch.float64)

    @property
    def n_modes(self) -> int:
        return len(self.means)

    def modes(self, x: Tensor) -> Tensor:
        """Index of the most responsible component per sample (for EMC)."""
        return self._log_components(x.to(torch.float64)).argmax(-1)


class StudentTMixture(Target):
    """Equal-weight mixture of product Student-t components (ν degrees of freedom per coordinate, unit
    scale) at locations U[-10, 10]^d: heavy tails and many modes (the official code's mixture of
    Student-t distributions; its locations come from a JAX key, ours from numpy `seed`). Normalised:
    log Z = 0; exact samples; EMC over its components."""

    name, log_Z, can_sample, dt, init_std = "student_t_mixture", 0.0, True, 0.01, 10.0

    def __init__(self, n_components: int = 10, dim: int = 50, df: float = 2.0, seed: int = 0) -> None:
        if int(n_components) < 1 or not (math.isfinite(df) and df > 0):
            raise UserError(f"student_t_mixture needs >= 1 components and df > 0, got {n_components}, {df}")
        super().__init__(dim)
        locs = np.random.default_rng(seed).uniform(-10, 10, size=(int(n_components), dim))
        self.locs = torch.from_numpy(locs)
        self.df = float(df)
        self._norm = (math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi))

    def _log_components(self, x: Tensor) -> Tensor:
        z = x[:, None, :] - self.locs.to(x.dtype)  # (B, C, d)
        nu = self.df
        return (self._norm - (nu + 1) / 2 * torch.log1p(z ** 2 / nu)).sum(-1)  # (B, C)

    def log_prob(self, x: Tensor) -> Tensor:
        return torch.logsumexp(self._log_components(x), -1) - math.log(len(self.locs))

    def sample(self, n: int, generator: torch.Generator | None = None) -> Tensor:
        idx = torch.randint(len(self.locs), (n,), generator=generator)
        g = torch.randn(n, self.dim, generator=generator, dtype=torch.float64)
        chi2 = 2 * torch._standard_gamma(torch.full((n, self.dim), self.df / 2, dtype=torch.float64),
                                         generator=generator)
        return self.locs[idx] + g / torch.sqrt(chi2 / self.df)

    @property
    def n_modes(self) -> int:
        return len(self.locs)

    def modes(self, x: Tensor) -> Tensor:
        return self._log_components(x.to(torch.float64)).argmax(-1)


def student_t_mixture(n_components: int = 10, dim: int = 50, df: float = 2.0,
                      seed: int = 0) -> StudentTMixture:
    """The official code's Student-t mixture target (10 components in d = 50 by default).

    >>> t = student_t_mixture(3, 2)
    >>> t.dim, t.log_Z, tuple(t.sample(5, torch.Generator().manual_seed(0)).shape)
    (2, 0.0, (5, 2))
    """
    return StudentTMixture(n_components, dim, df, seed)


def gmm40(dim: int = 50, seed: int = 0) -> GaussianMixture:
    """40 unit-variance components with means U[-40, 40]^d drawn with numpy seed `seed` (the paper's
    means come from a JAX key, so ours differ; the target class is the same)."""
    means = np.random.default_rng(seed).uniform(-40, 40, size=(40, dim))
    target = GaussianMixture(means, 1.0, "gmm40")
    target.dt, target.init_std, target.learn_prior = 0.5, 40.0, False
    return target


# ---- Bayesian models -----------------------------------------------------------------------------

def binary_labels(y: np.ndarray) -> np.ndarray:
    """{0, 1}, {-1, +1} or booleans -> float {0, 1}; anything else is a UserError naming the values."""
    y = np.asarray(y)
    values = np.unique(y)
    for lo, hi in ((0, 1), (-1, 1), (False, True)):
        if set(values.tolist()) <= {lo, hi}:
            return (y == hi).astype(np.float64)
    shown = ", ".join(map(str, values[:5])) + (", ..." if len(values) > 5 else "")
    raise UserError(f"labels must be binary (0/1, -1/+1 or True/False), got values {shown}")


class LogisticRegression(Target):
    """Posterior of Bayesian logistic regression, w ~ N(0, s² I), y_i ~ Bernoulli(σ(x_i·w)):
    log ρ(w) = Σ_i [y_i x_i·w - log(1 + e^{x_i·w})] + log N(w; 0, s² I)  (normalised prior: Z = evidence)."""

    name = "logreg"

    def __init__(self, X: np.ndarray, y: np.ndarray, prior_std: float = 1.0, intercept: bool = True,
                 name: str = "logreg") -> None:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
            raise UserError(f"X must be a non-empty 2-D array (n, p), got shape {X.shape}")
        if not np.isfinite(X).all():
            raise UserError(f"X has {int((~np.isfinite(X)).sum())} missing or non-finite values")
        y = np.asarray(y).ravel()
        if len(y) != len(X):
            raise UserError(f"X has {len(X)} rows but y has {len(y)} labels")
        if not (math.isfinite(prior_std) and prior_std > 0):
            raise UserError(f"prior_std must be positive, got {prior_std}")
        if intercept:
            X = np.column_stack([np.ones(len(X)), X])
        super().__init__(X.shape[1])
        self.X, self.y = torch.from_numpy(X), torch.from_numpy(binary_labels(y))
        self.prior_std, self.name = float(prior_std), name
        self._cast: dict[torch.dtype, tuple[Tensor, Tensor, Tensor]] = {}

    def _data(self, dtype: torch.dtype) -> tuple[Tensor, Tensor, Tensor]:
        """(X, Xᵀ, y) in `dtype`, converted once (the sampler calls this every step)."""
        if dtype not in self._cast:
            X = self.X.to(dtype)
            self._cast[dtype] = (X, X.T.contiguous(), self.y.to(dtype))
        return self._cast[dtype]

    def log_likelihood(self, w: Tensor) -> Tensor:
        _, Xt, y = self._data(w.dtype)
        logits = w @ Xt  # (B, n)
        return (y * logits - softplus(logits)).sum(-1)

    def log_prob(self, w: Tensor) -> Tensor:
        s = self.prior_std
        prior = (-0.5 * (w / s) ** 2 - math.log(s) - 0.5 * LOG_2PI).sum(-1)
        return self.log_likelihood(w) + prior

    def score(self, w: Tensor) -> Tensor:
        X, Xt, y = self._data(w.dtype)
        return (y - torch.sigmoid(w @ Xt)) @ X - w / self.prior_std ** 2


def bayesian_logreg(X: np.ndarray, y: np.ndarray, prior_std: float = 1.0, intercept: bool = True,
                    name: str = "logreg") -> LogisticRegression:
    """Bayesian logistic regression posterior as a target (labels 0/1, -1/+1 or bool).

    >>> t = bayesian_logreg(np.eye(3), [0, 1, 1])
    >>> t.dim, round(float(t.log_prob(torch.zeros(1, 4))[0]), 3)
    (4, -5.755)
    """
    return LogisticRegression(X, y, prior_std, intercept, name)


SEEDS_R = [10, 23, 23, 26, 17, 5, 53, 55, 32, 46, 10, 8, 10, 8, 23, 0, 3, 22, 15, 32, 3]
SEEDS_N = [39, 62, 81, 51, 39, 6, 74, 72, 51, 79, 13, 16, 30, 28, 45, 4, 12, 41, 30, 51, 7]
SEEDS_X1 = [0] * 11 + [1] * 10
SEEDS_X2 = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1]


class Seeds(Target):
    """Random-effects binomial logit model of seed germination (d = 26): θ = (a0, a1, a2, a12, log τ,
    b_1..b_21); τ ~ Gamma(0.01, 0.01) in log space (with its Jacobian), a ~ N(0, 10²), b_j ~ N(0, 1/τ),
    R_j ~ Binomial(N_j, σ(a0 + a1 x1 + a2 x2 + a12 x1 x2 + b_j))."""

    name = "seeds"

    def __init__(self) -> None:
        super().__init__(26)
        self.R = torch.tensor(SEEDS_R, dtype=torch.float64)
        self.N = torch.tensor(SEEDS_N, dtype=torch.float64)
        x1, x2 = torch.tensor(SEEDS_X1, dtype=torch.float64), torch.tensor(SEEDS_X2, dtype=torch.float64)
        self.design = torch.stack([torch.ones(21), x1, x2, x1 * x2], -1)  # (21, 4)
        self.log_binom = float((torch.lgamma(self.N + 1) - torch.lgamma(self.R + 1)
                                - torch.lgamma(self.N - self.R + 1)).sum())

    def log_prob(self, theta: Tensor) -> Tensor:
        a, log_tau, b = theta[:, :4], theta[:, 4], theta[:, 5:]
        tau = torch.exp(log_tau)
        shape = rate = 0.01
        lp_tau = shape * math.log(rate) - math.lgamma(shape) + shape * log_tau - rate * tau  # + Jacobian
        lp_a = (-0.5 * (a / 10) ** 2 - math.log(10) - 0.5 * LOG_2PI).sum(-1)
        lp_b = (-0.5 * b ** 2 * tau[:, None] + 0.5 * log_tau[:, None] - 0.5 * LOG_2PI).sum(-1)
        logits = a @ self.design.to(theta.dtype).T + b  # (B, 21)
        R, N = self.R.to(theta.dtype), self.N.to(theta.dtype)
        lik = (R * logits - N * softplus(logits)).sum(-1) + self.log_binom
        return lp_tau + lp_a + lp_b + lik


class LGCP(Target):
    """Log-Gaussian Cox process on a G×G grid (Møller et al. 1998): counts y_i ~ Poisson(a e^{x_i}),
    x ~ N(μ 1, K), K(u, v) = σ² exp(-|u - v| / β) on cell centres in [0, 1]²; σ² = 1.91, β = 1/33,
    μ = log(126) - σ²/2, a = 1/G². d = G² (1600 for the paper's 40 × 40)."""

    name, dt = "lgcp", 0.1

    def __init__(self, points: np.ndarray, grid: int = 40) -> None:
        pts = np.asarray(points, dtype=np.float64)
        if pts.ndim != 2 or pts.shape[1] != 2 or not np.isfinite(pts).all():
            raise UserError(f"LGCP points must be a finite (n, 2) array, got shape {pts.shape}")
        if grid < 2:
            raise UserError(f"LGCP grid must be >= 2, got {grid}")
        super().__init__(grid * grid)
        counts, _, _ = np.histogram2d(pts[:, 0], pts[:, 1], bins=grid, range=[[0, 1], [0, 1]])
        centres = (np.stack(np.meshgrid(np.arange(grid), np.arange(grid), indexing="ij"), -1)
                   .reshape(-1, 2) + 0.5) / grid
        sigma2, beta = 1.91, 1 / 33
        dist = np.linalg.norm(centres[:, None] - centres[None], axis=-1)
        K = sigma2 * np.exp(-dist / beta)
        L = np.linalg.cholesky(K)
        self.counts = torch.from_numpy(counts.reshape(-1))
        self.mu = math.log(126) - sigma2 / 2
        self.area = 1.0 / grid ** 2
        self.precision = torch.from_numpy(np.linalg.inv(K))
        self.log_norm = -0.5 * self.dim * LOG_2PI - float(np.log(np.diag(L)).sum())

    def log_prob(self, x: Tensor) -> Tensor:
        y, P = self.counts.to(x.dtype), self.precision.to(x.dtype)
        r = x - self.mu
        lik = (x * y - self.area * torch.exp(x)).sum(-1)
        return lik - 0.5 * ((r @ P) * r).sum(-1) + self.log_norm

    def score(self, x: Tensor) -> Tensor:
        return self.counts.to(x.dtype) - self.area * torch.exp(x) - (x - self.mu) @ self.precision.to(x.dtype)


def funnel(dim: int = 10) -> Funnel:
    """Neal's funnel, d = 10 as in the paper (log Z = 0)."""
    return Funnel(dim)


def many_well(dim: int = 50, m: int = 5, delta: float = 2.0) -> ManyWell:
    """Many-Well, d = 50 with 2⁵ = 32 modes as in the paper (log Z = 42.8172)."""
    return ManyWell(dim, m, delta)


def seeds() -> Seeds:
    """The Seeds random-effects logistic model (d = 26)."""
    return Seeds()


BUILTIN = ("funnel", "many_well", "gmm40", "seeds")


def builtin(name: str) -> Target:
    """A synthetic target by name (the real-data ones come from data.py)."""
    makers: dict[str, Callable[[], Target]] = {"funnel": funnel, "many_well": many_well, "gmm40": gmm40,
                                                "seeds": seeds, "student_t_mixture": student_t_mixture}
    if name not in makers:
        raise UserError(f"unknown target {name!r}; choose from {', '.join(makers)} (or ionosphere, "
                        f"sonar, credit, cancer, lgcp from the shared data)")
    return makers[name]()
