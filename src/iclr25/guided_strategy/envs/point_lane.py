"""PointLane, a torch analogue of the authors' LongMaze: a point goes right from x = −2 by displacement
actions in [−0.25, 0.25]², |y| ≤ 1, for T = 25 steps; the task reward is the x progress Δx. Style factor:
the lateral lane, measured as the mean y over the last 12 steps.

Demonstrators are PD controllers holding a lane y ∈ {−0.8, −0.4, 0, 0.4, 0.8} (levels 1..5) at a
cruising speed, with the authors' action noise N(0.01, 0.01²).

HazardLane (issue #44) is PointLane where the style axis can fail, as the paper's tasks can (a pole that
falls, a cheetah that flips, an object dropped): beyond |y| = 0.95 lies a hazard band (the walls move out
to |y| = 1.2); a point that enters it crashes, stays where it is and earns nothing more. The outer lanes
(±0.8) run 0.15 from the band, so the demonstrated style varies along a degree of freedom whose extremes
fail."""

from __future__ import annotations

import numpy as np
import torch

from iclr25.guided_strategy.envs.base import ActionBounds

START_X = -2.0
MAX_STEP = 0.25
Y_LIMIT = 1.0
LANES = (-0.8, -0.4, 0.0, 0.4, 0.8)
CRUISE = 0.2  # demonstrators' x displacement per step
KP, KD = 0.5, 0.1  # PD gains on the lane error (the velocity is the last displacement)
NOISE_MEAN, NOISE_STD = 0.01, 0.01
FACTOR_STEPS = 12
HAZARD = 0.95  # HazardLane: |y| beyond this crashes the point
HAZARD_WALL = 1.2  # HazardLane: the walls, so that the band can be entered


class PointLane:
    """Batched PointLane; observation (x, y)."""

    name = "point-lane"
    obs_dim = 2
    act_dim = 2

    def __init__(self, horizon: int = 25) -> None:
        self.horizon = horizon
        self.bounds = ActionBounds((-MAX_STEP, -MAX_STEP), (MAX_STEP, MAX_STEP))
        self.pos: torch.Tensor | None = None

    def reset(self, n: int, generator: torch.Generator) -> torch.Tensor:
        del generator  # the start is deterministic, as in the authors' LongMaze
        self.pos = torch.tensor([[START_X, 0.0]]).repeat(n, 1)
        return self.pos.clone()

    def step(self, action: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if self.pos is None:
            raise RuntimeError("call reset() before step()")
        new = self.pos + action.float().clamp(-MAX_STEP, MAX_STEP)
        new[:, 1] = new[:, 1].clamp(-Y_LIMIT, Y_LIMIT)
        reward = new[:, 0] - self.pos[:, 0]
        self.pos = new
        return new.clone(), reward


class HazardLane(PointLane):
    """PointLane with a hazard band at |y| > 0.95 (walls at 1.2): entering it crashes the point, which
    then stays put and earns 0 for the rest of the episode. Observation (x, y), as PointLane."""

    name = "hazard-lane"

    def __init__(self, horizon: int = 25) -> None:
        super().__init__(horizon)
        self.crashed: torch.Tensor | None = None

    def reset(self, n: int, generator: torch.Generator) -> torch.Tensor:
        self.crashed = torch.zeros(n, dtype=torch.bool)
        return super().reset(n, generator)

    def step(self, action: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if self.pos is None or self.crashed is None:
            raise RuntimeError("call reset() before step()")
        new = self.pos + action.float().clamp(-MAX_STEP, MAX_STEP)
        new[:, 1] = new[:, 1].clamp(-HAZARD_WALL, HAZARD_WALL)
        new = torch.where(self.crashed[:, None], self.pos, new)  # a crashed point does not move
        reward = new[:, 0] - self.pos[:, 0]
        self.crashed = self.crashed | (new[:, 1].abs() > HAZARD)
        self.pos = new
        return new.clone(), reward


def crashed(observations: np.ndarray | torch.Tensor) -> np.ndarray:
    """HazardLane: whether each trajectory (N, T, 2) entered the hazard band, (N,) bool."""
    return (np.abs(np.asarray(observations)[:, :, 1]) > HAZARD).any(axis=1)


def lane_factor(observations: np.ndarray | torch.Tensor) -> np.ndarray:
    """Mean y over the last 12 observed steps of each trajectory (N, T, 2) -> (N,)."""
    obs = np.asarray(observations)
    return obs[:, -FACTOR_STEPS:, 1].mean(axis=1)


def lane_demos(per_level: int = 5, horizon: int = 25, seed: int = 0,
               lanes: tuple[float, ...] = LANES) -> dict[str, np.ndarray]:
    """PD demonstrations on each lane: observations (N, T, 2), actions (N, T, 2), rewards (N, T),
    levels (N,) in 1..len(lanes)."""
    rng = np.random.default_rng(seed)
    obs, acts, rews, levels = [], [], [], []
    for level, lane in enumerate(lanes, start=1):
        for _ in range(per_level):
            pos, vel = np.array([START_X, 0.0]), 0.0
            o, a, r = [], [], []
            for _ in range(horizon):
                ay = np.clip(KP * (lane - pos[1]) - KD * vel, -MAX_STEP, MAX_STEP)
                act = np.array([CRUISE, ay]) + rng.normal(NOISE_MEAN, NOISE_STD, 2)
                act = np.clip(act, -MAX_STEP, MAX_STEP)
                new = pos + act
                new[1] = np.clip(new[1], -Y_LIMIT, Y_LIMIT)
                o.append(pos)
                a.append(act)
                r.append(new[0] - pos[0])
                vel, pos = new[1] - pos[1], new
            obs.append(o)
            acts.append(a)
            rews.append(r)
            levels.append(level)
    return {"observations": np.asarray(obs, np.float32), "actions": np.asarray(acts, np.float32),
            "rewards": np.asarray(rews, np.float32), "levels": np.asarray(levels, np.int64)}
