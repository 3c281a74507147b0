"""Thread pinning for the benchmark: one variant's 16 learners with OpenMP/BLAS pinned to 1 thread against
the library defaults (all cores), each in a fresh interpreter, reported as a ratio measured in one run.

    .venv/bin/python benchmarks/cate_benchmark/threads.py [--n 1000] [--repeat 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import json, sys, time
import numpy as np
from iclr25.cate_benchmark.learners import LEARNERS, make_learner
rng = np.random.default_rng(0); n = int(sys.argv[1])
X = rng.normal(size=(n, 20)); w = rng.integers(0, 2, n); y = X[:, 0] + w * (1 + X[:, 1]) + rng.normal(size=n)
times = {}
for name in LEARNERS:
    t = time.perf_counter(); make_learner(name).fit(X, w, y).effect(X); times[name] = time.perf_counter() - t
print(json.dumps(times))
"""


def run(threads: str | None, n: int) -> dict[str, float]:
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "ICLR25_THREADS"):
        env.pop(var, None)
    if threads is not None:
        env["ICLR25_THREADS"] = threads
    else:  # the library's own default is 1; emulate an unpinned environment
        env["ICLR25_THREADS"] = str(os.cpu_count() or 1)
    out = subprocess.run([sys.executable, "-c", CHILD, str(n)], env=env, capture_output=True, text=True,
                         check=True, timeout=900)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    pinned = [run("1", a.n) for _ in range(a.repeat)]
    default = [run(None, a.n) for _ in range(a.repeat)]
    print(f"{'learner':12s} {'1 thread s':>11s} {os.cpu_count()} threads s {'ratio':>7s}")
    tot1 = totd = 0.0
    for name in pinned[0]:
        t1 = min(p[name] for p in pinned)
        td = min(d[name] for d in default)
        tot1, totd = tot1 + t1, totd + td
        print(f"{name:12s} {t1:11.3f} {td:13.3f} {td / max(t1, 1e-9):7.2f}x")
    print(f"{'all 16':12s} {tot1:11.3f} {totd:13.3f} {totd / tot1:7.2f}x  (n = {a.n}, 20 covariates)")


if __name__ == "__main__":
    main()
