"""Pick the lane envs' λ_C (PointLane and HazardLane, each its own) for GSD and IG+M+SN from {0.2, 1, 5} on a
tuning seed (never an evaluation seed), by VL10 over the *train* levels of the interpolation split (no
test-level information), and write lane_lambda_c.json beside this module. Run once:
`python -m iclr25.guided_strategy.tuning`. The tuning runs use the quick profile's schedule (60 iterations
× 128 envs), so that the twelve of them cost about 4 CPU-minutes."""

from __future__ import annotations

import json
import sys

import numpy as np

from iclr25.core.runtime import atomic_write, pin_threads

GRID = (0.2, 1.0, 5.0)
TUNING_SEED = 999_983
METHODS_TUNED = ("gsd", "infogail_m_sn")


def train_vl10(env_name: str, method: str, lambda_c: float, iterations: int = 60, n_envs: int = 128,
               n_codes: int = 1500) -> float:
    """VL10 over the train levels {1, 3, 5} of one interpolation run at λ_C."""
    from iclr25.guided_strategy.discovery import discover
    from iclr25.guided_strategy.gsd import GSD
    from iclr25.guided_strategy.setups import LANE_HYPER, SPLITS, Setup, demonstrations, level_targets
    su = Setup(env_name, LANE_HYPER, {method: lambda_c})
    demos = demonstrations(env_name)
    train_lv, _ = SPLITS["interp"]
    env = su.make_env()
    model = GSD(env.obs_dim, env.act_dim, method, lambda_c=lambda_c, seed=TUNING_SEED, **su.hyper)
    model.fit(demos.select(train_lv), env, iterations=iterations, n_envs=n_envs, show_progress=False)
    targets = level_targets(demos, su)
    disc = discover(model, env, su.factor, [targets[lv] for lv in train_lv], n=n_codes, budgets=(10,),
                    seed=TUNING_SEED + 1)
    return float(np.mean(disc.vl[10]))


def _job(job: tuple[str, str, float]) -> float:
    return train_vl10(*job)


def main() -> None:
    pin_threads()
    from iclr25.guided_strategy.setups import LANE_ENVS, TUNING_FILE
    record: dict = {"seed": TUNING_SEED, "grid": list(GRID), "criterion": "VL10 over train levels {1,3,5}, "
                    "interpolation split, 60 iterations x 128 envs, 1500 codes"}
    from iclr25.core.executors import get_executor
    jobs = [(e, m, lc) for e in LANE_ENVS for m in METHODS_TUNED for lc in GRID]
    vl = dict(zip(jobs, get_executor("process").map(_job, jobs, description="lambda_c grid"), strict=True))
    for env_name in LANE_ENVS:
        record[env_name] = {}
        for method in METHODS_TUNED:
            scores = {str(lc): vl[(env_name, method, lc)] for lc in GRID}
            picked = min(GRID, key=lambda lc: scores[str(lc)])
            record[env_name][method] = {"train_vl10": scores, "picked": picked}
            print(env_name, method, scores, "->", picked, file=sys.stderr)
    with atomic_write(TUNING_FILE, "w") as f:
        json.dump(record, f, indent=2)
        f.write("\n")
    print(f"wrote {TUNING_FILE}")


if __name__ == "__main__":
    main()
