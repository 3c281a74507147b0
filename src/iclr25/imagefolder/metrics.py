"""Image metrics without Inception: the Fréchet distance (FD) and KID in the feature space of our own
CNN (`FeatureCNN`, trained separately from the tokenizer's teacher), PSNR, SSIM, and a linear probe.

These numbers are not FID: the feature space is a small Fashion-MNIST classifier, not Inception-v3 on
ImageNet, so only comparisons between our own models at equal n are meaningful."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
import torch.nn.functional as F

from iclr25.core.errors import UserError
from iclr25.core.stats import Interval


def _features(x, name: str) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    if a.ndim != 2:
        raise UserError(f"{name}: expected (n, features), got shape {a.shape}")
    if len(a) < 2:
        raise UserError(f"{name}: need at least 2 rows, got {len(a)}")
    if not np.isfinite(a).all():
        raise UserError(f"{name}: NaN or infinite feature values")
    return a


def gaussian_stats(feats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and (n - 1)-normalised covariance of (n, k) features."""
    return feats.mean(0), np.cov(feats, rowvar=False).reshape(feats.shape[1], feats.shape[1])


def _sqrtm_psd(a: np.ndarray) -> np.ndarray:
    w, v = np.linalg.eigh((a + a.T) / 2)
    return (v * np.sqrt(np.clip(w, 0, None))) @ v.T


def frechet_distance(mu1: np.ndarray, s1: np.ndarray, mu2: np.ndarray, s2: np.ndarray) -> float:
    """||mu1 - mu2||^2 + Tr(S1 + S2 - 2 (S1 S2)^(1/2)) between two Gaussians. The trace of the
    geometric term is computed as Tr((S1^(1/2) S2 S1^(1/2))^(1/2)), which is symmetric and stable.

    >>> round(frechet_distance(np.zeros(2), np.eye(2), np.ones(2), 4 * np.eye(2)), 6)
    4.0
    """
    r1 = _sqrtm_psd(s1)
    m = r1 @ s2 @ r1
    tr_geo = float(np.sqrt(np.clip(np.linalg.eigvalsh((m + m.T) / 2), 0, None)).sum())
    return float(((mu1 - mu2) ** 2).sum() + np.trace(s1) + np.trace(s2) - 2 * tr_geo)


def fd_features(real, fake, extractor: Callable[[np.ndarray], np.ndarray] | None = None) -> float:
    """Fréchet distance between Gaussian fits of two sets of features (n, k); with `extractor`, the
    inputs are images and are mapped to features first. 0 for identical sets."""
    if extractor is not None:
        real, fake = extractor(real), extractor(fake)
    a, b = _features(real, "real"), _features(fake, "fake")
    if a.shape[1] != b.shape[1]:
        raise UserError(f"real and fake features differ in size: {a.shape[1]} vs {b.shape[1]}")
    return max(0.0, frechet_distance(*gaussian_stats(a), *gaussian_stats(b)))


def fd_bootstrap(real, fake, n_boot: int = 50, seed: int = 0, level: float = 0.95) -> Interval:
    """FD with a normal bootstrap interval: point +- z * SD over resamples of both sets. (Resampling
    with replacement duplicates rows, which inflates FD, so percentile intervals would sit above the
    point estimate; the spread is what the resamples tell reliably.)"""
    from scipy import stats

    a, b = _features(real, "real"), _features(fake, "fake")
    rng = np.random.default_rng(seed)
    point = fd_features(a, b)
    boots = [fd_features(a[rng.integers(0, len(a), len(a))], b[rng.integers(0, len(b), len(b))])
             for _ in range(n_boot)]
    half = float(stats.norm.ppf(0.5 + level / 2)) * float(np.std(boots, ddof=1))
    return Interval(point, max(0.0, point - half), point + half, len(b), level)


