"""PointLane: displacement actions, |y| <= 1, reward = x progress; PD demonstrators hold their lanes."""

import numpy as np
import torch

from iclr25.guided_strategy.envs import PointLane, lane_demos, lane_factor, make_env
from iclr25.guided_strategy.envs.point_lane import LANES


def test_step_clips_displacements_and_rewards_x_progress():
    env = PointLane()
    obs = env.reset(3, torch.Generator())
    assert obs.tolist() == [[-2.0, 0.0]] * 3
    obs, r = env.step(torch.tensor([[0.1, 0.2], [1.0, -1.0], [-0.3, 0.0]]))
    assert torch.allclose(obs, torch.tensor([[-1.9, 0.2], [-1.75, -0.25], [-2.25, 0.0]]))
    assert torch.allclose(r, torch.tensor([0.1, 0.25, -0.25]))
    for _ in range(10):
        obs, _ = env.step(torch.tensor([[0.0, 0.25]] * 3))
    assert float(obs[:, 1].max()) == 1.0


def test_demonstrators_hold_their_lane_and_cruise():
    d = lane_demos(per_level=5, seed=0)
    assert d["observations"].shape == (25, 25, 2) and d["actions"].shape == (25, 25, 2)
    f = lane_factor(d["observations"])
    for level, lane in enumerate(LANES, start=1):
        assert np.abs(f[d["levels"] == level] - lane).max() < 0.05
    returns = d["rewards"].sum(1)
    assert np.allclose(returns, 25 * 0.21, atol=0.2)  # cruise 0.2 + noise mean 0.01 per step


def test_make_env_defaults_and_rejects_unknown_names():
    import pytest

    from iclr25.core.errors import UserError
    assert make_env("point-lane").horizon == 25 and make_env("pendulum").horizon == 200
    with pytest.raises(UserError, match="unknown env 'maze'"):
        make_env("maze")
