"""Underdamped vs overdamped diffusion samplers at K ∈ {8, 16, 32}, measured in one run (spec §7):
time per training iteration, control-network evaluations per iteration (OBABO makes 2 forward + 2
backward per step, the overdamped step 1 + 1), and the ELBO at equal K, at equal network evaluations and
at equal time; then K_OD / K_UD at equal ELBO (the paper: "significantly fewer steps"; target ≥ 2).

    .venv/bin/python benchmarks/underdamped_bridges/bench_ud_vs_od.py [--quick] [--target funnel]
        [--method dis|dbs] [--iters 300]

Each configuration trains 3 replicas (seeds) for the same number of iterations from tune_dt's initial
step size (batch 256, Adam 5e-4, PISGRADNet 2 × 64) and is evaluated on 2,000 paths per replica.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from iclr25.core.runtime import pin_threads
from iclr25.underdamped_bridges import Sampler, target_by_name


def measure(target, method: str, underdamped: bool, K: int, iters: int) -> dict:
    s = Sampler(target, method=method, underdamped=underdamped, num_steps=K, hidden=64, replicas=3, seed=0)
    s.tune_dt()
    s.controls.evaluations = 0
    t0 = time.process_time()
    s.fit(iters, 256, progress=False)
    cpu = time.process_time() - t0
    evals = s.controls.evaluations / max(iters, 1)
    res = s.evaluate(2000, seed=1)
    return {"ud": underdamped, "K": K, "integrator": s.config.integrator, "cpu_per_iter": cpu / max(iters, 1),
            "net_evals_per_iter": evals, "net_evals_per_path": evals / 1,
            "elbo": float(np.mean([r["elbo"] for r in res])),
            "elbo_sd": float(np.std([r["elbo"] for r in res])),
            "log_z": float(np.mean([r["log_z_hat"] for r in res]))}


def step_ratios(rows: list[dict]) -> list[tuple[int, int, float]]:
    """For each UD K, the largest OD K whose ELBO it matches: (K_UD, K_OD, K_OD / K_UD)."""
    ud = {r["K"]: r["elbo"] for r in rows if r["ud"]}
    od = {r["K"]: r["elbo"] for r in rows if not r["ud"]}
    out = []
    for k_ud, e in sorted(ud.items()):
        beaten = [k for k, e_od in od.items() if e >= e_od]
        if beaten:
            out.append((k_ud, max(beaten), max(beaten) / k_ud))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="100 iterations, K ∈ {8, 16}")
    ap.add_argument("--target", default="funnel", help="funnel (default), ionosphere (needs the shared data)")
    ap.add_argument("--method", default="dis", choices=("dis", "dbs", "ula"))
    ap.add_argument("--iters", type=int, default=300)
    args = ap.parse_args()
    pin_threads()
    target = target_by_name(args.target)
    ks = (8, 16) if args.quick else (8, 16, 32)
    iters = 100 if args.quick else args.iters
    rows = [measure(target, args.method, ud, K, iters) for K in ks for ud in (True, False)]
    name = args.method.upper()
    print(f"{name}-UD vs {name} on {target.name} (d = {target.dim}), {iters} iterations × 256 paths, 3 seeds")
    print(f"{'sampler':<10}{'K':>4}{'integrator':>11}{'CPU ms/iter':>13}{'net evals/iter':>16}{'ELBO':>11}"
          f"{'± sd':>7}{'log Z-hat':>11}")
    for r in rows:
        label = f"{name}{'-UD' if r['ud'] else ''}"
        print(f"{label:<10}{r['K']:>4}{r['integrator']:>11}{1e3 * r['cpu_per_iter']:>13.1f}"
              f"{r['net_evals_per_iter']:>16.0f}{r['elbo']:>11.3f}{r['elbo_sd']:>7.3f}{r['log_z']:>11.3f}")
    for K in ks:
        u = next(r for r in rows if r["ud"] and r["K"] == K)
        o = next(r for r in rows if not r["ud"] and r["K"] == K)
        print(f"[equal K={K:>2}] ELBO UD - OD = {u['elbo'] - o['elbo']:+.3f}; time UD/OD = "
              f"{u['cpu_per_iter'] / o['cpu_per_iter']:.2f}; net evaluations UD/OD = "
              f"{u['net_evals_per_iter'] / max(o['net_evals_per_iter'], 1):.2f}")
    for u in (r for r in rows if r["ud"]):
        match = [o for o in rows if not o["ud"] and o["net_evals_per_iter"] >= u["net_evals_per_iter"]]
        if match:
            o = min(match, key=lambda r: r["net_evals_per_iter"])
            print(f"[equal evaluations] UD K={u['K']} ({u['net_evals_per_iter']:.0f}/iter) "
                  f"{u['elbo']:.3f} vs OD K={o['K']} ({o['net_evals_per_iter']:.0f}/iter) {o['elbo']:.3f}")
    ratios = step_ratios(rows)
    for k_ud, k_od, ratio in ratios:
        print(f"[equal ELBO] UD at K={k_ud} matches OD at K={k_od}: K_OD/K_UD = {ratio:g}")
    best = max((r for _, _, r in ratios), default=0.0)
    print(f"K_OD/K_UD for equal ELBO: {best:g} (target >= 2: {'met' if best >= 2 else 'not met'})")


if __name__ == "__main__":
    main()