def kid(real, fake, subsets: int = 20, subset_size: int = 1000, seed: int = 0) -> tuple[float, float]:
    """Kernel Inception-style distance in our features: unbiased MMD^2 with k(x, y) = (x.y / k + 1)^3,
    averaged over random subsets; returns (mean, standard deviation over subsets)."""
    a, b = _features(real, "real"), _features(fake, "fake")
    m = min(subset_size, len(a), len(b))
    if m < 2:
        raise UserError(f"kid needs at least 2 rows per set, got {m}")
    rng = np.random.default_rng(seed)
    k = a.shape[1]

    def poly(u: np.ndarray, v: np.ndarray) -> np.ndarray:
        g = u @ v.T / k + 1
        return g * g * g

    vals = []
    for _ in range(subsets):
        x = a[rng.choice(len(a), m, replace=False)]
        y = b[rng.choice(len(b), m, replace=False)]
        kxx, kyy, kxy = poly(x, x), poly(y, y), poly(x, y)
        off = (kxx.sum() - np.trace(kxx) + kyy.sum() - np.trace(kyy)) / (m * (m - 1))
        vals.append(off - 2 * kxy.mean())
    return float(np.mean(vals)), float(np.std(vals))


def _pair(x, y) -> tuple[torch.Tensor, torch.Tensor]:
    a = torch.as_tensor(np.asarray(x), dtype=torch.float64)
    b = torch.as_tensor(np.asarray(y), dtype=torch.float64)
    if a.shape != b.shape:
        raise UserError(f"images differ in shape: {tuple(a.shape)} vs {tuple(b.shape)}")
    if a.ndim != 4:
        raise UserError(f"expected (N, C, H, W) images, got shape {tuple(a.shape)}")
    return a, b


def psnr(x, y, data_range: float = 1.0) -> float:
    """Mean over images of 10 log10(range^2 / MSE)."""
    a, b = _pair(x, y)
    mse = ((a - b) ** 2).flatten(1).mean(1).clamp_min(1e-12)
    return float((10 * torch.log10(data_range ** 2 / mse)).mean())


def ssim(x, y, data_range: float = 1.0, sigma: float = 1.5, win: int = 11) -> float:
    """Mean SSIM (Wang et al. 2004): Gaussian window (sigma 1.5, 11 taps), K1 = 0.01, K2 = 0.03, over
    the valid region, averaged over channels and images (scikit-image's `gaussian_weights=True`)."""
    a, b = _pair(x, y)
    win = min(win, a.shape[-1] - (1 - a.shape[-1] % 2), a.shape[-2] - (1 - a.shape[-2] % 2))
    t = torch.arange(win, dtype=torch.float64) - (win - 1) / 2
    g = torch.exp(-(t ** 2) / (2 * sigma ** 2))
    g = g / g.sum()
    c = a.shape[1]
    kernel = (g[:, None] * g[None, :]).expand(c, 1, win, win).contiguous()

    def blur(z: torch.Tensor) -> torch.Tensor:
        return F.conv2d(z, kernel, groups=c)

    c1, c2 = (0.01 * data_range) ** 2, (0.03 * data_range) ** 2
    mu_a, mu_b = blur(a), blur(b)
    n = win * win
    cov_norm = n / (n - 1)  # scikit-image's sample-covariance convention
    var_a = cov_norm * (blur(a * a) - mu_a ** 2)
    var_b = cov_norm * (blur(b * b) - mu_b ** 2)
    cov = cov_norm * (blur(a * b) - mu_a * mu_b)
    s = ((2 * mu_a * mu_b + c1) * (2 * cov + c2)) / ((mu_a ** 2 + mu_b ** 2 + c1) * (var_a + var_b + c2))
    return float(s.mean())


def linear_probe(train_feats, train_labels, test_feats, test_labels, seed: int = 0) -> float:
    """Test accuracy of a multinomial logistic regression on standardised features."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    xtr, xte = _features(train_feats, "train features"), _features(test_feats, "test features")
    ytr, yte = np.asarray(train_labels), np.asarray(test_labels)
    if len(ytr) != len(xtr) or len(yte) != len(xte):
        raise UserError("linear_probe: one label per feature row is needed")
    clf = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, random_state=seed))
    clf.fit(xtr, ytr)
    return float((clf.predict(xte) == yte).mean())
