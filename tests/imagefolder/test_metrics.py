"""FD (closed form, zero on identical sets), KID, PSNR, SSIM (against scikit-image) and the probe."""

import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.imagefolder.metrics import (
    fd_bootstrap,
    fd_features,
    frechet_distance,
    kid,
    linear_probe,
    psnr,
    ssim,
)


def test_fd_is_zero_on_identical_sets(rng):
    x = rng.normal(size=(500, 8))
    assert fd_features(x, x) == pytest.approx(0.0, abs=1e-8)


def test_frechet_distance_matches_the_gaussian_closed_form(rng):
    """Commuting covariances: FD = |mu1 - mu2|^2 + sum (sqrt(a) - sqrt(b))^2."""
    q, _ = np.linalg.qr(rng.normal(size=(5, 5)))
    a, b = rng.uniform(0.2, 3, 5), rng.uniform(0.2, 3, 5)
    s1, s2 = (q * a) @ q.T, (q * b) @ q.T
    mu1, mu2 = rng.normal(size=5), rng.normal(size=5)
    expect = ((mu1 - mu2) ** 2).sum() + ((np.sqrt(a) - np.sqrt(b)) ** 2).sum()
    assert frechet_distance(mu1, s1, mu2, s2) == pytest.approx(expect, rel=1e-9)


def test_frechet_distance_matches_scipy_sqrtm_for_general_covariances(rng):
    from scipy.linalg import sqrtm

    m1, m2 = rng.normal(size=(6, 6)), rng.normal(size=(6, 6))
    s1, s2 = m1 @ m1.T + 0.1 * np.eye(6), m2 @ m2.T + 0.1 * np.eye(6)
    mu1, mu2 = rng.normal(size=6), rng.normal(size=6)
    ref = ((mu1 - mu2) ** 2).sum() + np.trace(s1 + s2 - 2 * np.real(sqrtm(s1 @ s2)))
    assert frechet_distance(mu1, s1, mu2, s2) == pytest.approx(ref, rel=1e-7)


def test_fd_of_samples_approaches_the_population_value(rng):
    x = rng.normal(size=(20000, 3))
    y = rng.normal(loc=[1.0, 0.0, 0.0], scale=2.0, size=(20000, 3))
    # |mu|^2 = 1; each axis (1 - 2)^2 = 1
    assert fd_features(x, y) == pytest.approx(4.0, rel=0.05)
    iv = fd_bootstrap(x[:2000], y[:2000], n_boot=20)
    assert iv.lo <= iv.mean <= iv.hi and iv.lo < 4.0 < iv.hi + 0.5


def test_kid_is_near_zero_for_one_distribution_and_positive_for_a_shift(rng):
    x, y = rng.normal(size=(800, 4)), rng.normal(size=(800, 4))
    same, _ = kid(x, y, subsets=10, subset_size=400)
    shifted, _ = kid(x, y + 1.0, subsets=10, subset_size=400)
    assert abs(same) < 0.05 < shifted


def test_psnr_analytic():
    x = np.zeros((2, 1, 4, 4))
    y = np.full((2, 1, 4, 4), 0.1)  # MSE 0.01 -> 20 dB
    assert psnr(x, y) == pytest.approx(20.0)


def test_ssim_matches_scikit_image(rng):
    from skimage.metrics import structural_similarity

    x = rng.random((3, 1, 28, 28))
    y = np.clip(x + 0.1 * rng.normal(size=x.shape), 0, 1)
    ref = np.mean([structural_similarity(x[i, 0], y[i, 0], data_range=1.0, gaussian_weights=True, sigma=1.5)
                   for i in range(3)])
    assert ssim(x, y) == pytest.approx(ref, abs=1e-6)
    assert ssim(x, x) == pytest.approx(1.0)


def test_linear_probe_separates_separable_classes(rng):
    y = np.repeat([0, 1, 2], 100)
    x = rng.normal(size=(300, 4)) + 4 * np.eye(4)[y]
    assert linear_probe(x[::2], y[::2], x[1::2], y[1::2]) > 0.95


@pytest.mark.parametrize("a, b", [(np.zeros((1, 3)), np.zeros((5, 3))), (np.zeros((5, 3)), np.zeros((5, 4))),
                                  (np.full((5, 3), np.nan), np.zeros((5, 3)))])
def test_bad_features_are_user_errors(a, b):
    with pytest.raises(UserError):
        fd_features(a, b)


def test_images_of_different_shapes_are_user_errors():
    with pytest.raises(UserError, match="differ in shape"):
        psnr(np.zeros((1, 1, 4, 4)), np.zeros((1, 1, 5, 5)))
