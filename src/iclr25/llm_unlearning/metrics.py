"""Per-item text metrics of the evaluation: ROUGE-L (rouge-score, stemmer), token entropy (TE), the
symbolic entailment judge that stands in for an NLI model (ES), and refusal detection."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache

from iclr25.llm_unlearning.data import QA, idk_templates

Judge = Callable[[str, str], bool]  # (premise, hypothesis) -> entailed; any NLI model fits
REFUSAL_ROUGE_F = 0.7  # an output is a refusal when its ROUGE-L F1 to some IDK template reaches this
ES_MIN_ROUGE = 0.1  # outputs with ROUGE-L recall below this never count as entailed (paper's override)


@lru_cache(maxsize=1)
def _scorer():
    from rouge_score import rouge_scorer
    return rouge_scorer.RougeScorer(["rougeL"], tokenizer=_tokenizer())


class _MemoTokenizer:
    """rouge-score's DefaultTokenizer(use_stemmer=True) with its output memoised by text: the Porter
    stemmer dominated evaluation, and references, templates and unchanged outputs recur across models."""

    def __init__(self) -> None:
        from rouge_score.tokenizers import DefaultTokenizer
        self._base = DefaultTokenizer(use_stemmer=True)
        self.tokenize = lru_cache(maxsize=100_000)(self._tokens)

    def _tokens(self, text: str) -> tuple[str, ...]:
        return tuple(self._base.tokenize(text))  # immutable: the memo hands out the same object


@lru_cache(maxsize=1)
def _tokenizer() -> _MemoTokenizer:
    return _MemoTokenizer()


def rouge_l(reference: str, generation: str) -> tuple[float, float]:
    """(recall, F1) of ROUGE-L between a reference and a generation (rouge-score 0.1.2, Porter stemmer)."""
    s = _scorer().score(reference, generation)["rougeL"]
    return float(s.recall), float(s.fmeasure)


def words(text: str) -> set[str]:
    """Stemmed lower-case word set, as ROUGE tokenises."""
    return set(_tokenizer().tokenize(text))


def token_entropy(tokens: Sequence[object]) -> float:
    """TE = H(unigram frequencies of the tokens) / log2(#tokens), in [0, 1]; 0 for <= 1 token. Low values
    flag repetition ("the the the") and gibberish loops. Order does not matter."""
    n = len(tokens)
    if n <= 1:
        return 0.0
    h = -sum(c / n * math.log2(c / n) for c in Counter(tokens).values())
    return max(0.0, min(1.0, h / math.log2(n)))


def is_refusal(text: str, templates: Sequence[str] | None = None) -> bool:
    """ROUGE-L F1 >= 0.7 to one of the refusal templates. ROUGE is computed only where the bound
    F1 <= 2 |common tokens| / (len a + len b) can reach 0.7 (same answer, far fewer LCS tables)."""
    bags = _template_bags() if templates is None else [(t, _bag(t)) for t in templates]
    gen = _bag(text)
    n = sum(gen.values())
    for t, bag in bags:
        common = sum((gen & bag).values())
        if 2 * common >= REFUSAL_ROUGE_F * (n + sum(bag.values())) and rouge_l(t, text)[1] >= REFUSAL_ROUGE_F:
            return True
    return False


@lru_cache(maxsize=1)
def _template_bags() -> tuple[tuple[str, Counter], ...]:
    return tuple((t, _bag(t)) for t in idk_templates())


def _bag(text: str) -> Counter:
    return Counter(_tokenizer().tokenize(text))


def symbolic_entails(generation: str, record: QA) -> bool:
    """Symbolic stand-in for NLI entailment of the ground truth: the generation holds at least half of the
    answer's distinctive words (in both answer and paraphrase, in no perturbed answer) and none of the
    perturbed-only words (in a perturbed answer, not in answer, paraphrase or question)."""
    gen = words(generation)
    truth = words(record["answer"]) | words(record.get("original_answer", ""))
    para = words(record.get("paraphrased_answer", "")) or truth
    pert = set().union(*(words(p) for p in record.get("perturbed_answer", [])))
    distinctive = (truth & para) - pert
    wrong = pert - truth - para - words(record["question"])
    if gen & wrong:
        return False
    return not distinctive or len(gen & distinctive) >= len(distinctive) / 2


def entailed(generation: str, record: QA, forget: bool, judge: Judge | None = None) -> bool:
    """ES for one output: False when ROUGE-L recall < 0.1; else the symbolic judge, or `judge` with the
    paper's pair order (forget: premise = generation, hypothesis = truth; other sets: the reverse)."""
    truth = record.get("original_answer", record["answer"])
    if rouge_l(record["answer"], generation)[0] < ES_MIN_ROUGE:
        return False
    if judge is None:
        return symbolic_entails(generation, record)
    return bool(judge(generation, truth) if forget else judge(truth, generation))
