"""The score-matching experiment's machinery: the propagated marginals are those of the simulated noising
chain, and on a short chain the exact score beats every perturbed one by about its score-matching loss."""

import numpy as np
import pytest
import torch

from iclr25.underdamped_bridges import Dynamics, NoControls, SDEParams
from iclr25.underdamped_bridges.score_matching import (
    MixtureMarginals,
    ScoreMatchingConfig,
    score_matching_gap,
)
from iclr25.underdamped_bridges.targets import GaussianMixture


def test_propagated_marginals_match_the_simulated_noising_chain():
    means = np.array([[-2.0, 0.5], [1.5, -1.0]])
    data = GaussianMixture(means, 0.4)
    params = SDEParams(2, 6, dt=0.3, friction=0.7, init_std=1.0, mass=1.3, learn=frozenset(),
                       dtype=torch.float64)
    dyn = Dynamics(data, params, NoControls(), integrator="obab", drift="prior")
    marg = MixtureMarginals(dyn, means[None], np.array([0.4]))
    x_end = data.sample(40_000, torch.Generator().manual_seed(0))
    xs = dyn.backward_path(x_end, torch.Generator().manual_seed(1), keep_path=True).xs  # x_0..x_K
    for k in (1, 3, 5):  # OBAB: the O-step of step k acts at position x_k
        m, S = marg.means[k / 6][0], marg.covs[k / 6][0]  # (C, d, 2), (C, d, 2, 2)
        mean = m[..., 0].mean(0)
        var = (S[..., 0, 0] + m[..., 0] ** 2).mean(0) - mean ** 2
        emp = xs[k][0].numpy()
        assert np.allclose(emp.mean(0), mean, atol=0.03) and np.allclose(emp.var(0), var, rtol=0.03)


def test_exact_score_wins_by_about_the_score_matching_loss_on_a_short_chain():
    cfg = ScoreMatchingConfig(num_steps=48, n_paths=800, n_mc=400)
    r = score_matching_gap(cfg, seed=0)
    big = [d for d, s in zip(r["deficit"], r["sm"], strict=True) if s > 0.1]
    assert big and min(big) > 0  # the exact score has the best ELBO
    assert r["slope"] == pytest.approx(1.0, abs=0.25) and r["r2"] > 0.9
    assert r["elbo_exact"] <= r["data_log_lik"] + 0.05  # an ELBO of the data likelihood
