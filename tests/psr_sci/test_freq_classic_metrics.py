"""Frequency split (linear, exact, local), the model-based baselines and the metrics."""

import numpy as np
import pytest
import torch

from iclr25.psr_sci.classic import gap_tv, tv_denoise, twist
from iclr25.psr_sci.freq import freq_split
from iclr25.psr_sci.metrics import psnr, sam, ssim, to_rgb
from iclr25.psr_sci.operators import cassi_forward, least_norm


def test_freq_split_is_exact_and_linear():
    g = torch.Generator().manual_seed(0)
    a, b = torch.rand(4, 20, 20, generator=g), torch.rand(4, 20, 20, generator=g)
    ha, la = freq_split(a)
    hb, lb = freq_split(b)
    h, low = freq_split(2 * a - 3 * b)
    assert torch.allclose(ha + la, a, atol=1e-6)
    assert torch.allclose(h, 2 * ha - 3 * hb, atol=1e-5)
    assert torch.allclose(low, 2 * la - 3 * lb, atol=1e-5)


def test_high_band_vanishes_more_than_7px_from_a_step_edge():
    x = torch.zeros(1, 32, 40)
    x[..., 20:] = 1.0  # vertical step edge between columns 19 and 20
    hf, _ = freq_split(x)
    col = hf[0].abs().amax(0)  # (40,) max over rows
    assert col[:20 - 7].max() < 1e-6 and col[20 + 7:].max() < 1e-6
    assert col[19] > 0.01  # but not zero at the edge


def _piecewise_scene(h=32, w=32, b=28):
    x = np.zeros((b, h, w), np.float32)
    x[:, 4:20, 6:26] = np.linspace(0.2, 0.9, b)[:, None, None]
    x[:, 18:30, 2:14] = np.linspace(0.8, 0.1, b)[:, None, None]
    return x


def test_gap_tv_and_twist_improve_on_least_norm():
    x = _piecewise_scene()
    m = (np.random.default_rng(0).random((32, 32)) < 0.5).astype(np.float32)
    y = cassi_forward(x, m)
    base = psnr(least_norm(y, m), x)
    assert psnr(gap_tv(y, m, iters=30), x) > base + 3
    assert psnr(twist(y, m, iters=30), x) > base + 1


def test_tv_denoise_flattens_noise_and_keeps_a_constant():
    g = torch.Generator().manual_seed(0)
    const = torch.full((2, 16, 16), 0.5)
    assert torch.allclose(tv_denoise(const, 0.1), const, atol=1e-6)
    noisy = const + 0.1 * torch.randn(2, 16, 16, generator=g)
    assert (tv_denoise(noisy, 0.1) - const).abs().mean() < (noisy - const).abs().mean() / 2


def test_psnr_ssim_sam_known_values():
    x = np.full((3, 8, 8), 0.5)
    assert psnr(x + 0.1, x) == pytest.approx(20.0)  # MSE 0.01, peak 1
    assert ssim(x, x) == pytest.approx(1.0)
    assert sam(2 * x, x) == pytest.approx(0.0, abs=0.05)  # scaling keeps the spectral angle
    a, b = np.zeros((2, 1, 1)), np.zeros((2, 1, 1))
    a[0], b[1] = 1, 1
    assert sam(a, b) == pytest.approx(90.0)


def test_to_rgb_renders_a_flat_spectrum_neutral():
    rgb = to_rgb(np.full((28, 2, 2), 0.5))
    assert rgb.shape == (2, 2, 3) and rgb.dtype == np.uint8
    assert np.ptp(rgb[0, 0].astype(int)) <= 25  # near grey
