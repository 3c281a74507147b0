"""FoldedVAR: next-scale causality, folded vs unfolded layouts, the KV cache, CFG and top-k/top-p."""

import pytest
import torch

from iclr25.core.errors import UserError
from iclr25.imagefolder.sampling import cfg_ramp, guide, top_k_top_p
from iclr25.imagefolder.timing import equal_weight_pair
from iclr25.imagefolder.var import FoldedVAR


def _model(tok, fold=True, seed=0):
    torch.manual_seed(seed)
    ar = FoldedVAR(tok, 10, depth=2, width=32, fold=fold)
    for p in ar.parameters():  # random weights everywhere (AdaLN starts at zero): every path is live
        torch.nn.init.normal_(p, std=0.3)
    return ar.eval()


@pytest.mark.parametrize("fold", [True, False])
def test_scale_j_tokens_change_only_the_logits_of_later_scales(tiny_tok, tiny_codes, fold):
    ar = _model(tiny_tok, fold)
    labels = torch.arange(6) % 10
    with torch.no_grad():
        base = ar(labels, ar.teacher_inputs(tiny_codes))
        for j in range(len(ar.scales)):
            codes = [[c.clone() for c in cb] for cb in tiny_codes]
            for cb in codes:
                cb[j] = (cb[j] + 1 + torch.arange(cb[j].numel()).view_as(cb[j])) % tiny_tok.config.codebook
            moved = (ar(labels, ar.teacher_inputs(codes)) - base).abs().amax(dim=(0, 2))  # per position
            upto = sum(ar.per_scale[:j + 1])
            assert float(moved[:upto].max()) == 0.0, f"scale {j} tokens leaked into scales <= {j}"
            if j < len(ar.scales) - 1:
                assert float(moved[upto:].min()) > 0.0, f"scale {j} tokens do not reach later scales"


def test_folded_and_unfolded_layouts(tiny_tok, tiny_codes):
    folded, unfolded = _model(tiny_tok, True), _model(tiny_tok, False)
    assert folded.positions == 1 + 4 + 16 and unfolded.positions == 2 * folded.positions
    labels = torch.zeros(6, dtype=torch.long)
    with torch.no_grad():
        lf = folded(labels, folded.teacher_inputs(tiny_codes))
        lu = unfolded(labels, unfolded.teacher_inputs(tiny_codes))
    assert lf.shape == (6, 21, 2 * 16)  # split head: two V-way softmaxes per position
    assert lu.shape == (6, 42, 16)
    assert folded.targets(tiny_codes).shape == (6, 21, 2) and unfolded.targets(tiny_codes).shape == (6, 42)
    # the unfolded targets hold the same tokens, branch-major within each scale
    tf, tu = folded.targets(tiny_codes), unfolded.targets(tiny_codes)
    assert torch.equal(tu[:, :2], tf[:, 0])
    assert torch.equal(tu[:, 2:6], tf[:, 1:5, 0]) and torch.equal(tu[:, 6:10], tf[:, 1:5, 1])


@pytest.mark.parametrize("fold", [True, False])
def test_cached_sampling_equals_uncached_sampling(tiny_tok, fold):
    ar = _model(tiny_tok, fold, seed=3)
    labels = [0, 3, 7, 9, 1]
    a = ar.generate_codes(labels, cfg=2.0, top_k=8, top_p=0.9, seed=11, cache=True)
    b = ar.generate_codes(labels, cfg=2.0, top_k=8, top_p=0.9, seed=11, cache=False)
    assert all(torch.equal(x, y) for ca, cb in zip(a, b, strict=True) for x, y in zip(ca, cb, strict=True))


def test_cfg_ramp_starts_at_zero_so_the_first_scale_ignores_cfg(tiny_tok):
    ar = _model(tiny_tok, seed=4)
    a = ar.generate_codes([2, 5], cfg=0.0, top_k=0, top_p=1.0, seed=5)
    b = ar.generate_codes([2, 5], cfg=50.0, top_k=0, top_p=1.0, seed=5)
    assert all(torch.equal(a[br][0], b[br][0]) for br in range(2))
    assert cfg_ramp(3.25, 0, 4) == 0.0 and cfg_ramp(3.25, 3, 4) == 3.25
    lc, lu = torch.tensor([1.0, 2.0]), torch.tensor([0.5, 3.0])
    torch.testing.assert_close(guide(lc, lu, 2.0), 3 * lc - 2 * lu)


def test_top_k_and_top_p_filtering():
    logits = torch.log(torch.tensor([[0.05, 0.1, 0.15, 0.3, 0.4]]))
    keep = lambda out: (~out.isinf()).nonzero()[:, 1].tolist()  # noqa: E731
    assert keep(top_k_top_p(logits, top_k=2)) == [3, 4]
    assert keep(top_k_top_p(logits, top_p=0.65)) == [3, 4]  # 0.4 + 0.3 >= 0.65
    assert keep(top_k_top_p(logits, top_p=0.7)) == [3, 4]
    assert keep(top_k_top_p(logits, top_p=0.71)) == [2, 3, 4]
    assert keep(top_k_top_p(logits, top_p=0.01)) == [4]  # the most likely token always survives
    assert torch.equal(top_k_top_p(logits, 0, 1.0), logits)


