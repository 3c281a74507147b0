"""`Sampler`: fit a (controlled, underdamped or overdamped) diffusion sampler to an unnormalised density
and read off samples, importance weights, the ELBO, log Ẑ and the ESS.

Training minimises the reverse KL between the forward and backward path measures, -E[log w] (= -ELBO,
reparameterised through the whole simulated path), or the log-variance loss ½ Var[log w] on detached
paths. Controls, β, dt, friction and the prior (and optionally the mass) are learned together, with two
Adam groups (networks; SDE parameters), gradient clipping at norm 1 and NaN gradients zeroed, as in the
paper's code. `replicas` trains R independent samplers (seeds) in one batched computation."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
import torch

from iclr25.core.errors import UserError
from iclr25.core.runtime import atomic_write, n_threads
from iclr25.core.runtime import progress as progress_bar
from iclr25.underdamped_bridges import metrics
from iclr25.underdamped_bridges.controls import METHODS, NetControls, method_spec
from iclr25.underdamped_bridges.dynamics import INTEGRATORS, Dynamics, NoControls
from iclr25.underdamped_bridges.params import LEARNABLE, SDEParams
from iclr25.underdamped_bridges.targets import Target

LOSSES = ("kl", "logvar")
O_STEPS = ("first_order", "exact")
FORMAT_VERSION = 1
DT_GRID = (1, 2, 4, 8, 16, 32, 64)  # multiples of the target's dt tried by tune_dt
DEFAULT_INTEGRATOR = {"dbs": "em", "dis": "obabo", "cmcd": "obabo", "mcd": "obabo", "ula": "obabo"}


@contextlib.contextmanager
def few_threads() -> Iterator[None]:
    """Run torch on ICLR25_THREADS threads (default 1) and restore the caller's setting: the sampler's
    many small tensor operations are several times slower with more threads."""
    before = torch.get_num_threads()
    torch.set_num_threads(n_threads())
    try:
        yield
    finally:
        torch.set_num_threads(before)


@dataclass(frozen=True)
class SamplerConfig:
    """Everything that defines a sampler. Defaults are the paper's (K = 128, PISGRADNet 2 × 128, Adam
    5e-4, gradient clip 1, friction 1, mass 1 fixed); dt, init_std and whether the prior is learned
    default to the target's own values (`None` here)."""

    method: str = "dbs"
    underdamped: bool = True
    integrator: str | None = None  # None: the paper code's default (DBS-UD "em", other UD "obabo"; OD "em")
    num_steps: int = 128
    learn: tuple[str, ...] | None = None  # None: betas, dt, friction (+ prior where the target learns it)
    loss: str = "kl"
    dt: float | None = None
    friction: float = 1.0
    init_std: float | None = None
    mass: float = 1.0
    hidden: int = 128
    layers: int = 2
    o_step: str = "first_order"
    lr: float = 5e-4
    grad_clip: float = 1.0
    seed: int = 0
    replicas: int = 1

    def resolved(self, target: Target) -> SamplerConfig:
        """The config with every None filled from the target and validated (UserError on bad values)."""
        method_spec(self.method)
        integrator = self.integrator or (DEFAULT_INTEGRATOR[self.method] if self.underdamped else "em")
        if integrator not in INTEGRATORS:
            raise UserError(f"unknown integrator {integrator!r}; choose from {', '.join(INTEGRATORS)}")
        if not self.underdamped and integrator != "em":
            raise UserError(f"overdamped samplers take one Euler-Maruyama step; integrator must be 'em', "
                            f"got {integrator!r}")
        if int(self.num_steps) < 1:
            raise UserError(f"num_steps (K) must be >= 1, got {self.num_steps}")
        if self.loss not in LOSSES:
            raise UserError(f"unknown loss {self.loss!r}; choose from {', '.join(LOSSES)}")
        if self.o_step not in O_STEPS:
            raise UserError(f"unknown o_step {self.o_step!r}; choose from {', '.join(O_STEPS)}")
        if self.hidden < 1 or self.layers < 1 or self.replicas < 1:
            raise UserError(f"hidden, layers and replicas must be >= 1, got {self.hidden}, {self.layers}, "
                            f"{self.replicas}")
        if not (self.lr > 0 and self.grad_clip > 0):
            raise UserError(f"lr and grad_clip must be positive, got {self.lr} and {self.grad_clip}")
        learn = self.learn
        if learn is None:
            learn = ("betas", "dt", "friction") + (("prior",) if target.learn_prior else ())
        learn = tuple(sorted(set(learn)))
        unknown = [p for p in learn if p not in LEARNABLE]
        if unknown:
            raise UserError(f"learn: unknown parameter {unknown[0]!r}; choose from {', '.join(LEARNABLE)}")
        return replace(self, integrator=integrator, num_steps=int(self.num_steps), learn=learn,
                       dt=float(self.dt if self.dt is not None else target.dt),
                       init_std=float(self.init_std if self.init_std is not None else target.init_std))


