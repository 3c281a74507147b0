"""Counts: exact parameter and MAC numbers of the AdaTime CNN, formula = hooks = ptflops, what each tune
mode trains (only cores get gradients; frozen factors stay bitwise equal), LoRA, and ‖ΔW‖."""

import numpy as np
import pytest
import torch
from torch import nn

from iclr25.core.errors import UserError
from iclr25.tucker_sfda import (
    AdaptConfig,
    AdaTimeCNN,
    TuckerConv1d,
    adapt,
    add_lora,
    add_random_subset,
    delta_norm,
    efficiency,
    macs_formula,
    macs_hooks,
    select_trainable,
    trainable_count,
    tucker_reparameterize,
)
from iclr25.tucker_sfda.efficiency import conv_macs, dense_weights, tucker_macs


def test_exact_counts_of_the_har_backbone():
    dense = AdaTimeCNN(3, 128, 5)
    select_trainable(dense, "all")
    e = efficiency(dense, (3, 128))
    # convs 3·64·5 + 64·128·8 + 128·128·8 = 197,568, BN affine 2·(64+128+128) = 640
    assert e.trainable == 198_208
    # conv outputs 128, 66, 35 long; + the 128→5 head
    assert e.macs == 128 * 64 * 15 + 66 * 128 * 512 + 35 * 128 * 1024 + 640 == 9_036_416
    cores = {}
    for rf in (4, 8):
        dec = tucker_reparameterize(dense, rf)
        select_trainable(dec, "core")
        cores[rf] = efficiency(dec, (3, 128)).trainable
    assert cores == {4: 15 * 3 * 5 + 32 * 16 * 8 + 32 * 32 * 8, 8: 8 * 3 * 5 + 16 * 8 * 8 + 16 * 16 * 8}
    assert cores[4] == 12_513 and cores[8] == 3_192


def test_tucker_mac_formula_by_hand():
    # second conv of the HAR backbone at RF 8: 1×1 Vᵀ on 65 steps, core and U on 66 steps
    assert tucker_macs(128, 64, 8, (16, 8), 65, 66) == 65 * 64 * 8 + 66 * 8 * 16 * 8 + 66 * 16 * 128
    assert conv_macs(128, 64, 8, 66) == 66 * 128 * 64 * 8


@pytest.mark.parametrize("C, T, k, stride", [(3, 128, 5, 1), (1, 300, 25, 6), (6, 100, 8, 2)])
@pytest.mark.parametrize("rf", [None, 2, 8])
def test_formula_equals_hooks_equals_ptflops(C, T, k, stride, rf):
    ptflops = pytest.importorskip("ptflops")
    model = AdaTimeCNN(C, T, 4, mid=16, final=32, k=k, stride=stride)
    if rf:
        model = tucker_reparameterize(model, rf)
    formula, hooks = macs_formula(model, (C, T)), macs_hooks(model, (C, T))
    assert formula == hooks
    ignore = [nn.BatchNorm1d, nn.ReLU, nn.MaxPool1d, nn.AdaptiveAvgPool1d, nn.Dropout]
    macs, _ = ptflops.get_model_complexity_info(model, (C, T), as_strings=False, print_per_layer_stat=False,
                                                ignore_modules=ignore,
                                                backend_specific_config={"count_functional": False})
    assert macs == formula + model.classifier.out_features  # ptflops adds the head's bias additions


def test_lora_counts_as_the_merged_dense_conv():
    dense = AdaTimeCNN(3, 64, 3, mid=8, final=16)
    lora = add_lora(dense, {"conv_block2.0": 100})
    assert macs_formula(lora, (3, 64)) == macs_hooks(lora, (3, 64)) == macs_formula(dense, (3, 64))


def test_core_mode_gives_gradients_to_cores_only():
    dec = tucker_reparameterize(AdaTimeCNN(3, 64, 3, mid=8, final=16), 2)
    select_trainable(dec, "core")
    dec(torch.randn(4, 3, 64)).sum().backward()
    for name, p in dec.named_parameters():
        if name.endswith("core.weight"):
            assert p.grad is not None and p.grad.abs().sum() > 0, name
        else:
            assert p.grad is None, name


def test_adapting_cores_leaves_every_other_parameter_bitwise_equal():
    torch.manual_seed(0)
    dec = tucker_reparameterize(AdaTimeCNN(3, 64, 3, mid=8, final=16), 2)
    before = {k: v.clone() for k, v in dec.state_dict().items()}
    X = np.random.default_rng(0).normal(size=(24, 3, 64)).astype(np.float32)
    res = adapt(dec, X, "shot", "core", AdaptConfig(epochs=2, lr=1e-2, batch_size=8))
    after = res.model.state_dict()
    moved = [k for k in before if not torch.equal(before[k], after[k])]
    frozen_params = [k for k, _ in dec.named_parameters() if not k.endswith("core.weight")]
    assert all(torch.equal(before[k], after[k]) for k in frozen_params)
    assert {k for k in moved if k.endswith("weight")} == {k for k, _ in dec.named_parameters()
                                                           if k.endswith("core.weight")}
    # BN running statistics follow the target batches (train mode, as in MAPU); nothing else changes
    bn_stats = ("running_mean", "running_var", "num_batches_tracked")
    assert all(k.endswith(("core.weight", *bn_stats)) for k in moved)
    assert all(torch.equal(before[k], v) for k, v in dec.state_dict().items())  # the input model is untouched


