"""The language model side: question-answer pairs as (ids, labels) batches, teacher-forced logits, and
the fine-tuning that plants the facts to be unlearned. The network is the core's `TinyGPT` (nanoGPT,
4 layers x 128 wide here) with a word-level vocabulary fitted to the world's text; any `CausalLM` of
iclr25.core.models (e.g. SmolLM2) works with the same functions."""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812

from iclr25.core.errors import UserError
from iclr25.core.models import CausalLM, TinyGPT, TinyGPTConfig, Tokenizer, tiny_gpt
from iclr25.llm_unlearning.data import QA, idk_templates, prompt
from iclr25.llm_unlearning.losses import IGNORE, sequence_nll

_CACHE_VERSION = 2


@dataclass(frozen=True)
class PretrainConfig:
    """Fine-tuning a fresh TinyGPT on the world's QA (the paper starts from TOFU-fine-tuned Llama-2;
    we plant the facts ourselves). Loss on answer tokens, AdamW, cosine decay."""

    n_layer: int = 4
    d_model: int = 128
    n_head: int = 4
    block_size: int = 160
    epochs: int = 50
    batch: int = 16
    lr: float = 2e-3
    weight_decay: float = 0.01
    seed: int = 0

    def __post_init__(self) -> None:
        if min(self.n_layer, self.d_model, self.n_head, self.block_size, self.epochs, self.batch) < 1:
            raise UserError("PretrainConfig sizes must be >= 1")
        if not self.lr > 0:
            raise UserError(f"PretrainConfig.lr must be > 0, got {self.lr}")


def encode_qa(tok: Tokenizer, question: str, answer: str, mask_question: bool = True,
              ) -> tuple[list[int], list[int]]:
    """(ids, labels) of "prompt answer<eos>"; labels equal ids except IGNORE on the prompt when
    `mask_question` (TOFU's answer-only loss). Position t's logits predict labels[t + 1]."""
    q = tok.encode(prompt(question))
    a = tok.encode(answer) + [tok.eos_ids[0]]
    ids = q + a
    labels = ids.copy() if not mask_question else [IGNORE] * len(q) + a
    return ids, labels


def encode_text(tok: Tokenizer, text: str) -> tuple[list[int], list[int]]:
    """(ids, labels) of "<eos>text<eos>": a plain sentence with a loss on every token, the leading
    end-of-text standing for a document start."""
    ids = [tok.eos_ids[0]] + tok.encode(text) + [tok.eos_ids[0]]
    return ids, [IGNORE] + ids[1:]


