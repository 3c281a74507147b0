"""`unlearn`: fine-tune a model away from a forget set with one of the 13 methods (forget loss + optional
regulariser), the paper's recipe: AdamW (weight decay 0.01), batch 32, 5 epochs, linear warm-up over the
first epoch then linear decay, beta = 0.1, c_f = 0.1 for ME+GD and 1 otherwise, c_r = 1. Each forget
example is paired with the retain example (idx + randint) mod |D_R|, and IDK targets are refusal templates
drawn at random. `continual_unlearn` runs tasks in sequence, each starting from the previous model."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from iclr25.core.errors import UserError
from iclr25.core.models import CausalLM, Tokenizer
from iclr25.llm_unlearning import losses as L  # noqa: N812
from iclr25.llm_unlearning.data import QA, check_qas, idk_templates
from iclr25.llm_unlearning.model import collate, encode_qa, logits_of

FORGET_LOSSES = ("ga", "npo", "me", "idk", "dpo")
REGULARISERS = ("gd", "kl", "ap")
METHODS = ("ga", "ga+gd", "ga+kl", "npo", "npo+gd", "npo+kl", "me", "me+gd",
           "idk", "idk+gd", "dpo", "dpo+gd", "idk+ap")
REFERENCES = ("previous", "initial")


@dataclass(frozen=True)
class UnlearnConfig:
    """One unlearning run (defaults: the paper's; lr scaled to the tiny model by the protocol)."""

    method: str = "me+gd"
    beta: float = 0.1
    epochs: int = 5
    lr: float = 1e-5
    batch: int = 32
    weight_decay: float = 0.01
    warmup_epochs: int = 1
    c_f: float | None = None  # None: 0.1 for ME+GD, 1 otherwise
    c_r: float = 1.0
    seed: int = 0

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise UserError(f"unknown method {self.method!r}; choose from {', '.join(METHODS)}")
        if not (np.isfinite(self.beta) and self.beta > 0):
            raise UserError(f"beta must be a finite number > 0, got {self.beta}")
        if not (np.isfinite(self.lr) and self.lr > 0):
            raise UserError(f"lr must be a finite number > 0, got {self.lr}")
        if self.epochs < 1 or self.batch < 1 or self.warmup_epochs < 0:
            raise UserError(f"epochs and batch must be >= 1 and warmup_epochs >= 0, got {self.epochs}, "
                            f"{self.batch}, {self.warmup_epochs}")
        for name in ("c_f", "c_r", "weight_decay"):
            v = getattr(self, name)
            if v is not None and not (np.isfinite(v) and v >= 0):
                raise UserError(f"{name} must be a finite number >= 0, got {v}")

    @property
    def forget_loss(self) -> str:
        return self.method.split("+")[0]

    @property
    def regulariser(self) -> str | None:
        parts = self.method.split("+")
        return parts[1] if len(parts) > 1 else None

    @property
    def coefficient(self) -> float:
        return self.c_f if self.c_f is not None else (0.1 if self.method == "me+gd" else 1.0)

    @property
    def needs_reference(self) -> bool:
        return self.forget_loss in ("npo", "dpo") or self.regulariser == "kl"


def _tensors(tok: Tokenizer, pairs: Sequence[tuple[str, str]], mask_question: bool, max_len: int):
    return collate([encode_qa(tok, q, a, mask_question) for q, a in pairs], tok.pad_id, max_len)


def unlearning_loss(model: CausalLM, ref: CausalLM | None, cfg: UnlearnConfig, forget: Sequence[QA],
                    retain: Sequence[QA], idk_f: Sequence[str], idk_r: Sequence[str]) -> torch.Tensor:
    """L = c_f L_forget(forget batch) + c_r L_reg(paired retain batch) for one step."""
    tok, T = model.tokenizer, model.max_length  # noqa: N806
    fq = [(r["question"], r["answer"]) for r in forget]
    f_idk = [(r["question"], a) for r, a in zip(forget, idk_f, strict=True)]

    def run(m: CausalLM, pairs, mask_question=True):
        ids, labels, mask = _tensors(tok, pairs, mask_question, T)
        return logits_of(m, ids, mask), labels, mask

    def ref_logits(pairs, mask_question=True):
        with torch.no_grad():
            return run(ref, pairs, mask_question)[0]

    kind = cfg.forget_loss
    if kind == "ga":
        lf = L.ga_loss(*run(model, fq)[:2])
    elif kind == "me":
        lf = L.me_loss(*run(model, fq, mask_question=False)[:2])  # question tokens included
    elif kind == "idk":
        lf = L.idk_loss(*run(model, f_idk)[:2])
    elif kind == "npo":
        logits, labels, _ = run(model, fq)
        lf = L.npo_loss(logits, labels, ref_logits(fq), cfg.beta)
    else:  # dpo
        logits, labels, _ = run(model, fq)
        idk_logits, idk_labels, _ = run(model, f_idk)
        lf = L.dpo_loss(idk_logits, idk_labels, logits, labels, ref_logits(f_idk), ref_logits(fq), cfg.beta)
    loss = cfg.coefficient * lf
    reg = cfg.regulariser
    if reg is None:
        return loss
    rq = [(r["question"], r["answer"]) for r in retain]
    logits, labels, mask = run(model, rq)
    if reg == "gd":
        lr_ = L.gd_loss(logits, labels)
    elif reg == "kl":
        lr_ = L.kl_loss(logits, ref_logits(rq), mask)
    else:  # ap
        r_idk = [(r["question"], a) for r, a in zip(retain, idk_r, strict=True)]
        lr_ = L.ap_loss(logits, labels, *run(model, r_idk)[:2], beta=cfg.beta)
    return loss + cfg.c_r * lr_


def _check_tokenizer(model: CausalLM, tok: Tokenizer | None) -> None:
    if not isinstance(model, CausalLM):
        raise UserError(f"model must be an iclr25.core.models CausalLM, got {type(model).__name__}")
    if tok is not None and tok is not model.tokenizer and tok.to_json() != model.tokenizer.to_json():
        raise UserError("tok is not the model's tokenizer")


def unlearn(model: CausalLM, tok: Tokenizer | None, forget: Sequence[QA], retain: Sequence[QA],
            method: str = "me+gd", beta: float = 0.1, epochs: int = 5, lr: float = 1e-5,
            ref: str = "previous", initial: CausalLM | None = None, config: UnlearnConfig | None = None,
            on_step: Callable[[int, float], None] | None = None) -> CausalLM:
    """A copy of `model` after unlearning `forget` while keeping `retain` (the input is untouched).

    `ref` names the reference of NPO / DPO / KL: "previous" (the model passed in) or "initial" (`initial`,
    the model before a sequence of tasks; the model passed in when None). `config` overrides the
    individual arguments. `on_step(step, loss)` observes training."""
    _check_tokenizer(model, tok)
    cfg = config or UnlearnConfig(method=method, beta=beta, epochs=epochs, lr=lr)
    if ref not in REFERENCES:
        raise UserError(f"unknown reference {ref!r}; choose from {', '.join(REFERENCES)}")
    forget = check_qas(forget, "forget set")
    retain = check_qas(retain, "retain set") if cfg.regulariser else list(retain or [])
    templates = idk_templates()
    reference = None
    if cfg.needs_reference:
        reference = (initial if ref == "initial" and initial is not None else model)
        reference = copy.deepcopy(reference).eval().requires_grad_(False)
    net = copy.deepcopy(model)
    net.train().requires_grad_(True)
    rng = np.random.default_rng(cfg.seed)
    torch.manual_seed(cfg.seed)
    steps_per_epoch = -(-len(forget) // cfg.batch)
    total, warm = cfg.epochs * steps_per_epoch, cfg.warmup_epochs * steps_per_epoch
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    # HF's linear schedule: warm-up to lr over `warm` steps, then linear decay to 0 at `total`
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: (s + 1) / warm if s < warm else max(0.0, (total - s) / max(1, total - warm)))
    step = 0
    for _ in range(cfg.epochs):
        order = rng.permutation(len(forget))
        for s in range(0, len(order), cfg.batch):
            idx = order[s:s + cfg.batch]
            batch_f = [forget[i] for i in idx]
            batch_r = ([retain[(i + rng.integers(len(retain))) % len(retain)] for i in idx]
                       if cfg.regulariser else [])
            idk_f = [templates[j] for j in rng.integers(len(templates), size=len(idx))]
            idk_r = [templates[j] for j in rng.integers(len(templates), size=len(batch_r))]
            loss = unlearning_loss(net, reference, cfg, batch_f, batch_r, idk_f, idk_r)
            if not torch.isfinite(loss):
                raise UserError(f"unlearning loss became {float(loss)} at step {step}; lower lr")
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            if on_step is not None:
                on_step(step, float(loss.detach()))
            step += 1
    return net.eval().requires_grad_(False)


def continual_unlearn(model: CausalLM, tok: Tokenizer | None, tasks: Sequence[Sequence[QA]],
                      retain: Sequence[QA], method: str = "me+gd", ref: str = "previous",
                      config: UnlearnConfig | None = None,
                      after_task: Callable[[int, CausalLM], None] | None = None) -> CausalLM:
    """Unlearn `tasks` one after another, each run starting from the previous one's model. With NPO, DPO
    or KL, `ref="previous"` moves the reference to the model before each task (the paper's default) and
    `ref="initial"` fixes it to `model` (Fig. 6c). `after_task(i, model)` sees each intermediate model."""
    if not tasks:
        raise UserError("continual_unlearn needs at least one task")
    cfg = config or UnlearnConfig(method=method)
    current = model
    for i, task in enumerate(tasks):
        current = unlearn(current, tok, task, retain, ref=ref, initial=model,
                          config=UnlearnConfig(**{**cfg.__dict__, "seed": cfg.seed + i}))
        if after_task is not None:
            after_task(i, current)
    return current
