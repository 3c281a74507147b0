"""The matrix square root, the W₂ distance and bound (Theorem 1), and the Gaussian losses."""

import math

import numpy as np
import pytest
import torch

from iclr25.hetero_covariance.linalg import is_spd, random_spd, sqrtm_spd, tril_from_vector
from iclr25.hetero_covariance.losses import (
    beta_nll,
    exact_w2,
    faithful_loss,
    gaussian_nll_diag,
    gaussian_nll_full,
    kl_calibrated_loss,
    w2_bound,
    w2_bound_loss,
    w2_exact_loss,
)

f64 = torch.float64


def test_sqrtm_of_diagonal_is_elementwise_root():
    A = torch.diag(torch.tensor([4.0, 9.0, 0.25], dtype=f64))[None]
    assert torch.allclose(sqrtm_spd(A), torch.diag(torch.tensor([2.0, 3.0, 0.5], dtype=f64))[None])


def test_sqrtm_squares_back_and_is_spd():
    A = random_spd(20, 6, torch.Generator().manual_seed(0))
    R = sqrtm_spd(A)
    assert torch.allclose(R @ R, A, atol=1e-10)
    assert is_spd(R)


def test_sqrtm_gradient_matches_finite_differences():
    A = random_spd(3, 4, torch.Generator().manual_seed(1)).requires_grad_(True)
    assert torch.autograd.gradcheck(lambda a: sqrtm_spd(torch.tril(a) + torch.tril(a, -1).transpose(-1, -2)),
                                    (A,))


def test_sqrtm_gradient_finite_at_repeated_eigenvalues():
    # the generic eigh backward divides by λ_i − λ_j: here all eigenvalues are equal
    A = (2.0 * torch.eye(3, dtype=f64))[None].requires_grad_(True)
    sqrtm_spd(A).sum().backward()
    assert torch.isfinite(A.grad).all()
    # d tr(√A) / dA = ½ A^-½ = I / (2√2) at A = 2I
    A.grad = None
    torch.diagonal(sqrtm_spd(A), dim1=-2, dim2=-1).sum().backward()
    assert torch.allclose(A.grad[0], torch.eye(3, dtype=f64) / (2 * math.sqrt(2)))


def test_tril_from_vector_has_positive_diagonal():
    L = tril_from_vector(torch.randn(5, 6), 3)
    assert torch.equal(L, torch.tril(L))
    assert (torch.diagonal(L, dim1=-2, dim2=-1) > 0).all()


def test_exact_w2_univariate_closed_form():
    # 1-D: W₂² = (m1 − m2)² + (σ1 − σ2)²
    m1, m2, s1, s2 = 0.3, -1.2, 2.0, 0.5
    got = exact_w2(torch.tensor([[m1]], dtype=f64), torch.tensor([[[s1**2]]], dtype=f64),
                   torch.tensor([[m2]], dtype=f64), torch.tensor([[[s2**2]]], dtype=f64))
    assert float(got) == pytest.approx((m1 - m2) ** 2 + (s1 - s2) ** 2, rel=1e-12)


def test_exact_w2_commuting_closed_form_equals_bound():
    g = torch.Generator().manual_seed(2)
    U = torch.linalg.qr(torch.randn(5, 5, generator=g, dtype=f64))[0]
    a, b = torch.rand(5, generator=g, dtype=f64) + 0.1, torch.rand(5, generator=g, dtype=f64) + 0.1
    S1, S2 = ((U * a) @ U.T)[None], ((U * b) @ U.T)[None]
    mu1, mu2 = torch.randn(1, 5, dtype=f64), torch.randn(1, 5, dtype=f64)
    closed = ((mu1 - mu2) ** 2).sum() + ((a.sqrt() - b.sqrt()) ** 2).sum()  # same eigenbasis
    assert float(exact_w2(mu1, S1, mu2, S2)) == pytest.approx(float(closed), abs=1e-10)
    assert float(w2_bound(mu1, sqrtm_spd(S1), mu2, sqrtm_spd(S2))) == pytest.approx(float(closed), abs=1e-10)


def test_bound_upper_bounds_exact_w2_on_random_pairs_and_is_strict_somewhere():
    g = torch.Generator().manual_seed(3)
    S1, S2 = random_spd(200, 4, g), random_spd(200, 4, g)
    mu = torch.zeros(200, 4, dtype=f64)
    ex = exact_w2(mu, S1, mu, S2)
    bd = w2_bound(mu, sqrtm_spd(S1), mu, sqrtm_spd(S2))
    assert (bd >= ex - 1e-10).all()
    assert (bd > ex + 1e-6).any()  # non-commuting pairs: the bound is not tight


def test_exact_w2_is_a_distance_squared():
    g = torch.Generator().manual_seed(4)
    S = random_spd(3, 3, g)
    mu = torch.randn(3, 3, dtype=f64)
    assert torch.allclose(exact_w2(mu, S, mu, S), torch.zeros(3, dtype=f64), atol=1e-10)
    S2 = random_spd(3, 3, g)
    assert torch.allclose(exact_w2(mu, S, mu, S2), exact_w2(mu, S2, mu, S), atol=1e-9)


