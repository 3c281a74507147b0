"""Side-by-side timings for hetero_covariance, measured in one run and printed as ratios.

    .venv/bin/python benchmarks/hetero_covariance/bench_hetero_covariance.py [--quick]

1. exact W₂² between Gaussians: ours (torch, batched eigh) vs POT's `ot.gaussian.bures_wasserstein_distance`
   (peer, `pip install pot`), same pairs; also checks they agree.
2. SPD square root: ours (batched eigh) vs `scipy.linalg.sqrtm` in a loop.
3. Time per training epoch vs k for W₂+pseudo-labels, NLL and TIC (spec §7): ratios TIC/W₂ and NLL/W₂.
4. Pseudo-label precompute vs n: brute-force O(n²d) neighbourhoods vs scikit-learn's tree kNN search.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from iclr25.core.runtime import pin_threads
from iclr25.hetero_covariance.data import multivariate
from iclr25.hetero_covariance.estimator import HeteroscedasticRegressor
from iclr25.hetero_covariance.linalg import random_spd, sqrtm_spd
from iclr25.hetero_covariance.losses import exact_w2
from iclr25.hetero_covariance.pseudo_labels import neighbourhood_pseudo_covariance


def best_of(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def bench_w2(n: int, k: int) -> None:
    g = torch.Generator().manual_seed(0)
    S1, S2 = random_spd(n, k, g), random_spd(n, k, g)
    m1, m2 = torch.randn(n, k, dtype=torch.float64), torch.randn(n, k, dtype=torch.float64)
    ours = exact_w2(m1, S1, m2, S2)
    t_ours = best_of(lambda: exact_w2(m1, S1, m2, S2))
    try:
        import ot
    except ImportError:
        print(f"[w2] ours {t_ours * 1e3:.1f} ms for {n} pairs (k={k}); POT not installed, no peer")
        return
    a = [x.numpy() for x in (m1, m2, S1, S2)]
    peer = ot.gaussian.bures_wasserstein_distance(*a, paired=True) ** 2
    t_peer = best_of(lambda: ot.gaussian.bures_wasserstein_distance(*a, paired=True))
    diff = float(np.max(np.abs(peer - ours.numpy()) / np.maximum(1.0, np.abs(peer))))
    print(f"[w2] {n} pairs, k={k}: ours {t_ours * 1e3:.1f} ms, POT {t_peer * 1e3:.1f} ms, "
          f"POT/ours = {t_peer / t_ours:.2f}; max relative difference {diff:.1e}")


def bench_sqrtm(n: int, k: int) -> None:
    from scipy.linalg import sqrtm

    A = random_spd(n, k, torch.Generator().manual_seed(1))
    t_ours = best_of(lambda: sqrtm_spd(A))
    An = A.numpy()
    t_scipy = best_of(lambda: [sqrtm(a) for a in An], repeat=1)
    diff = float(np.max(np.abs(np.stack([sqrtm(a) for a in An[:50]]).real - sqrtm_spd(A[:50]).numpy())))
    print(f"[sqrtm] {n} SPD {k}x{k}: ours {t_ours * 1e3:.1f} ms, scipy loop {t_scipy * 1e3:.1f} ms, "
          f"scipy/ours = {t_scipy / t_ours:.1f}; max difference {diff:.1e}")


def bench_epochs(ks: list[int], n_per_k: int) -> None:
    for k in ks:
        d = multivariate(k, n=n_per_k * k, rng=np.random.default_rng(k))
        t = {}
        for loss in ("w2_pseudo", "nll", "tic"):
            reg = HeteroscedasticRegressor(loss=loss, epochs=1).fit(d.X, d.Y)
            t[loss] = reg.history_.epoch_s[0]
            if loss == "w2_pseudo":
                t["pl"] = reg.history_.pseudo_label_s
        w2 = t["w2_pseudo"]
        print(f"[epoch] k={k:2d} n={n_per_k * k}: W₂+PL {w2:.2f} s (+{t['pl']:.2f} s pseudo-labels once), "
              f"NLL {t['nll']:.2f} s, TIC {t['tic']:.2f} s; TIC/W₂ = {t['tic'] / w2:.1f}, "
              f"NLL/W₂ = {t['nll'] / w2:.2f}")


def bench_pseudo_labels(ns: list[int], d: int = 4) -> None:
    for n in ns:
        rng = np.random.default_rng(n)
        X, Y = rng.normal(size=(n, d)), rng.normal(size=(n, 4))
        t_bf = best_of(lambda X=X, Y=Y: neighbourhood_pseudo_covariance(X, Y, neighbours="brute"), repeat=1)
        t_kd = best_of(lambda X=X, Y=Y: neighbourhood_pseudo_covariance(X, Y, neighbours="tree"), repeat=1)
        same = np.allclose(neighbourhood_pseudo_covariance(X, Y, neighbours="brute")[1],
                           neighbourhood_pseudo_covariance(X, Y, neighbours="tree")[1], atol=1e-8)
        print(f"[pseudo-labels] n={n}, d={d}, k=50: brute force O(n²d) {t_bf:.2f} s, scikit-learn tree kNN "
              f"{t_kd:.2f} s, tree/brute = {t_kd / t_bf:.2f}; identical labels: {same}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (about a minute)")
    args = ap.parse_args()
    pin_threads()
    bench_w2(1000, 8)
    bench_sqrtm(1000 if args.quick else 5000, 8)
    bench_epochs([4, 8] if args.quick else [4, 8, 12, 16], 64 if args.quick else 250)
    bench_pseudo_labels([1000, 4000] if args.quick else [1000, 4000, 16000, 50000])


if __name__ == "__main__":
    main()
