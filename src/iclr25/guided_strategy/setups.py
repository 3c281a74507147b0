"""The reproduction's three environments (PointLane, HazardLane, the authors' InvertedPendulum):
demonstrations, splits, factor, targets, hyper-parameters and the non-style input the task-relevance check
varies."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from iclr25.core.data import shared_data
from iclr25.core.errors import UserError
from iclr25.guided_strategy.demos import Demos, load_h5
from iclr25.guided_strategy.envs import (
    HazardLane,
    InvertedPendulum,
    PointLane,
    cart_factor,
    lane_demos,
    lane_factor,
)
from iclr25.guided_strategy.envs.base import VecEnv

DATA_DIR = "09-gsd"
PENDULUM_FILE = "InvertedPendulumDetCustom_v2.h5"
PENDULUM_T = 200  # first 200 demo steps; factor over steps 100..199
SPLITS = {"interp": ((1, 3, 5), (2, 4)), "extrap": ((2, 3, 4), (1, 5))}
TUNING_FILE = Path(__file__).with_name("lane_lambda_c.json")
LANE_ENVS = ("point-lane", "hazard-lane")

# Our CPU-scale PPO / discriminator schedule, the same for every method and both envs.
SCHEDULE = {"ppo_epochs": 10, "ppo_minibatches": 8, "lr_policy": 3e-4, "d_steps": 5}
# The paper's pendulum settings: λ_I 0.1, clip 10, gp 0.1, 100-100 ReLU (λ_C 5 for GSD, 1 for SN)
PENDULUM_HYPER = {"lambda_info": 0.1, "clip": 10.0, "gp_lambda": 0.1, "hidden": (100, 100), **SCHEDULE}
PENDULUM_LAMBDA_C = {"gsd": 5.0, "infogail_m_sn": 1.0}
# The lanes: clip 5 and gp 0.01 as the authors' PointMaze; λ_C tuned per env (lane_lambda_c.json)
LANE_HYPER = {"lambda_info": 0.1, "clip": 5.0, "gp_lambda": 0.01, "hidden": (64, 64), **SCHEDULE}


@dataclass(frozen=True)
class Setup:
    env: str
    hyper: dict  # GSDConfig overrides shared by all methods
    lambda_c: dict  # method -> λ_C

    def make_env(self) -> VecEnv:
        if self.env == "pendulum":
            return InvertedPendulum(horizon=PENDULUM_T)
        return HazardLane() if self.env == "hazard-lane" else PointLane()

    @property
    def non_style(self) -> tuple[int, float]:
        """The (s, a) input the task-relevance check moves instead of the style, and in which direction:
        the lanes' forward action, slower (it costs reward); the pendulum's pole angle, tilted."""
        return (1, 1.0) if self.env == "pendulum" else (2, -1.0)

    def factor(self, observations: np.ndarray) -> np.ndarray:
        return cart_factor(observations) if self.env == "pendulum" else lane_factor(observations)


def pendulum_path() -> Path | None:
    """The authors' 25 SAC demonstrations, or None when the shared data folder is absent."""
    root = shared_data(DATA_DIR)
    path = None if root is None else root / PENDULUM_FILE
    return path if path is not None and path.is_file() else None


def lane_lambda_c(env: str) -> dict[str, float]:
    """λ_C for a lane env, picked on a tuning seed by `python -m iclr25.guided_strategy.tuning`."""
    if not TUNING_FILE.is_file():
        raise UserError(f"{TUNING_FILE.name} is missing; run python -m iclr25.guided_strategy.tuning")
    record = json.loads(TUNING_FILE.read_text(encoding="utf-8"))
    if env not in record:
        raise UserError(f"{TUNING_FILE.name} has no entry for {env!r}; run python -m "
                        "iclr25.guided_strategy.tuning")
    return {m: float(record[env][m]["picked"]) for m in ("gsd", "infogail_m_sn")}


def setup(env: str) -> Setup:
    if env == "pendulum":
        return Setup("pendulum", PENDULUM_HYPER, PENDULUM_LAMBDA_C)
    if env in LANE_ENVS:
        return Setup(env, LANE_HYPER, lane_lambda_c(env))
    raise UserError(f"unknown env {env!r}")


def demonstrations(env: str, data_path: str | None = None, held_out: bool = False) -> Demos:
    """All five levels. The lanes (PointLane and HazardLane share them: the demonstrators never come near
    the hazard band): 5 PD demos per lane (data seed 0; held-out set: seed 1). Pendulum:
    the authors' file, first 200 steps (the held-out set is the same file: its test levels are unseen)."""
    if env == "pendulum":
        if data_path is None:
            raise UserError(f"pendulum demos need ../shared/data/{DATA_DIR}/{PENDULUM_FILE}")
        return load_h5(data_path).truncate(PENDULUM_T)
    d = lane_demos(per_level=5, seed=1 if held_out else 0)
    return Demos(d["observations"].astype(np.float64), d["actions"].astype(np.float64),
                 d["rewards"].astype(np.float64), d["levels"])


def level_targets(demos: Demos, setup_: Setup) -> dict[int, float]:
    """Target factor per level: the mean factor of that level's demonstrations."""
    f = setup_.factor(demos.observations)
    return {int(lv): float(f[demos.levels == lv].mean()) for lv in sorted(set(demos.levels.tolist()))}
