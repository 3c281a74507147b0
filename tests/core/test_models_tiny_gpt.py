"""TinyGPT: trains on real-looking text to a loss well below uniform, shares the SmolLM2 interface
(logprobs / generate / generate_ids), caches, and both tokenizer kinds round-trip; plus the distortions'
arithmetic: fp16/bf16 rounding exact to the dtype, int8/NF4 within their quantisation bounds, the NF4
code book, the watermark's green lists, and every distortion deterministic with a measurable TV."""

import math

import numpy as np
import pytest
import torch

from iclr25.core.errors import UserError
from iclr25.core.models import (
    NF4_CODEBOOK,
    TinyGPTConfig,
    Tokenizer,
    TrainConfig,
    cast,
    finetune,
    per_token_tv,
    quantize,
    quantize_tensor,
    tiny_gpt,
    train_lm,
    watermark,
)
from iclr25.core.runtime import pin_threads

TEXT = [
    "In the beginning God created the heaven and the earth.",
    "And the earth was without form, and void; and darkness was upon the face of the deep.",
    "And the Spirit of God moved upon the face of the waters.",
    "And God said, Let there be light: and there was light.",
    "And God saw the light, that it was good: and God divided the light from the darkness.",
] * 8
CFG = TinyGPTConfig(vocab_size=300, block_size=32, n_layer=2, n_head=2, d_model=32)
TRAIN = TrainConfig(steps=150, batch=16, lr=1e-2, warmup=10)


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    pin_threads()
    return train_lm(TEXT, CFG, TRAIN, cache=False)


def test_training_learns_the_text(model):
    uniform = math.log(model.tokenizer.vocab_size)
    print(model.train_info)
    assert model.train_info["final_loss"] < 0.5 * uniform
    assert model.train_info["params"] == model.n_params


def test_same_interface_as_small_lm(model):
    lp = model.logprobs(["And God said, Let there be light", "light be there Let said God And"])
    assert lp[0].sum() > lp[1].sum() and np.all(lp[0] <= 0)
    greedy = model.generate(["And God said,"], max_new_tokens=10, temperature=0)
    print(greedy)
    assert greedy == model.generate(["And God said,"], max_new_tokens=10, temperature=0)
    assert greedy[0].startswith(" Let there be light")  # memorised
    a = model.generate_ids([[5, 6, 7]] * 3, max_new_tokens=5, seed=1, batch=2)
    assert a == model.generate_ids([[5, 6, 7]] * 3, max_new_tokens=5, seed=1, batch=3)
    assert all(len(x) <= 5 for x in a)


def test_generation_validates_its_arguments(model):
    for kwargs, match in [({"max_new_tokens": 0}, "max_new_tokens"), ({"temperature": -1}, "temperature"),
                          ({"top_p": 0}, "top_p"), ({"batch": 0}, "batch")]:
        with pytest.raises(UserError, match=match):
            model.generate(["x"], **kwargs)
    with pytest.raises(UserError, match="positions"):
        model.generate_ids([[1] * 30], max_new_tokens=10)
    with pytest.raises(UserError, match="outside"):
        model.generate_ids([[10_000]], max_new_tokens=1)


def test_train_lm_caches_and_reloads(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR25_CACHE", str(tmp_path))
    small = TrainConfig(steps=3, batch=2)
    a = train_lm(TEXT[:5], CFG, small)
    b = train_lm(TEXT[:5], CFG, small)
    assert a.train_info == b.train_info
    pairs = zip(a.state_dict().values(), b.state_dict().values(), strict=True)
    assert all(torch.equal(x, y) for x, y in pairs)
    with pytest.raises(UserError, match="non-empty"):
        train_lm(["", "  "], CFG, small)


@pytest.mark.parametrize("kind", ["bpe", "word"])
def test_tokenizers_round_trip(kind):
    tok = Tokenizer.train(TEXT, kind=kind, vocab_size=200)
    text = "And God divided the light from the darkness."
    if kind == "bpe":  # byte-level: lossless, even on unseen characters
        assert tok.decode(tok.encode(text + " Ωmega")) == text + " Ωmega"
    else:  # words and punctuation, joined by single spaces
        assert tok.decode(tok.encode(text)) == "And God divided the light from the darkness ."
    assert Tokenizer.from_json(tok.to_json()).encode(text) == tok.encode(text)


def test_config_is_validated():
    with pytest.raises(UserError, match="divisible"):
        TinyGPTConfig(d_model=30, n_head=4)
    with pytest.raises(UserError, match="tokenizer"):
        TinyGPTConfig(tokenizer="chars")


def test_finetune_changes_a_copy_only(model):
    before = [p.clone() for p in model.parameters()]
    other = ["Verily verily I say unto you."] * 20
    tuned = finetune(model, other, TrainConfig(steps=5, batch=4, lr=1e-2), block=16)
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))
    assert not all(torch.equal(a, b) for a, b in zip(before, tuned.parameters(), strict=True))


# ---- distortions --------------------------------------------------------------------------------------

