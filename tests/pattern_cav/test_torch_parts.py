"""Activation extraction, TCAV and ClArC on tiny models with known answers."""

import numpy as np
import pytest
import torch
from torch import nn

from iclr25.core.errors import UserError
from iclr25.pattern_cav import (
    AugmentativeClArC,
    ProjectiveClArC,
    RRClArCConfig,
    collect_activations,
    reference_mean,
    rr_clarc,
    tcav,
    tcav_test,
)
from iclr25.pattern_cav.cav import CAV
from iclr25.pattern_cav.clarc import _params_after, rr_loss
from iclr25.pattern_cav.sensitivity import directional_derivatives, layer_gradients, random_cavs


def _conv_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(1, 3, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(3 * 4 * 4, 2))


def test_collect_activations_reductions_match_manual_computation():
    m = _conv_model()
    x = torch.randn(5, 1, 4, 4)
    full = m[1](m[0](x)).detach()
    np.testing.assert_allclose(collect_activations(m, "1", x, "max"), full.amax((2, 3)).numpy(), atol=1e-6)
    np.testing.assert_allclose(collect_activations(m, "1", x, "mean"), full.mean((2, 3)).numpy(), atol=1e-6)
    np.testing.assert_allclose(collect_activations(m, "1", x.numpy(), "flatten", batch_size=2),
                               full.flatten(1).numpy(), atol=1e-6)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, torch.zeros(5)), batch_size=3)
    assert collect_activations(m, "0", loader).shape == (5, 3)
    assert not m[0]._forward_hooks  # hook removed


def test_bad_layer_name_lists_the_valid_names():
    with pytest.raises(UserError, match=r"no layer 'features\.28'; valid layer names: 0, 1, 2, 3"):
        collect_activations(_conv_model(), "features.28", torch.zeros(1, 1, 4, 4))
    with pytest.raises(UserError, match="unknown reduce"):
        collect_activations(_conv_model(), "0", torch.zeros(1, 1, 4, 4), reduce="median")


def test_tcav_on_a_linear_head_is_the_sign_of_w_dot_cav():
    # f_c = W[c] · a on a dense layer: every directional derivative equals W[c] · v
    lin = nn.Linear(3, 2, bias=False)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[1.0, 2.0, 0.0], [-1.0, 0.0, 0.0]]))
    m = nn.Sequential(nn.Identity(), lin)
    x = torch.randn(7, 3)
    v = CAV(np.array([1.0, 0.0, 0.0]), "given")
    assert tcav(m, "0", v, x, target_class=0).score == 1.0
    assert tcav(m, "0", v, x, target_class=1).score == 0.0
    g = layer_gradients(m, "0", x, 0)
    np.testing.assert_allclose(directional_derivatives(g, v), np.ones((7, 1)))


def test_tcav_conv_positions_and_per_sample_directions():
    m = _conv_model()
    x = torch.randn(4, 1, 4, 4)
    g = layer_gradients(m, "1", x, 1)
    assert g.shape == (4, 3, 4, 4)
    v = np.array([1.0, -1.0, 0.5])
    s_pos = directional_derivatives(g, v)
    s_mean = directional_derivatives(g, v, aggregate="mean")
    assert s_pos.shape == (4, 16) and s_mean.shape == (4, 1)
    np.testing.assert_allclose(s_pos.mean(1, keepdims=True), s_mean, atol=1e-10)
    np.testing.assert_allclose(directional_derivatives(g, np.tile(v, (4, 1))), s_pos, atol=1e-12)
    with pytest.raises(UserError, match="channels"):
        directional_derivatives(g, np.ones(5))


def test_tcav_test_p_values():
    assert tcav_test([0.9, 0.92, 0.95, 0.91], [0.5, 0.45, 0.55, 0.52]) < 0.01
    assert tcav_test([0.5, 0.5], [0.5, 0.5]) == 1.0
    assert tcav_test([0.48, 0.52, 0.5]) > 0.5  # against 0.5
    with pytest.raises(UserError):
        tcav_test([0.9])
    assert len(random_cavs(np.random.default_rng(0).normal(size=(20, 3)), 3)) == 3


