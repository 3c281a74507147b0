"""Tucker-2 (HOSVD): exact recovery at the true ranks, orthonormal factors, agreement with tensorly's HOOI,
the three-conv layer equals the dense conv, and the rank rule of the reparameterisation."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from iclr25.core.errors import UserError
from iclr25.tucker_sfda import AdaTimeCNN, TuckerConv1d, tucker2, tucker_reparameterize
from iclr25.tucker_sfda.tucker import tucker2_reconstruct, tucker_ranks


def _orthonormal(n: int, r: int, g: torch.Generator) -> torch.Tensor:
    return torch.linalg.qr(torch.randn(n, r, generator=g, dtype=torch.float64))[0]


def test_weight_built_from_a_known_core_is_recovered_at_those_ranks():
    g = torch.Generator().manual_seed(0)
    U0, V0 = _orthonormal(32, 6, g), _orthonormal(16, 4, g)
    G0 = torch.randn(6, 4, 5, generator=g, dtype=torch.float64)
    W = tucker2_reconstruct(U0, V0, G0)  # (32, 16, 5), multilinear rank (6, 4) in the channel modes
    U, V, G = tucker2(W, (6, 4))
    assert torch.allclose(tucker2_reconstruct(U, V, G), W, atol=1e-10)
    # the same subspaces (factors are unique up to a rotation within them)
    assert torch.allclose(U @ U.T, U0 @ U0.T, atol=1e-10)
    assert torch.allclose(V @ V.T, V0 @ V0.T, atol=1e-10)
    # and the core has the known core's singular spectrum in each mode
    assert torch.allclose(torch.linalg.svdvals(G.reshape(6, -1)), torch.linalg.svdvals(G0.reshape(6, -1)))


def test_factors_are_orthonormal_and_the_core_is_the_projection():
    W = torch.randn(64, 32, 8, generator=torch.Generator().manual_seed(1))
    U, V, G = tucker2(W, (8, 4))
    assert torch.allclose(U.T @ U, torch.eye(8), atol=1e-5)
    assert torch.allclose(V.T @ V, torch.eye(4), atol=1e-5)
    assert torch.allclose(G, torch.einsum("oik,or,is->rsk", W, U, V), atol=1e-4)


def test_hosvd_error_within_10_percent_of_tensorly_hooi():
    tl = pytest.importorskip("tensorly")
    from tensorly.decomposition import partial_tucker

    g = torch.Generator().manual_seed(2)
    # a trained-looking weight: low-rank structure plus noise
    W = (tucker2_reconstruct(_orthonormal(128, 24, g), _orthonormal(64, 12, g),
                             torch.randn(24, 12, 8, generator=g, dtype=torch.float64))
         + 0.3 * torch.randn(128, 64, 8, generator=g, dtype=torch.float64))
    for ranks in ((16, 8), (32, 16), (8, 4)):
        U, V, G = tucker2(W, ranks)
        ours = float(torch.linalg.norm(W - tucker2_reconstruct(U, V, G)) / torch.linalg.norm(W))
        (core, (Uh, Vh)), _ = partial_tucker(W.numpy(), rank=list(ranks), modes=[0, 1], random_state=0)
        hooi_rec = tl.tenalg.multi_mode_dot(core, [Uh, Vh], modes=[0, 1])
        hooi = float(np.linalg.norm(W.numpy() - hooi_rec) / np.linalg.norm(W.numpy()))
        assert hooi <= ours + 1e-9  # HOOI refines HOSVD, never worse
        assert ours <= 1.10 * hooi, (ranks, ours, hooi)


@pytest.mark.parametrize("stride, padding, bias", [(1, 2, False), (3, 0, True), (2, 4, False)])
def test_tucker_conv_equals_the_dense_conv_with_the_reconstructed_weight(stride, padding, bias):
    torch.manual_seed(0)
    conv = nn.Conv1d(12, 20, 5, stride=stride, padding=padding, bias=bias)
    tc = TuckerConv1d.from_conv(conv, (6, 4))
    x = torch.randn(3, 12, 50)
    ref = F.conv1d(x, tc.dense_weight(), conv.bias, stride, padding)
    assert torch.allclose(tc(x), ref, atol=1e-5)
    assert tc(x).shape == conv(x).shape


def test_full_rank_reparameterisation_is_exact():
    model = AdaTimeCNN(3, 64, 4, mid=8, final=16).eval()
    dec = tucker_reparameterize(model, rf=1).eval()
    x = torch.randn(5, 3, 64)
    assert torch.allclose(dec(x), model(x), atol=1e-5)


def test_rank_rule_caps_and_keeps_small_inputs_full():
    assert tucker_ranks(64, 3, 5, rf=4) == (15, 3)  # R_o ≤ I·K = 15; 3 input channels stay full
    assert tucker_ranks(64, 3, 5, rf=8) == (8, 3)
    assert tucker_ranks(128, 64, 8, rf=8) == (16, 8)
    assert tucker_ranks(128, 128, 8, rf=256) == (1, 1)  # never below 1
    assert tucker_ranks(64, 6, 5, rf=8, min_channels=3) == (8, 1)  # 6 > 3 channels are decomposed
    dec = tucker_reparameterize(AdaTimeCNN(3, 128, 5), rf=4)
    assert [m.ranks for m in dec.modules() if isinstance(m, TuckerConv1d)] == [(15, 3), (32, 16), (32, 32)]


def test_source_model_is_left_untouched():
    model = AdaTimeCNN(3, 32, 2, mid=4, final=8)
    dec = tucker_reparameterize(model, 2)
    assert type(model.conv_block1[0]) is nn.Conv1d and isinstance(dec.conv_block1[0], TuckerConv1d)


@pytest.mark.parametrize("rf", [0, -1, 2.5, "8", True])
def test_bad_rank_factor_is_a_user_error(rf):
    with pytest.raises(UserError, match="rank factor"):
        tucker_reparameterize(AdaTimeCNN(3, 32, 2, mid=4, final=8), rf)


def test_bad_tucker2_input():
    with pytest.raises(UserError, match="3-D"):
        tucker2(torch.randn(4, 4), (2, 2))
    with pytest.raises(UserError, match="out of range"):
        tucker2(torch.randn(8, 2, 3), (9, 1))