@pytest.mark.parametrize("mode, expected", [
    ("all", lambda m: sum(p.numel() for n, p in m.named_parameters() if not n.startswith("classifier"))),
    ("bn", lambda m: sum(p.numel() for mm in m.modules() if isinstance(mm, nn.BatchNorm1d)
                         for p in mm.parameters())),
])
def test_dense_tune_modes(mode, expected):
    m = AdaTimeCNN(3, 64, 3, mid=8, final=16)
    params = select_trainable(m, mode)
    assert sum(p.numel() for p in params) == expected(m)
    assert not any(p.requires_grad for p in m.classifier.parameters())


def test_lora_trains_its_factors_only_and_starts_at_the_source():
    dense = AdaTimeCNN(3, 64, 3, mid=8, final=16).eval()
    dec = tucker_reparameterize(dense, 2)
    budgets = {n: m.core.weight.numel() for n, m in dec.named_modules() if isinstance(m, TuckerConv1d)}
    lora = add_lora(dense, budgets).eval()
    x = torch.randn(2, 3, 64)
    assert torch.allclose(lora(x), dense(x))
    params = select_trainable(lora, "lora")
    trained = [n.split(".")[-1] for n, p in lora.named_parameters() if p.requires_grad]
    assert set(trained) == {"lora_A", "lora_B"}
    got, want = sum(p.numel() for p in params), sum(budgets.values())
    assert abs(got - want) / want < 0.5  # per-layer rank rounded to the nearest integer


def test_delta_norm_of_a_core_update_is_the_core_change_when_factors_are_orthonormal():
    dec = tucker_reparameterize(AdaTimeCNN(3, 64, 3, mid=8, final=16), 2)  # fresh HOSVD: U, V orthonormal
    moved = tucker_reparameterize(AdaTimeCNN(3, 64, 3, mid=8, final=16), 2)
    moved.load_state_dict(dec.state_dict())
    g = torch.Generator().manual_seed(0)
    sq = 0.0
    with torch.no_grad():
        for m in moved.modules():
            if isinstance(m, TuckerConv1d):
                d = 0.01 * torch.randn(m.core.weight.shape, generator=g)
                m.core.weight += d
                sq += float((d.double() ** 2).sum())
    assert delta_norm(dec, dec) == 0.0
    assert delta_norm(dec, moved) == pytest.approx(sq ** 0.5, rel=1e-4)
    assert delta_norm(dec, moved) == pytest.approx(delta_norm(moved, dec))


def test_delta_norm_refuses_different_architectures():
    with pytest.raises(UserError, match="different layers|shape"):
        delta_norm(AdaTimeCNN(3, 64, 3, mid=8, final=16), AdaTimeCNN(3, 64, 3, mid=4, final=16))


def test_efficiency_rejects_a_bad_shape():
    with pytest.raises(UserError, match="input shape"):
        efficiency(AdaTimeCNN(3, 64, 3, mid=8, final=16), (3,))


def test_random_subset_trains_exactly_its_masked_entries_and_starts_at_the_source():
    torch.manual_seed(0)
    dense = AdaTimeCNN(3, 64, 3, mid=8, final=16).eval()
    sub = add_random_subset(dense, 123, seed=1)
    x = torch.randn(2, 3, 64)
    assert torch.allclose(sub.eval()(x), dense(x))
    assert macs_formula(sub, (3, 64)) == macs_hooks(sub, (3, 64)) == macs_formula(dense, (3, 64))
    X = np.random.default_rng(0).normal(size=(24, 3, 64)).astype(np.float32)
    res = adapt(sub, X, "shot", "subset", AdaptConfig(epochs=2, lr=1e-2, batch_size=8))
    assert res.trainable == 123
    before, after = dense_weights(dense), dense_weights(res.model)
    changed = sum(int((before[k] != after[k]).sum()) for k in before if k.endswith("weight")
                  and before[k].dim() == 3)
    assert 0 < changed <= 123  # only masked conv entries moved (weight decay on the rest would move them)
    other = add_random_subset(dense, 123, seed=2)
    masks = [m.mask for m in sub.modules() if hasattr(m, "mask")]
    assert any(not torch.equal(a, m.mask) for a, m in zip(masks, (m for m in other.modules()
                                                                   if hasattr(m, "mask")), strict=True))


def test_lora_matches_the_total_budget_as_closely_as_integer_ranks_allow():
    dense = AdaTimeCNN(3, 128, 5)
    dec = tucker_reparameterize(dense, 8)
    budgets = {n: m.core.weight.numel() for n, m in dec.named_modules() if isinstance(m, TuckerConv1d)}
    assert sum(budgets.values()) == 3192
    lora = add_lora(dense, budgets)
    n = trainable_count(lora, select_trainable(lora, "lora"))
    assert n == 3181  # ranks (3, 1, 2): |3181 − 3192| is the smallest gap integer ranks allow here


@pytest.mark.parametrize("n", [0, 10**9])
def test_random_subset_refuses_impossible_sizes(n):
    with pytest.raises(UserError, match="n_trainable"):
        add_random_subset(AdaTimeCNN(3, 64, 3, mid=8, final=16), n)