def test_casts_round_every_weight_exactly_to_the_dtype(model):
    for name, dt in [("fp16", torch.float16), ("bf16", torch.bfloat16)]:
        out = cast(model, name)
        for p, q in zip(model.parameters(), out.parameters(), strict=True):
            assert q.dtype == torch.float32 and torch.equal(q, p.to(dt).float())
        again = cast(out, name)  # representable values are fixed points
        assert all(torch.equal(a, b) for a, b in zip(out.parameters(), again.parameters(), strict=True))


def test_nf4_code_book_is_qlora_s():
    v = np.array(NF4_CODEBOOK)
    assert len(v) == 16 and v[0] == -1 and v[-1] == 1 and v[7] == 0 and np.all(np.diff(v) > 0)
    from scipy.stats import norm  # QLoRA's construction: N(0, 1) quantiles, 8 positive / 7 negative
    offset = 0.5 * (1 - 1 / 30 + 1 - 1 / 32)
    pos, neg = norm.ppf(np.linspace(offset, 0.5, 9)[:-1]), -norm.ppf(np.linspace(offset, 0.5, 8)[:-1])
    ref = np.sort(np.concatenate([pos, [0.0], neg]))
    np.testing.assert_allclose(v, ref / np.abs(ref).max(), atol=1e-6)


def test_quantisation_stays_within_its_bound():
    torch.manual_seed(0)
    w = torch.randn(7, 130) * torch.rand(7, 1)  # rows of different scales; 130 = 2 groups + 2
    for group in (64, 13):
        pad = (-130) % group
        g = torch.cat([w, w.new_zeros(7, pad)], 1).reshape(-1, group)
        absmax = g.abs().amax(1, keepdim=True)
        q8 = quantize_tensor(w, "int8", group)
        err8 = torch.cat([(q8 - w), w.new_zeros(7, pad)], 1).reshape(-1, group).abs()
        assert torch.all(err8 <= absmax / 127 / 2 + 1e-6)  # half a step of s = absmax / 127
        q4 = quantize_tensor(w, "nf4", group)
        levels = torch.tensor(NF4_CODEBOOK)
        half_gap = (levels[1:] - levels[:-1]).max() / 2
        err4 = torch.cat([(q4 - w), w.new_zeros(7, pad)], 1).reshape(-1, group).abs()
        assert torch.all(err4 <= absmax * half_gap + 1e-6)
        on_grid = torch.cat([q4, w.new_zeros(7, pad)], 1).reshape(-1, group) / absmax
        assert torch.all((on_grid[..., None] - levels).abs().min(-1).values < 1e-5)
        assert err4.max() > err8.max()  # 4 bits are coarser than 8
    with pytest.raises(UserError, match="quantisation"):
        quantize_tensor(w, "int4")


def test_quantize_touches_linear_weights_only(model):
    q = quantize(model, "int8")
    assert torch.equal(q.wte.weight, model.wte.weight) and torch.equal(q.ln_f.weight, model.ln_f.weight)
    assert not torch.equal(q.blocks[0].c_fc.weight, model.blocks[0].c_fc.weight)


def test_watermark_biases_a_gamma_share_keyed_by_the_previous_token(model):
    wm = watermark(model, gamma=0.25, delta=2.0, key=3)
    v = model.vocab_size
    g5, g6 = wm.green_list(5), wm.green_list(6)
    assert int(g5.sum()) == int(0.25 * v) and not torch.equal(g5, g6)
    assert torch.equal(g5, watermark(model, 0.25, 2.0, key=3).green_list(5))
    out = wm.bias_logits(torch.tensor([[5, 6]]), torch.zeros(1, 2, v))
    assert torch.equal(out[0, 0] == 2.0, g5) and torch.equal(out[0, 1] == 2.0, g6)
    with pytest.raises(UserError, match="gamma"):
        watermark(model, gamma=1.5)


def test_every_distortion_is_deterministic_and_measurable(model):
    seqs = [model.tokenizer.encode(t)[:24] for t in TEXT[:3]]
    makers = {"fp16": lambda: cast(model, "fp16"), "bf16": lambda: cast(model, "bf16"),
              "int8": lambda: quantize(model, "int8"), "nf4": lambda: quantize(model, "nf4"),
              "watermark": lambda: watermark(model, key=11)}
    tv = {}
    for name, make in makers.items():
        a, b = per_token_tv(model, make(), seqs), per_token_tv(model, make(), seqs)
        assert np.array_equal(a, b)
        tv[name] = float(a.mean())
    print({k: f"{v:.2e}" for k, v in tv.items()})
    assert all(v > 0 for v in tv.values()) and tv["fp16"] < tv["nf4"] < tv["watermark"]
    with pytest.raises(UserError, match="dtype"):
        cast(model, "fp8")
    with pytest.raises(UserError, match="language model"):
        quantize(torch.nn.Linear(2, 2), "int8")


def test_untrained_tiny_gpt_has_a_byte_tokenizer():
    m = tiny_gpt(TinyGPTConfig(vocab_size=300, block_size=16, n_layer=1, n_head=1, d_model=8))
    assert m.tokenizer.decode(m.tokenizer.encode("any text é")) == "any text é"
    assert np.isfinite(m.logprobs(["hello"])[0]).all()
