"""Language models as reward models.

- `DPOImplicitScorer`: a DPO-trained policy π_θ is an implicit reward model (Rafailov et al.; RM-Bench
  §4 uses rewardbench's DPOInference):  r(x, y) = β [log π_θ(y|x) − log π_ref(y|x)], the log-probs
  summed over the response tokens (β only rescales, so it is 1 here). Without a reference model the
  reward is the policy's own log-prob of y, averaged over tokens ("avg", rewardbench's default
  ref-free type) or summed ("sum").
- `SmolLM2Scorer`: that scorer with SmolLM2-135M-Instruct (from iclr25.core.models) as the policy, the
  prompt in its chat template and the response cut to `max_response_tokens`.
- `LMTokenLogprobs` + `iclr25.core.models.load_lm`: any language model of iclr25.core.models (SmolLM2, a
  Llama-architecture GGUF file, a TinyGPT checkpoint, a model saved by `llm_unlearning unlearn -o`) as
  the log-prob function of a DPO policy or its reference, so
  `DPOImplicitScorer(LMTokenLogprobs(load_lm(policy)), LMTokenLogprobs(load_lm(ref)))` scores with a
  user's own DPO checkpoints (`iclr25 rm_bench eval --scorer dpo --policy P --ref R`).
- `HFSequenceClassifierScorer`: a local Hugging Face sequence-classification RM (a scalar head), for
  users with one on disk (needs the optional transformers==5.23.0)."""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from iclr25.core.errors import UserError

REF_FREE = ("avg", "sum")
TokenLogprobs = Callable[[Sequence[str], Sequence[str]], list[np.ndarray]]


def implicit_reward(policy: Sequence[np.ndarray], ref: Sequence[np.ndarray] | None = None,
                    ref_free: str = "avg") -> np.ndarray:
    """r = Σ_t log π_θ − Σ_t log π_ref with a reference; else mean_t (avg) or Σ_t (sum) of log π_θ.

    >>> implicit_reward([np.array([-1.0, -3.0])], ref_free="avg").tolist()
    [-2.0]
    >>> implicit_reward([np.array([-1.0, -3.0])], [np.array([-2.0, -2.0])]).tolist()
    [0.0]
    """
    if ref_free not in REF_FREE:
        raise UserError(f"ref_free must be one of {', '.join(REF_FREE)}, got {ref_free!r}"[:200])
    out = np.empty(len(policy))
    for i, lp in enumerate(policy):
        lp = np.asarray(lp, dtype=np.float64)
        if lp.size == 0:
            raise UserError(f"response {i} has no tokens to score")
        if ref is not None:
            out[i] = lp.sum() - np.asarray(ref[i], dtype=np.float64).sum()  # Eq. (DPO): β = 1
        else:
            out[i] = lp.mean() if ref_free == "avg" else lp.sum()
    if not np.isfinite(out).all():
        raise UserError("a log-probability is NaN or infinite")
    return out


class DPOImplicitScorer:
    """r(x, y) from per-token log-prob functions `policy_lp(prompts, responses) -> [array per response]`
    and, optionally, `ref_lp` of the reference model."""

    name = "dpo-implicit"

    def __init__(self, policy_lp: TokenLogprobs, ref_lp: TokenLogprobs | None = None,
                 ref_free: str = "avg") -> None:
        if not callable(policy_lp) or (ref_lp is not None and not callable(ref_lp)):
            raise UserError("policy_lp and ref_lp must be callables (prompts, responses) -> log-prob arrays")
        if ref_free not in REF_FREE:
            raise UserError(f"ref_free must be one of {', '.join(REF_FREE)}, got {ref_free!r}"[:200])
        self.policy_lp, self.ref_lp, self.ref_free = policy_lp, ref_lp, ref_free

    def __call__(self, prompts: Sequence[str], responses: Sequence[str]) -> np.ndarray:
        prompts, responses = list(prompts), list(responses)
        if len(prompts) != len(responses):
            raise UserError(f"{len(prompts)} prompts for {len(responses)} responses")
        pol = self.policy_lp(prompts, responses)
        ref = self.ref_lp(prompts, responses) if self.ref_lp is not None else None
        if len(pol) != len(responses) or (ref is not None and len(ref) != len(responses)):
            raise UserError("a log-prob function returned the wrong number of arrays")
        return implicit_reward(pol, ref, self.ref_free)


