"""The numbers the README states in prose, measured: why the quick-start calls tune_dt(), and how far
the paper's EM falls below our O·B·A word without a learned backward control."""

import math

import pytest

from iclr25.underdamped_bridges import Sampler, from_log_prob


def _mean_elbo(sampler, n=2000, seed=100):
    return sum(r["elbo"] for r in sampler.evaluate(n, seed=seed)) / sampler.config.replicas


def test_the_gaussian_quick_start_needs_tune_dt():
    log_z = 2 * math.log(0.5 * math.sqrt(2 * math.pi))  # N(1, 0.5²) in d = 2: log Z = 0.452
    target = from_log_prob(lambda x: -0.5 * (((x - 1.0) / 0.5) ** 2).sum(-1), 2, log_Z=log_z)
    plain = Sampler(target, method="ula", num_steps=16, seed=0, replicas=3)
    tuned = Sampler(target, method="ula", num_steps=16, seed=0, replicas=3).tune_dt(n=512)
    assert _mean_elbo(plain) == pytest.approx(-5.17, abs=0.05)
    assert _mean_elbo(tuned) == pytest.approx(-0.44, abs=0.05)


def test_paper_em_without_a_backward_control_on_ionosphere(shared_udb):
    from iclr25.underdamped_bridges.data import load_blr
    target = load_blr("ionosphere", shared_udb)
    em = Sampler(target, method="ula", num_steps=16, integrator="em", seed=0, replicas=3, dt=0.32)
    oba = Sampler(target, method="ula", num_steps=16, integrator="oba", seed=0, replicas=3, dt=0.32)
    assert _mean_elbo(em) == pytest.approx(-1794.1, abs=1.0)
    assert _mean_elbo(oba) == pytest.approx(-231.0, abs=0.5)
