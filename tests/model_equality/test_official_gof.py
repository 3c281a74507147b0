"""Issue #52: the reader for the paper's released sample layout (pickles read without running code), the
two-sample L2 statistic, and the goodness-of-fit tests on the reference's log-probabilities."""

import json
import math
import pickle

import numpy as np
import pytest
from tests.model_equality.test_cli import run

from iclr25.core.errors import UserError
from iclr25.model_equality import (
    CompletionSample,
    GoodnessOfFit,
    NullSimulator,
    encode_chars,
    get_statistic,
    read_official,
    two_sample_test,
)

MODEL = "meta-llama/Meta-Llama-3-8B-Instruct"


@pytest.fixture
def dataset(tmp_path):
    """Two prompts in the official layout: local fp32 samples (token ids, EOS then padding) and an API's
    samples (strings); a word-level tokenizer.json standing in for the model's."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    vocab = {"<pad>": 0, "<|eot_id|>": 1, "the": 2, "cat": 3, "dog": 4, "sat": 5}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<pad>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.add_special_tokens(["<pad>", "<|eot_id|>"])
    tok.save(str(tmp_path / "tokenizer.json"))
    (tmp_path / "samples").mkdir()
    stem = "meta-llama-Meta-Llama-3-8B-Instruct-wikipedia_en"
    for pid in (0, 1):
        local = [[2, 3, 5, 1, 0], [2, 4, 1, 0, 0]] * 10
        (tmp_path / "samples" / f"{stem}-fp32-L=5-{pid}.pkl").write_bytes(pickle.dumps(local))
        api = {"samples": [{"full_completion": "the dog sat"}] * 20, "model": MODEL}
        (tmp_path / "samples" / f"{stem}-azure-L=5-{pid}.pkl").write_bytes(pickle.dumps(api))
    return tmp_path


def test_reads_local_and_api_samples_of_the_official_layout(dataset):
    ref = read_official(dataset, MODEL, "fp32", {"wikipedia_en": [0, 1]}, dataset / "tokenizer.json")
    assert len(ref) == 40 and ref[0] == ("wikipedia_en/0", "the cat sat") and ref[1][1] == "the dog"
    api = read_official(dataset, MODEL, "azure", {"wikipedia_en": [0, 1]})
    assert {c for _, c in api} == {"the dog sat"}
    assert {p for p, _ in api} == {"wikipedia_en/0", "wikipedia_en/1"}
    with pytest.raises(UserError, match="tokenizer.json"):
        read_official(dataset, MODEL, "fp32", {"wikipedia_en": [0]})
    with pytest.raises(UserError, match="no file .*-7.pkl"):
        read_official(dataset, MODEL, "azure", {"wikipedia_en": [7]})


def test_a_pickle_that_would_run_code_is_refused(dataset):
    class Evil:
        def __reduce__(self):
            return (print, ("pwned",))
    path = dataset / "samples" / "meta-llama-Meta-Llama-3-8B-Instruct-wikipedia_en-groq-L=5-0.pkl"
    path.write_bytes(pickle.dumps(Evil()))
    with pytest.raises(UserError, match="refusing to load builtins.print"):
        read_official(dataset, MODEL, "groq", {"wikipedia_en": [0]})


def test_cli_converts_and_tests_the_official_files(dataset, tmp_path):
    out = run("official", "--root", str(dataset), "--model", MODEL, "--source", "fp32", "--prompts",
              "wikipedia_en:0,1", "--tokenizer", str(dataset / "tokenizer.json"),
              "-o", str(tmp_path / "ref.jsonl"))
    assert out.returncode == 0 and "wrote 40 completions of 2 prompts" in out.stdout, out.stderr
    out = run("official", "--root", str(dataset), "--model", MODEL, "--source", "azure", "--prompts",
              "wikipedia_en:0,1", "-o", str(tmp_path / "api.jsonl"))
    assert out.returncode == 0, out.stderr
    out = run("test", "--ref", str(tmp_path / "ref.jsonl"), "--api", str(tmp_path / "api.jsonl"),
              "--b", "200")
    assert out.returncode == 0 and "decision: REJECT" in out.stdout  # the API never says "cat"
    out = run("official", "--root", str(dataset), "--model", MODEL, "--source", "fp33", "--prompts", "w:0",
              "-o", str(tmp_path / "x.jsonl"))
    assert out.returncode == 2 and "unknown source 'fp33'" in out.stderr


def test_l2_statistic_is_the_squared_frequency_distance():
    p = CompletionSample(np.zeros(4, int), encode_chars(["a", "a", "b", "c"], 1), 1)
    q = CompletionSample(np.zeros(2, int), encode_chars(["a", "d"], 1), 1)
    # frequencies a: 1/2 vs 1/2, b: 1/4 vs 0, c: 1/4 vs 0, d: 0 vs 1/2
    assert get_statistic("l2")(p, q) == pytest.approx(1 / 16 + 1 / 16 + 1 / 4)


def _categorical(probs, n, rng, m=2):
    """n completions per prompt from a categorical law over single letters, with their log-probabilities."""
    letters = np.array(list("abcdefgh"[:len(probs)]))
    idx = rng.choice(len(probs), size=(m, n), p=probs)
    texts = letters[idx].ravel()
    lp = np.log(np.asarray(probs))[idx].ravel()
    return CompletionSample(np.repeat(np.arange(m), n), encode_chars(texts, 1), m, lp)


def test_goodness_of_fit_statistics_by_hand():
    q = CompletionSample(np.zeros(4, int), encode_chars(["a", "a", "a", "b"], 1), 1,
                         np.log([0.5, 0.5, 0.5, 0.25]))
    # n = 4, p_a = 0.5, p_b = 0.25, unseen mass 0.25: expected 2 and 1 vs observed 3 and 1
    assert GoodnessOfFit("pearson")(q, q) == pytest.approx((3 - 2) ** 2 / 2 + 0 + 4 * 0.25)
    assert GoodnessOfFit("gof_l1")(q, q) == pytest.approx(1 + 0 + 4 * 0.25)
    assert GoodnessOfFit("g2")(q, q) == pytest.approx(-2 * (3 * math.log(2 / 3) + 1 * math.log(1 / 1)))
    with pytest.raises(UserError, match="log-probability"):
        GoodnessOfFit("g2")(CompletionSample(np.zeros(2, int), encode_chars(["a", "b"], 1), 1),
                            CompletionSample(np.zeros(2, int), encode_chars(["a", "b"], 1), 1))


@pytest.mark.parametrize("kind", ["g2", "pearson", "gof_l1"])
def test_goodness_of_fit_holds_its_level_and_detects_a_shift(kind):
    rng = np.random.default_rng(0)
    p = [0.4, 0.3, 0.2, 0.1]
    pool = _categorical(p, 400, rng)
    null = NullSimulator(pool, GoodnessOfFit(kind), b=300, seed=0)
    same = [two_sample_test(pool.subset(np.arange(2)), _categorical(p, 20, rng), GoodnessOfFit(kind), "null",
                            alpha=0.05, null=null).reject for _ in range(60)]
    q = [0.1, 0.2, 0.3, 0.4]  # reversed; the API's rows carry the *reference's* log-probabilities
    shifted = []
    for _ in range(30):
        s = _categorical(q, 20, rng)
        codes = s.completions[:, 0] - ord("a")
        s = CompletionSample(s.prompt_ids, s.completions, s.m, np.log(np.asarray(p))[codes])
        shifted.append(two_sample_test(pool.subset(np.arange(2)), s, GoodnessOfFit(kind), "null",
                                       alpha=0.05, null=null).reject)
    assert np.mean(same) <= 0.15 and np.mean(shifted) >= 0.8


def test_cli_goodness_of_fit_needs_logprobs_and_the_null(tmp_path):
    rng = np.random.default_rng(1)
    p = {"a": 0.5, "b": 0.3, "c": 0.2}

    def write(name, probs, n):
        with open(tmp_path / name, "w") as f:
            for prompt in ("x", "y"):
                for c in rng.choice(list(probs), size=n, p=list(probs.values())):
                    f.write(json.dumps({"prompt": prompt, "completion": c, "logprob": math.log(p[c])}) + "\n")
    write("ref.jsonl", p, 200)
    write("api.jsonl", {"a": 0.1, "b": 0.3, "c": 0.6}, 40)
    out = run("test", "--ref", str(tmp_path / "ref.jsonl"), "--api", str(tmp_path / "api.jsonl"),
              "--kernel", "g2", "--pvalue", "null", "--b", "200")
    assert out.returncode == 0 and "decision: REJECT" in out.stdout, out.stderr
    out = run("test", "--ref", str(tmp_path / "ref.jsonl"), "--api", str(tmp_path / "api.jsonl"),
              "--kernel", "g2")
    assert out.returncode == 2 and "use --pvalue null" in out.stderr
    (tmp_path / "plain.jsonl").write_text(json.dumps({"prompt": "x", "completion": "a"}) + "\n")
    out = run("test", "--ref", str(tmp_path / "plain.jsonl"), "--api", str(tmp_path / "api.jsonl"),
              "--kernel", "pearson", "--pvalue", "null")
    assert out.returncode == 2 and "'logprob'" in out.stderr
