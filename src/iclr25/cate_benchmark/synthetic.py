"""A synthetic trial with an analytic Q, to check that Q̂ is unbiased (Lemma 3.1) for every control variate.

X ~ N(0, 1), τ(x) = b0 + b1·x, a linear model τ̂(x) = a0 + a1·x fixed in advance, so
Q(τ̂) = E[τ̂² − 2τ̂τ] = a0² + a1² − 2(a0·b0 + a1·b1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iclr25.cate_benchmark.q_hat import q_hat_terms


@dataclass(frozen=True)
class LinearTrial:
    b0: float = 1.0  # τ(x) = b0 + b1·x
    b1: float = 1.0
    a0: float = 0.5  # τ̂(x) = a0 + a1·x (deliberately wrong)
    a1: float = 2.0
    noise_sd: float = 1.0
    propensity_slope: float = 0.5  # known e(x) = σ(slope·x): a non-constant, known propensity

    def analytic_q(self) -> float:
        """Q = a0² + a1² − 2(a0·b0 + a1·b1) for X ~ N(0, 1)."""
        return self.a0**2 + self.a1**2 - 2 * (self.a0 * self.b0 + self.a1 * self.b1)


def draw_q_hats(trial: LinearTrial, n: int, reps: int, rng: np.random.Generator,
                kinds: tuple[str, ...] = ("ht", "loc", "dr", "rloss")) -> dict[str, np.ndarray]:
    """Q̂ of the fixed τ̂ on `reps` independent trials of size n, per kind. The DR/loc/rloss baselines are
    deliberately misspecified (they miss the x² term) to show unbiasedness does not need them right."""
    out = {k: np.empty(reps) for k in kinds}
    for r in range(reps):
        x = rng.normal(size=n)
        e = 1 / (1 + np.exp(-trial.propensity_slope * x))
        w = (rng.random(n) < e).astype(int)
        mu0 = x + x**2
        tau = trial.b0 + trial.b1 * x
        y = mu0 + w * tau + trial.noise_sd * rng.normal(size=n)
        tau_hat = trial.a0 + trial.a1 * x
        for k in kinds:
            out[k][r] = q_hat_terms(tau_hat, y, w, e, k, mu0=x, mu1=x + 1.0, m=x).mean()
    return out