def test_p_clarc_moves_every_score_to_the_reference():
    lin = nn.Linear(4, 3)
    m = nn.Sequential(lin, nn.ReLU(), nn.Linear(3, 2))
    x = torch.randn(6, 4)
    v = np.array([0.0, 3.0, 4.0]) / 5
    with ProjectiveClArC(m, "0", v, ref_mean=0.25):
        a = collect_activations(m, "0", x)
    np.testing.assert_allclose(a @ v, 0.25, atol=1e-5)
    # the removed hook restores the model; A-ClArC moves to the artifact mean instead
    np.testing.assert_allclose(collect_activations(m, "0", x), lin(x).detach().numpy(), atol=1e-6)
    hook = AugmentativeClArC(m, "0", v, ref_mean=2.0)
    np.testing.assert_allclose(collect_activations(m, "0", x) @ v, 2.0, atol=1e-5)
    hook.remove()
    assert np.isclose(reference_mean(v, np.ones((2, 3))), 1.4)


def test_p_clarc_on_conv_maps_acts_per_position():
    m = _conv_model()
    v = np.array([1.0, 0.0, 0.0])
    with ProjectiveClArC(m, "0", v, ref_mean=-1.0):
        a = collect_activations(m, "0", torch.randn(3, 1, 4, 4), reduce="flatten").reshape(3, 3, 16)
    np.testing.assert_allclose(a[:, 0], -1.0, atol=1e-6)


def test_rr_clarc_trains_only_later_layers_and_shrinks_the_rr_term():
    torch.manual_seed(0)
    m = _conv_model()
    assert [p.shape for p in _params_after(m, "1", torch.zeros(1, 1, 4, 4))] == [(2, 48), (2,)]
    x, y = torch.randn(64, 1, 4, 4), torch.randint(0, 2, (64,))
    v = torch.tensor([1.0, 1.0, 0.0]) / 2 ** 0.5
    before_conv = m[0].weight.detach().clone()
    gen = torch.Generator().manual_seed(0)
    rr0 = float(np.mean([rr_loss(m, "1", v, x, y, 1.0, gen)[1].item() for _ in range(20)]))
    rr_clarc(m, "1", v.numpy(), x, y, RRClArCConfig(lam=1e3, epochs=30, lr=1e-2, optimizer="adam"))
    rr1 = float(np.mean([rr_loss(m, "1", v, x, y, 1.0, gen)[1].item() for _ in range(20)]))
    assert torch.equal(m[0].weight, before_conv)
    assert rr1 < 0.1 * rr0
    with pytest.raises(UserError, match="lengths must match"):
        rr_clarc(m, "1", v.numpy(), x, y[:3])
    with pytest.raises(UserError, match="no trainable parameters"):
        rr_clarc(m, "3", v.numpy(), x, y)


def test_rr_clarc_leaves_frozen_batch_norm_statistics_alone():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3), nn.ReLU(), nn.Linear(3, 2))
    stats = m[1].running_mean.clone()
    rr_clarc(m, "2", np.array([1.0, 0.0, 0.0]), torch.randn(32, 4), torch.randint(0, 2, (32,)),
             RRClArCConfig(lam=10.0, epochs=2, lr=1e-2))
    assert torch.equal(m[1].running_mean, stats) and not m.training


def test_tcav_with_a_bank_and_random_cavs_reports_a_p_value():
    lin = nn.Linear(3, 2, bias=False)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]))
    m = nn.Sequential(nn.Identity(), lin)
    bank = [CAV(np.array([1.0, 0.1 * k, 0.0]) / np.hypot(1.0, 0.1 * k), "given") for k in range(4)]
    rand = [CAV(np.array([-1.0, 0.2 * k, 0.0]) / np.hypot(1.0, 0.2 * k), "random") for k in range(4)]
    res = tcav(m, "0", bank, torch.randn(5, 3), target_class=0, random=rand)
    assert res.score == 1.0 and list(res.random_scores) == [0.0] * 4
    assert res.p_value == 0.0 and res.significant()


def test_clarc_keeps_a_float64_models_precision():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2)).double()
    x = torch.randn(6, 4, dtype=torch.float64)
    v = np.array([1.0, 1e-9, 1.0])  # a component float32 would round against the others
    with ProjectiveClArC(m, "0", v, ref_mean=0.25):
        a = collect_activations(m, "0", x)
    np.testing.assert_allclose(a @ v / (v @ v) * (v @ v), 0.25, atol=1e-12)
    y = torch.randint(0, 2, (6,))
    rr_clarc(m, "1", v, x, y, RRClArCConfig(lam=1.0, epochs=1, lr=1e-3, optimizer="adam"))
    assert all(p.dtype == torch.float64 for p in m.parameters())
