"""HazardLane (a crash band beyond the outer lanes), the authors' LongMaze dynamics, the scripted
demonstrators for a user's own styles, and the on-distribution task-relevance pairs."""

import numpy as np
import pytest
import torch

from iclr25.core.errors import UserError
from iclr25.guided_strategy.envs import (
    HazardLane,
    LongMaze,
    authors_xy,
    cart_factor,
    crashed,
    lane_factor,
    make_demos,
    make_env,
)
from iclr25.guided_strategy.relevance import style_partners


def test_hazard_lane_crashes_and_stops_earning():
    env = HazardLane()
    env.reset(2, torch.Generator())
    for _ in range(3):  # the first point drifts up by 0.25 a step: 0.25, 0.5, 0.75
        obs, r = env.step(torch.tensor([[0.1, 0.25], [0.1, 0.0]]))
    assert not env.crashed.any() and torch.allclose(r, torch.tensor([0.1, 0.1]))
    obs, r = env.step(torch.tensor([[0.1, 0.25], [0.1, 0.0]]))  # y = 1.0 > 0.95: crashed, the step counts
    assert env.crashed.tolist() == [True, False]
    frozen = obs[0].clone()
    obs, r = env.step(torch.tensor([[0.2, -0.25], [0.2, 0.0]]))
    assert torch.equal(obs[0], frozen) and float(r[0]) == 0.0 and float(r[1]) == pytest.approx(0.2)
    traj = np.zeros((2, 5, 2))
    traj[0, 3, 1] = 0.96
    assert crashed(traj).tolist() == [True, False]


def test_longmaze_moves_as_the_authors_env():
    env = LongMaze()
    assert torch.equal(env.reset(2, torch.Generator()), torch.tensor([[-2.0, 0.0], [-2.0, 0.0]]))
    obs, r = env.step(torch.tensor([[0.5, 0.0], [3.0, 4.0]]))
    # |a| = 0.5 -> 0.95 * 0.5 * 0.2 along x; |a| = 5 -> clipped to 0.95: 0.95 * 0.95 * 0.2 along (0.6, 0.8)
    assert obs[0].tolist() == pytest.approx([-2.0 + 0.095, 0.0], abs=1e-6)
    assert obs[1].tolist() == pytest.approx([-2.0 + 0.1805 * 0.6, 0.1805 * 0.8], abs=1e-6)
    assert r.tolist() == pytest.approx([0.095, 0.1083], abs=1e-6)
    states = np.zeros((3, 25))
    states[:, :2] = [[1, 2], [3, 4], [5, 6]]
    states[:, 3:5] = states[:, :2]
    assert authors_xy(states).tolist() == [[1, 2], [3, 4], [5, 6]]
    with pytest.raises(ValueError, match="25-dim"):
        authors_xy(np.zeros((3, 4)))


@pytest.mark.parametrize("env_name, styles, factor", [("point-lane", (-0.6, 0.0, 0.6), lane_factor),
                                                      ("hazard-lane", (-0.8, 0.8), lane_factor),
                                                      ("longmaze", (-0.5, 0.5), lane_factor),
                                                      ("pendulum", (-0.7, 0.4), cart_factor)])
def test_scripted_demonstrators_hold_the_users_styles_and_succeed(env_name, styles, factor):
    env = make_env(env_name)
    d = make_demos(env, styles, per_style=2, seed=3)
    f = factor(d["observations"])
    assert d["levels"].tolist() == [lv for lv in range(1, len(styles) + 1) for _ in range(2)]
    np.testing.assert_allclose(f, np.repeat(styles, 2), atol=0.05)  # each demonstrator holds its style
    if env_name == "pendulum":
        assert (d["rewards"].sum(1) == 200).all()  # the pole never falls
    if env_name == "hazard-lane":
        assert not crashed(d["observations"]).any()


def test_demonstrators_refuse_styles_they_cannot_hold():
    with pytest.raises(UserError, match="outside what the hazard-lane demonstrator can hold"):
        make_demos(make_env("hazard-lane"), [0.97])
    with pytest.raises(UserError, match="outside"):
        make_demos(make_env("pendulum"), [float("nan")])


def test_style_partners_pair_each_base_with_the_nearest_other_level():
    levels = np.array([1, 1, 2, 2, 3, 3, 4, 4, 5, 5])
    base, partner = style_partners(levels, [2, 4])
    assert base.tolist() == [2, 3, 6, 7] and partner.tolist() == [0, 1, 4, 5]  # ties: the lower level
    base, partner = style_partners(levels, [1])
    assert partner.tolist() == [2, 3]