@pytest.mark.parametrize("bad", [dict(top_p=0.0), dict(top_p=1.5), dict(top_k=-1), dict(cfg=-1.0)])
def test_bad_sampling_settings_are_user_errors(tiny_tok, bad):
    with pytest.raises(UserError):
        _model(tiny_tok).generate_codes([0], **bad)


def test_class_out_of_range_is_a_user_error(tiny_tok):
    with pytest.raises(UserError, match="class 10 is out of range"):
        _model(tiny_tok).generate_codes([10])


def test_equal_weight_pair_shares_the_transformer_and_counts_costs(tiny_tok):
    f, u = equal_weight_pair(tiny_tok, 10, depth=2, width=32, seed=0)
    for name, p in f.blocks.state_dict().items():
        assert torch.equal(p, u.blocks.state_dict()[name])
    assert u.kv_bytes(64) / f.kv_bytes(64) == 2.0
    assert u.attention_flops(64) / f.attention_flops(64) == pytest.approx(4.0)


def test_save_load_round_trip_and_mismatched_tokenizer(tiny_tok, tiny_codes, digits, tmp_path):
    from iclr25.imagefolder.tokenizer import MSRQTokenizer

    ar = FoldedVAR(tiny_tok, 10, depth=1, width=16).fit_codes([[c for c in cb] for cb in tiny_codes],
                                                              digits.labels[:6], epochs=1)
    path = ar.save(tmp_path / "ar.pt")
    back = FoldedVAR.load(path, tiny_tok)
    labels = torch.arange(6)
    with torch.no_grad():
        torch.testing.assert_close(back(labels, back.teacher_inputs(tiny_codes)),
                                   ar(labels, ar.teacher_inputs(tiny_codes)))
    other = MSRQTokenizer(branches=2, scales=(1, 2, 4), codebook=16, dim=4, width=16, depth=1, patch=2,
                          semantic=None, epochs=1, seed=1).fit(digits.images[:64])
    with pytest.raises(UserError, match="mismatched checkpoints"):
        FoldedVAR.load(path, other)
    with pytest.raises(UserError, match="wrong kind"):
        MSRQTokenizer.load(path)  # an AR checkpoint where a tokenizer is expected


def test_training_lowers_the_loss(tiny_tok, digits):
    ar = FoldedVAR(tiny_tok, 10, depth=1, width=32).fit(digits.images[:512], digits.labels[:512], epochs=2,
                                                          batch_size=64, lr=3e-3)
    first, last = ar.history_["loss"]
    assert last < first


def test_sampling_from_candidates_is_the_filtered_distribution():
    from iclr25.imagefolder.sampling import candidates

    torch.manual_seed(0)
    logits = torch.randn(5, 3, 40)
    for k, p in [(0, 1.0), (7, 1.0), (0, 0.8), (12, 0.6), (40, 0.95)]:
        probs, idx = candidates(logits, k, p)
        full = torch.zeros_like(logits).scatter(-1, idx, probs)
        torch.testing.assert_close(full, top_k_top_p(logits, k, p).softmax(-1), atol=1e-6, rtol=0)


def test_the_papers_repeated_scales_build_its_286_position_configuration():
    """(1,1,2,3,3,4,5,6,8,11): sides repeat, so the sequence is 286 folded positions for 572 tokens."""
    import numpy as np

    from iclr25.imagefolder.tokenizer import MSRQTokenizer

    paper = (1, 1, 2, 3, 3, 4, 5, 6, 8, 11)
    x = np.random.default_rng(0).random((8, 1, 8, 8), dtype=np.float32)
    tok = MSRQTokenizer(scales=paper, codebook=8, dim=4, width=8, depth=1, heads=2, patch=4, semantic=None,
                        steps=1, batch_size=4).fit(x)
    assert tok.config.positions == 286 and tok.config.K == 11
    codes = tok.encode(x[:2])
    assert [c.shape[1] for c in codes[0]] == [s * s for s in paper]
    assert tok.decode(codes).shape == (2, 1, 8, 8) and tok.decode(codes, 2).shape == (2, 1, 8, 8)
    folded, unfolded = _model(tok, True), _model(tok, False)
    assert (folded.positions, unfolded.positions) == (286, 572)
    out = folded.generate_codes([0, 1], seed=0)
    assert [c.shape[1] for c in out[1]] == [s * s for s in paper]
    with pytest.raises(UserError, match="must not decrease"):
        MSRQTokenizer(scales=(1, 3, 2))