def test_exact_w2_gradient_check():
    g = torch.Generator().manual_seed(5)
    S2 = random_spd(2, 3, g)
    L = torch.linalg.cholesky(random_spd(2, 3, g)).requires_grad_(True)
    mu = torch.zeros(2, 3, dtype=f64)
    assert torch.autograd.gradcheck(lambda L: exact_w2(mu, L @ L.transpose(-1, -2), mu, S2), (L,))


def test_nll_full_matches_torch_distribution():
    g = torch.Generator().manual_seed(6)
    S = random_spd(7, 3, g)
    mu, y = torch.randn(7, 3, dtype=f64), torch.randn(7, 3, dtype=f64)
    ref = -torch.distributions.MultivariateNormal(mu, S).log_prob(y)
    assert torch.allclose(gaussian_nll_full(mu, S, y, reduction="none"), ref)


def test_diag_nll_equals_full_nll_for_diagonal_cov_and_beta_zero_is_nll():
    var = torch.rand(5, 3, dtype=f64) + 0.1
    mu, y = torch.randn(5, 3, dtype=f64), torch.randn(5, 3, dtype=f64)
    full = gaussian_nll_full(mu, torch.diag_embed(var), y, reduction="none")
    assert torch.allclose(gaussian_nll_diag(mu, var, y, reduction="none"), full)
    assert torch.allclose(beta_nll(mu, var, y, beta=0.0), gaussian_nll_diag(mu, var, y))


def test_beta_nll_scales_by_detached_variance():
    var = torch.full((1, 2), 4.0, dtype=f64, requires_grad=True)
    mu, y = torch.zeros(1, 2, dtype=f64), torch.ones(1, 2, dtype=f64)
    b = beta_nll(mu, var, y, beta=0.5)
    assert float(b.detach()) == pytest.approx(2.0 * float(gaussian_nll_diag(mu, var, y).detach()))  # ×4^0.5


def test_faithful_mean_gradient_is_the_mse_gradient():
    mu = torch.randn(4, 2, dtype=f64, requires_grad=True)
    y = torch.randn(4, 2, dtype=f64)
    S = random_spd(4, 2, torch.Generator().manual_seed(7)).requires_grad_(True)
    faithful_loss(mu, S, y).backward()
    assert torch.allclose(mu.grad, 2 * (mu - y).detach() / 4)  # mean over 4 samples of ‖y − μ‖²
    assert S.grad is not None and torch.isfinite(S.grad).all()


def test_w2_bound_loss_is_zero_at_the_target_and_independent_of_residual_in_cov():
    R = sqrtm_spd(random_spd(3, 2, torch.Generator().manual_seed(8)))
    y = torch.randn(3, 2, dtype=f64)
    assert float(w2_bound_loss(y, R, y, R)) == pytest.approx(0.0, abs=1e-14)
    Rp = R.clone().requires_grad_(True)
    w2_bound_loss(y + 5.0, Rp, y, R + 0.1).backward()
    g1 = Rp.grad.clone()
    Rp.grad = None
    w2_bound_loss(y - 1.0, Rp, y, R + 0.1).backward()
    assert torch.allclose(g1, Rp.grad)  # the covariance gradient does not see the residual


def test_w2_exact_loss_zero_at_target():
    S = random_spd(2, 3, torch.Generator().manual_seed(9))
    y = torch.randn(2, 3, dtype=f64)
    assert float(w2_exact_loss(y, S, y, S, sqrtm_spd(S))) == pytest.approx(0.0, abs=1e-9)


def test_unknown_reduction_raises():
    with pytest.raises(ValueError, match="reduction"):
        w2_bound(torch.zeros(1, 1), torch.ones(1, 1, 1), torch.zeros(1, 1), torch.ones(1, 1, 1), "avg")


def test_random_spd_is_spd():
    assert is_spd(random_spd(50, 5, torch.Generator().manual_seed(10)))
    assert not is_spd(torch.tensor(np.diag([1.0, -1.0]))[None])


def test_exact_w2_agrees_with_pot_peer():
    ot = pytest.importorskip("ot", reason="POT (pip install pot) is the peer implementation")
    g = torch.Generator().manual_seed(11)
    S1, S2 = random_spd(20, 5, g), random_spd(20, 5, g)
    m1, m2 = torch.randn(20, 5, dtype=f64), torch.randn(20, 5, dtype=f64)
    peer = ot.gaussian.bures_wasserstein_distance(m1.numpy(), m2.numpy(), S1.numpy(), S2.numpy(), paired=True)
    assert np.allclose(exact_w2(m1, S1, m2, S2).numpy(), peer**2, rtol=1e-8, atol=1e-10)


def test_kl_calibrated_is_minimised_at_half_of_prior_plus_residual_outer_product():
    g = torch.Generator().manual_seed(12)
    prior = random_spd(1, 3, g)
    mu, y = torch.zeros(1, 3, dtype=f64), torch.randn(1, 3, dtype=f64, generator=g)
    opt = 0.5 * (prior + (y - mu)[..., None] @ (y - mu)[:, None])  # Lemma: Σ* = (Σ_prior + r rᵀ)/2
    Lc = torch.linalg.cholesky(opt).requires_grad_(True)
    kl_calibrated_loss(mu, Lc @ Lc.transpose(-1, -2), y, prior).backward()
    assert Lc.grad.abs().max() < 1e-10
    worse = kl_calibrated_loss(mu, 1.3 * opt, y, prior)
    assert float(worse) > float(kl_calibrated_loss(mu, opt, y, prior))
