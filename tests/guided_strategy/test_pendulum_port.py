"""The torch InvertedPendulum is an exact port: it matches MuJoCo's mj_step (with the masses MuJoCo 3
compiles) and, with the MuJoCo 2.1 masses, every transition of the authors' demonstrations."""

import numpy as np
import pytest
import torch

from iclr25.guided_strategy.envs.pendulum import (
    MUJOCO21,
    InvertedPendulum,
    joint_stops,
    mjcf,
    params_from_mujoco,
    rk4_step,
)

mujoco = pytest.importorskip("mujoco")


@pytest.fixture(scope="module")
def mj():
    model = mujoco.MjModel.from_xml_string(mjcf())
    return model, mujoco.MjData(model)


def _port_step(state: np.ndarray, ctrl: float, params) -> np.ndarray:
    s = torch.tensor(state, dtype=torch.float64)
    for _ in range(2):  # frame skip 2
        s = rk4_step(s, torch.tensor(ctrl, dtype=torch.float64), params)
    return s.numpy()


def test_one_env_step_matches_mj_step_to_1e6(mj):
    model, data = mj
    params = params_from_mujoco(model)
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(200):
        state = rng.uniform([-0.8, -0.5, -2, -4], [0.8, 0.5, 2, 4])
        ctrl = rng.uniform(-3.5, 3.5)  # beyond ±3 exercises the ctrl clamp
        mujoco.mj_resetData(model, data)
        data.qpos[:], data.qvel[:], data.ctrl[:] = state[:2], state[2:], ctrl
        mujoco.mj_step(model, data)
        mujoco.mj_step(model, data)
        assert data.nefc == 0  # no joint limit active: the regime the port reproduces exactly
        worst = max(worst, np.abs(_port_step(state, ctrl, params) - np.r_[data.qpos, data.qvel]).max())
    assert worst < 1e-6


def test_closed_loop_trajectory_matches_mujoco(mj):
    """200 env steps, each simulator under the same stabilising feedback of its own state."""
    model, data = mj
    params = params_from_mujoco(model)
    gains = np.array([1.0, 8.0, 0.5, 1.0])
    state = np.array([0.01, -0.005, 0.002, 0.003])
    mujoco.mj_resetData(model, data)
    data.qpos[:], data.qvel[:] = state[:2], state[2:]
    for _ in range(200):
        state = _port_step(state, 3 * np.clip(gains @ state, -1, 1), params)
        mj_state = np.r_[data.qpos, data.qvel]
        data.ctrl[:] = 3 * np.clip(gains @ mj_state, -1, 1)
        mujoco.mj_step(model, data)
        mujoco.mj_step(model, data)
        assert np.abs(state - np.r_[data.qpos, data.qvel]).max() < 1e-6


def test_mujoco3_masses_differ_from_the_authors_mujoco21(mj):
    p3 = params_from_mujoco(mj[0])
    assert p3.cart_mass == pytest.approx(10.47198, abs=1e-4) and MUJOCO21.cart_mass == pytest.approx(9.42478,
                                                                                                       abs=1e-5)
    assert p3.pole_mass > MUJOCO21.pole_mass


def test_mujoco21_masses_reproduce_every_demo_transition(pendulum_h5):
    from iclr25.guided_strategy.demos import load_h5
    demos = load_h5(pendulum_h5)
    s = torch.tensor(demos.observations[:, :-1], dtype=torch.float64)  # (25, 999, 4)
    ctrl = 3 * torch.tensor(demos.actions[:, :-1, 0], dtype=torch.float64)
    for _ in range(2):
        s = rk4_step(s, ctrl, MUJOCO21)
    assert float((s - torch.tensor(demos.observations[:, 1:])).abs().max()) < 1e-5


def test_joint_stops_keep_the_cart_on_the_rail_and_reward_counts_upright_steps():
    env = InvertedPendulum(horizon=50)
    env.reset(4, torch.Generator().manual_seed(0))
    rewards = []
    for _ in range(50):
        obs, r = env.step(torch.ones(4, 1))  # full push right: the pole falls, the cart hits the stop
        assert (obs[:, 0].abs() <= 1.0).all() and (obs[:, 1].abs() <= np.pi / 2 + 1e-6).all()
        assert torch.equal(r, (obs[:, 1].abs() <= 0.3).float())
        rewards.append(r)
    assert rewards[0].sum() == 4 and rewards[-1].sum() == 0


def test_joint_stops_zero_only_the_velocity_into_the_stop():
    s = torch.tensor([[1.2, 0.1, 0.5, 0.2], [1.2, 0.1, -0.5, 0.2]], dtype=torch.float64)
    out = joint_stops(s)
    assert out[:, 0].tolist() == [1.0, 1.0] and out[:, 2].tolist() == [0.0, -0.5]
