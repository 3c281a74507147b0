"""The real models: SmolLM2 as an implicit reward model, MiniLM vectors for relevance and the BT model,
and a local Hugging Face sequence classifier. Each loads its model once (a few seconds)."""

import numpy as np
import pytest
import torch

from iclr25.core.claims import Verdict
from iclr25.core.runtime import RunContext
from iclr25.rm_bench.claims import CLAIMS
from iclr25.rm_bench.data import Item
from iclr25.rm_bench.experiments import _real_lm, _subtle
from iclr25.rm_bench.implicit import HFSequenceClassifierScorer, SmolLM2Scorer, _smollm2, chat_sequences
from iclr25.rm_bench.scorers import MiniLMRelevance


@pytest.fixture(scope="module")
def lm():
    return _smollm2()


def test_smollm2_logprobs_normalise_and_tokenizer_round_trips(lm):
    text = "Reward models should prefer correct answers. Ünïcode too: ≥ 46.6%."
    ids = lm.tokenizer.encode(text)
    assert lm.tokenizer.decode(ids) == text
    (_, logp, _), = lm.distributions([ids[:12]], batch=1)
    np.testing.assert_allclose(torch.logsumexp(logp[0], -1).numpy(), 0.0, atol=1e-4)


def test_smollm2_greedy_answer_is_fluent(lm):
    prompt = lm.apply_chat([{"role": "user", "content": "What is the capital of France?"}])
    text = lm.generate([prompt], max_new_tokens=12, temperature=0.0)[0]
    assert "Paris" in text


def test_smollm2_scorer_scores_response_tokens_only(lm):
    scorer = SmolLM2Scorer("sum", max_response_tokens=4)
    prompts, responses = ["Name a colour."] * 2, ["Blue.", "Blue is a colour of the sky and sea."]
    lps = scorer.token_logprobs(prompts, responses)
    _, n_resp = chat_sequences(lm, prompts, responses, 4)
    assert [len(a) for a in lps] == n_resp and n_resp[1] == 4  # cut to 4 tokens
    assert all((a <= 0).all() for a in lps)
    np.testing.assert_allclose(scorer(prompts, responses), [a.sum() for a in lps], rtol=1e-6)


def _items(domain, n, start):
    return [Item(str(i), domain, f"Is topic {i} interesting?",
                 (f"Yes, topic {i} is correct.", f"Yes. Topic {i} is correct and detailed.",
                  f"**Yes.**\n- topic {i} is correct"),
                 (f"No, topic {i} is wrong.", f"No. Topic {i} is wrong and detailed.",
                  f"**No.**\n- topic {i} is wrong"))
            for i in range(start, start + n)]


def test_the_full_profile_paths_on_tiny_items(tmp_path):
    items = _items("chat", 6, 0) + _items("code", 6, 10) + _items("safety-refuse", 6, 20)
    ctx = RunContext(seed=0, profile="full", out_dir=tmp_path)
    rel = MiniLMRelevance(64)(["What is a cat?"] * 2, ["A cat is a small pet animal.", "Stock prices fell."])
    assert rel[0] > rel[1]
    f = _subtle(items, ctx, ["minilm"], [0, 1, 2], {})
    assert f.measured["fold_seeds"] == 3 and "minilm_normal_safety" in f.measured
    real = _real_lm(items, ctx, per_domain=1)
    rule = next(c.rule for c in CLAIMS if c.key == "style_bias_real_lm")
    assert rule.decide(real.measured) in (Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED)
    assert real.measured["sequences"] == 18 and (tmp_path / real.figures[0]).is_file()


def test_hf_sequence_classifier_on_a_tiny_local_model(tmp_path):
    transformers = pytest.importorskip("transformers")
    from iclr25.core.models import minilm_dir
    tok = transformers.PreTrainedTokenizerFast(tokenizer_file=str(minilm_dir() / "tokenizer.json"),
                                               unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                                               sep_token="[SEP]")
    torch.manual_seed(0)
    cfg = transformers.BertConfig(vocab_size=tok.vocab_size, hidden_size=16, num_hidden_layers=1,
                                  num_attention_heads=2, intermediate_size=32, num_labels=1)
    transformers.BertForSequenceClassification(cfg).save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    scorer = HFSequenceClassifierScorer(tmp_path, batch=2)
    s = scorer(["q one", "q two", "q three"], ["a", "b b", "c c c"])
    assert s.shape == (3,) and np.isfinite(s).all()
    np.testing.assert_allclose(scorer(["q two"], ["b b"]), s[1:2], rtol=1e-5)  # batching does not matter
