"""Cost per two-player update on the IPD: AdAlign (first order) against LOLA-DiCE (second order, three
rollouts) and exact LOLA (analytic, tabular IPD only), at several batch sizes; ratios measured in one run.

No opponent-shaping library exists on PyPI (see the paper spec, section 6), so the peers are our own
implementations of LOLA-DiCE and exact LOLA from their papers.

    .venv/bin/python benchmarks/advantage_alignment/bench_advantage_alignment.py [--batches 64 256 1024]
"""

from __future__ import annotations

import argparse

from iclr25.advantage_alignment.experiments import time_updates
from iclr25.core.runtime import pin_threads


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", type=int, nargs="+", default=[64, 256, 1024])
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    pin_threads()
    print(f"{'batch':>6} {'AdAlign ms':>11} {'LOLA-DiCE ms':>13} {'exact LOLA ms':>14} {'DiCE/AA':>8}")
    for b in args.batches:
        t = time_updates(b, args.reps, seed=0)
        ms = {k: v * 1e3 for k, v in t.items()}
        print(f"{b:>6} {ms['adalign']:>11.2f} {ms['lola_dice']:>13.2f} {ms['lola_exact']:>14.2f} "
              f"{t['lola_dice'] / t['adalign']:>8.2f}")


if __name__ == "__main__":
    main()
