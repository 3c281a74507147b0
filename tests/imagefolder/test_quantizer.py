"""The multi-scale residual quantiser (spec §2): residual bookkeeping, cosine lookup, its agreement with
vector-quantize-pytorch at one scale, dropout masking, the VQ loss and the straight-through estimator."""

import pytest
import torch
import torch.nn.functional as F

from iclr25.imagefolder.quantizer import (
    MultiScaleResidualQuantizer,
    area_down,
    bicubic_up,
    cosine_lookup,
    phi_ticks,
)


@pytest.fixture()
def msrq():
    torch.manual_seed(0)
    return MultiScaleResidualQuantizer((1, 2, 3, 4), codebook=32, dim=6)


def test_fhat_plus_residual_is_f(msrq):
    """f_hat + r_S = f exactly: the residual is what the scales have not yet explained."""
    f = torch.randn(5, 6, 4, 4)
    codes = msrq.encode(f)
    rest = f.clone()
    for i, z in enumerate(codes):
        rest = rest - msrq.h(i, z)
    torch.testing.assert_close(msrq.fhat(codes) + rest, f, atol=1e-5, rtol=0)


def test_codes_have_one_token_per_cell_of_each_scale(msrq):
    codes = msrq.encode(torch.randn(3, 6, 4, 4))
    assert [tuple(c.shape) for c in codes] == [(3, 1), (3, 4), (3, 9), (3, 16)]
    assert all(c.dtype == torch.int64 and int(c.max()) < 32 for c in codes)


def test_one_scale_with_identity_phi_is_cosine_vq():
    """S = 1 and phi = identity: z = argmax cos(f, e_v) and f_hat = e[z]."""
    torch.manual_seed(1)
    q = MultiScaleResidualQuantizer((4,), codebook=16, dim=5, phi_ratio=0.0)
    f = torch.randn(4, 5, 4, 4)
    (z,) = q.encode(f)
    flat = f.permute(0, 2, 3, 1).reshape(-1, 5)
    cos = F.normalize(flat, dim=-1) @ F.normalize(q.embedding.weight, dim=-1).T
    assert torch.equal(z.flatten(), cos.argmax(-1))
    expect = q.embedding.weight[z].view(4, 4, 4, 5).permute(0, 3, 1, 2)
    torch.testing.assert_close(q.fhat([z]), expect)


def test_one_scale_matches_vector_quantize_pytorch_cosine_vq():
    vqp = pytest.importorskip("vector_quantize_pytorch")
    torch.manual_seed(2)
    peer = vqp.VectorQuantize(dim=8, codebook_size=64, use_cosine_sim=True).eval()
    ours = MultiScaleResidualQuantizer((4,), codebook=64, dim=8, phi_ratio=0.0)
    with torch.no_grad():
        ours.embedding.weight.copy_(peer._codebook.embed[0])  # unit-norm codewords, as the peer keeps them
    f = torch.randn(6, 8, 4, 4)
    seq = f.flatten(2).transpose(1, 2)  # (B, 16, d): the peer's layout
    quantized, indices, _ = peer(seq)
    (z,) = ours.encode(f)
    assert torch.equal(z, indices)
    torch.testing.assert_close(ours.fhat([z]).flatten(2).transpose(1, 2), quantized, atol=1e-6, rtol=0)


def test_cosine_lookup_ignores_the_query_norm():
    torch.manual_seed(3)
    book = torch.randn(10, 4)
    r = torch.randn(2, 4, 3, 3)
    assert torch.equal(cosine_lookup(r, book), cosine_lookup(7.5 * r, book))


@pytest.mark.parametrize("src, dst", [(1, 4), (2, 4), (3, 4), (4, 6), (2, 6)])
def test_resizing_by_matrix_equals_interpolate(src, dst):
    x = torch.randn(3, 5, src, src)
    torch.testing.assert_close(bicubic_up(x, dst), F.interpolate(x, size=(dst, dst), mode="bicubic"),
                               atol=1e-5, rtol=0)
    y = torch.randn(3, 5, dst, dst)
    torch.testing.assert_close(area_down(y, src), F.interpolate(y, size=(src, src), mode="area"),
                               atol=1e-6, rtol=0)


def test_last_scale_is_not_resampled():
    x = torch.randn(2, 3, 4, 4)
    assert area_down(x, 4) is x and bicubic_up(x, 4) is x


def test_phi_is_shared_by_relative_depth():
    q = MultiScaleResidualQuantizer((1, 2, 3, 4, 5, 6, 8, 11), codebook=4, dim=2, phi_shared=4)
    picked = [list(q.phis).index(q.phi(i)) for i in range(8)]
    assert picked == sorted(picked) and picked[0] == 0 and picked[-1] == 3
    assert phi_ticks(4)[0] == pytest.approx(1 / 12)


def test_dropout_keeps_the_first_n_scales_of_the_chosen_samples(msrq):
    f = torch.randn(4, 6, 4, 4)
    codes = msrq.encode(f)
    n_keep = torch.tensor([1, 2, 4, 4])
    with torch.no_grad():
        f_hat_st, _, got_codes = msrq(f, n_keep)
    for b, n in enumerate(n_keep.tolist()):
        prefix = msrq.fhat([c[b:b + 1] for c in codes], n)
        torch.testing.assert_close(f_hat_st[b:b + 1], prefix, atol=1e-5, rtol=0)
    assert all(torch.equal(a, b) for a, b in zip(codes, got_codes, strict=True))


def test_vq_loss_is_the_beta_weighted_sum_per_scale_averaged(msrq):
    f = torch.randn(3, 6, 4, 4)
    with torch.no_grad():
        _, loss, codes = msrq(f)
        expect, f_hat = 0.0, 0.0
        for i, z in enumerate(codes):
            f_hat = f_hat + msrq.h(i, z)
            expect += 1.25 * F.mse_loss(f_hat, f)  # beta ||sg(f_hat) - f||^2 + ||f_hat - sg(f)||^2
    assert float(loss) == pytest.approx(float(expect) / 4, rel=1e-5)


def test_straight_through_passes_the_decoder_gradient_to_f(msrq):
    f = torch.randn(2, 6, 4, 4, requires_grad=True)
    f_hat_st, _, _ = msrq(f)
    w = torch.randn_like(f_hat_st)
    (f_hat_st * w).sum().backward()
    torch.testing.assert_close(f.grad, w)
