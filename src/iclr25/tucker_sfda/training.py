"""Source side: train the dense model (CE with label smoothing 0.1, as SHOT; with MAPU's imputer when
asked), fine-tune the decomposed model on source for a few epochs, choose what adapts on the target,
and predict / score (macro-F1)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from iclr25.core.errors import UserError
from iclr25.core.runtime import progress
from iclr25.tucker_sfda.data import Domain
from iclr25.tucker_sfda.hosts import mask_segments
from iclr25.tucker_sfda.lora import lora_modules, subset_modules
from iclr25.tucker_sfda.model import AdaTimeCNN, TemporalImputer
from iclr25.tucker_sfda.tucker import tucker_modules

TUNE_MODES = ("core", "core+bn", "all", "bn", "lora", "subset")


@dataclass(frozen=True)
class SourceConfig:
    """Source training (MAPU repo, HAR): Adam lr 1e-3, wd 1e-4, batch 32; label smoothing 0.1;
    15 epochs (issue protocol); `finetune_epochs` after decomposition."""

    epochs: int = 15
    lr: float = 1e-3
    weight_decay: float = 1e-4
    batch_size: int = 32
    label_smoothing: float = 0.1
    finetune_epochs: int = 2
    imputer: bool = False  # train MAPU's temporal imputer jointly (needed by method="mapu")


def as_domain(data: Domain | tuple, need_labels: bool = False, what: str = "data") -> Domain:
    d = data if isinstance(data, Domain) else Domain(*data, name=what)
    if need_labels and d.y is None:
        raise UserError(f"{what}: labels y are required")
    return d


def batches(n: int, batch_size: int, g: torch.Generator, shuffle: bool = True) -> Iterator[torch.Tensor]:
    order = torch.randperm(n, generator=g) if shuffle else torch.arange(n)
    for i in range(0, n, batch_size):
        yield order[i:i + batch_size]


def _check_classes(model: AdaTimeCNN, d: Domain, what: str) -> None:
    if d.X.shape[1] != model.config.C:
        raise UserError(f"{what}: {d.X.shape[1]} channels, the model expects {model.config.C}")
    if d.y is not None and d.y.max() >= model.config.classes:
        raise UserError(f"{what}: label {int(d.y.max())} >= the model's {model.config.classes} classes")


def _supervised_epochs(model: AdaTimeCNN, d: Domain, cfg: SourceConfig, epochs: int, seed: int,
                       imputer: TemporalImputer | None, desc: str) -> None:
    params = [p for p in model.parameters() if p.requires_grad]
    if imputer is not None:
        params += list(imputer.parameters())
    opt = torch.optim.Adam(params, lr=cfg.lr, weight_decay=cfg.weight_decay)
    X, y = torch.from_numpy(d.X), torch.from_numpy(d.y)
    g = torch.Generator().manual_seed(seed)
    model.train()
    for _ in progress(range(epochs), desc, total=epochs):
        for idx in batches(len(X), cfg.batch_size, g):
            if len(idx) < 2:  # BatchNorm needs two series in train mode
                continue
            feat, seq = model.extract(X[idx])
            loss = F.cross_entropy(model.classifier(feat), y[idx], label_smoothing=cfg.label_smoothing)
            if imputer is not None:  # MAPU pretraining: CE + MSE(imputer(f(mask(x))), f(x))
                _, seq_masked = model.extract(mask_segments(X[idx], g))
                loss = loss + F.mse_loss(imputer(seq_masked.detach()), seq)
            opt.zero_grad()
            loss.backward()
            opt.step()


def train_source(src: Domain | tuple, cfg: SourceConfig | None = None, seed: int = 0,
                 **model_kwargs) -> tuple[AdaTimeCNN, TemporalImputer | None]:
    """The dense source model (and MAPU's imputer when `cfg.imputer`). `model_kwargs` go to AdaTimeCNN
    (mid, final, k, stride, dropout); C, T and the number of classes come from the data."""
    cfg = cfg or SourceConfig()
    d = as_domain(src, need_labels=True, what="source")
    if cfg.epochs < 1:
        raise UserError(f"source epochs must be >= 1, got {cfg.epochs}")
    classes = max(2, int(d.y.max()) + 1)
    torch.manual_seed(seed)
    model = AdaTimeCNN(d.X.shape[1], d.X.shape[2], classes, **model_kwargs)
    imputer = TemporalImputer(model.config.final) if cfg.imputer else None
    _supervised_epochs(model, d, cfg, cfg.epochs, seed, imputer, "source training")
    model.eval()
    return model, imputer


def finetune_source(dec: AdaTimeCNN, src: Domain | tuple, epochs: int = 2, cfg: SourceConfig | None = None,
                    seed: int = 0, imputer: TemporalImputer | None = None) -> AdaTimeCNN:
    """Recover the accuracy lost to HOSVD truncation: a few epochs of supervised source training of all
    factors, cores, BN and the head of the decomposed model (in place; also returned)."""
    cfg = cfg or SourceConfig()
    d = as_domain(src, need_labels=True, what="source")
    _check_classes(dec, d, "source")
    if epochs < 0:
        raise UserError(f"finetune epochs must be >= 0, got {epochs}")
    for p in dec.parameters():
        p.requires_grad_(True)
    _supervised_epochs(dec, d, cfg, epochs, seed, imputer, "source fine-tuning")
    dec.eval()
    return dec


def select_trainable(model: nn.Module, mode: str = "core") -> list[nn.Parameter]:
    """Freeze everything except: "core" the Tucker cores G; "core+bn" cores and BN affine; "all" every
    feature-extractor parameter (full fine-tuning); "bn" BN affine only; "lora" the LoRA factors; "subset"
    the masked update of a random weight subset (`add_random_subset`). The classifier head stays frozen in
    every mode (SHOT's hypothesis transfer). Returns the trainable list."""
    if mode not in TUNE_MODES:
        raise UserError(f"unknown tune mode {mode!r}; choose from {', '.join(TUNE_MODES)}")
    for p in model.parameters():
        p.requires_grad_(False)
    chosen: list[nn.Parameter] = []
    if mode in ("core", "core+bn"):
        cores = tucker_modules(model)
        if not cores:
            raise UserError(f"tune mode {mode!r} needs a decomposed model (tucker_reparameterize, or the "
                            f"`decompose` command)")
        chosen += [m.core.weight for m in cores]
    if mode in ("core+bn", "bn"):
        chosen += [p for m in model.modules() if isinstance(m, nn.BatchNorm1d) for p in m.parameters()]
    if mode == "lora":
        lo = lora_modules(model)
        if not lo:
            raise UserError("tune mode 'lora' needs a model wrapped with add_lora")
        chosen += [p for m in lo for p in (m.lora_A, m.lora_B)]
    if mode == "subset":
        sub = subset_modules(model)
        if not sub:
            raise UserError("tune mode 'subset' needs a model wrapped with add_random_subset")
        chosen += [m.subset_delta for m in sub]
    if mode == "all":
        head = {id(p) for p in model.classifier.parameters()}
        chosen += [p for p in model.parameters() if id(p) not in head]
    for p in chosen:
        p.requires_grad_(True)
    return chosen


@torch.no_grad()
def predict_logits(model: AdaTimeCNN, X: np.ndarray | torch.Tensor, batch_size: int = 256) -> torch.Tensor:
    """Logits (N, classes) in eval mode (BN running statistics, no dropout)."""
    was = model.training
    model.eval()
    X = torch.as_tensor(X, dtype=torch.float32)
    out = torch.cat([model(X[i:i + batch_size]) for i in range(0, len(X), batch_size)])
    model.train(was)
    return out


def macro_f1(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Macro-averaged F1 over the classes present in either array (scikit-learn's default)."""
    from sklearn.metrics import f1_score
    return float(f1_score(np.asarray(y_true), np.asarray(y_pred), average="macro"))


def evaluate(model: AdaTimeCNN, d: Domain) -> float:
    """Macro-F1 of `model` on a labelled domain."""
    d = as_domain(d, need_labels=True, what="evaluation data")
    _check_classes(model, d, d.name or "evaluation data")
    return macro_f1(d.y, predict_logits(model, d.X).argmax(1).numpy())


def clone(model: nn.Module) -> nn.Module:
    return copy.deepcopy(model)
