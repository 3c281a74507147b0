"""Guided Strategy Discovery and its InfoGAIL baselines: one estimator, four methods.

    gsd            InfoGAIL + bounded discriminator + GSD's task-relevance constraint on the decoder
    infogail       InfoGAIL with a continuous code (IG)
    infogail_m     IG with the bounded discriminator logit ℓ = clip·σ(h) − clip/2 (IG+M)
    infogail_m_sn  IG+M with a spectral-normalised decoder, inputs scaled by λ_C (IG+M+SN)

Per iteration (authors' workshop code, `core/gsdr.py`): one fixed-length episode per env copy with a
fresh z ~ N(0, I); `d_steps` discriminator steps (BCE + gradient penalty), each followed by a decoder
step (−log q(z|s,a), plus for GSD the Lagrangian constraint and a dual step); rewards
r = −log(1 − σ(ℓ)) + λ_I log q(z|s,a); one PPO update."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from iclr25.core.errors import UserError
from iclr25.core.runtime import progress
from iclr25.guided_strategy.demos import Demos
from iclr25.guided_strategy.envs.base import VecEnv
from iclr25.guided_strategy.losses import (
    constraint_violation,
    discriminator_loss,
    gaussian_log_prob,
    gradient_penalty,
    info_gail_reward,
    lagrangian_terms,
    relevance_limit,
)
from iclr25.guided_strategy.networks import Decoder, Discriminator, GaussianPolicy, mlp
from iclr25.guided_strategy.ppo import Batch, ReturnScaler, gae, ppo_update

METHODS = ("gsd", "infogail", "infogail_m", "infogail_m_sn")
# λ_C of the authors' pendulum runs: GSD's relevance scale, SN's input scale (unused by IG and IG+M)
DEFAULT_LAMBDA_C = {"gsd": 5.0, "infogail_m_sn": 1.0}


@dataclass(frozen=True)
class GSDConfig:
    """Hyper-parameters; defaults are the authors' InvertedPendulum settings."""

    method: str = "gsd"
    latent_dim: int = 2  # encode_dim
    lambda_info: float = 0.1  # λ_I = 1 − dr_cc
    lambda_c: float | None = None  # λ_C (dl_scale); None: 5 for GSD, 1 for SN
    clip: float = 10.0  # +M logit bound (clip_discriminator)
    gp_lambda: float = 0.1  # gradient-penalty weight
    gp_center: float = 1.0
    hidden: tuple[int, ...] = (100, 100)  # all four networks, ReLU
    lr_policy: float = 3e-4
    lr_disc: float = 1e-3
    lr_decoder: float = 1e-3
    gamma: float = 0.99
    gae_lambda: float = 0.97
    ppo_clip: float = 0.2
    ppo_epochs: int = 5
    ppo_minibatches: int = 4
    log_std_init: float = 0.0
    d_steps: int = 5  # discriminator (and decoder) steps per iteration
    d_batch: int = 512  # demo and policy samples per discriminator / decoder step
    dual_init: float = 100.0  # λ of the Lagrangian, initial value
    dual_lr: float = 1e-3  # Adam on log λ
    slack: float = 1e-6
    obs_clip: float = 10.0  # normalised observations are clipped to ±obs_clip

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise UserError(f"unknown method {self.method!r}; choose from {', '.join(METHODS)}")
        if self.latent_dim < 1:
            raise UserError(f"latent_dim must be >= 1, got {self.latent_dim}")
        if self.lambda_c is not None and not self.lambda_c > 0:
            raise UserError(f"lambda_c must be > 0, got {self.lambda_c}")
        for name in ("clip", "dual_init", "lr_policy", "lr_disc", "lr_decoder", "obs_clip"):
            if not getattr(self, name) > 0:
                raise UserError(f"{name} must be > 0, got {getattr(self, name)}")
        for name in ("lambda_info", "gp_lambda", "slack", "dual_lr"):
            if not getattr(self, name) >= 0:
                raise UserError(f"{name} must be >= 0, got {getattr(self, name)}")
        for name in ("ppo_epochs", "ppo_minibatches", "d_steps", "d_batch"):
            if getattr(self, name) < 1:
                raise UserError(f"{name} must be >= 1, got {getattr(self, name)}")
        if not self.hidden or min(self.hidden) < 1:
            raise UserError(f"hidden must be non-empty positive sizes, got {self.hidden}")

    @property
    def bounded(self) -> bool:
        return self.method != "infogail"

    @property
    def effective_lambda_c(self) -> float:
        return self.lambda_c if self.lambda_c is not None else DEFAULT_LAMBDA_C.get(self.method, 1.0)


