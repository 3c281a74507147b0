"""Is DBS-UD with the paper's Euler–Maruyama only short of training? A diagnostic beside the record.

The full record trains every sampler 1,000 iterations; there DBS-UD with the paper's EM sits far below
DBS-UD with OBABO on Ionosphere (K = 16) and below overdamped DBS, and its learning curve is still
climbing. This runs the record's exact job (same seeds, tune_dt, batch, network, Adam; `train_task` of
the reproduction) for the paper's 10,000 iterations with both integrators, one per core, and reports the
evaluated ELBO per replica and the training curves (a figure beside the table). It decides nothing:
the record's verdicts stand.

    .venv/bin/python benchmarks/underdamped_bridges/em_budget.py [--iters 10000] [--write]
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from iclr25.underdamped_bridges.experiments import BATCH, EVAL_N, run_of, train_task
from iclr25.underdamped_bridges.figures import learning_curves

OUT = Path(__file__).resolve().parents[2] / "docs" / "full" / "underdamped_bridges-em-budget"
INTEGRATORS = ("em", "obabo")
CHECKPOINTS = (1000, 2000, 5000, 10_000)


def job(integrator: str, iters: int) -> dict:
    run = run_of("ionosphere", "dbs", True, 16, iters, integrator=integrator)
    out = train_task((run, {"seed": 0, "batch": BATCH, "eval_n": EVAL_N, "tune_n": 512}))
    step, curve = out["curve"]  # the training ELBO (batch mean of log w over the replicas) every `step`
    return {"integrator": integrator, "iterations": iters, "elbo": out["elbo"], "cpu_s": out["cpu_s"],
            "dt0": out["dt0"], "dt": out["dt"], "curve_step": step, "curve": curve}


def _logged_before(r: dict, c: int) -> tuple[int, float] | None:
    """The last logged training ELBO at an iteration < c: (iteration, value)."""
    i = (c - 1) // r["curve_step"]
    return (i * r["curve_step"], r["curve"][i]) if c <= r["iterations"] else None


HEADER = """# DBS-UD on Ionosphere, K = 16: the paper's EM against OBABO at the paper's iteration count

Diagnostic beside the full record (`benchmarks/underdamped_bridges/em_budget.py`); the record trains
1,000 iterations and its verdicts stand. Training ELBO: the batch mean of log w over the replicas, at the
last logged iteration before each checkpoint.
"""


def render(rows: list[dict]) -> str:
    head = ", ".join(f"{c:,}" for c in CHECKPOINTS)
    lines = [HEADER, f"| integrator | iterations | evaluated ELBO per replica | dt₀ → learned dt "
                     f"| training ELBO before {head} | CPU s |", "|---|---|---|---|---|---|"]
    for r in rows:
        logged = [_logged_before(r, c) for c in CHECKPOINTS]
        train = ", ".join(f"{a[1]:.1f} (it. {a[0]:,})" if a else "—" for a in logged)
        elbo = ", ".join(f"{e:.2f}" for e in r["elbo"])
        lines.append(f"| {r['integrator']} | {r['iterations']:,} | {elbo} | {r['dt0'][0]:.3g} → "
                     f"{np.mean(r['dt']):.3g} | {train} | {r['cpu_s']:.0f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=10_000)
    ap.add_argument("--write", action="store_true", help=f"write {OUT.name}.json and .md under docs/full")
    a = ap.parse_args()
    with ProcessPoolExecutor(len(INTEGRATORS)) as pool:
        rows = list(pool.map(job, INTEGRATORS, [a.iters] * len(INTEGRATORS)))
    md = render(rows)
    if a.write:
        OUT.with_suffix(".json").write_text(json.dumps(rows, indent=1))
        OUT.with_suffix(".md").write_text(md + f"\n![training curves]({OUT.name}.png)\n")
        learning_curves({f"DBS-UD, {r['integrator']}": (r["curve_step"], r["curve"]) for r in rows},
                        OUT.with_suffix(".png"), "DBS-UD, Ionosphere, K = 16 (3 replicas)")
    print(md)


if __name__ == "__main__":
    main()
