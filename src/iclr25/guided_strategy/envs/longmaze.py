"""LongMaze, the authors' point-maze task (`LongMazeCustom` in their `my_utils/my_envs.py`), batched in
torch: a point starts at (−2, 0); an action a ∈ R² moves it by unit(a) · 0.95 · min(|a|, 0.95) · 0.2 (the
action's magnitude clipped to the maze's action range 0.95, then scaled by 0.2); no walls act (the
authors' wall check is commented out); the task reward is the x progress; the style factor is the
lateral offset of the path. Their episodes last 25 steps in the demonstrations (`LongMazeCustom_v1.h5`).

The authors' observation is 25-dimensional with (x, y) in columns 0-1 (and again in 3-4), the rest zero;
ours is (x, y). `authors_xy` maps their states to ours, so their demonstration file trains here."""

from __future__ import annotations

import numpy as np
import torch

from iclr25.guided_strategy.envs.base import ActionBounds

START = (-2.0, 0.0)
ACTION_RANGE = 0.95
STEP_SCALE = ACTION_RANGE * 0.2  # |a| <= 0.95 moves the point by 0.19 a
AUTHORS_OBS_DIM = 25


class LongMaze:
    """Batched LongMaze; observation (x, y), actions in [−0.95, 0.95]² (larger magnitudes are clipped)."""

    name = "longmaze"
    obs_dim = 2
    act_dim = 2

    def __init__(self, horizon: int = 25) -> None:
        self.horizon = horizon
        self.bounds = ActionBounds((-ACTION_RANGE, -ACTION_RANGE), (ACTION_RANGE, ACTION_RANGE))
        self.pos: torch.Tensor | None = None

    def reset(self, n: int, generator: torch.Generator) -> torch.Tensor:
        del generator  # the start is fixed, as in the authors' env
        self.pos = torch.tensor([START]).repeat(n, 1)
        return self.pos.clone()

    def step(self, action: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if self.pos is None:
            raise RuntimeError("call reset() before step()")
        a = action.float()
        mag = a.norm(dim=1, keepdim=True)
        move = a / (mag + 1e-6) * ACTION_RANGE * mag.clamp(0.0, ACTION_RANGE) * 0.2
        new = self.pos + move
        reward = new[:, 0] - self.pos[:, 0]
        self.pos = new
        return new.clone(), reward


def authors_xy(states: np.ndarray) -> np.ndarray:
    """The authors' 25-dimensional LongMaze observations (..., 25) -> our (x, y) (..., 2)."""
    s = np.asarray(states)
    if s.shape[-1] != AUTHORS_OBS_DIM:
        raise ValueError(f"expected the authors' {AUTHORS_OBS_DIM}-dim LongMaze states, got {s.shape[-1]}")
    return s[..., :2]
