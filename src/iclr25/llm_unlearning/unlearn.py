"""`unlearn`: fine-tune a model away from a forget set with one of the 13 methods (forget loss + optional
regulariser), the paper's recipe: AdamW (weight decay 0.01), batch 32, 5 epochs, linear warm-up over the
first epoch then linear decay, beta = 0.1, c_f = 0.1 for ME+GD and 1 otherwise, c_r = 1. Each forget
example is paired, once per run, with the retain example (idx + randint) mod |D_R| and one refusal
template (the official data module seeds both draws by idx, so they stay fixed across epochs).
`continual_unlearn` runs tasks in sequence, each starting from the previous model."""

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
from iclr25.llm_unlearning.model import collate, encode_qa, labelled_logits, logits_of, summed_nll

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


def _order(batch: tuple[torch.Tensor, torch.Tensor, torch.Tensor]):
    """collate's (ids, labels, mask) as the (ids, mask, labels) that model.summed_nll takes."""
    ids, labels, mask = batch
    return ids, mask, labels


def unlearning_loss(model: CausalLM, ref: CausalLM | None, cfg: UnlearnConfig, forget: Sequence[QA],
                    retain: Sequence[QA], idk_f: Sequence[str], idk_r: Sequence[str],
                    encoded: dict | None = None) -> torch.Tensor:
    """L = c_f L_forget(forget batch) + c_r L_reg(paired retain batch) for one step. `encoded` memoises
    tokenised pairs across steps (one dict per run)."""
    tok, T = model.tokenizer, model.max_length  # noqa: N806
    memo = {} if encoded is None else encoded
    fq = [(r["question"], r["answer"]) for r in forget]
    f_idk = [(r["question"], a) for r, a in zip(forget, idk_f, strict=True)]

    def tensors(pairs, mask_question):
        enc = []
        for q, a in pairs:
            key = (q, a, mask_question)
            if key not in memo:
                memo[key] = encode_qa(tok, q, a, mask_question)
            enc.append(memo[key])
        return collate(enc, tok.pad_id, T)

    def nll(m: CausalLM, pairs) -> tuple[torch.Tensor, torch.Tensor]:
        # (summed answer NLL, answer tokens) per pair; the head runs at answer positions only
        return summed_nll(m, *_order(tensors(pairs, True)))

    def ref_nll(pairs) -> torch.Tensor:
        with torch.no_grad():
            return nll(ref, pairs)[0]

    def mean_token(pairs) -> torch.Tensor:  # the causal-LM loss of the batch (HF `outputs.loss`)
        total, n = nll(model, pairs)
        return total.sum() / n.sum().clamp_min(1)

    kind = cfg.forget_loss
    if kind == "ga":  # losses.ga_loss
        lf = -mean_token(fq)
    elif kind == "me":  # losses.me_loss over question and answer tokens
        lf = L.me_of_logits(labelled_logits(model, *_order(tensors(fq, False)))[0])
    elif kind == "idk":  # losses.idk_loss
        lf = mean_token(f_idk)
    elif kind == "npo":
        lf = L.npo_of_nll(nll(model, fq)[0], ref_nll(fq), cfg.beta)
    else:  # dpo
        lf = L.dpo_of_nll(nll(model, f_idk)[0], nll(model, fq)[0], ref_nll(f_idk), ref_nll(fq), cfg.beta)
    loss = cfg.coefficient * lf
    reg = cfg.regulariser
    if reg is None:
        return loss
    rq = [(r["question"], r["answer"]) for r in retain]
    if reg == "gd":  # losses.gd_loss
        lr_ = mean_token(rq)
    elif reg == "kl":  # KL(p_ref || p_theta) over every real position: full logits
        ids, _, mask = tensors(rq, True)
        with torch.no_grad():
            ref_full = logits_of(ref, ids, mask)
        lr_ = L.kl_loss(logits_of(model, ids, mask), ref_full, mask)
    else:  # ap
        r_idk = [(r["question"], a) for r, a in zip(retain, idk_r, strict=True)]
        lr_ = L.ap_of_nll(nll(model, rq)[0], nll(model, r_idk)[0], cfg.beta)
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
    # As the official data module: each forget example i gets, once for the whole run, its retain partner
    # (i + randint) mod |D_R| and one refusal template, shared by its forget-IDK and retain-IDK pairs
    partner = ((np.arange(len(forget)) + rng.integers(len(retain), size=len(forget))) % len(retain)
               if cfg.regulariser else None)
    template = rng.integers(len(templates), size=len(forget))
    encoded: dict = {}
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
            batch_r = [retain[partner[i]] for i in idx] if cfg.regulariser else []
            idk_f = [templates[template[i]] for i in idx]
            idk_r = idk_f if cfg.regulariser else []
            loss = unlearning_loss(net, reference, cfg, batch_f, batch_r, idk_f, idk_r, encoded)
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
