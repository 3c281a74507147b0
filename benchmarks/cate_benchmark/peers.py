"""Our learners against econml's (when installed) on one semi-synthetic task with a known τ: fit time, oracle
MSE and Q̂ on a held-out RCT evaluation set, measured in one run and reported side by side.

    .venv/bin/python benchmarks/cate_benchmark/peers.py [--n-train 2000] [--n-eval 5000]
"""

from __future__ import annotations

import argparse
import importlib.util
import time

import numpy as np

from iclr25.cate_benchmark import load_rct, make_learner, q_hat
from iclr25.cate_benchmark.semisynthetic import SemiSyntheticConfig, simulate

PAIRS = [("dr.rf", "econml.cf"), ("dr.gbm.cv", "econml.dr"), ("dml.linear", "econml.linear_dml")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n-train", type=int, default=2000)
    ap.add_argument("--n-eval", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    have_econml = importlib.util.find_spec("econml") is not None
    rng = np.random.default_rng(a.seed)
    cfg = SemiSyntheticConfig()
    Xreal = load_rct("randhie").X
    Xtr, wtr, ytr, _, coefs = simulate(Xreal, a.n_train, rng, cfg, e=0.5)
    Xev, wev, yev, tau, _ = simulate(Xreal, a.n_eval, rng, cfg, e=0.5, coefs=coefs)
    print(f"RandHIE covariates, simulated τ (sd {tau.std():.2f}); n_train {a.n_train}, n_eval {a.n_eval}")
    print(f"{'ours':12s} {'peer':18s} {'fit s (ours/peer)':>20s} {'MSE (ours/peer)':>18s} "
          f"{'Q̂ (ours/peer)':>18s}")
    for ours, peer in PAIRS:
        res = []
        for name in (ours, peer):
            if name.startswith("econml.") and not have_econml:
                res.append(None)
                continue
            t0 = time.perf_counter()
            est = make_learner(name).fit(Xtr, wtr, ytr).effect(Xev)
            res.append((time.perf_counter() - t0, np.mean((est - tau) ** 2), q_hat(est, yev, wev, 0.5).value))
        if res[1] is None:
            print(f"{ours:12s} {peer:18s}  econml not installed (pip install econml); ours: "
                  f"fit {res[0][0]:.2f} s, MSE {res[0][1]:.3f}, Q̂ {res[0][2]:.3f}")
            continue
        (t_o, m_o, q_o), (t_p, m_p, q_p) = res
        print(f"{ours:12s} {peer:18s} {t_o:8.2f}/{t_p:<8.2f} ({t_p / t_o:.1f}x) "
              f"{m_o:8.3f}/{m_p:<8.3f} {q_o:8.3f}/{q_p:<8.3f}")


if __name__ == "__main__":
    main()
