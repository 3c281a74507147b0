"""Batched torch simulators for GSD: PointLane, HazardLane (its style axis can fail), the authors' LongMaze
and the InvertedPendulum port; scripted demonstrators for any style values (`make_demos`)."""

from __future__ import annotations

from iclr25.core.errors import UserError
from iclr25.guided_strategy.envs.base import ActionBounds, VecEnv
from iclr25.guided_strategy.envs.experts import make_demos
from iclr25.guided_strategy.envs.longmaze import LongMaze, authors_xy
from iclr25.guided_strategy.envs.pendulum import MUJOCO21, CartPoleParams, InvertedPendulum, cart_factor
from iclr25.guided_strategy.envs.point_lane import HazardLane, PointLane, crashed, lane_demos, lane_factor

ENVS = {"pendulum": InvertedPendulum, "point-lane": PointLane, "hazard-lane": HazardLane,
        "longmaze": LongMaze}


def make_env(name: str, horizon: int | None = None) -> VecEnv:
    """`make_env("point-lane")`; the horizon defaults to the reproduction's (200 pendulum, 25 the lanes)."""
    if name not in ENVS:
        raise UserError(f"unknown env {name!r}; choose from {', '.join(ENVS)}")
    if horizon is not None and horizon < 1:
        raise UserError(f"horizon must be >= 1, got {horizon}")
    return ENVS[name]() if horizon is None else ENVS[name](horizon=horizon)


__all__ = ["ENVS", "MUJOCO21", "ActionBounds", "CartPoleParams", "HazardLane", "InvertedPendulum", "LongMaze",
           "PointLane", "VecEnv", "authors_xy", "cart_factor", "crashed", "lane_demos", "lane_factor",
           "make_demos", "make_env"]