# ---- SmolLM2 ------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def _smollm2():
    from iclr25.core.models import small_lm
    return small_lm()


def chat_sequences(model, prompts: Sequence[str], responses: Sequence[str], max_response_tokens: int,
                   max_prompt_tokens: int = 768) -> tuple[list[list[int]], list[int]]:
    """Token ids of chat-template(prompt) + response (cut to `max_response_tokens`), and the number of
    response tokens of each; a long prompt keeps its last `max_prompt_tokens` tokens."""
    seqs, n_resp = [], []
    for x, y in zip(prompts, responses, strict=True):
        ctx = model.tokenizer.encode(model.apply_chat([{"role": "user", "content": x}]))[-max_prompt_tokens:]
        resp = model.tokenizer.encode(y)[:max_response_tokens] or [model.tokenizer.eos_ids[0]]
        seqs.append(ctx + resp)
        n_resp.append(len(resp))
    return seqs, n_resp


def _smollm2_shard(job: tuple[list[str], list[str], int]) -> list[np.ndarray]:
    """Per-token log-probs of each response under SmolLM2 (module level so workers can run it)."""
    import torch

    from iclr25.core.runtime import pin_threads
    pin_threads()
    prompts, responses, max_tokens = job
    model = _smollm2()
    seqs, n_resp = chat_sequences(model, prompts, responses, max_tokens)
    out: list[np.ndarray] = []
    for rows, logp, _ in model.distributions(seqs, batch=1):
        T = logp.shape[1]  # noqa: N806
        for b, r in enumerate(rows):
            n = n_resp[r]
            tgt = torch.as_tensor(seqs[r][-n:], dtype=torch.long)
            out.append(logp[b, T - 1 - n:T - 1].gather(-1, tgt[:, None])[:, 0].numpy().astype(np.float32))
    return out


