"""`evaluate_unlearning`: the paper's six metrics per set (ROUGE-L recall, Probability, Truth Ratio, Token
Entropy, Cosine Similarity, Entailment Score), Model Utility (harmonic mean of the 18 numbers on Retain,
Real Authors and World Facts), Forget Efficacy (1 - mean of the five non-entropy metrics on Forget) and
TOFU's Forget Quality (KS-test p-value of forget truth ratios against a retain-only model)."""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from iclr25.core.errors import UserError
from iclr25.core.models import CausalLM
from iclr25.llm_unlearning.data import QA, check_qas, prompt
from iclr25.llm_unlearning.metrics import Judge, entailed, is_refusal, rouge_l, token_entropy
from iclr25.llm_unlearning.model import answer_nll, collate, encode_qa

SETS = ("forget", "retain", "real_authors", "world_facts")
METRICS = ("rouge", "prob", "truth_ratio", "te", "cs", "es")
CS_MAX = 50  # cosine similarity on at most this many outputs per set


@dataclass
class SetResult:
    """The six metrics of one set, and the per-item values they average."""

    metrics: dict[str, float]
    generations: list[str]
    items: dict[str, list[float]] = field(default_factory=dict)  # rouge, te, entailed, refused, tr_raw


@dataclass
class UnlearningReport:
    sets: dict[str, SetResult]
    mu: float
    fe: float
    forget_quality: float | None = None

    def summary(self) -> dict[str, float]:
        out = {f"{s}_{m}": r.metrics[m] for s, r in self.sets.items() for m in METRICS}
        out.update(mu=self.mu, fe=self.fe)
        if self.forget_quality is not None:
            out["forget_quality"] = self.forget_quality
        return out


def harmonic_mean(xs: Sequence[float]) -> float:
    """n / sum(1/x); 0 as soon as one value is <= 0 (why collapsed baselines read MU = 0)."""
    xs = [float(x) for x in xs]
    if not xs or any(not np.isfinite(x) for x in xs):
        return float("nan")
    return 0.0 if min(xs) <= 0 else len(xs) / sum(1.0 / x for x in xs)


def model_utility(sets: Mapping[str, SetResult]) -> float:
    """MU: harmonic mean of the 6 metrics on each present non-forget set (18 numbers with all three)."""
    return harmonic_mean([r.metrics[m] for s, r in sets.items() if s != "forget" for m in METRICS])


def forget_efficacy(forget: SetResult) -> float:
    """FE = 1 - mean(ROUGE, Prob, Truth Ratio, CS, ES) on the forget set."""
    return 1.0 - float(np.mean([forget.metrics[m] for m in ("rouge", "prob", "truth_ratio", "cs", "es")]))


def forget_quality(tr_unlearned: Sequence[float], tr_retain_model: Sequence[float]) -> float:
    """TOFU's Forget Quality: the two-sample KS-test p-value between forget-set truth ratios of the
    unlearned and the retain-only model (high = indistinguishable)."""
    from scipy.stats import ks_2samp
    return float(ks_2samp(np.asarray(tr_unlearned), np.asarray(tr_retain_model)).pvalue)


@torch.no_grad()
def avg_nll(model: CausalLM, pairs: Sequence[tuple[str, str]], batch: int = 64) -> np.ndarray:
    """Mean token NLL of each answer given its question (teacher forcing, answer tokens + end of text)."""
    tok = model.tokenizer
    enc = [encode_qa(tok, q, a) for q, a in pairs]
    out = np.zeros(len(enc))
    order = np.argsort([len(e[0]) for e in enc], kind="stable")  # similar lengths share a batch
    for s in range(0, len(order), batch):
        rows = order[s:s + batch]
        ids, labels, mask = collate([enc[i] for i in rows], tok.pad_id, model.max_length)
        out[rows] = answer_nll(model, ids, mask, labels).numpy()
    return out


