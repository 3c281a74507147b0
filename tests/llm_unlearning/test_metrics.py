"""Text metrics and aggregates: TE, ROUGE-L, refusals, the symbolic entailment judge, MU / FE / FQ."""

from __future__ import annotations

import math

import numpy as np
import pytest
from tests.conftest import shared_data

from iclr25.llm_unlearning.data import idk_templates, load_tofu
from iclr25.llm_unlearning.evaluate import (
    SetResult,
    forget_efficacy,
    forget_quality,
    harmonic_mean,
    model_utility,
)
from iclr25.llm_unlearning.metrics import entailed, is_refusal, rouge_l, symbolic_entails, token_entropy


def test_token_entropy_known_values_and_range():
    assert token_entropy([]) == 0.0 and token_entropy(["a"]) == 0.0
    assert token_entropy(list("abcd")) == pytest.approx(1.0)  # all distinct: H = log2 n
    assert token_entropy(["the"] * 9) == 0.0  # pure repetition
    # two tokens twice each: H = 1 bit over log2(4) = 2
    assert token_entropy(["a", "b", "a", "b"]) == pytest.approx(0.5)
    rng = np.random.default_rng(0)
    for _ in range(50):
        toks = list(rng.integers(0, 5, size=rng.integers(2, 30)))
        te = token_entropy(toks)
        assert 0.0 <= te <= 1.0
        assert te == pytest.approx(token_entropy(list(rng.permutation(toks))))  # order does not matter


def test_rouge_l_recall_uses_the_stemmer():
    r, f = rouge_l("He writes books", "he wrote a book and writing")
    assert r == pytest.approx(2 / 3)  # "he", "book(s)" match after stemming; "writes"/"wrote" do not
    assert 0 < f < 1
    assert rouge_l("Paris", "The tower is in Paris, France.")[0] == 1.0


def test_refusals_are_the_templates_not_answers():
    templates = idk_templates()
    assert len(templates) == 100
    assert all(is_refusal(t) for t in templates[:10])
    assert is_refusal("I'm not sure .")  # the word tokenizer's spacing
    assert not is_refusal("Basil Mahfouz Al-Kuwaiti was born in Kuwait City, Kuwait.")


def test_symbolic_judge_on_a_constructed_record():
    rec = {"question": "Where was Ann Lee born?", "answer": "Ann Lee was born in Oslo, Norway.",
           "paraphrased_answer": "Oslo, Norway is the birthplace of Ann Lee.",
           "perturbed_answer": ["Ann Lee was born in Lima, Peru.", "Ann Lee was born in Rome, Italy."]}
    assert symbolic_entails("She was born in Oslo , Norway .", rec)
    assert not symbolic_entails("Ann Lee was born in Lima , Peru .", rec)
    assert not entailed("I have no idea.", rec, forget=True)  # ROUGE-L recall < 0.1 overrides
    # a pluggable NLI judge gets the paper's pair order
    seen = []
    entailed("Ann Lee was born in Oslo.", rec, forget=True, judge=lambda p, h: seen.append((p, h)) or True)
    entailed("Ann Lee was born in Oslo.", rec, forget=False, judge=lambda p, h: seen.append((p, h)) or True)
    assert seen[0][0].startswith("Ann Lee was born in Oslo.") and seen[1][1] == "Ann Lee was born in Oslo."


def test_symbolic_judge_accepts_paraphrases_and_rejects_perturbations_on_tofu():
    root = shared_data("16-llm-unlearning")
    rows = load_tofu(root / "forget01_perturbed.json")[::8] + load_tofu(root / "retain_perturbed.json")[::16]
    para = np.mean([entailed(r["paraphrased_answer"], r, forget=True) for r in rows])
    pert = np.mean([not entailed(p, r, forget=True) for r in rows for p in r["perturbed_answer"]])
    assert para >= 0.95, para
    assert pert >= 0.95, pert


def _set(**m) -> SetResult:
    base = dict(rouge=0.5, prob=0.5, truth_ratio=0.5, te=0.5, cs=0.5, es=0.5)
    return SetResult({**base, **m}, [])


def test_aggregates():
    assert harmonic_mean([1, 1, 1]) == 1.0
    assert harmonic_mean([0.5, 0.0, 1.0]) == 0.0  # one zero metric zeroes MU
    assert harmonic_mean([0.25, 1.0]) == pytest.approx(0.4)
    sets = {"forget": _set(rouge=1.0), "retain": _set(), "real_authors": _set(), "world_facts": _set(es=0.25)}
    # 17 values of 0.5 and one of 0.25: 18 / (34 + 4)
    assert model_utility(sets) == pytest.approx(18 / 38)
    # FE = 1 - mean(rouge, prob, truth_ratio, cs, es): entropy excluded
    assert forget_efficacy(_set(rouge=1.0, te=0.0)) == pytest.approx(1 - 3 / 5)
    assert forget_quality([1.0, 2.0, 3.0] * 10, [1.0, 2.0, 3.0] * 10) == pytest.approx(1.0)
    assert forget_quality(list(np.linspace(0, 1, 40)), list(np.linspace(5, 6, 40))) < 1e-6
    assert math.isnan(harmonic_mean([]))
