"""Why a false-positive rate measured across two finite pools drifts as N nears the pool size (issue #47):
a synthetic model (m prompts, L positions, a categorical law per position), many independent pool pairs,
the Monte-Carlo level of the Hamming test of pool A against pool C with the null simulated from A.

usage: python benchmarks/model_equality/finite_pools.py [--pairs 20] [--sims 200]

Prints, per N/pool, the mean level over pool pairs and its spread against the binomial noise of one
estimate: the mean stays at alpha while the spread grows (the level given two pools leaves alpha)."""

from __future__ import annotations

import argparse

import numpy as np

from iclr25.core.runtime import pin_threads
from iclr25.model_equality.encoding import CompletionSample
from iclr25.model_equality.power import estimate_power
from iclr25.model_equality.pvalues import NullSimulator


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=20)
    ap.add_argument("--sims", type=int, default=200)
    args = ap.parse_args()
    pin_threads()
    m, L, pool = 5, 6, 100
    rng = np.random.default_rng(0)
    probs = rng.dirichlet(np.ones(4) * 0.7, size=(m, L))

    def draw(k: int) -> CompletionSample:
        ys = np.stack([[rng.choice(4, p=probs[j, i]) for i in range(L)] for j in range(m) for _ in range(k)])
        return CompletionSample(np.repeat(np.arange(m), k), ys, m)

    print(f"{m} prompts, L = {L}, pools of {pool} per prompt, {args.pairs} pool pairs, "
          f"{args.sims} simulations")
    print("n/prompt  N/pool  mean level  sd over pool pairs  binomial sd of one estimate")
    for n in (2, 5, 10, 20):
        levels = []
        for rep in range(args.pairs):
            a, c = draw(pool), draw(pool)
            null = NullSimulator(a, b=500, seed=rep)
            levels.append(estimate_power(a, c, n * m, sims=args.sims, b=500, seed=rep, null=null).power)
        print(f"{n:8d}  {n / pool:6.2f}  {np.mean(levels):10.3f}  {np.std(levels):18.3f}  "
              f"{np.sqrt(0.05 * 0.95 / args.sims):27.3f}")


if __name__ == "__main__":
    main()
