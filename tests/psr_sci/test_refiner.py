"""The refiner's pieces: guidance gradient vs finite differences, normalisation, band groups, URSe and
predictor shapes, and one guided DDIM pass reducing the measurement residual."""

import numpy as np
import pytest
import torch

from iclr25.core.errors import UserError
from iclr25.psr_sci.diffusion import (
    Normaliser,
    RefinerConfig,
    group_bands,
    guidance_grad,
    guidance_loss,
    ungroup_bands,
)
from iclr25.psr_sci.freq import freq_split
from iclr25.psr_sci.operators import cassi_forward
from iclr25.psr_sci.predictor import Predictor
from iclr25.psr_sci.refiner import FullCubeRefiner, SubspaceRefiner
from iclr25.psr_sci.urse import URSe


def _problem(b=4, h=6, w=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(1, b, h, w, generator=g, dtype=torch.float64)
    mask = torch.rand(h, w, generator=g, dtype=torch.float64)
    return x, mask, cassi_forward(x, mask), g


def test_guidance_gradient_matches_finite_differences():
    torch.manual_seed(0)
    x, mask, y, g = _problem()
    decode = torch.nn.Conv2d(3, 4, 2, stride=2).double()  # a small differentiable ψ⁻¹ (3×2H×2W -> 4×H×W)
    lf = 0.5 * x
    z_init = torch.rand(1, 3, 12, 12, generator=g, dtype=torch.float64) * 2 - 1
    norm = Normaliser.fit(z_init, 0.15, 0.85)
    cfg = RefinerConfig(crop=0.0)
    z0 = (z_init + 0.1 * torch.randn(z_init.shape, generator=g, dtype=torch.float64)).clamp(-0.9, 0.9)
    grad, _ = guidance_grad(z0, z_init, norm, decode, lf, y, mask, cfg)
    for idx in [(0, 0, 0, 0), (0, 1, 5, 7), (0, 2, 11, 3), (0, 0, 6, 6)]:
        e = torch.zeros_like(z0)
        e[idx] = 1e-6
        with torch.no_grad():
            fd = (guidance_loss(z0 + e, z_init, norm, decode, lf, y, mask, cfg)
                  - guidance_loss(z0 - e, z_init, norm, decode, lf, y, mask, cfg)) / 2e-6
        assert float(grad[idx]) == pytest.approx(float(fd), rel=1e-4, abs=1e-10)


def test_normaliser_maps_the_condition_into_lo_hi_and_back():
    a = torch.randn(2, 3, 5, 5) * 4 + 1
    n = Normaliser.fit(a, 0.15, 0.85)
    z = n.forward(a)
    assert torch.allclose(z.flatten(1).min(1).values, torch.full((2,), -0.7), atol=1e-5)
    assert torch.allclose(z.flatten(1).max(1).values, torch.full((2,), 0.7), atol=1e-5)
    assert torch.allclose(n.inverse(z), a, atol=1e-4)


def test_band_groups_round_trip_28_bands_in_10_groups():
    hf = torch.randn(1, 28, 4, 4)
    grouped = group_bands(hf)
    assert grouped.shape == (10, 3, 4, 4)
    assert torch.equal(ungroup_bands(grouped, 28), hf)


def test_urse_shapes_and_coefficients():
    u = URSe(bands=28, sub_ch=3, upsample=2)
    a, e = u.encode(torch.rand(2, 28, 8, 8))
    assert a.shape == (2, 3, 16, 16) and e.shape == (2, 28, 1, 1)
    assert ((e > 0) & (e < 1)).all()
    assert u.decode(a).shape == (2, 28, 8, 8)


def test_untrained_predictor_is_gap_tv_and_keeps_shape():
    """The predictor starts at the classical level: with its stages untrained (zero last layers) it returns
    GAP-TV's reconstruction exactly."""
    from iclr25.psr_sci.classic import gap_tv
    from iclr25.psr_sci.predictor import PredictorConfig

    p = Predictor(PredictorConfig(gap_iters=5))
    assert 0.2e6 < p.n_params < 0.6e6
    rng = np.random.default_rng(0)
    mask = (rng.random((8, 9)) < 0.5).astype(np.float32)
    y = cassi_forward(rng.random((28, 8, 9)).astype(np.float32), mask)
    x, x_gap = p.predict_with_classic(y, mask)
    assert x.shape == (28, 8, 9)
    np.testing.assert_allclose(x, x_gap, atol=1e-6)
    np.testing.assert_allclose(x_gap, gap_tv(y, mask, iters=5), atol=1e-5)


def test_predictor_training_keeps_the_best_held_out_checkpoint():
    from iclr25.psr_sci.predictor import PredictorConfig, fit_predictor, make_pool

    g = torch.Generator().manual_seed(0)
    cfg = PredictorConfig(gap_iters=3, steps=6, val_every=2, batch=2, width=8)
    cubes = torch.rand(6, 28, 8, 8, generator=g)
    masks = (torch.rand(6, 8, 8, generator=g) < 0.5).float()
    pool = make_pool(cubes, masks, cfg)
    model = Predictor(cfg)
    hist = fit_predictor(model, pool.take(slice(0, 4)), pool.take(slice(4, 6)), g)
    assert hist["val_step"] == [0, 2, 4, 6] and len(hist["loss"]) == 6
    best = hist["val_step"][int(np.argmin(hist["val_mse"]))]
    assert hist["best_step"] == [best]


def test_subspace_refiner_needs_urse_and_a_known_prior():
    with pytest.raises(UserError, match="URSe"):
        SubspaceRefiner(None, "subspace")
    with pytest.raises(UserError, match="prior"):
        SubspaceRefiner(None, "pixels")


def test_guided_sampling_lowers_the_residual_of_an_untrained_full_cube_refiner():
    """With the data term alone (an untrained network, large s), guidance must pull x̂ toward Φx = y."""
    torch.manual_seed(0)
    x, mask, y, g = _problem(b=28, h=16, w=16)
    x, mask, y = x.float(), mask.float(), y.float()
    cfg = RefinerConfig(ddim_steps=6, crop=0.0, w_anchor=0.0, g_scale=3e4)
    ref = FullCubeRefiner(config=cfg)
    hf, lf = freq_split(x)
    hf_init = 0.3 * hf  # a damped estimate: the residual is large and the condition's range is not flat
    out_g, info = ref.refine(hf_init, lf, y, mask, torch.Generator().manual_seed(1), guidance=True)
    out_u, _ = ref.refine(hf_init, lf, y, mask, torch.Generator().manual_seed(1), guidance=False)

    def res(hf):
        return float((cassi_forward((hf + lf).clamp_min(0), mask) - y).abs().mean())

    assert len(info["guidance_loss"]) == 6
    assert res(out_g) < 0.8 * res(out_u)
