"""An exact torch port of the authors' InvertedPendulum (gym's MuJoCo cart-pole, MuJoCo 2.1 masses).

Slider x (cart) and hinge θ (pole, about +y), damping 1 on both joints, motor gear 100 on the slider,
ctrl u = 3a clipped to ±3, RK4 with dt 0.02 and frame skip 2. The equations of motion of the two-link
chain are written out (no contacts are involved); the joint ranges (|x| ≤ 1, |θ| ≤ 90°) are enforced as
inelastic stops, where MuJoCo uses soft constraints (never reached by the demonstrations).
Observation (x, θ, ẋ, θ̇); reward 1 while |θ| ≤ 0.3, else 0, no termination."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from iclr25.guided_strategy.envs.base import ActionBounds

GRAVITY = 9.81
DAMPING = 1.0
GEAR = 100.0
CTRL_LIMIT = 3.0
ACTION_SCALE = 3.0  # the authors' policies act in [-1, 1]; ctrl = 3a
TIMESTEP = 0.02
FRAME_SKIP = 2
SLIDER_LIMIT = 1.0
HINGE_LIMIT = math.pi / 2
UPRIGHT = 0.3


@dataclass(frozen=True)
class CartPoleParams:
    """Inertial parameters of the two bodies (pole COM (com_x, 0, com_z) in the pole frame; pole inertia
    about the hinge axis through its COM)."""

    cart_mass: float
    pole_mass: float
    com_x: float
    com_z: float
    pole_inertia: float


# What MuJoCo 2.1 (the authors' mujoco-py) computes from gym's inverted_pendulum.xml: its capsule
# volume was π r² (2h + r). These reproduce every transition of the authors' 25 demonstrations (2e-6).
MUJOCO21 = CartPoleParams(cart_mass=3 * math.pi, pole_mass=4.89539, com_x=0.0005, com_z=0.3,
                          pole_inertia=0.174767)


def mjcf() -> str:
    """The same model in MJCF (gym's inverted_pendulum.xml without rendering-only parts). MuJoCo ≥ 3
    computes slightly larger capsule masses from it; `params_from_mujoco` reads them for the port test."""
    return """<mujoco model="inverted_pendulum">
  <compiler inertiafromgeom="true" angle="degree"/>
  <default>
    <joint armature="0" damping="1" limited="true"/>
    <geom contype="0" conaffinity="0"/>
  </default>
  <option gravity="0 0 -9.81" integrator="RK4" timestep="0.02"/>
  <worldbody>
    <body name="cart" pos="0 0 0">
      <joint name="slider" type="slide" axis="1 0 0" pos="0 0 0" range="-1 1"/>
      <geom name="cart" type="capsule" pos="0 0 0" quat="0.707 0 0.707 0" size="0.1 0.1"/>
      <body name="pole" pos="0 0 0">
        <joint name="hinge" type="hinge" axis="0 1 0" pos="0 0 0" range="-90 90"/>
        <geom name="cpole" type="capsule" fromto="0 0 0 0.001 0 0.6" size="0.049 0.3"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor joint="slider" gear="100" ctrllimited="true" ctrlrange="-3 3"/>
  </actuator>
</mujoco>"""


def params_from_mujoco(model) -> CartPoleParams:  # noqa: ANN001 - a mujoco.MjModel
    """Masses and inertia as a MuJoCo model compiled them (the pole's y axis is principal)."""
    return CartPoleParams(cart_mass=float(model.body_mass[1]), pole_mass=float(model.body_mass[2]),
                          com_x=float(model.body_ipos[2][0]), com_z=float(model.body_ipos[2][2]),
                          pole_inertia=float(model.body_inertia[2][1]))


def accelerations(th: torch.Tensor, xd: torch.Tensor, thd: torch.Tensor, force: torch.Tensor,
                  p: CartPoleParams) -> tuple[torch.Tensor, torch.Tensor]:
    """(ẍ, θ̈) from M(q) q̈ = τ − c(q, q̇), q = (x, θ), for a pole COM at (a cos θ + b sin θ,
    −a sin θ + b cos θ) relative to the cart:

        (m_c + m_p) ẍ + m_p z_r θ̈ = F − d ẋ + m_p x_r θ̇²
        m_p z_r ẍ + (m_p (a² + b²) + I) θ̈ = −d θ̇ + m_p g x_r
    """
    a, b, mp = p.com_x, p.com_z, p.pole_mass
    c, s = torch.cos(th), torch.sin(th)
    xr, zr = a * c + b * s, b * c - a * s
    m11, m22 = p.cart_mass + mp, mp * (a * a + b * b) + p.pole_inertia
    m12 = mp * zr
    r1 = force - DAMPING * xd + mp * xr * thd * thd
    r2 = mp * GRAVITY * xr - DAMPING * thd
    det = m11 * m22 - m12 * m12
    return (m22 * r1 - m12 * r2) / det, (m11 * r2 - m12 * r1) / det


def rk4_step(state: torch.Tensor, ctrl: torch.Tensor, p: CartPoleParams,
             dt: float = TIMESTEP) -> torch.Tensor:
    """One MuJoCo RK4 step (classic Butcher tableau, ctrl held) of state (..., 4) = (x, θ, ẋ, θ̇)."""
    force = GEAR * ctrl.clamp(-CTRL_LIMIT, CTRL_LIMIT)
    x, th, xd, thd = state.unbind(-1)
    # k_i = (ẋ, θ̇, ẍ, θ̈) at the i-th stage; positions only enter through θ
    a1, b1 = accelerations(th, xd, thd, force, p)
    xd2, thd2 = xd + dt / 2 * a1, thd + dt / 2 * b1
    a2, b2 = accelerations(th + dt / 2 * thd, xd2, thd2, force, p)
    xd3, thd3 = xd + dt / 2 * a2, thd + dt / 2 * b2
    a3, b3 = accelerations(th + dt / 2 * thd2, xd3, thd3, force, p)
    xd4, thd4 = xd + dt * a3, thd + dt * b3
    a4, b4 = accelerations(th + dt * thd3, xd4, thd4, force, p)
    return torch.stack([x + dt / 6 * (xd + 2 * xd2 + 2 * xd3 + xd4),
                        th + dt / 6 * (thd + 2 * thd2 + 2 * thd3 + thd4),
                        xd + dt / 6 * (a1 + 2 * a2 + 2 * a3 + a4),
                        thd + dt / 6 * (b1 + 2 * b2 + 2 * b3 + b4)], -1)


def joint_stops(state: torch.Tensor) -> torch.Tensor:
    """Inelastic joint ranges: a joint at its stop keeps no velocity into it."""
    lim = torch.tensor([SLIDER_LIMIT, HINGE_LIMIT], dtype=state.dtype)
    q, qd = state[..., :2], state[..., 2:]
    over = q.abs() > lim
    qd = torch.where(over & (torch.sign(qd) == torch.sign(q)), torch.zeros_like(qd), qd)
    return torch.cat([torch.maximum(torch.minimum(q, lim), -lim), qd], -1)


class InvertedPendulum:
    """Batched InvertedPendulum; `params=MUJOCO21` is the authors' model (their demonstrations)."""

    name = "pendulum"
    obs_dim = 4
    act_dim = 1

    def __init__(self, horizon: int = 200, params: CartPoleParams = MUJOCO21,
                 dtype: torch.dtype = torch.float64) -> None:
        self.horizon = horizon
        self.params = params
        self.dtype = dtype
        self.bounds = ActionBounds((-1.0,), (1.0,))
        self.state: torch.Tensor | None = None

    def reset(self, n: int, generator: torch.Generator) -> torch.Tensor:
        # gym: init_qpos/qvel (zeros) + U(-0.01, 0.01)
        self.state = (torch.rand(n, 4, generator=generator, dtype=self.dtype) * 0.02 - 0.01)
        return self.state.float()

    def step(self, action: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        ctrl = ACTION_SCALE * action.to(self.dtype)[..., 0]
        s = self.state
        for _ in range(FRAME_SKIP):
            s = joint_stops(rk4_step(s, ctrl, self.params))
        self.state = s
        reward = (s[..., 1].abs() <= UPRIGHT).float()
        return s.float(), reward


def cart_factor(observations, start: int = 100, stop: int = 200):  # noqa: ANN001, ANN201
    """Style factor of a pendulum trajectory (N, T, 4): mean cart x over steps start..stop-1 -> (N,)."""
    import numpy as np
    obs = np.asarray(observations)
    if obs.shape[1] < stop:
        raise ValueError(f"cart_factor needs {stop} steps, got {obs.shape[1]}")
    return obs[:, start:stop, 0].mean(axis=1)