def generate_answers(model: CausalLM, questions: Sequence[str], max_new_tokens: int = 96,
                     ) -> tuple[list[str], list[list[int]]]:
    """Greedy answers (text, token ids) to each question."""
    tok = model.tokenizer
    prompts = [tok.encode(prompt(q)) for q in questions]
    room = model.max_length - max(len(p) for p in prompts)
    if room < 1:
        raise UserError(f"a question fills the model's {model.max_length}-token context")
    ids = model.generate_ids(prompts, max_new_tokens=min(max_new_tokens, room), temperature=0.0, batch=64)
    return [tok.decode(x) for x in ids], ids


def _probability_and_truth(model: CausalLM, rows: Sequence[QA], kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Per item (probability, truth ratio R). Forget/Retain: p = exp(-avg NLL(answer)); Real Authors /
    World Facts: p(answer) / (p(answer) + sum_k p(perturbed_k)). R = exp(mean_k avgNLL(perturbed_k) -
    avgNLL(paraphrase)); the paraphrase is the answer itself where the set has none."""
    q = [r["question"] for r in rows]
    pert = [(i, p) for i, r in enumerate(rows) for p in r["perturbed_answer"]]
    n = len(rows)
    nll = avg_nll(model, [(r["question"], r["answer"]) for r in rows]  # one pass, length-sorted batches
                  + [(r["question"], r.get("paraphrased_answer", r["answer"])) for r in rows]
                  + [(q[i], p) for i, p in pert])
    nll_a, nll_p, nll_x = nll[:n], nll[n:2 * n], nll[2 * n:]
    owner = np.array([i for i, _ in pert])
    mean_pert = np.bincount(owner, nll_x, len(rows)) / np.bincount(owner, minlength=len(rows))
    if kind in ("forget", "retain"):
        prob = np.exp(-nll_a)
    else:
        sum_pert = np.bincount(owner, np.exp(-nll_x), len(rows))
        prob = np.exp(-nll_a) / (np.exp(-nll_a) + sum_pert)
    return prob, np.exp(mean_pert - nll_p)


_EMBEDDINGS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # encoder -> {text: vector}
_EMBED_MEMO_MAX = 200_000


def _embed(encoder, texts: Sequence[str]) -> np.ndarray:
    """`encoder.encode(texts)` through a per-encoder memo: the references, and most outputs on the sets a
    method leaves alone, repeat across the models of a study. New texts are encoded length-sorted."""
    try:
        memo = _EMBEDDINGS.setdefault(encoder, {})
    except TypeError:  # an encoder that cannot be weakly referenced is used as is
        return encoder.encode(list(texts))
    if len(memo) > _EMBED_MEMO_MAX:
        memo.clear()
    new = sorted({t for t in texts if t not in memo}, key=len)
    if new:
        memo.update(zip(new, encoder.encode(new), strict=True))
    return np.stack([memo[t] for t in texts])


def evaluate_set(model: CausalLM, rows: Sequence[QA], kind: str, encoder=None, judge: Judge | None = None,
                 max_new_tokens: int = 96) -> SetResult:
    """The six metrics of one set. `kind` picks the formulas: "forget", "retain", "real_authors",
    "world_facts" (the last two: answer-normalised probability, CS against the long original answer)."""
    if kind not in SETS:
        raise UserError(f"unknown set {kind!r}; choose from {', '.join(SETS)}")
    rows = check_qas(rows, f"{kind} set", need=("question", "answer"))
    if any("perturbed_answer" not in r for r in rows):
        raise UserError(f"{kind} set: every row needs 'perturbed_answer' for Probability and Truth Ratio")
    gens, gen_ids = generate_answers(model, [r["question"] for r in rows], max_new_tokens)
    rouge = np.array([rouge_l(r["answer"], g)[0] for r, g in zip(rows, gens, strict=True)])
    prob, tr_raw = _probability_and_truth(model, rows, kind)
    # Forget: 1 - mean(min(R, 1/R)); others: mean(max(0, 1 - 1/R)) (TOFU / the paper's code)
    truth = (1.0 - float(np.mean(np.minimum(tr_raw, 1 / tr_raw))) if kind == "forget"
             else float(np.mean(np.maximum(0.0, 1 - 1 / tr_raw))))
    te = np.array([token_entropy(ids) for ids in gen_ids])
    ref = [r.get("original_answer", r["answer"]) for r in rows]
    cs = float("nan")
    if encoder is not False:
        if encoder is None:
            from iclr25.core.models import sentence_encoder
            encoder = sentence_encoder()
        n = min(len(rows), CS_MAX)
        a, b = _embed(encoder, gens[:n]), _embed(encoder, ref[:n])
        cs = float(np.mean(np.maximum(0.0, (a * b).sum(1))))
    ent = np.array([entailed(g, r, kind == "forget", judge) for g, r in zip(gens, rows, strict=True)], float)
    refused = np.array([is_refusal(g) for g in gens], float)
    metrics = {"rouge": float(rouge.mean()), "prob": float(prob.mean()), "truth_ratio": truth,
               "te": float(te.mean()), "cs": cs, "es": float(ent.mean()), "refusal": float(refused.mean())}
    items = {"rouge": rouge.tolist(), "te": te.tolist(), "entailed": ent.tolist(),
             "refused": refused.tolist(), "tr_raw": tr_raw.tolist(), "prob": prob.tolist()}
    return SetResult(metrics, gens, items)


def evaluate_unlearning(model: CausalLM, sets: Mapping[str, Sequence[QA]], encoder=None,
                        judge: Judge | None = None, retain_truth_ratios: Sequence[float] | None = None,
                        max_new_tokens: int = 96) -> UnlearningReport:
    """Evaluate `model` on named sets (keys from SETS; "forget" needed for FE, the others for MU).
    `encoder`: a sentence encoder (default: all-MiniLM-L6-v2 from iclr25.core.models; False skips CS).
    `judge(premise, hypothesis) -> bool`: an NLI model for ES (default: the symbolic judge).
    `retain_truth_ratios`: forget-set R values of a retain-only model, for Forget Quality."""
    unknown = sorted(set(sets) - set(SETS))
    if unknown:
        raise UserError(f"unknown set {unknown[0]!r}; choose from {', '.join(SETS)}")
    if not sets:
        raise UserError("evaluate_unlearning needs at least one set")
    if encoder is None:
        from iclr25.core.models import sentence_encoder
        encoder = sentence_encoder()
    res = {k: evaluate_set(model, v, k, encoder, judge, max_new_tokens) for k, v in sets.items()}
    mu = model_utility(res) if len(res) > ("forget" in res) else float("nan")
    fe = forget_efficacy(res["forget"]) if "forget" in res else float("nan")
    fq = None
    if retain_truth_ratios is not None and "forget" in res:
        fq = forget_quality(res["forget"].items["tr_raw"], retain_truth_ratios)
    return UnlearningReport(res, mu, fe, fq)


def hallucination_rate(result: SetResult) -> float:
    """Share of outputs that are fluent non-refusals (TE >= 0.5) and not entailed (ES = 0): confident
    wrong answers, as the retain-only model gives on forget questions (paper: 74%)."""
    it = result.items
    flags = [(1 - r) * (t >= 0.5) * (1 - e)
             for r, t, e in zip(it["refused"], it["te"], it["entailed"], strict=True)]
    return float(np.mean(flags))


def answer_items(model: CausalLM, rows: Sequence[QA], max_new_tokens: int = 96) -> dict[str, list]:
    """Greedy answers and the per-item values behind the hallucination rate, without the costlier
    probability metrics: generations, ROUGE-L recall, TE, entailed (ES), refused, hallucinated."""
    rows = check_qas(rows, "question set", need=("question", "answer"))
    gens, ids = generate_answers(model, [r["question"] for r in rows], max_new_tokens)
    out: dict[str, list] = {"generations": gens,
                            "rouge": [rouge_l(r["answer"], g)[0] for r, g in zip(rows, gens, strict=True)],
                            "te": [token_entropy(x) for x in ids],
                            "entailed": [float(entailed(g, r, True))
                                         for g, r in zip(gens, rows, strict=True)],
                            "refused": [float(is_refusal(g)) for g in gens]}
    out["hallucinated"] = [float((1 - r) * (t >= 0.5) * (1 - e))
                           for r, t, e in zip(out["refused"], out["te"], out["entailed"], strict=True)]
    return out
