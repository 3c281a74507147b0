"""The small LM and its distortions are real transformations: quantizers, watermark, decoding."""

import numpy as np
import pytest
import torch

from iclr25.model_equality.distortions import (
    KGWWatermark,
    half_precision,
    nf4_levels,
    quantize_int8_per_channel,
    quantize_nf4_blockwise,
    quantized,
)
from iclr25.model_equality.lm import EOS, VOCAB, CharMLP, LMConfig, to_ids, to_text
from iclr25.model_equality.sampling import Endpoint, _top_p_filter, generate


def test_nf4_levels_match_qlora_table():
    v = nf4_levels()
    assert len(v) == 16 and v[0] == -1.0 and v[-1] == 1.0 and 0.0 in v
    # two entries of the published NF4 table (bitsandbytes / QLoRA appendix)
    assert v[8] == pytest.approx(0.07958029955625534, abs=1e-6)
    assert v[1] == pytest.approx(-0.6961928009986877, abs=1e-6)


def test_quantizers_round_to_their_grids():
    w = torch.randn(8, 130)
    q8 = quantize_int8_per_channel(w)
    s = w.abs().amax(1, keepdim=True) / 127
    assert torch.all((q8 - w).abs() <= s / 2 + 1e-6)
    assert torch.allclose(q8 / s, torch.round(q8 / s), atol=1e-4)
    q4 = quantize_nf4_blockwise(w)
    blocks = torch.cat([w.reshape(-1), w.new_zeros(64 * 17 - w.numel())]).reshape(-1, 64)
    absmax = blocks.abs().amax(1, keepdim=True)
    qb = torch.cat([q4.reshape(-1), q4.new_zeros(64 * 17 - w.numel())]).reshape(-1, 64) / absmax
    levels = torch.tensor(nf4_levels(), dtype=torch.float32)
    assert torch.all((qb.unsqueeze(-1) - levels).abs().min(-1).values < 1e-5)
    assert (q4 - w).abs().max() > (q8 - w).abs().max()  # 4 bits are coarser than 8


def tiny_model():
    torch.manual_seed(0)
    return CharMLP(LMConfig(context=4, emb=4, hidden=8))


def test_distorted_models_differ_slightly_from_the_reference():
    m = tiny_model()
    x = torch.randint(0, VOCAB, (16, 4))
    base = m(x)
    for d in (half_precision(m, torch.float16), half_precision(m, torch.bfloat16), quantized(m, "int8"),
              quantized(m, "nf4")):
        out = d(x).float()
        assert 0 < (out - base).abs().max() < 0.5


def test_watermark_green_lists_and_bias():
    wm = KGWWatermark(gamma=0.25, delta=2.5)
    mask = wm.green_mask()
    assert mask.shape == (VOCAB, VOCAB) and (mask.sum(1) == int(0.25 * VOCAB)).all()
    logits = torch.zeros(2, VOCAB)
    out = wm(logits, torch.tensor([3, 5]), mask)
    assert torch.equal(out[0] == 2.5, mask[3]) and torch.equal(out[1] == 2.5, mask[5])


def test_top_p_keeps_the_smallest_nucleus():
    p = torch.tensor([[0.5, 0.3, 0.15, 0.05]])
    assert torch.allclose(_top_p_filter(p, 0.7), torch.tensor([[0.625, 0.375, 0.0, 0.0]]))


def test_generate_pads_after_eos_and_is_seeded():
    m = tiny_model()
    with torch.no_grad():
        m.fc2.bias[EOS] = 3.0  # make EOS likely so padding is exercised
    s1 = generate(Endpoint(m), ["hello", "world"], 5, 12, seed=1)
    s2 = generate(Endpoint(m), ["hello", "world"], 5, 12, seed=1)
    assert np.array_equal(s1.completions, s2.completions) and s1.counts().tolist() == [5, 5]
    rows = s1.completions
    for r in rows:  # once padded, always padded
        pad = np.flatnonzero(r < 0)
        assert pad.size == 0 or np.all(r[pad[0]:] < 0)
    assert (rows < 0).any()
    assert to_text(to_ids("abc\n")) == "abc\n"
