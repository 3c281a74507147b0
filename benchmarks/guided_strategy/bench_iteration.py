"""Time per training iteration of GSD and its InfoGAIL baselines, measured in one run (no speed claim in
the paper; the extra cost of GSD is one decoder pass on the next pairs plus the dual step).

    .venv/bin/python benchmarks/guided_strategy/bench_iteration.py
"""

from __future__ import annotations

import time

import numpy as np

from iclr25.core.runtime import pin_threads
from iclr25.guided_strategy import GSD, METHODS, Demos, lane_demos
from iclr25.guided_strategy.envs import InvertedPendulum, PointLane
from iclr25.guided_strategy.setups import (
    LANE_HYPER,
    PENDULUM_HYPER,
    PENDULUM_LAMBDA_C,
    demonstrations,
    lane_lambda_c,
    pendulum_path,
)

WARMUP, MEASURED = 2, 8


def per_iteration(method: str, env, demos: Demos, hyper: dict, lambda_c: float | None, n_envs: int) -> float:
    model = GSD(env.obs_dim, env.act_dim, method, lambda_c=lambda_c, seed=0, **hyper)
    model.fit(demos, env, iterations=WARMUP + MEASURED, n_envs=n_envs, show_progress=False)
    return float(np.median(model.history_.seconds[WARMUP:]))


def main() -> None:
    pin_threads()
    d = lane_demos(per_level=5, seed=0)
    cases = [("point-lane (128 envs x 25 steps)", PointLane(),
              Demos(d["observations"], d["actions"], d["rewards"], d["levels"]).select([1, 3, 5]), LANE_HYPER,
              lane_lambda_c("point-lane"), 128)]
    path = pendulum_path()
    if path is not None:
        pend = demonstrations("pendulum", str(path)).select([1, 3, 5])
        cases.append(("pendulum (64 envs x 200 steps)", InvertedPendulum(), pend, PENDULUM_HYPER,
                      PENDULUM_LAMBDA_C, 64))
    else:
        print("pendulum skipped: ../shared/data/09-gsd is absent")
    for name, env, demos, hyper, lcs, n_envs in cases:
        t0 = time.perf_counter()
        secs = {m: per_iteration(m, env, demos, hyper, lcs.get(m), n_envs) for m in METHODS}
        print(f"{name}: seconds per iteration (median of {MEASURED}) "
              + ", ".join(f"{m} {s:.3f}" for m, s in secs.items()))
        print("  ratios to IG: " + ", ".join(f"{m} {secs[m] / secs['infogail']:.2f}x" for m in METHODS)
              + f"  ({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
