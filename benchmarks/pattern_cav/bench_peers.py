"""Peer comparison, measured in one run: captum 0.9.0's TCAV classifier CAV (DefaultClassifier, an SGD
linear classifier) vs our pattern and SVM CAVs on the synthetic latent with distractors (D = 256).
Prints cos with the true concept direction, held-out AUC and fit time, and the ratios.
Needs the `bench` extra (captum); skips with a message when captum is absent.
Run: .venv/bin/python benchmarks/pattern_cav/bench_peers.py [--quick]
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np


def captum_cav(acts: np.ndarray, labels: np.ndarray) -> np.ndarray:
    import torch
    from captum.concept._utils.classifier import DefaultClassifier
    from torch.utils.data import DataLoader, TensorDataset
    dl = DataLoader(TensorDataset(torch.as_tensor(acts, dtype=torch.float32),
                                  torch.as_tensor(labels, dtype=torch.long)), batch_size=256)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # memory and tensor-from-list notices from captum
        clf = DefaultClassifier()
        clf.train_and_eval(dl)  # captum's default: fits on a random 67% of the data
    w = clf.weights().numpy()
    row = list(np.asarray(clf.classes()).ravel()).index(1)
    return w[row] / np.linalg.norm(w[row])


def main(quick: bool) -> None:
    try:
        import captum  # noqa: F401
    except ImportError:
        print("captum not installed (pip install captum==0.9.0); skipping the peer comparison")
        return
    import torch

    from iclr25.core.runtime import pin_threads
    from iclr25.pattern_cav import FilterConfig, compute_cav, concept_auc, cosine
    from iclr25.pattern_cav.synthetic import LatentConfig, latent_directions, sample_latent
    pin_threads(1)
    torch.manual_seed(0)
    cfg = LatentConfig(dim=256, n=1000, n_distractors=8, distractor_strength=2.0)
    seeds = range(2 if quick else 5)
    rows: dict[str, list[tuple[float, float, float]]] = {"pattern": [], "svm": [], "captum-sgd": []}
    for s in seeds:
        rng = np.random.default_rng(s)
        h, u = latent_directions(cfg, rng)
        a, t = sample_latent(cfg, h, u, cfg.n, rng)
        a_te, t_te = sample_latent(cfg, h, u, 2000, rng)
        fits = {"pattern": lambda a=a, t=t: compute_cav(a, t).vector,
                "svm": lambda a=a, t=t: compute_cav(a, t, "svm", FilterConfig(grid=(1e-3, 1e-2, 1e-1, 1.0),
                                                                               folds=3)).vector,
                "captum-sgd": lambda a=a, t=t: captum_cav(a, t)}
        for name, fit in fits.items():
            t0 = time.perf_counter()
            v = fit()
            dt = time.perf_counter() - t0
            rows[name].append((cosine(v, h), concept_auc(v, a_te, t_te), dt))
    base = np.mean([r[2] for r in rows["pattern"]])
    print(f"synthetic latent D={cfg.dim} n={cfg.n} K={cfg.n_distractors}, {len(seeds)} seeds (means)")
    for name, r in rows.items():
        cos, auc, dt = np.mean(r, axis=0)
        print(f"{name:<11} cos(h) {cos:.3f}  AUC {auc:.3f}  fit {dt * 1e3:8.1f} ms "
              f"({dt / base:.0f}x pattern)")


if __name__ == "__main__":
    main("--quick" in sys.argv)