class Sampler:
    """A diffusion sampler for `target`: `method` ∈ {dbs, dis, cmcd, mcd, ula}, underdamped or not.

    >>> import math
    >>> from iclr25.underdamped_bridges import from_log_prob
    >>> t = from_log_prob(lambda x: -0.5 * (x ** 2).sum(-1), dim=2, log_Z=math.log(2 * math.pi))
    >>> s = Sampler(t, method="ula", num_steps=4).fit(iterations=5, batch_size=16, progress=False)
    >>> x, log_w = s.sample(8)
    >>> x.shape, log_w.shape
    (torch.Size([8, 2]), torch.Size([8]))
    """

    def __init__(self, target: Target, method: str = "dbs", underdamped: bool = True,
                 integrator: str | None = None, num_steps: int = 128, learn=None, loss: str = "kl", *,
                 config: SamplerConfig | None = None, dtype: torch.dtype = torch.float32, **options) -> None:
        if not isinstance(target, Target):
            raise UserError(f"target must be a Target (see from_log_prob), got {type(target).__name__}")
        if config is None:
            unknown = set(options) - set(SamplerConfig.__dataclass_fields__)
            if unknown:
                raise UserError(f"unknown option {sorted(unknown)[0]!r}")
            learn = tuple(learn) if learn is not None else None
            config = SamplerConfig(method=method, underdamped=underdamped, integrator=integrator,
                                   num_steps=num_steps, learn=learn, loss=loss, **options)
        self.config = c = config.resolved(target)
        self.target, self.dtype = target, dtype
        target.check(dtype)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(c.seed)
            self.params = SDEParams(target.dim, c.num_steps, dt=c.dt, friction=c.friction,
                                    init_std=c.init_std, mass=c.mass, learn=frozenset(c.learn),
                                    replicas=c.replicas, dtype=dtype)
            self.controls = NetControls(c.method, target.dim, c.underdamped, c.hidden, c.layers,
                                        c.replicas).to(dtype)
        self.params.check_eta(c.underdamped, c.o_step == "first_order")
        self.dynamics = self._dynamics(self.controls, METHODS[c.method].drift)
        self.history_: list[dict[str, float]] = []
        self._train_generator = torch.Generator().manual_seed(c.seed)

    def _dynamics(self, controls, drift: str) -> Dynamics:
        c = self.config
        return Dynamics(self.target, self.params, controls, underdamped=c.underdamped,
                        integrator=c.integrator, drift=drift, exact_o=c.o_step == "exact")

    @property
    def name(self) -> str:
        return f"{self.config.method.upper()}{'-UD' if self.config.underdamped else ''}"

    # ---- training ------------------------------------------------------------------------------
    def trainable(self) -> tuple[list[torch.nn.Parameter], list[torch.nn.Parameter]]:
        """(network parameters, SDE parameters) that require gradients."""
        return ([p for p in self.controls.parameters() if p.requires_grad],
                [p for p in self.params.parameters() if p.requires_grad])

    def loss(self, batch_size: int) -> tuple[torch.Tensor, torch.Tensor]:
        """(training loss summed over replicas, the batch's log-weights (R, B)) for one batch of paths."""
        logvar = self.config.loss == "logvar"
        path = self.dynamics.forward_path(batch_size, self._train_generator, detach=logvar)
        per_replica = 0.5 * path.log_w.var(1) if logvar else -path.log_w.mean(1)
        return per_replica.sum(), path.log_w

    def tune_dt(self, grid: tuple[float, ...] | None = None, n: int = 512,
                seed: int | None = None) -> Sampler:
        """Set the initial step-size scale per replica to the grid value (default: the configured dt ×
        1, 2, 4, ..., 64, keeping η < 1) whose *uncontrolled annealed* sampler (ULA with the current
        schedule) has the best ELBO on n paths. A cheap stand-in for the long dt learning of the paper
        that our short budgets cannot afford; the same rule serves every method."""
        c = self.config
        values = [c.dt * m for m in DT_GRID] if grid is None else [float(g) for g in grid]
        if not values or any(not v > 0 for v in values):
            raise UserError(f"tune_dt: the grid must hold positive step sizes, got {values}")
        with few_threads():
            self._tune_dt(values, n, seed)
        return self

    def _tune_dt(self, values: list[float], n: int, seed: int | None) -> None:
        c = self.config
        ula = self._dynamics(NoControls(), "anneal")
        g = torch.Generator()
        best = torch.full((c.replicas,), -float("inf"), dtype=torch.float64)
        choice = torch.full((c.replicas,), values[0], dtype=self.dtype)
        for dt in values:
            self.params.set_dt(torch.full((c.replicas,), dt, dtype=self.dtype))
            first_order_ud = c.underdamped and c.o_step == "first_order"
            if first_order_ud and float(self.params.etas(True).detach().max()) >= 1:
                continue
            g.manual_seed(c.seed + 2 if seed is None else seed)
            with torch.no_grad():
                lw = ula.forward_path(int(n), g).log_w.double()
            score = torch.tensor([metrics.elbo(row)[0] for row in lw], dtype=torch.float64)
            better = score > best
            best = torch.where(better, score, best)
            choice = torch.where(better, torch.tensor(dt, dtype=self.dtype), choice)
        self.params.set_dt(choice)
        self.tuned_dt_ = choice.tolist()

    def fit(self, iterations: int = 1000, batch_size: int = 256, progress: bool = True) -> Sampler:
        """Train for `iterations` Adam steps on batches of `batch_size` paths (paper: 10,000 × 2,000)."""
        if int(iterations) < 0 or int(batch_size) < 2:
            raise UserError(f"iterations must be >= 0 and batch_size >= 2, got {iterations} and {batch_size}")
        nets, sde = self.trainable()
        if not nets + sde:
            return self  # a fully frozen ULA: nothing to learn
        with few_threads():
            self._train(int(iterations), int(batch_size), nets, sde, progress)
        return self

    def _train(self, iterations: int, batch_size: int, nets: list, sde: list, progress: bool) -> None:
        everything = nets + sde
        opt = torch.optim.Adam([{"params": g, "lr": self.config.lr} for g in (nets, sde) if g])
        steps = range(iterations)
        for _ in progress_bar(steps, f"fitting {self.name}", disable=None if progress else True):
            t0 = time.perf_counter()
            loss, log_w = self.loss(batch_size)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            self._clip(everything)
            opt.step()
            self.history_.append({"iteration": len(self.history_), "loss": float(loss.detach()),
                                  "elbo": float(log_w.detach().mean()), "seconds": time.perf_counter() - t0})

    def _clip(self, params: list[torch.nn.Parameter]) -> None:
        """Zero NaN/inf gradients, then clip each replica's gradient to norm ≤ grad_clip (replicas stay
        independent: every parameter's first axis is the replica)."""
        R = self.config.replicas
        sq = torch.zeros(R, dtype=torch.float64)
        for p in params:
            if p.grad is not None:
                torch.nan_to_num_(p.grad, nan=0.0, posinf=0.0, neginf=0.0)
                sq += p.grad.double().reshape(R, -1).pow(2).sum(1)
        scale = (self.config.grad_clip / (sq.sqrt() + 1e-6)).clamp(max=1.0)
        for p in params:
            if p.grad is not None:
                p.grad.mul_(scale.to(p.dtype).reshape(R, *([1] * (p.dim() - 1))))

    # ---- using it ------------------------------------------------------------------------------
    def sample(self, n: int = 2000, seed: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """n samples x_K and their log importance weights log w: (n, d) and (n,), or (R, n, d) and (R, n)
        with several replicas."""
        if int(n) < 1:
            raise UserError(f"n must be >= 1, got {n}")
        g = torch.Generator().manual_seed(self.config.seed + 1 if seed is None else seed)
        with torch.no_grad(), few_threads():
            path = self.dynamics.forward_path(int(n), g)
        x, log_w = path.x.detach(), path.log_w.detach()
        return (x[0], log_w[0]) if self.config.replicas == 1 else (x, log_w)

    def evaluate(self, n: int = 2000, seed: int | None = None, sinkhorn: bool = False,
                 reference: np.ndarray | None = None):
        """ELBO ± SE, log Ẑ ± SE, ESS, and where the target knows them |log Ẑ - log Z|, the mode coverage
        (EMC: mixtures, many-well) and, with `sinkhorn=True`, the Sinkhorn divergence and MMD to exact
        samples (at most 1,000 points); `reference` (n, d): the user's own reference samples for the
        Sinkhorn divergence and MMD. A dict, or one per replica."""
        x, log_w = self.sample(n, seed)
        if self.config.replicas == 1:
            x, log_w = x[None], log_w[None]
        truth = None
        if reference is not None:
            truth = np.asarray(reference, dtype=np.float64)
            if truth.ndim != 2 or truth.shape[1] != self.target.dim or len(truth) < 2:
                raise UserError(f"reference samples must be (n >= 2, {self.target.dim}), got shape "
                                f"{truth.shape}")
            truth = np.clip(truth[:1000], -30, 30)
        elif sinkhorn and self.target.can_sample:
            g = torch.Generator().manual_seed(12345 if seed is None else seed + 7)
            truth = np.clip(self.target.sample(min(int(n), 1000), g).numpy(), -30, 30)
        out = [self._metrics(x[r], log_w[r], truth) for r in range(len(log_w))]
        return out[0] if self.config.replicas == 1 else out

    def _metrics(self, x: torch.Tensor, log_w: torch.Tensor, truth: np.ndarray | None) -> dict[str, float]:
        e, e_se = metrics.elbo(log_w)
        z, z_se = metrics.log_z_hat(log_w)
        out = {"elbo": e, "elbo_se": e_se, "log_z_hat": z, "log_z_se": z_se, "ess": metrics.ess(log_w),
               "nonfinite": int((~torch.isfinite(log_w)).sum()), "n": len(log_w)}
        if self.target.log_Z is not None:
            out["log_z"] = float(self.target.log_Z)
            out["log_z_error"] = abs(z - self.target.log_Z)
        if truth is not None:
            mine = np.clip(x[:len(truth)].double().numpy(), -30, 30)
            out["sinkhorn"] = metrics.sinkhorn(mine, truth)
            out["mmd"] = metrics.mmd(mine, truth)
        if hasattr(self.target, "modes"):  # mode coverage: mixtures, many-well
            out["emc"] = metrics.emc(self.target.modes(x).numpy(), self.target.n_modes)
        return out

    def elbo(self, n: int = 2000, seed: int | None = None) -> tuple[float, float]:
        """(ELBO, standard error) from n fresh paths (first replica)."""
        return metrics.elbo(self._first(self.sample(n, seed)[1]))

    def log_Z(self, n: int = 2000, seed: int | None = None) -> tuple[float, float]:  # noqa: N802 (paper's name)
        """(log Ẑ, standard error) from n fresh paths (first replica)."""
        return metrics.log_z_hat(self._first(self.sample(n, seed)[1]))

    def ess(self, n: int = 2000, seed: int | None = None) -> float:
        """Normalised effective sample size of n fresh importance weights (first replica)."""
        return metrics.ess(self._first(self.sample(n, seed)[1]))

    def _first(self, log_w: torch.Tensor) -> torch.Tensor:
        return log_w if self.config.replicas == 1 else log_w[0]

    # ---- persistence ---------------------------------------------------------------------------
    def state(self) -> dict:
        return {"format": FORMAT_VERSION, "config": asdict(self.config), "params": self.params.state_dict(),
                "controls": self.controls.state_dict(), "history": self.history_}

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        with atomic_write(path) as f:
            torch.save(self.state(), f)
        return path

    @classmethod
    def load(cls, path: str | Path, target: Target) -> Sampler:
        """A sampler saved by `save`, for the same target."""
        path = Path(path)
        if not path.is_file():
            raise UserError(f"no saved sampler at {path}")
        try:  # weights_only: a saved sampler is tensors and plain containers, never code to run
            state = torch.load(path, weights_only=True)
        except Exception as e:  # a truncated, foreign or pickled-code file
            raise UserError(f"cannot read saved sampler {path}: {type(e).__name__}") from None
        if not isinstance(state, dict) or state.get("format") != FORMAT_VERSION:
            raise UserError(f"{path} is not a saved sampler of format {FORMAT_VERSION}")
        try:
            cfg = dict(state["config"])
            cfg["learn"] = tuple(cfg["learn"])
            sampler = cls(target, config=SamplerConfig(**cfg))
            sampler.params.load_state_dict(state["params"])
            sampler.controls.load_state_dict(state["controls"])
        except UserError:
            raise
        except Exception as e:  # keys or shapes of another sampler or target
            raise UserError(f"{path} does not fit target {target.name} (d = {target.dim}): "
                            f"{type(e).__name__}: {str(e).splitlines()[0][:200]}") from None
        sampler.history_ = list(state.get("history", []))
        return sampler
