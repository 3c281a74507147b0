"""Side-by-side timings for pattern_cav, measured in one run and printed as ratios:
  1. pattern CAV (closed form) vs the SVM filter CAV with the paper's grid search (10 C x 5 folds),
     n = 2000, D = 512 (spec 08 Sec. 7: expect >= 100x);
  2. one RR-ClArC step (double backward) vs one plain fine-tuning step on the digits CNN (expect 2-3x).
Run: .venv/bin/python benchmarks/pattern_cav/bench_cav.py [--quick]
"""

from __future__ import annotations

import sys
import time

import numpy as np
import torch

from iclr25.core.runtime import pin_threads
from iclr25.pattern_cav import FilterConfig, compute_cav
from iclr25.pattern_cav.clarc import rr_loss
from iclr25.pattern_cav.digits import SmallCNN


def best_of(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main(quick: bool) -> None:
    pin_threads(1)
    rng = np.random.default_rng(0)
    n, d = (500, 128) if quick else (2000, 512)
    t = np.repeat([0.0, 1.0], n // 2)
    acts = rng.normal(size=(n, d)) + t[:, None] * rng.normal(size=d) * 0.3
    grid = FilterConfig(grid=(1e-4, 1e-2, 1.0), folds=3) if quick else FilterConfig()
    t_pat = best_of(lambda: compute_cav(acts, t, "pattern"), 20)
    t_svm = best_of(lambda: compute_cav(acts, t, "svm", grid), 1)
    print(f"CAV fit n={n} D={d}: pattern {t_pat * 1e3:.2f} ms, svm grid ({len(grid.grid)} x {grid.folds} "
          f"folds) {t_svm:.2f} s -> ratio {t_svm / t_pat:.0f}x")

    torch.manual_seed(0)
    model = SmallCNN()
    for p in model.parameters():
        p.requires_grad_(False)
    model.fc.weight.requires_grad_(True)
    model.fc.bias.requires_grad_(True)
    opt = torch.optim.Adam([model.fc.weight, model.fc.bias], lr=1e-3)
    x, y = torch.rand(64, 1, 16, 16), torch.randint(0, 10, (64,))
    v = torch.nn.functional.normalize(torch.randn(32), dim=0)

    def plain() -> None:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()

    def rr() -> None:
        loss, _ = rr_loss(model, "conv3", v, x, y, 1e7)
        opt.zero_grad()
        loss.backward()
        opt.step()

    reps = 5 if quick else 30
    t_plain, t_rr = best_of(plain, reps), best_of(rr, reps)
    print(f"fine-tuning step (batch 64, fc trainable): plain {t_plain * 1e3:.1f} ms, RR-ClArC "
          f"{t_rr * 1e3:.1f} ms -> ratio {t_rr / t_plain:.2f}x")


if __name__ == "__main__":
    main("--quick" in sys.argv)