def collate(pairs: Sequence[tuple[list[int], list[int]]], pad: int, max_len: int,
            ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Right-padded (ids, labels, key_mask), each (B, T); sequences longer than max_len keep their
    first max_len tokens."""
    T = min(max(len(p[0]) for p in pairs), max_len)  # noqa: N806
    ids = torch.full((len(pairs), T), pad, dtype=torch.long)
    labels = torch.full((len(pairs), T), IGNORE, dtype=torch.long)
    mask = torch.zeros((len(pairs), T), dtype=torch.bool)
    for i, (x, y) in enumerate(pairs):
        n = min(len(x), T)
        ids[i, :n] = torch.as_tensor(x[:n])
        labels[i, :n] = torch.as_tensor(y[:n])
        mask[i, :n] = True
    return ids, labels, mask


def qa_batch(model: CausalLM, qas: Sequence[tuple[str, str]], mask_question: bool = True,
             ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(ids, labels, key_mask) for (question, answer) pairs, fitted to the model's context."""
    tok = model.tokenizer
    return collate([encode_qa(tok, q, a, mask_question) for q, a in qas], tok.pad_id, model.max_length)


def logits_of(model: CausalLM, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Teacher-forced logits (B, T, V) of right-padded ids (padding sits after the real tokens, so
    causal attention never sees it)."""
    positions = torch.arange(ids.shape[1]).expand_as(ids)
    return model(ids, positions, mask)


def labelled_logits(model: CausalLM, ids: torch.Tensor, mask: torch.Tensor, labels: torch.Tensor,
                    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(logits (N, V), targets (N,), row of each (N,)) at the N positions whose next token is labelled:
    the same numbers as `logits_of(...)[:, :-1][labels[:, 1:] != IGNORE]`. On a TinyGPT the output head
    (the tied embedding: ~60% of the FLOPs with a 9.7k-word vocabulary) runs only at those positions,
    which halves the cost of answer-only training and scoring."""
    sel = labels[:, 1:] != IGNORE  # (B, T-1)
    rows = sel.nonzero(as_tuple=True)[0]
    if isinstance(model, TinyGPT):
        # TinyGPT.forward up to the head (core/models/gpt.py), then the tied head on selected rows only
        x = model.wte(ids) + model.wpe(torch.arange(ids.shape[1]).expand_as(ids))  # (B, T, d)
        for i, block in enumerate(model.blocks):
            x = block(x, mask, None, i)
        logits = F.linear(model.ln_f(x[:, :-1][sel]), model.wte.weight)  # (N, V)
    else:
        logits = logits_of(model, ids, mask)[:, :-1][sel]
    return logits, labels[:, 1:][sel], rows


def summed_nll(model: CausalLM, ids: torch.Tensor, mask: torch.Tensor, labels: torch.Tensor,
               ) -> tuple[torch.Tensor, torch.Tensor]:
    """(NLL summed over each row's labelled tokens (B,), their number (B,)): `losses.sequence_nll` of the
    full logits, with the head evaluated only where a label is."""
    logits, targets, rows = labelled_logits(model, ids, mask, labels)
    nll = F.cross_entropy(logits.float(), targets, reduction="none")  # (N,)
    total = torch.zeros(ids.shape[0], dtype=nll.dtype).index_add(0, rows, nll)
    return total, torch.bincount(rows, minlength=ids.shape[0])


def answer_nll(model: CausalLM, ids: torch.Tensor, mask: torch.Tensor, labels: torch.Tensor,
               ) -> torch.Tensor:
    """Mean NLL per sequence over its labelled tokens (B,): `token_nll(logits_of(model, ids, mask),
    labels)` with the head evaluated only where a label is."""
    total, count = summed_nll(model, ids, mask, labels)
    return total / count.clamp_min(1)


def world_tokenizer(qas: Sequence[QA], vocab_size: int = 16384) -> Tokenizer:
    """A word-level tokenizer over every text the world holds (questions, answers, paraphrases,
    perturbations, refusal templates), so no evaluation text falls back to <unk>."""
    texts = [prompt("")] + idk_templates()
    for r in qas:
        texts += [r["question"], r["answer"], r.get("paraphrased_answer", ""), r.get("original_answer", "")]
        texts += list(r.get("perturbed_answer", []))
    return Tokenizer.train([t for t in texts if t], kind="word", vocab_size=vocab_size)


def _fingerprint(train: Sequence[QA], vocab: Sequence[QA], cfg: PretrainConfig, texts: Sequence[str] = (),
                 ) -> str:
    """Cache key: the data, the config and the code that trains (so an edited recipe retrains)."""
    h = hashlib.sha256(repr(dataclasses.asdict(cfg)).encode())
    for t in texts:
        h.update(f"x\0{t}\n".encode())
    for fn in (pretrain, _length_batches, encode_qa, encode_text, collate, labelled_logits, summed_nll,
               answer_nll, world_tokenizer, prompt, idk_templates, TinyGPT):
        h.update(inspect.getsource(fn).encode())
    for tag, rows in (("t", train), ("v", vocab)):
        for r in rows:
            h.update(f"{tag}\0{r['question']}\0{r['answer']}\0{r.get('paraphrased_answer', '')}\0"
                     f"{r.get('perturbed_answer', '')}\0{r.get('original_answer', '')}\n".encode())
    return h.hexdigest()[:16] + f"-v{_CACHE_VERSION}"


def pretrain(train: Sequence[QA], config: PretrainConfig | None = None, vocab: Sequence[QA] = (),
             cache: bool = True, texts: Sequence[str] = ()) -> TinyGPT:
    """A fresh TinyGPT fine-tuned on `train` (question -> answer, loss on the answer); the tokenizer also
    covers `vocab` (evaluation texts). `texts` are plain sentences learned with a loss on every token and
    no question (the reproduction passes the refusal templates: the phrases a pretrained LLM already
    knows). Cached under cache_dir() by (data, config, code)."""
    from iclr25.core.runtime import atomic_write, cache_dir, progress, timer
    cfg = config or PretrainConfig()
    if not train:
        raise UserError("pretrain needs at least one question-answer pair")
    key = _fingerprint(train, vocab, cfg, texts)
    path = cache_dir() / "llm_unlearning" / f"tinygpt-{key}.pt"
    if cache and path.is_file():
        try:
            return TinyGPT.from_state(path.read_bytes())
        except (RuntimeError, KeyError, ValueError, OSError):
            pass  # a damaged cache entry is retrained
    torch.manual_seed(cfg.seed)
    tok = world_tokenizer(list(train) + list(vocab))
    model = tiny_gpt(TinyGPTConfig(vocab_size=tok.vocab_size, block_size=cfg.block_size, n_layer=cfg.n_layer,
                                   n_head=cfg.n_head, d_model=cfg.d_model, tokenizer="word"), tok)
    pairs = [encode_qa(tok, r["question"], r["answer"]) for r in train] + [encode_text(tok, t) for t in texts]
    too_long = [i for i, (x, _) in enumerate(pairs) if len(x) > cfg.block_size]
    if too_long:
        raise UserError(f"training pair {too_long[0]} has {len(pairs[too_long[0]][0])} tokens; "
                        f"block_size is {cfg.block_size}")
    rng = np.random.default_rng(cfg.seed)
    lengths = np.array([len(x) for x, _ in pairs])
    steps_per_epoch = -(-len(pairs) // cfg.batch)
    total = cfg.epochs * steps_per_epoch
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay, betas=(0.9, 0.98))
    warm = steps_per_epoch
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warm) * 0.5 * (1 + np.cos(np.pi * min(s, total) / total)))
    model.train()
    losses: list[float] = []
    with timer() as t:
        for _ in progress(range(cfg.epochs), "fine-tuning TinyGPT", total=cfg.epochs):
            for rows in _length_batches(lengths, cfg.batch, rng):
                ids, labels, mask = collate([pairs[i] for i in rows], tok.pad_id, cfg.block_size)
                loss = answer_nll(model, ids, mask, labels).mean()
                opt.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                sched.step()
                losses.append(float(loss.detach()))
    model.eval().requires_grad_(False)
    epoch_loss = np.asarray(losses).reshape(cfg.epochs, -1).mean(1)
    model.train_info = {"final_loss": float(epoch_loss[-1]), "train_s": t["s"], "params": model.n_params,
                        "train_pairs": len(pairs), "epoch_loss": [round(float(x), 4) for x in epoch_loss]}
    if cache:
        with atomic_write(path) as f:
            f.write(model.state())
    return model


