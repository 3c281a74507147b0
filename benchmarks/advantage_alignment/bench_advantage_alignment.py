"""Cost per two-player update on the IPD with the paper's GRU policies (hidden 32, T=16): AdAlign (first
order) against LOLA-DiCE (second order, three rollouts), at several batch sizes; ratios measured in one run.

No opponent-shaping library exists on PyPI (see the paper spec, section 6), so the peers are our own
implementation of LOLA-DiCE from its paper.

    .venv/bin/python benchmarks/advantage_alignment/bench_advantage_alignment.py [--batches 64 256 1024]
"""

from __future__ import annotations

import argparse
import statistics

from iclr25.advantage_alignment.gru import time_gru_updates
from iclr25.core.runtime import pin_threads


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", type=int, nargs="+", default=[64, 256, 1024])
    ap.add_argument("--reps", type=int, default=9)
    args = ap.parse_args()
    pin_threads()
    print(f"{'batch':>6} {'AdAlign ms':>11} {'LOLA-DiCE ms':>13} {'DiCE/AA':>8}   (CPU time, median of "
          f"{args.reps} alternated repeats)")
    for b in args.batches:
        t = {k: statistics.median(v) for k, v in time_gru_updates(b, args.reps, seed=0).items()}
        print(f"{b:>6} {t['adalign'] * 1e3:>11.2f} {t['lola_dice'] * 1e3:>13.2f} "
              f"{t['lola_dice'] / t['adalign']:>8.2f}")


if __name__ == "__main__":
    main()
