"""Algorithm 1 (pseudo-labels), TIC's Jacobian/Hessian, and the TAC / log-likelihood metrics."""

import numpy as np
import pytest
import torch
from scipy.stats import multivariate_normal

from iclr25.core.errors import UserError
from iclr25.hetero_covariance.metrics import gaussian_ll, mse, tac, tac_explicit
from iclr25.hetero_covariance.model import HeteroscedasticNet
from iclr25.hetero_covariance.pseudo_labels import neighbourhood_pseudo_covariance
from iclr25.hetero_covariance.tic import jacobian_hessian, tic_covariance


def test_pseudo_labels_are_spd_and_roots_square_back():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(300, 3)), rng.normal(size=(300, 4))
    y_t, cov, root = neighbourhood_pseudo_covariance(X, Y, k=30)
    assert y_t.shape == (300, 4) and cov.shape == (300, 4, 4)
    assert (np.linalg.eigvalsh(cov) > 0).all()
    assert np.allclose(root @ root, cov, atol=1e-10)
    assert np.allclose(cov, np.swapaxes(cov, 1, 2))


def test_pseudo_labels_known_answer_two_neighbours():
    # x_0 has exactly two neighbours at equal distance: uniform weights, so ỹ is their mean and
    # Σ̃ their (biased) covariance
    X = np.array([[0.0], [1.0], [-1.0], [100.0], [101.0]])
    Y = np.array([[0.0, 0.0], [1.0, 2.0], [3.0, -2.0], [9.0, 9.0], [9.0, 9.0]])
    y_t, cov, _ = neighbourhood_pseudo_covariance(X, Y, k=2, metric="euclidean", temperature=1.0, jitter=0.0)
    assert np.allclose(y_t[0], [2.0, 0.0])
    d = Y[[1, 2]] - [2.0, 0.0]
    assert np.allclose(cov[0], 0.5 * d.T @ d)


def test_pseudo_covariance_tracks_local_noise_level():
    # heteroscedastic: the noise sd grows with x, so pseudo-variances must grow with x
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 1, 2000)
    Y = (0.1 + 2 * x)[:, None] * rng.normal(size=(2000, 2))
    _, cov, _ = neighbourhood_pseudo_covariance(x[:, None], Y, k=50)
    lo, hi = cov[x < 0.2, 0, 0].mean(), cov[x > 0.8, 0, 0].mean()
    true_lo, true_hi = (0.1 + 2 * 0.1) ** 2, (0.1 + 2 * 0.9) ** 2
    assert lo == pytest.approx(true_lo, rel=0.3) and hi == pytest.approx(true_hi, rel=0.3)


def test_mahalanobis_is_invariant_to_rescaling_inputs():
    rng = np.random.default_rng(2)
    X, Y = rng.normal(size=(200, 2)), rng.normal(size=(200, 2))
    a = neighbourhood_pseudo_covariance(X, Y, k=10)[1]
    b = neighbourhood_pseudo_covariance(X * [1000.0, 0.01], Y, k=10)[1]
    assert np.allclose(a, b, atol=1e-8)


def test_tree_and_brute_force_neighbours_give_the_same_labels():
    rng = np.random.default_rng(6)
    X, Y = rng.normal(size=(500, 3)), rng.normal(size=(500, 2))
    for include_self in (False, True):
        a = neighbourhood_pseudo_covariance(X, Y, k=25, include_self=include_self, neighbours="tree")
        b = neighbourhood_pseudo_covariance(X, Y, k=25, include_self=include_self, neighbours="brute")
        assert all(np.allclose(u, v, atol=1e-10) for u, v in zip(a, b, strict=True))


def test_duplicated_inputs_still_give_spd_labels():
    X = np.repeat(np.arange(10.0), 20)[:, None]  # every input appears 20 times
    Y = np.random.default_rng(7).normal(size=(200, 3))
    for how in ("tree", "brute"):
        _, cov, _ = neighbourhood_pseudo_covariance(X, Y, k=10, neighbours=how)
        assert (np.linalg.eigvalsh(cov) > 0).all()


