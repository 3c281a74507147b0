"""The integrator core: O-kernels are the Gaussians they claim to be, A/B shears preserve volume, the two
O-step variants agree as η → 0, and the path weights behave as an RND must (ELBO ≤ log Z ≤ EUBO)."""

import math

import pytest
import torch

from iclr25.underdamped_bridges import (
    INTEGRATORS,
    SCHEMES,
    Dynamics,
    NoControls,
    SDEParams,
    a_step,
    b_step,
    from_log_prob,
    log_normal,
    o_log_prob,
    o_mean,
    o_variance,
)
from iclr25.underdamped_bridges.kernels import o_log_ratio

F64 = torch.float64


def test_o_step_log_density_is_the_normal_with_variance_2_eta_m():
    g = torch.Generator().manual_seed(0)
    v, v_new, u = (torch.randn(5, 3, generator=g, dtype=F64) for _ in range(3))
    eta, mass = torch.tensor([0.1, 0.3, 0.05], dtype=F64), torch.tensor([1.0, 2.25, 0.5], dtype=F64)
    ref = torch.distributions.Normal(v * (1 - eta) + 2 * eta * u, torch.sqrt(2 * eta * mass))
    assert torch.allclose(o_log_prob(v_new, v, u, eta, mass), ref.log_prob(v_new).sum(-1))
    exact = torch.distributions.Normal(v * torch.exp(-eta) + (1 - torch.exp(-eta)) * 2 * u,
                                       torch.sqrt((1 - torch.exp(-2 * eta)) * mass))
    assert torch.allclose(o_log_prob(v_new, v, u, eta, mass, exact=True), exact.log_prob(v_new).sum(-1))


def test_log_ratio_is_the_difference_of_the_two_densities():
    g = torch.Generator().manual_seed(1)
    v, mb, vn, mf = (torch.randn(4, 2, generator=g, dtype=F64) for _ in range(4))
    var = torch.tensor([0.2, 0.7], dtype=F64)
    assert torch.allclose(o_log_ratio(v, mb, vn, mf, var), log_normal(v, mb, var) - log_normal(vn, mf, var))


@pytest.mark.parametrize("move", ["A", "B"])
def test_a_and_b_shears_have_unit_jacobian(move):
    mass, h = torch.tensor([1.5, 0.7, 2.0], dtype=F64), torch.tensor(0.37, dtype=F64)

    def force(x):
        return -torch.sin(x) * x ** 2

    def step(z):
        x, v = z[:3], z[3:]
        if move == "A":
            return torch.cat([a_step(x, v, h, mass), v])
        return torch.cat([x, b_step(v, force(x), h)])

    z = torch.randn(6, generator=torch.Generator().manual_seed(2), dtype=F64)
    J = torch.autograd.functional.jacobian(step, z)
    assert torch.linalg.det(J).item() == pytest.approx(1.0, abs=1e-12)


def test_exact_and_first_order_o_steps_agree_as_eta_goes_to_zero():
    v, u = torch.tensor([[0.7, -1.2]], dtype=F64), torch.tensor([[0.3, 0.4]], dtype=F64)
    mass = torch.tensor([1.0, 2.0], dtype=F64)
    gaps = []
    for eta in (1e-1, 1e-2, 1e-3):
        e = torch.tensor(eta, dtype=F64)
        gaps.append(float((o_mean(v, u, e) - o_mean(v, u, e, exact=True)).abs().max()
                          + (o_variance(e, mass) - o_variance(e, mass, exact=True)).abs().max()))
    assert gaps[1] < gaps[0] / 50 and gaps[2] < gaps[1] / 50  # second order in η


def _gaussian_target(dim=2, mean=0.5, std=0.8):
    log_z = dim * math.log(std * math.sqrt(2 * math.pi))
    return from_log_prob(lambda x: -0.5 * (((x - mean) / std) ** 2).sum(-1), dim, log_Z=log_z), log_z


def _dynamics(target, integrator="obabo", exact=False, dt=0.1, K=8, drift="anneal", replicas=1):
    params = SDEParams(target.dim, K, dt=dt, friction=1.0, init_std=1.0, learn=frozenset(), replicas=replicas,
                       dtype=torch.float64)
    return Dynamics(target, params, NoControls(), integrator=integrator, drift=drift, exact_o=exact)


def test_log_w_vanishes_when_the_target_is_the_prior_and_the_steps_are_tiny():
    # ρ = prior = N(0, I): with exact O-steps the chain is reversible, and only leapfrog energy errors
    # (O(dt²) per step) remain in log w.
    target = from_log_prob(lambda x: -0.5 * (x ** 2).sum(-1) - x.shape[-1] * 0.5 * math.log(2 * math.pi), 3)
    path = _dynamics(target, exact=True, dt=1e-3).forward_path(64, torch.Generator().manual_seed(0))
    assert path.log_w.abs().max().item() < 1e-5


@pytest.mark.parametrize("integrator", list(INTEGRATORS))
def test_elbo_below_log_z_below_eubo_for_every_integrator(integrator):
    target, log_z = _gaussian_target()
    dyn = _dynamics(target, integrator)
    fwd = dyn.forward_path(4000, torch.Generator().manual_seed(1)).log_w[0]
    x_true = 0.5 + 0.8 * torch.randn(4000, 2, generator=torch.Generator().manual_seed(2), dtype=F64)
    bwd = dyn.backward_path(x_true, torch.Generator().manual_seed(3)).log_w[0]
    se_f, se_b = fwd.std() / math.sqrt(4000), bwd.std() / math.sqrt(4000)
    assert fwd.mean() <= log_z + 3 * se_f  # ELBO
    assert bwd.mean() >= log_z - 3 * se_b  # EUBO: the same RND on backward paths
    log_z_hat = torch.logsumexp(fwd, 0) - math.log(4000)
    assert abs(float(log_z_hat) - log_z) < 0.1


