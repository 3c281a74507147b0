"""Scripted demonstrators for a user's own styles: each holds one value of an env's style factor, and
`make_demos` rolls them out through the env itself (so the demonstrations are exactly what the simulator
does), with the authors' action noise N(0.01, 0.01²).

* lanes (point-lane, hazard-lane, longmaze): a PD controller on the lateral position y, holding the lane
  y = style while cruising forward;
* pendulum: an LQR controller of the port's dynamics linearised at the upright pole, regulating the cart
  to x = style (the authors trained one SAC expert per target position instead)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy as np
import torch

from iclr25.core.errors import UserError
from iclr25.guided_strategy.envs.base import VecEnv

NOISE_MEAN, NOISE_STD = 0.01, 0.01  # the authors' action noise
LANE_KP, LANE_KD = 0.5, 0.1
Expert = Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]  # (obs, prev obs, style) -> a


def lane_expert(cruise: float, to_action: Callable[[torch.Tensor], torch.Tensor] = lambda d: d) -> Expert:
    """Displacement (cruise, KP (style − y) − KD ẏ), mapped to the env's action by `to_action`."""
    def act(obs: torch.Tensor, prev: torch.Tensor, style: torch.Tensor) -> torch.Tensor:
        vy = obs[:, 1] - prev[:, 1]
        dy = LANE_KP * (style - obs[:, 1]) - LANE_KD * vy
        return to_action(torch.stack([torch.full_like(dy, cruise), dy], 1))
    return act


@functools.lru_cache(maxsize=4)
def pendulum_lqr_gain(q: tuple[float, ...] = (10.0, 100.0, 1.0, 1.0), r: float = 1.0) -> np.ndarray:
    """Discrete LQR gain K (1, 4) of the pendulum port, its one-step map (two RK4 steps) linearised at
    the upright rest state by central differences."""
    from scipy.linalg import solve_discrete_are

    from iclr25.guided_strategy.envs.pendulum import ACTION_SCALE, FRAME_SKIP, MUJOCO21, rk4_step

    def f(s: np.ndarray, u: float) -> np.ndarray:
        st = torch.tensor(s, dtype=torch.float64)
        for _ in range(FRAME_SKIP):
            st = rk4_step(st, torch.tensor(ACTION_SCALE * u, dtype=torch.float64), MUJOCO21)
        return st.numpy()

    eps, zero = 1e-6, np.zeros(4)
    a = np.stack([(f(zero + eps * e, 0.0) - f(zero - eps * e, 0.0)) / (2 * eps) for e in np.eye(4)], 1)
    b = ((f(zero, eps) - f(zero, -eps)) / (2 * eps))[:, None]
    qm, rm = np.diag(q), np.array([[r]])
    p = solve_discrete_are(a, b, qm, rm)
    return np.linalg.solve(rm + b.T @ p @ b, b.T @ p @ a)


def pendulum_expert() -> Expert:
    k = torch.tensor(pendulum_lqr_gain(), dtype=torch.float32)

    def act(obs: torch.Tensor, prev: torch.Tensor, style: torch.Tensor) -> torch.Tensor:
        err = obs.clone()
        err[:, 0] = obs[:, 0] - style
        return -(err @ k.T)
    return act


def expert_for(env: VecEnv) -> Expert:
    """The scripted demonstrator of a built-in env."""
    if env.name == "pendulum":
        return pendulum_expert()
    if env.name in ("point-lane", "hazard-lane"):
        return lane_expert(0.2)
    if env.name == "longmaze":
        from iclr25.guided_strategy.envs.longmaze import STEP_SCALE
        return lane_expert(0.12, lambda d: d / STEP_SCALE)
    raise UserError(f"no scripted demonstrator for env {env.name!r}")


def style_range(env: VecEnv) -> tuple[float, float]:
    """The style values a demonstrator can hold: inside the walls (the lanes), away from the hazard
    band (hazard-lane), inside the slider's range (pendulum)."""
    return {"pendulum": (-0.9, 0.9), "point-lane": (-1.0, 1.0), "hazard-lane": (-0.9, 0.9),
            "longmaze": (-3.0, 3.0)}.get(env.name, (-np.inf, np.inf))


def make_demos(env: VecEnv, styles: Sequence[float], per_style: int = 5, seed: int = 0,
               expert: Expert | None = None) -> dict[str, np.ndarray]:
    """`per_style` noisy demonstrations of every style value, rolled out through `env`: observations
    (N, T, ds), actions (N, T, da), rewards (N, T), levels (N,) = 1 + the style's index, styles (N,)."""
    lo, hi = style_range(env)
    vals = [float(s) for s in styles]
    if not vals:
        raise UserError("no styles given")
    bad = [s for s in vals if not (np.isfinite(s) and lo <= s <= hi)]
    if bad:
        raise UserError(f"style {bad[0]:g} is outside what the {env.name} demonstrator can hold "
                        f"[{lo:g}, {hi:g}]")
    if per_style < 1:
        raise UserError(f"per_style must be >= 1, got {per_style}")
    act = expert or expert_for(env)
    style = torch.tensor(np.repeat(vals, per_style), dtype=torch.float32)
    n = len(style)
    g = torch.Generator().manual_seed(seed)
    obs = env.reset(n, g).float()
    prev = obs.clone()
    low, high = torch.tensor(env.bounds.low), torch.tensor(env.bounds.high)
    os_, as_, rs_ = [], [], []
    for _ in range(env.horizon):
        a = act(obs, prev, style) + NOISE_MEAN + NOISE_STD * torch.randn(n, env.act_dim, generator=g)
        a = torch.maximum(torch.minimum(a, high), low)
        os_.append(obs.numpy())
        as_.append(a.numpy())
        prev = obs
        obs, r = env.step(a)
        obs = obs.float()
        rs_.append(r.float().numpy())
    return {"observations": np.stack(os_, 1).astype(np.float32),
            "actions": np.stack(as_, 1).astype(np.float32),
            "rewards": np.stack(rs_, 1).astype(np.float32),
            "levels": np.repeat(np.arange(1, len(vals) + 1), per_style).astype(np.int64),
            "styles": style.numpy()}
