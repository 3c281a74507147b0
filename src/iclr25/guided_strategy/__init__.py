"""Guided Strategy Discovery (GSD, ICLR 2025): latent-conditioned imitation whose code may only be read
from task-relevant state-action changes, its InfoGAIL baselines (IG, IG+M, IG+M+SN), novel-behaviour
discovery (VL_K), the authors' demonstration format, and batched torch simulators (PointLane and an exact
port of the authors' InvertedPendulum)."""

from iclr25.core.registry import make_paper
from iclr25.guided_strategy.demos import Demos, check_splits, load_demos, load_h5, load_npz, save_npz
from iclr25.guided_strategy.discovery import Discovery, chunk_errors, discover, recovery_error
from iclr25.guided_strategy.envs import (
    MUJOCO21,
    ActionBounds,
    CartPoleParams,
    InvertedPendulum,
    PointLane,
    VecEnv,
    cart_factor,
    lane_demos,
    lane_factor,
    make_env,
)
from iclr25.guided_strategy.experiments import CLAIMS, run
from iclr25.guided_strategy.gsd import GSD, METHODS, GSDConfig
from iclr25.guided_strategy.relevance import PairPool, auc, random_rollouts, relevance_report

PAPER = make_paper("guided_strategy", CLAIMS, run)

__all__ = [
    "CLAIMS", "GSD", "METHODS", "MUJOCO21", "PAPER", "ActionBounds", "CartPoleParams", "Demos", "Discovery",
    "GSDConfig", "InvertedPendulum", "PairPool", "PointLane", "VecEnv", "auc", "cart_factor", "check_splits",
    "chunk_errors", "discover", "lane_demos", "lane_factor", "load_demos", "load_h5", "load_npz", "make_env",
    "random_rollouts", "recovery_error", "relevance_report", "run", "save_npz",
]