@dataclass
class Normalizer:
    """Observation mean/std (from the demos) and the action box centre/half-range."""

    obs_mean: torch.Tensor
    obs_std: torch.Tensor
    act_center: torch.Tensor
    act_half: torch.Tensor
    obs_clip: float = 10.0

    def obs(self, o: torch.Tensor) -> torch.Tensor:
        return ((o - self.obs_mean) / self.obs_std).clamp(-self.obs_clip, self.obs_clip)

    def act_to_u(self, a: torch.Tensor) -> torch.Tensor:
        return (a - self.act_center) / self.act_half

    def u_to_act(self, u: torch.Tensor) -> torch.Tensor:
        return self.act_center + self.act_half * u


@dataclass
class History:
    """Per-iteration training curves."""

    task_return: list[float] = field(default_factory=list)  # mean env return per episode
    disc_reward: list[float] = field(default_factory=list)  # mean −log(1 − σ(ℓ)) per step
    log_q: list[float] = field(default_factory=list)  # mean log q(z|s,a) on policy samples
    disc_acc: list[float] = field(default_factory=list)
    dual_lambda: list[float] = field(default_factory=list)
    violation: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)


class GSD:
    """Latent-conditioned imitation from heterogeneous demonstrations (GSD or an InfoGAIL baseline).

    >>> from iclr25.guided_strategy import GSD, PointLane, lane_demos, Demos
    >>> d = lane_demos(per_level=2)
    >>> demos = Demos(d["observations"], d["actions"], d["rewards"], d["levels"])
    >>> model = GSD(2, 2, method="gsd", hidden=(16,)).fit(demos, PointLane(), iterations=2, n_envs=8)
    >>> model.infer_latent(demos.observations, demos.actions).shape
    (10, 2)
    """

    def __init__(self, obs_dim: int, act_dim: int, method: str = "gsd", latent_dim: int = 2,
                 lambda_c: float | None = None, *, config: GSDConfig | None = None, seed: int = 0,
                 **overrides: Any) -> None:
        if obs_dim < 1 or act_dim < 1:
            raise UserError(f"obs_dim and act_dim must be >= 1, got {obs_dim}, {act_dim}")
        names = {f.name for f in fields(GSDConfig)}
        unknown = sorted(set(overrides) - names)
        if unknown:
            raise UserError(f"unknown GSD option {unknown[0]!r}")
        if "hidden" in overrides:
            overrides["hidden"] = tuple(overrides["hidden"])
        base = config or GSDConfig()
        self.config = replace(base, method=method, latent_dim=latent_dim,
                              lambda_c=lambda_c if lambda_c is not None else base.lambda_c, **overrides)
        self.obs_dim, self.act_dim, self.seed = obs_dim, act_dim, seed
        cfg, dz = self.config, self.config.latent_dim
        with torch.random.fork_rng():
            torch.manual_seed(seed)
            self.policy = GaussianPolicy(obs_dim, dz, act_dim, cfg.hidden, cfg.log_std_init)
            self.value = mlp(obs_dim + dz, cfg.hidden, 1)
            self.disc = Discriminator(obs_dim + act_dim, cfg.hidden, cfg.clip if cfg.bounded else None)
            self.decoder = Decoder(obs_dim + act_dim, dz, cfg.hidden, sn=cfg.method == "infogail_m_sn",
                                   sn_scale=cfg.effective_lambda_c)
        self.log_lambda = torch.nn.Parameter(torch.tensor(float(np.log(cfg.dual_init))))
        self.opt_pv = torch.optim.Adam([*self.policy.parameters(), *self.value.parameters()],
                                       lr=cfg.lr_policy, foreach=True)
        self.opt_disc = torch.optim.Adam(self.disc.parameters(), lr=cfg.lr_disc, foreach=True)
        self.opt_dec = torch.optim.Adam(self.decoder.parameters(), lr=cfg.lr_decoder, foreach=True)
        self.opt_dual = torch.optim.Adam([self.log_lambda], lr=cfg.dual_lr)
        self.generator = torch.Generator().manual_seed(seed)
        self.scaler = ReturnScaler(cfg.gamma)
        self.norm_: Normalizer | None = None
        self.env_name_: str | None = None  # the simulator it was trained in
        self.history_ = History()

    # ---- data in -------------------------------------------------------------------------------------

    def _check_demos(self, demos: Demos) -> None:
        if demos.obs_dim != self.obs_dim:
            raise UserError(f"demos have observation dim {demos.obs_dim}, the model expects {self.obs_dim}")
        if demos.act_dim != self.act_dim:
            raise UserError(f"demos have action dim {demos.act_dim}, the model expects {self.act_dim}")

    def _set_normalizer(self, demos: Demos, env: VecEnv | None) -> None:
        flat = torch.as_tensor(demos.observations.reshape(-1, self.obs_dim), dtype=torch.float32)
        std = flat.std(0).clamp_min(1e-3)
        if env is not None:
            center, half = env.bounds.center.float(), env.bounds.half_range.float()
        else:  # no simulator: the demos' own action range
            acts = torch.as_tensor(demos.actions.reshape(-1, self.act_dim), dtype=torch.float32)
            center = (acts.max(0).values + acts.min(0).values) / 2
            half = ((acts.max(0).values - acts.min(0).values) / 2).clamp_min(1e-3)
        self.norm_ = Normalizer(flat.mean(0), std, center, half, self.config.obs_clip)

    def _norm(self) -> Normalizer:
        if self.norm_ is None:
            raise UserError("the model is not fitted yet: call fit() first")
        return self.norm_

    # ---- training --------------------------------------------------------------------------------------

    def fit(self, demos: Demos, env: VecEnv, iterations: int = 100, n_envs: int = 64,
            show_progress: bool = True, callback: Callable[[int, GSD], None] | None = None) -> GSD:
        """Train on `demos` (state-action pairs; their levels are never used) by interacting with `env`."""
        self._check_demos(demos)
        if env.obs_dim != self.obs_dim or env.act_dim != self.act_dim:
            raise UserError(f"env {env.name!r} has (obs, act) dims ({env.obs_dim}, {env.act_dim}), the "
                            f"model expects ({self.obs_dim}, {self.act_dim})")
        if iterations < 1 or n_envs < 2:
            raise UserError(f"need iterations >= 1 and n_envs >= 2, got {iterations} and {n_envs}")
        if self.norm_ is None:
            self._set_normalizer(demos, env)
        self.env_name_ = env.name
        norm = self._norm()
        real = torch.cat([norm.obs(torch.as_tensor(demos.observations.reshape(-1, self.obs_dim),
                                                   dtype=torch.float32)),
                          norm.act_to_u(torch.as_tensor(demos.actions.reshape(-1, self.act_dim),
                                                        dtype=torch.float32))], 1)  # (N·T, ds + da)
        for it in progress(range(iterations), f"{self.config.method} training", total=iterations,
                           disable=None if show_progress else True):
            self._iteration(env, real, n_envs)
            if callback is not None:
                callback(it, self)
        return self

    def _iteration(self, env: VecEnv, real: torch.Tensor, n_envs: int) -> None:
        t0 = time.perf_counter()
        cfg, g = self.config, self.generator
        z = torch.randn(n_envs, cfg.latent_dim, generator=g)
        batch = self._collect(env, z)
        flat = batch.flat()
        fake = torch.cat([flat["obs"], flat["u_applied"]], 1)  # (T·N, ds + da)
        acc, viol = [], []
        self.disc.train()
        self.decoder.train()
        for _ in range(cfg.d_steps):
            acc.append(self._disc_step(real, fake))
            viol.append(self._decoder_step(flat, fake))
        rewards, log_q, disc_r = self._rewards(fake, flat["z"], batch.logp.shape)
        self._ppo(batch, rewards)
        h = self.history_
        h.task_return.append(float(batch.task_reward.sum(0).mean()))
        h.disc_reward.append(disc_r)
        h.log_q.append(log_q)
        h.disc_acc.append(float(np.mean(acc)))
        h.dual_lambda.append(float(self.log_lambda.detach().exp()))
        h.violation.append(float(np.mean(viol)))
        h.seconds.append(time.perf_counter() - t0)

    @torch.no_grad()
    def _collect(self, env: VecEnv, z: torch.Tensor) -> Batch:
        norm, g = self._norm(), self.generator
        obs = env.reset(len(z), g)
        rows: dict[str, list[torch.Tensor]] = {k: [] for k in ("obs", "next", "u", "ua", "logp", "r")}
        for _ in range(env.horizon):
            s = norm.obs(obs)
            u, logp = self.policy.sample(torch.cat([s, z], 1), g)
            ua = u.clamp(-1.0, 1.0)
            obs, r = env.step(norm.u_to_act(ua))
            rows["obs"].append(s)
            rows["next"].append(norm.obs(obs))
            rows["u"].append(u)
            rows["ua"].append(ua)
            rows["logp"].append(logp)
            rows["r"].append(r.float())
        st = {k: torch.stack(v) for k, v in rows.items()}
        return Batch(st["obs"], st["next"], st["u"], st["ua"], st["logp"], st["r"], z)

    def _disc_step(self, real: torch.Tensor, fake: torch.Tensor) -> float:
        cfg, g = self.config, self.generator
        xr = real[torch.randint(len(real), (cfg.d_batch,), generator=g)]
        xf = fake[torch.randint(len(fake), (cfg.d_batch,), generator=g)]
        lr_, lf = self.disc.logit(xr), self.disc.logit(xf)
        loss = discriminator_loss(lr_, lf)
        if cfg.gp_lambda > 0:
            loss = loss + cfg.gp_lambda * gradient_penalty(self.disc.logit, xr, xf, g, cfg.gp_center)
        self.opt_disc.zero_grad()
        loss.backward()
        self.opt_disc.step()
        return float(((lr_ > 0).float().mean() + (lf < 0).float().mean()) / 2)

    def _decoder_step(self, flat: dict[str, torch.Tensor], fake: torch.Tensor) -> float:
        cfg, g = self.config, self.generator
        idx = torch.randint(len(fake), (cfg.d_batch,), generator=g)
        sa, z = fake[idx], flat["z"][idx]
        mu, log_std = self.decoder(sa)
        loss = -gaussian_log_prob(z, mu, log_std).mean()  # −E_π[log q(z|s,a)]
        if cfg.method != "gsd":
            self.opt_dec.zero_grad()
            loss.backward()
            self.opt_dec.step()
            return 0.0
        with torch.no_grad():
            s_next = flat["next_obs"][idx]
            u_next = self.policy.greedy(torch.cat([s_next, z], 1)).clamp(-1.0, 1.0)  # a' = greedy π(s', z)
            sa_next = torch.cat([s_next, u_next], 1)
            limit = relevance_limit(self.disc.relevance(sa), sa_next - sa, cfg.effective_lambda_c)
        violation = constraint_violation(mu, self.decoder.mean(sa_next), limit, cfg.slack)
        dec_term, dual_term = lagrangian_terms(violation, self.log_lambda)
        self.opt_dec.zero_grad()
        (loss + dec_term).backward()
        self.opt_dec.step()
        self.opt_dual.zero_grad()
        dual_term.backward()
        self.opt_dual.step()
        return float(violation.detach())

    @torch.no_grad()
    def _rewards(self, fake: torch.Tensor, z: torch.Tensor, shape: torch.Size) -> tuple[torch.Tensor, float,
                                                                                            float]:
        logit = self.disc.logit(fake)
        mu, log_std = self.decoder(fake)
        log_q = gaussian_log_prob(z, mu, log_std)
        r = info_gail_reward(logit, log_q, self.config.lambda_info)
        return r.reshape(shape), float(log_q.mean()), float(torch.nn.functional.softplus(logit).mean())

    def _ppo(self, batch: Batch, rewards: torch.Tensor) -> None:
        cfg = self.config
        T, N = rewards.shape
        sz = torch.cat([batch.obs, batch.z.expand(T, N, -1)], -1)  # (T, N, ds + dz)
        with torch.no_grad():
            values = self.value(sz)[..., 0]
            last = self.value(torch.cat([batch.next_obs[-1], batch.z], -1))[:, 0]
        adv, ret = gae(self.scaler(rewards), values, last, cfg.gamma, cfg.gae_lambda)
        ppo_update(self.policy, self.value, self.opt_pv, sz.reshape(T * N, -1), batch.u.reshape(T * N, -1),
                   batch.logp.reshape(-1), adv.reshape(-1), ret.reshape(-1), cfg.ppo_epochs,
                   cfg.ppo_minibatches, cfg.ppo_clip, self.generator)

    # ---- using a trained model -----------------------------------------------------------------------------

    def act(self, obs: np.ndarray, z: np.ndarray, deterministic: bool = True) -> np.ndarray:
        """Actions (B, act_dim) in the env's units for observations (B, obs_dim) and codes (B, dz)."""
        norm = self._norm()
        o = self._as_2d(obs, self.obs_dim, "obs")
        zz = self._as_2d(z, self.config.latent_dim, "z")
        if len(zz) != len(o):
            raise UserError(f"act: {len(o)} observations but {len(zz)} codes")
        with torch.no_grad():
            sz = torch.cat([norm.obs(o), zz], 1)
            u = self.policy.greedy(sz) if deterministic else self.policy.sample(sz, self.generator)[0]
            return norm.u_to_act(u.clamp(-1.0, 1.0)).numpy()

    def _inputs(self, observations: np.ndarray, actions: np.ndarray) -> torch.Tensor:
        """Normalised (s, a) rows (N, T, ds + da) from trajectories (N, T, ·) or one trajectory (T, ·)."""
        norm = self._norm()
        o, a = np.asarray(observations, dtype=np.float64), np.asarray(actions, dtype=np.float64)
        if o.ndim == 2:
            o, a = o[None], a[None]
        if o.ndim != 3 or a.ndim != 3 or o.shape[:2] != a.shape[:2]:
            raise UserError(f"observations {o.shape} and actions {a.shape} must be (N, T, dim) with equal "
                            f"N and T")
        if o.shape[2] != self.obs_dim or a.shape[2] != self.act_dim:
            raise UserError(f"got observation/action dims ({o.shape[2]}, {a.shape[2]}), the model expects "
                            f"({self.obs_dim}, {self.act_dim})")
        if not (np.isfinite(o).all() and np.isfinite(a).all()):
            raise UserError("observations or actions hold NaN or inf")
        ot, at = torch.as_tensor(o, dtype=torch.float32), torch.as_tensor(a, dtype=torch.float32)
        return torch.cat([norm.obs(ot), norm.act_to_u(at).clamp(-1.0, 1.0)], -1)

    def infer_latent(self, observations: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Each trajectory's code (N, dz): the precision-weighted mean of its per-step posteriors
        q(z | s_t, a_t), i.e. the posterior of z given the whole trajectory."""
        sa = self._inputs(observations, actions)
        self.decoder.eval()
        with torch.no_grad():
            mu, log_std = self.decoder(sa.reshape(-1, sa.shape[-1]))
        prec = torch.exp(-2 * log_std).reshape(*sa.shape[:2], -1)  # (N, T, dz)
        mu = mu.reshape(*sa.shape[:2], -1)
        return ((prec * mu).sum(1) / prec.sum(1)).numpy()

    def relevance(self, observations: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """σ(h(s, a)) per step (N, T): the discriminator's expert-likeness (GSD's task relevance)."""
        sa = self._inputs(observations, actions)
        with torch.no_grad():
            return self.disc.relevance(sa.reshape(-1, sa.shape[-1])).reshape(sa.shape[:2]).numpy()

    def decoder_mean(self, observations: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """μ_φ(s, a) per step (N, T, dz)."""
        sa = self._inputs(observations, actions)
        self.decoder.eval()
        with torch.no_grad():
            return self.decoder.mean(sa.reshape(-1, sa.shape[-1])).reshape(*sa.shape[:2], -1).numpy()

    def normalized_inputs(self, observations: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """The (s, a) rows as the discriminator and decoder see them (N, T, ds + da)."""
        return self._inputs(observations, actions).numpy()

    @torch.no_grad()
    def rollout(self, env: VecEnv, z: np.ndarray, seed: int = 0,
                deterministic: bool = True) -> dict[str, np.ndarray]:
        """One episode per code: observations (N, T, ds) (s_0..s_{T-1}), actions (N, T, da) in env units,
        rewards (N, T)."""
        norm = self._norm()
        zz = self._as_2d(z, self.config.latent_dim, "z")
        g = torch.Generator().manual_seed(seed)
        obs = env.reset(len(zz), g)
        out: dict[str, list[np.ndarray]] = {"observations": [], "actions": [], "rewards": []}
        for _ in range(env.horizon):
            sz = torch.cat([norm.obs(obs), zz], 1)
            u = self.policy.greedy(sz) if deterministic else self.policy.sample(sz, g)[0]
            a = norm.u_to_act(u.clamp(-1.0, 1.0))
            out["observations"].append(obs.numpy())
            out["actions"].append(a.numpy())
            obs, r = env.step(a)
            out["rewards"].append(r.numpy())
        return {k: np.stack(v, 1) for k, v in out.items()}

    @staticmethod
    def _as_2d(x: np.ndarray, dim: int, name: str) -> torch.Tensor:
        arr = np.asarray(x, dtype=np.float64)
        if arr.ndim == 1:
            arr = arr[None]
        if arr.ndim != 2 or arr.shape[1] != dim:
            raise UserError(f"{name} must be (B, {dim}), got shape {arr.shape}")
        if not np.isfinite(arr).all():
            raise UserError(f"{name} holds NaN or inf")
        return torch.as_tensor(arr, dtype=torch.float32)

    # ---- persistence ------------------------------------------------------------------------------------

    def save(self, path: str | Path) -> None:
        """Write the trained model (networks, normaliser, config) to `path` (torch format)."""
        from iclr25.core.runtime import atomic_write
        norm = self._norm()
        state = {"config": asdict(self.config), "obs_dim": self.obs_dim, "act_dim": self.act_dim,
                 "seed": self.seed, "policy": self.policy.state_dict(), "value": self.value.state_dict(),
                 "disc": self.disc.state_dict(), "decoder": self.decoder.state_dict(),
                 "log_lambda": self.log_lambda.detach().clone(),
                 "norm": {k: getattr(norm, k) for k in ("obs_mean", "obs_std", "act_center", "act_half")},
                 "history": asdict(self.history_), "env": self.env_name_}
        with atomic_write(path) as f:
            torch.save(state, f)

    @classmethod
    def load(cls, path: str | Path) -> GSD:
        """A model written by `save`."""
        path = Path(path)
        if not path.is_file():
            raise UserError(f"model file not found: {path}")
        try:
            state = torch.load(path, map_location="cpu", weights_only=True)
            cfg = GSDConfig(**{**state["config"], "hidden": tuple(state["config"]["hidden"])})
            model = cls(state["obs_dim"], state["act_dim"], cfg.method, cfg.latent_dim, cfg.lambda_c,
                        config=cfg, seed=state["seed"])
            for name in ("policy", "value", "disc", "decoder"):
                getattr(model, name).load_state_dict(state[name])
            model.log_lambda.data.copy_(state["log_lambda"])
            model.norm_ = Normalizer(**state["norm"], obs_clip=cfg.obs_clip)
            model.history_ = History(**state["history"])
            model.env_name_ = state.get("env")
        except UserError as e:
            raise UserError(f"model {path}: {e}") from None
        except Exception as e:  # noqa: BLE001 - any unreadable or damaged file is the user's to fix
            why = (str(e).splitlines() or [type(e).__name__])[0][:160]
            raise UserError(f"cannot read model {path}: {why}") from None
        return model
