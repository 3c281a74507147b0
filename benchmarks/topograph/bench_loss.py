"""Loss time vs image size for Topograph, gudhi-PH and cripser-PH, measured in one run (spec Sec. 5/7).

Usage: python benchmarks/topograph/bench_loss.py [--sizes 64 128 256 512] [--batch 8] [--repeats 3]
Prints seconds per batch (forward + backward, median after one warm-up) and PH / Topograph ratios, plus
the log-log slope of time vs pixel count for each backend (about 1 = linear).
"""

from __future__ import annotations

import argparse

import numpy as np

from iclr25.core.runtime import pin_threads
from iclr25.topograph.bench import BACKENDS, benchmark_loss, format_table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[64, 128, 256, 512])
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--family", default="curvilinear")
    args = ap.parse_args()
    pin_threads()
    rows = benchmark_loss(sizes=args.sizes, batch=args.batch, repeats=args.repeats, family=args.family)
    print(format_table(rows))
    if len(rows) > 1:
        px = np.log([r["size"] ** 2 for r in rows])
        slopes = {b: np.polyfit(px, np.log([r[f"{b}_s"] for r in rows]), 1)[0] for b in BACKENDS}
        print("log-log slope of time vs pixels: " + ", ".join(f"{b} {s:.2f}" for b, s in slopes.items()))


if __name__ == "__main__":
    main()