def test_overdamped_paths_bound_log_z_too():
    target, log_z = _gaussian_target()
    params = SDEParams(2, 8, dt=0.05, friction=1.0, init_std=1.0, learn=frozenset(), dtype=torch.float64)
    dyn = Dynamics(target, params, NoControls(), underdamped=False, integrator="em")
    fwd = dyn.forward_path(4000, torch.Generator().manual_seed(1)).log_w[0]
    assert fwd.mean() <= log_z + 3 * fwd.std() / math.sqrt(4000)
    assert abs(float(torch.logsumexp(fwd, 0) - math.log(4000)) - log_z) < 0.1


def test_same_seed_same_log_w_and_replicas_are_independent_draws():
    target, _ = _gaussian_target()
    dyn = _dynamics(target, replicas=2)
    a = dyn.forward_path(16, torch.Generator().manual_seed(5)).log_w
    b = dyn.forward_path(16, torch.Generator().manual_seed(5)).log_w
    assert torch.equal(a, b) and a.shape == (2, 16)
    assert not torch.allclose(a[0], a[1])


def test_backward_path_inverts_the_shears_exactly_without_noise():
    # With η -> 0 the O-steps are (almost) identities: a backward path from a forward path's end returns
    # (almost) to where the forward path started.
    target, _ = _gaussian_target()
    for name in SCHEMES:
        dyn = _dynamics(target, name, dt=0.2)
        with torch.no_grad():
            dyn.params.friction_raw.fill_(-40.0)  # γ ≈ 4e-18: no friction, no noise
        g = torch.Generator().manual_seed(0)
        fwd = dyn.forward_path(8, g)
        p = dyn.params
        c = dyn._constants()
        x, v = fwd.x, fwd.v
        for k in reversed(range(p.num_steps)):
            x, v, _ = dyn._ud_backward(x, v, k, c, torch.Generator().manual_seed(k))
        x0 = p.sample_prior(8, torch.Generator().manual_seed(0))
        assert torch.allclose(x, x0, atol=1e-6), name


class _LinearControls:
    """u = a·v + c·x, b = p·v + q·x: non-zero controls with closed forms, for the EM step's equation."""

    def prepare(self, times):
        self.times = list(times)

    def forward_control(self, x, v, t):
        return 0.3 * v - 0.2 * x + t

    def backward_control(self, x, v, t):
        return -0.1 * v + 0.4 * x - t


def test_paper_em_step_is_the_equation_of_the_paper():
    """One forward step of "em" against the paper's equations written out here: v' ~ N(v(1 − η) + 2η u_k(x, v)
    + dt F_k(x), 2ηM), x' = x + dt M⁻¹ v', and log w += log N(v; v'(1 − η) + 2η b_{k+1}(x', v') + dt
    F_{k+1}(x'), 2ηM) − log N(v'; forward mean, 2ηM)."""
    target, _ = _gaussian_target()
    K = 4
    params = SDEParams(2, K, dt=0.1, friction=0.7, init_std=1.0, mass=1.3, learn=frozenset(),
                       dtype=torch.float64)
    dyn = Dynamics(target, params, _LinearControls(), integrator="em")
    c = dyn._constants()
    assert {0.0, 0.25, 0.5, 0.75, 1.0} <= set(dyn.times)  # forward at k/K, backward at (k+1)/K
    g = torch.Generator().manual_seed(0)
    x = torch.randn(1, 6, 2, generator=g, dtype=F64)
    v = torch.randn(1, 6, 2, generator=g, dtype=F64)
    k = 1
    x1, v1, lw = dyn._em_forward(x, v, k, c, torch.Generator().manual_seed(9), detach=False)
    dt = float(params.dts()[0, k])
    eta, mass = dt * 0.7, 1.3 ** 2
    beta0, beta1 = float(params.betas()[0, k]), float(params.betas()[0, k + 1])

    def force(z, beta):  # β ∇log ρ + (1 − β) ∇log prior, ρ = N(0.5, 0.8²), prior N(0, 1)
        return beta * (-(z - 0.5) / 0.64) + (1 - beta) * (-z)

    eps = torch.randn(1, 6, 2, generator=torch.Generator().manual_seed(9), dtype=F64)
    mean_f = v * (1 - eta) + 2 * eta * (0.3 * v - 0.2 * x + k / K) + dt * force(x, beta0)
    v_new = mean_f + math.sqrt(2 * eta * mass) * eps
    x_new = x + dt * v_new / mass
    b = -0.1 * v_new + 0.4 * x_new - (k + 1) / K
    mean_b = v_new * (1 - eta) + 2 * eta * b + dt * force(x_new, beta1)
    var = 2 * eta * mass
    expect = (log_normal(v, mean_b, torch.tensor(var, dtype=F64))
              - log_normal(v_new, mean_f, torch.tensor(var, dtype=F64)))
    assert torch.allclose(v1, v_new) and torch.allclose(x1, x_new)
    assert torch.allclose(lw, expect)


def test_paper_em_differs_from_our_reversible_oba_word():
    """The two agree on the forward move only when F = 0 and there is no control; otherwise the paper's
    EM puts the force into the velocity kernel and reverses with the drift at the new state."""
    target, _ = _gaussian_target()
    fwd = {name: _dynamics(target, name, dt=0.1).forward_path(2000, torch.Generator().manual_seed(4)).log_w[0]
           for name in ("em", "oba")}
    assert float(fwd["em"].mean()) < float(fwd["oba"].mean()) - 0.05  # uncontrolled: EM's reversal is worse