class SmolLM2Scorer(DPOImplicitScorer):
    """Reference-free implicit reward of SmolLM2-135M-Instruct (a preference-tuned chat model): the mean
    (or sum) log-prob of the response, cut to `max_response_tokens`, after the chat-templated prompt.
    `token_logprobs` is cached on disk; `mapper` (e.g. RunContext.map) spreads shards over workers."""

    name = "smollm2"

    def __init__(self, ref_free: str = "avg", max_response_tokens: int = 256, mapper: Callable | None = None,
                 shard: int = 8) -> None:
        if not 1 <= max_response_tokens <= 4096:
            raise UserError(f"max_response_tokens must be in [1, 4096], got {max_response_tokens}")
        super().__init__(self.token_logprobs, None, ref_free)
        self.max_response_tokens, self.mapper, self.shard = max_response_tokens, mapper, shard

    def token_logprobs(self, prompts: Sequence[str], responses: Sequence[str]) -> list[np.ndarray]:
        from iclr25.core.runtime import atomic_write, cache_dir, progress
        prompts, responses = list(prompts), list(responses)
        h = hashlib.sha256(f"smollm2-v1-{self.max_response_tokens}".encode())
        for x, y in zip(prompts, responses, strict=True):
            h.update(hashlib.sha1(f"{x}\x00{y}".encode("utf-8", "surrogatepass")).digest())
        path = cache_dir() / "rm_bench" / f"smollm2-{h.hexdigest()[:20]}.npz"
        if path.is_file():
            try:
                with np.load(path, allow_pickle=False) as z:
                    flat, ends = z["flat"], z["ends"]
                if len(ends) == len(prompts):
                    return np.split(flat, ends[:-1])
            except (OSError, ValueError, KeyError):
                pass
        by_len = sorted(range(len(prompts)), key=lambda i: len(responses[i]))
        n_chunks = -(-len(by_len) // self.shard)
        chunks = [by_len[s::n_chunks] for s in range(n_chunks)]  # dealt by length: equal work per chunk
        jobs = [([prompts[i] for i in c], [responses[i] for i in c], self.max_response_tokens)
                for c in chunks]
        parts = self.mapper(_smollm2_shard, jobs) if self.mapper is not None else \
            [_smollm2_shard(j) for j in progress(jobs, "SmolLM2 log-probs", total=len(jobs))]
        out: list[np.ndarray] = [np.zeros(0, np.float32)] * len(prompts)
        for c, part in zip(chunks, parts, strict=True):
            for i, lp in zip(c, part, strict=True):
                out[i] = lp
        with atomic_write(path) as f:
            np.savez(f, flat=np.concatenate(out), ends=np.cumsum([len(a) for a in out]))
        return out


# ---- any language model of iclr25.core.models as a DPO policy or reference ---------------------------

def lm_sequences(model, prompts: Sequence[str], responses: Sequence[str], max_response_tokens: int,
                 max_prompt_tokens: int = 768) -> tuple[list[list[int]], list[int]]:
    """Token ids of the prompt context + response, and the number of response tokens of each. The context
    is the model's chat template around the prompt where it has one, else "prompt\n\n"; the response is
    cut to `max_response_tokens`, and the context keeps its last tokens so the whole fits the model."""
    tok, eos = model.tokenizer, model.tokenizer.eos_ids[0]
    has_chat = getattr(model, "chat_template", None)
    seqs, n_resp = [], []
    for x, y in zip(prompts, responses, strict=True):
        text = model.apply_chat([{"role": "user", "content": x}]) if has_chat else f"{x}\n\n"
        resp = tok.encode(y)[:min(max_response_tokens, model.max_length - 1)] or [eos]
        room = min(max_prompt_tokens, model.max_length - len(resp))
        ctx = tok.encode(text)[-room:] or [eos]
        seqs.append(ctx + resp)
        n_resp.append(len(resp))
    return seqs, n_resp


class LMTokenLogprobs:
    """(prompts, responses) -> per-token log-probs of each response under `model` (any CausalLM of
    iclr25.core.models), in batches of `batch` sequences of similar length, with a progress bar."""

    def __init__(self, model, max_response_tokens: int = 256, batch: int = 4, label: str = "model") -> None:
        if not 1 <= max_response_tokens <= 4096 or not 1 <= batch <= 1024:
            raise UserError(f"max_response_tokens must be in [1, 4096] and batch in [1, 1024], got "
                            f"{max_response_tokens}, {batch}")
        self.model, self.max_response_tokens = model, max_response_tokens
        self.batch, self.label = batch, label

    def __call__(self, prompts: Sequence[str], responses: Sequence[str]) -> list[np.ndarray]:
        import torch

        from iclr25.core.runtime import progress
        seqs, n_resp = lm_sequences(self.model, list(prompts), list(responses), self.max_response_tokens)
        order = sorted(range(len(seqs)), key=lambda i: len(seqs[i]))  # similar lengths share a batch
        out: list[np.ndarray] = [np.zeros(0, np.float32)] * len(seqs)
        starts = range(0, len(order), self.batch)
        for s in progress(starts, f"log-probs under {self.label}", total=len(starts)):
            rows = order[s:s + self.batch]
            for batch_rows, logp, _ in self.model.distributions([seqs[r] for r in rows], batch=len(rows)):
                T = logp.shape[1]  # noqa: N806
                for b, k in enumerate(batch_rows):
                    r = rows[k]
                    n = n_resp[r]
                    tgt = torch.as_tensor(seqs[r][-n:], dtype=torch.long)
                    lp = logp[b, T - 1 - n:T - 1].gather(-1, tgt[:, None])[:, 0]  # the response tokens
                    out[r] = lp.numpy().astype(np.float32)
        return out


def same_tokenizer(a, b) -> bool:
    """Whether two models split text the same way (a DPO policy and its reference must)."""
    probe = "Reward models: 1 + 2 = 3.\n## Ünïcode ≥ **bold** `code`"
    return a.vocab_size == b.vocab_size and a.tokenizer.encode(probe) == b.tokenizer.encode(probe)


def dpo_scorer(policy: str | os.PathLike, ref: str | os.PathLike | None = None, ref_free: str = "avg",
               max_response_tokens: int = 256, batch: int = 4) -> DPOImplicitScorer:
    """The DPO implicit reward of a policy checkpoint against its reference checkpoint (log π_θ − log π_ref
    summed over the response), or the policy's reference-free reward (`ref_free`: avg or sum)."""
    from iclr25.core.models import load_lm
    pol = load_lm(policy, "--policy")
    ref_lp = None
    if ref is not None:
        ref_model = load_lm(ref, "--ref")
        if not same_tokenizer(pol, ref_model):
            raise UserError("--policy and --ref split text differently; the DPO reward compares the policy "
                            "with the model it was trained from, which has the same tokenizer")
        ref_lp = LMTokenLogprobs(ref_model, max_response_tokens, batch, f"reference {Path(str(ref)).name}")
    scorer = DPOImplicitScorer(LMTokenLogprobs(pol, max_response_tokens, batch,
                                               f"policy {Path(str(policy)).name}"), ref_lp, ref_free)
    scorer.name = "dpo" if ref is not None else f"dpo-ref-free-{ref_free}"
    return scorer


# ---- local Hugging Face reward models -----------------------------------------------------------------

class HFSequenceClassifierScorer:
    """r(x, y) = the scalar head of a local `AutoModelForSequenceClassification` (num_labels = 1) on the
    chat-templated conversation (or "prompt\\n\\nresponse" when the tokenizer has no template)."""

    name = "hf-classifier"

    def __init__(self, model_dir: str | os.PathLike, batch: int = 8, max_length: int = 2048) -> None:
        d = Path(model_dir)
        if not (d / "config.json").is_file():
            raise UserError(f"{d} is not a Hugging Face model folder (no config.json)")
        if not 1 <= batch <= 1024 or not 8 <= max_length <= 131072:
            raise UserError(f"batch must be in [1, 1024] and max_length in [8, 131072], got {batch}, "
                            f"{max_length}")
        try:
            import transformers
        except ImportError:
            raise UserError("HFSequenceClassifierScorer needs the optional package "
                            "transformers==5.23.0") from None
        try:
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(d, local_files_only=True)
            self.model = transformers.AutoModelForSequenceClassification.from_pretrained(
                d, local_files_only=True).eval()
        except Exception as e:  # transformers raises OSError, ValueError, KeyError... on bad folders
            raise UserError(f"cannot load a sequence classifier from {d}: {type(e).__name__}") from None
        if self.model.config.num_labels != 1:
            raise UserError(f"{d} has {self.model.config.num_labels} labels; a reward model has 1")
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token or self.tokenizer.unk_token
        self.batch, self.max_length = batch, max_length

    def format(self, prompt: str, response: str) -> str:
        if getattr(self.tokenizer, "chat_template", None):
            return self.tokenizer.apply_chat_template(
                [{"role": "user", "content": prompt}, {"role": "assistant", "content": response}],
                tokenize=False)
        return f"{prompt}\n\n{response}"

    def __call__(self, prompts: Sequence[str], responses: Sequence[str]) -> np.ndarray:
        import torch
        prompts, responses = list(prompts), list(responses)
        if len(prompts) != len(responses):
            raise UserError(f"{len(prompts)} prompts for {len(responses)} responses")
        texts = [self.format(x, y) for x, y in zip(prompts, responses, strict=True)]
        out = np.empty(len(texts))
        with torch.no_grad():
            for s in range(0, len(texts), self.batch):
                enc = self.tokenizer(texts[s:s + self.batch], return_tensors="pt", padding=True,
                                     truncation=True, max_length=self.max_length)
                out[s:s + self.batch] = self.model(**enc).logits[:, 0].float().numpy()
        return out
