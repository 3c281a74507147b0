"""Guided Strategy Discovery (GSD, ICLR 2025): latent-conditioned imitation whose code may only be read
from task-relevant state-action changes, its InfoGAIL baselines (IG, IG+M, IG+M+SN), novel-behaviour
discovery (VL_K), the authors' demonstration format, and batched torch simulators (PointLane, HazardLane
and an exact port of the authors' InvertedPendulum)."""

from iclr25.core.lazy import lazy_package

__getattr__, __dir__, __all__ = lazy_package(__name__, {
    "demos": ["Demos", "check_splits", "load_demos", "load_h5", "load_npz", "save_npz"],
    "discovery": ["Discovery", "chunk_errors", "discover", "recovery_error"],
    "claims": ["CLAIMS"],
    "envs": ["MUJOCO21", "ActionBounds", "CartPoleParams", "HazardLane", "InvertedPendulum", "LongMaze",
        "PointLane", "VecEnv", "authors_xy", "cart_factor", "crashed", "lane_demos", "lane_factor",
        "make_demos", "make_env"],
    "experiments": ["run"],
    "gsd": ["GSD", "METHODS", "GSDConfig"],
    "relevance": ["PairPool", "auc", "random_rollouts", "relevance_report", "style_partners",
        "style_vs_task_variation"],
})
