"""Refinement cost of PSR-SCI's priors, measured in one run and printed as ratios (median of 3, 1 thread).

    .venv/bin/python benchmarks/psr_sci/bench_psr_sci.py [--size 128] [--steps 3]

1. Time per guided DDIM step: subspace (3 × 2H × 2W through URSe) vs band-group (10 groups of 3 bands,
   DiffSCI-style) vs full cube (28 channels), the same U-Net widths, one 28 × H × W scene.
2. Guidance overhead: guided / unguided time per step, each prior.
3. Peak RSS of one refinement (each prior in a fresh process).
Untrained networks: costs do not depend on the weights.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys

import numpy as np
import torch

from iclr25.core.runtime import pin_threads
from iclr25.psr_sci.diffusion import RefinerConfig
from iclr25.psr_sci.freq import freq_split
from iclr25.psr_sci.operators import cassi_forward
from iclr25.psr_sci.refiner import FullCubeRefiner, SubspaceRefiner
from iclr25.psr_sci.urse import URSe

PRIORS = ("subspace", "band_group", "full_cube")


def refiner(prior: str, steps: int):
    cfg = RefinerConfig(ddim_steps=steps, start_t=RefinerConfig().t_start - 1)  # every step guided
    if prior == "subspace":
        return SubspaceRefiner(URSe().eval(), "subspace", config=cfg)
    if prior == "band_group":
        return SubspaceRefiner(None, "band_group", config=cfg)
    return FullCubeRefiner(config=cfg)


def problem(size: int):
    g = torch.Generator().manual_seed(0)
    x = torch.rand(1, 28, size, size, generator=g)
    mask = torch.rand(size, size, generator=g)
    hf, lf = freq_split(x)
    return hf, lf, cassi_forward(x, mask), mask


def per_step(prior: str, size: int, steps: int, guidance: bool, repeat: int = 3) -> float:
    ref = refiner(prior, steps)
    hf, lf, y, mask = problem(size)
    times = []
    for r in range(repeat):
        _, info = ref.refine(hf, lf, y, mask, torch.Generator().manual_seed(r), guidance=guidance)
        times.append(info["refine_s"] / steps)
    return statistics.median(times)


def peak_rss_mib(prior: str, size: int, steps: int) -> float:
    code = (f"import sys; sys.path.insert(0, 'benchmarks/psr_sci'); import bench_psr_sci as b, resource; "
            f"from iclr25.core.runtime import pin_threads; pin_threads(); "
            f"b.per_step({prior!r}, {size}, {steps}, True, 1); "
            f"print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=128, help="scene size H = W (default 128, the full profile)")
    ap.add_argument("--steps", type=int, default=3, help="DDIM steps per timed refinement (default 3)")
    args = ap.parse_args()
    pin_threads(1)
    torch.set_grad_enabled(False)
    res: dict[str, dict[str, float]] = {}
    for prior in PRIORS:
        g = per_step(prior, args.size, args.steps, True)
        u = per_step(prior, args.size, args.steps, False)
        res[prior] = {"guided_s": g, "unguided_s": u, "rss_mib": peak_rss_mib(prior, args.size, args.steps)}
    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"scene 28x{args.size}x{args.size}, {args.steps} guided DDIM steps, median of 3, 1 thread")
    head = ("prior", "s/step guided", "s/step unguided", "guidance x", "peak RSS MiB")
    print(f"{head[0]:<11} {head[1]:>14} {head[2]:>16} {head[3]:>11} {head[4]:>13}")
    for prior, r in res.items():
        print(f"{prior:<11} {r['guided_s']:>14.3f} {r['unguided_s']:>16.3f} "
              f"{r['guided_s'] / r['unguided_s']:>11.2f} {r['rss_mib']:>13.0f}")
    sub = res["subspace"]["guided_s"]
    print(f"band-group / subspace per step: {res['band_group']['guided_s'] / sub:.2f}x "
          "(paper: DiffSCI 84.5 s vs PSR-SCI 8.9 s per scene, 9.5x, GPU)")
    print(f"full-cube / subspace per step:  {res['full_cube']['guided_s'] / sub:.2f}x")
    print(f"(this process peak RSS {base_rss:.0f} MiB)")
    print(json.dumps({k: {m: round(v, 4) for m, v in r.items()} for k, r in res.items()}))


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    main()