def test_relative_jitter_bounds_the_condition_number_of_every_label():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 2))
    # the third target (almost) copies the first: near-singular raw labels, as on UCI energy
    y1 = rng.normal(size=300)
    Y = np.column_stack([y1, X[:, 0] + rng.normal(size=300), y1 + 1e-7 * rng.normal(size=300)])
    _, raw, _ = neighbourhood_pseudo_covariance(X, Y, k=20, jitter=0.0)
    lam = np.linalg.eigvalsh(raw)
    assert np.median(lam[:, -1] / lam[:, 0]) > 1e3
    for jitter in (1e-2, 1e-1):
        _, cov, root = neighbourhood_pseudo_covariance(X, Y, k=20, jitter=jitter)
        lam = np.linalg.eigvalsh(cov)
        assert (lam[:, -1] / lam[:, 0]).max() <= 1 + 3 / jitter + 1e-6
        assert np.allclose(root @ root, cov)
    with pytest.raises(UserError, match="jitter"):
        neighbourhood_pseudo_covariance(X, Y, k=20, jitter=-1.0)


def test_pseudo_labels_bad_input():
    X = np.zeros((5, 1))
    with pytest.raises(UserError, match="non|NaN"):
        neighbourhood_pseudo_covariance(X, np.full((5, 2), np.nan))
    with pytest.raises(UserError, match="rows"):
        neighbourhood_pseudo_covariance(X, np.zeros((4, 2)))
    with pytest.raises(UserError, match="metric"):
        neighbourhood_pseudo_covariance(X, np.zeros((5, 2)), metric="cosine")
    with pytest.raises(UserError, match="neighbours"):
        neighbourhood_pseudo_covariance(X, np.zeros((5, 2)), neighbours="faiss")


def test_tac_equals_textbook_conditional_mean_formula():
    rng = np.random.default_rng(3)
    B = rng.normal(size=(30, 4, 4))
    cov = B @ np.swapaxes(B, 1, 2) + 0.1 * np.eye(4)
    mu, y = rng.normal(size=(30, 4)), rng.normal(size=(30, 4))
    assert tac(mu, cov, y) == pytest.approx(tac_explicit(mu, cov, y), rel=1e-10)


def test_tac_with_identity_covariance_is_mean_absolute_error():
    rng = np.random.default_rng(4)
    mu, y = rng.normal(size=(10, 3)), rng.normal(size=(10, 3))
    assert tac(mu, np.tile(np.eye(3), (10, 1, 1)), y) == pytest.approx(np.abs(y - mu).mean())


def test_tac_of_one_target_is_the_mean_absolute_error_whatever_the_variance():
    # nothing to condition on: E[y | rest] = μ̂, so the variance cannot change TAC (issue #52)
    mu, y = np.zeros((3, 1)), np.array([[1.0], [-2.0], [0.5]])
    for var in (0.01, 1.0, 100.0):
        assert tac(mu, np.full((3, 1, 1), var), y) == pytest.approx(3.5 / 3)


def test_tac_refuses_mismatched_shapes():
    with pytest.raises(UserError, match="shapes"):
        tac(np.zeros((3, 2)), np.ones((3, 3, 3)), np.zeros((3, 2)))


def test_gaussian_ll_matches_scipy_and_mse():
    rng = np.random.default_rng(5)
    cov = np.array([[2.0, 0.3], [0.3, 0.5]])
    mu, y = rng.normal(size=(6, 2)), rng.normal(size=(6, 2))
    ref = np.mean([multivariate_normal(m, cov).logpdf(t) for m, t in zip(mu, y, strict=True)])
    assert gaussian_ll(mu, np.tile(cov, (6, 1, 1)), y) == pytest.approx(ref)
    assert mse(mu, y) == pytest.approx(((mu - y) ** 2).mean())


def test_jacobian_hessian_of_known_function():
    # f(x) = [‖x‖², x₀ x₁]: J = [2x; (x₁, x₀)], H₀ = 2I, H₁ = [[0,1],[1,0]]
    x = torch.randn(5, 2, dtype=torch.float64)
    J, H = jacobian_hessian(lambda X: torch.stack([(X**2).sum(1), X[:, 0] * X[:, 1]], 1), x)
    assert torch.allclose(J[:, 0], 2 * x)
    assert torch.allclose(J[:, 1], x.flip(1))
    assert torch.allclose(H[:, 0], 2 * torch.eye(2, dtype=torch.float64).expand(5, 2, 2))
    swap = torch.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=torch.float64)
    assert torch.allclose(H[:, 1], swap.expand(5, 2, 2))


def test_tic_covariance_is_spd_and_trainable():
    torch.manual_seed(0)
    net = HeteroscedasticNet(3, 2, "tic")
    mu, cov = tic_covariance(net, torch.randn(8, 3))
    assert mu.shape == (8, 2) and (torch.linalg.eigvalsh(cov) > 0).all()
    cov.sum().backward()
    assert all(p.grad is not None for p in net.mean_backbone.parameters())  # J and H feed the mean net