def _length_batches(lengths: np.ndarray, batch: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Shuffled mini-batches of similar lengths (sorted within random pools of 8 batches), so little
    compute goes to padding."""
    order = rng.permutation(len(lengths))
    pool = 8 * batch
    out = []
    for s in range(0, len(order), pool):
        chunk = order[s:s + pool]
        chunk = chunk[np.argsort(lengths[chunk], kind="stable")]
        out += [chunk[i:i + batch] for i in range(0, len(chunk), batch)]
    return [out[i] for i in rng.permutation(len(out))]


def token_nll(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Mean NLL per sequence over its labelled tokens (B,): logits (B, T, V) at t predict labels[t + 1]."""
    n = (labels[:, 1:] != IGNORE).sum(1).clamp_min(1)
    return sequence_nll(logits, labels) / n


@dataclass(frozen=True)
class FinetuneConfig:
    """Fine-tuning any CausalLM (a pretrained one: SmolLM2) on question -> answer pairs, loss on the answer
    (the paper's recipe for its retain model: AdamW, weight decay 0.01, linear warm-up then decay)."""

    epochs: int = 2
    batch: int = 8
    lr: float = 5e-5
    weight_decay: float = 0.01
    seed: int = 0


def finetune_qa(model: CausalLM, rows: Sequence[QA], config: FinetuneConfig | None = None,
                description: str = "fine-tuning") -> CausalLM:
    """A fine-tuned copy of `model` (the input is untouched); `model.train_info` gets the loss per epoch."""
    import copy

    from iclr25.core.runtime import progress, timer
    cfg = config or FinetuneConfig()
    if not rows:
        raise UserError("fine-tuning needs at least one question-answer pair")
    tok = model.tokenizer
    net = copy.deepcopy(model).train().requires_grad_(True)
    pairs = [encode_qa(tok, r["question"], r["answer"]) for r in rows]
    rng = np.random.default_rng(cfg.seed)
    torch.manual_seed(cfg.seed)
    lengths = np.array([len(x) for x, _ in pairs])
    steps_per_epoch = -(-len(pairs) // cfg.batch)
    total, warm = cfg.epochs * steps_per_epoch, max(1, steps_per_epoch // 2)
    opt = torch.optim.AdamW([p for p in net.parameters() if p.requires_grad], lr=cfg.lr,
                            weight_decay=cfg.weight_decay)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: (s + 1) / warm if s < warm else max(0.0, (total - s) / max(1, total - warm)))
    per_epoch: list[float] = []
    with timer() as t:
        for _ in progress(range(cfg.epochs), description, total=cfg.epochs):
            losses: list[float] = []
            for b in _length_batches(lengths, cfg.batch, rng):
                ids, labels, mask = collate([pairs[i] for i in b], tok.pad_id, net.max_length)
                loss = answer_nll(net, ids, mask, labels).mean()
                opt.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
                opt.step()
                sched.step()
                losses.append(float(loss.detach()))
            per_epoch.append(float(np.mean(losses)))
    net.eval().requires_grad_(False)
    net.train_info = {"epoch_loss": [round(x, 4) for x in per_epoch], "train_s": t["s"],
                      "params": net.n_params, "train_pairs": len(pairs)}
    return net
