"""Source-free target adaptation: train the chosen parameters (SFT: the Tucker cores only) of a copy of
the source model with a host objective on unlabelled target series; the classifier head stays frozen."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from iclr25.core.errors import UserError
from iclr25.core.runtime import progress
from iclr25.tucker_sfda.data import Domain
from iclr25.tucker_sfda.efficiency import trainable_count
from iclr25.tucker_sfda.hosts import (
    HOST_DEFAULTS,
    METHODS,
    AaDConfig,
    FeatureBank,
    MAPUConfig,
    NRCConfig,
    ShotConfig,
    aad_alpha,
    aad_loss,
    information_maximisation,
    mask_segments,
    nrc_loss,
    shot_loss,
    shot_pseudo_labels,
    tov_loss,
)
from iclr25.tucker_sfda.model import AdaTimeCNN, TemporalImputer
from iclr25.tucker_sfda.training import as_domain, batches, clone, select_trainable


@dataclass(frozen=True)
class AdaptConfig:
    """Target side (MAPU repo, HAR; issue protocol): Adam, batch 32, weight decay 1e-4, 10 epochs,
    lr 1e-4 for every host (MAPU uses 1e-5 for NRC over 100 epochs; 10 epochs at 1e-5 leave the model
    at the source). BN layers run in train mode (batch statistics, running stats updated), as in MAPU."""

    epochs: int = 10
    lr: float = 1e-4
    weight_decay: float = 1e-4
    batch_size: int = 32


@dataclass
class AdaptResult:
    model: AdaTimeCNN
    trainable: int  # number of adapted parameters
    losses: list[float] = field(default_factory=list)  # mean loss per epoch


HostConfig = ShotConfig | NRCConfig | AaDConfig | MAPUConfig


def _check(model: AdaTimeCNN, d: Domain, method: str, host: HostConfig | None, cfg: AdaptConfig,
           imputer: TemporalImputer | None) -> HostConfig:
    if method not in METHODS:
        raise UserError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
    if d.X.shape[1] != model.config.C:
        raise UserError(f"target has {d.X.shape[1]} channels, the model expects {model.config.C}")
    if len(d) < 2:
        raise UserError(f"target: need at least 2 series, got {len(d)}")
    if cfg.epochs < 1 or cfg.batch_size < 2 or not cfg.lr > 0:
        raise UserError(f"adapt: epochs >= 1, batch_size >= 2 and lr > 0 needed, got {cfg}")
    host = host or HOST_DEFAULTS[method]
    expected = type(HOST_DEFAULTS[method])
    if not isinstance(host, expected):
        raise UserError(f"method {method!r} takes a {expected.__name__}, got {type(host).__name__}")
    if method == "mapu" and imputer is None:
        raise UserError("method 'mapu' needs the temporal imputer trained on source "
                        "(SourceConfig(imputer=True), or train-source --imputer)")
    return host


@torch.no_grad()
def _pass(model: AdaTimeCNN, X: torch.Tensor, bs: int = 256) -> tuple[torch.Tensor, torch.Tensor]:
    """Features and softmax scores of every target series, in eval mode."""
    was = model.training
    model.eval()
    feats = torch.cat([model.extract(X[i:i + bs])[0] for i in range(0, len(X), bs)])
    model.train(was)
    return feats, model.classifier(feats).softmax(1)


def adapt(model: AdaTimeCNN, target: Domain | tuple | np.ndarray, method: str = "shot", tune: str = "core",
          cfg: AdaptConfig | None = None, host: HostConfig | None = None,
          imputer: TemporalImputer | None = None, seed: int = 0) -> AdaptResult:
    """Adapt a copy of `model` to unlabelled `target` series (N, C, T) with the host `method` ("shot",
    "shot_im", "nrc", "aad", "mapu"), training only the parameters `tune` selects ("core" is SFT; "all"
    is full fine-tuning; "bn", "lora", "subset", "core+bn" are baselines). Labels in `target` are ignored.

    >>> from iclr25.tucker_sfda import AdaTimeCNN, tucker_reparameterize
    >>> dec = tucker_reparameterize(AdaTimeCNN(3, 32, 2, mid=4, final=8), rf=2)
    >>> res = adapt(dec, np.random.default_rng(0).normal(size=(8, 3, 32)), cfg=AdaptConfig(epochs=1))
    >>> res.trainable  # cores: 2·3·5 + 4·2·8 + 4·4·8
    222
    """
    cfg = cfg or AdaptConfig()
    d = Domain(target, name="target") if isinstance(target, np.ndarray) else as_domain(target, what="target")
    host = _check(model, d, method, host, cfg, imputer)
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    model = clone(model)
    params = select_trainable(model, tune)
    if imputer is not None:
        imputer = clone(imputer).requires_grad_(False)  # frozen on target (MAPU)
    opt = torch.optim.Adam(params, lr=cfg.lr, weight_decay=cfg.weight_decay)
    X = torch.from_numpy(d.X)
    n = len(X)
    n_iter = cfg.epochs * -(-n // cfg.batch_size)
    bank = FeatureBank(*_pass(model, X)) if method in ("nrc", "aad") else None
    result = AdaptResult(model, trainable_count(model, params))
    model.train()
    t = 0
    for _ in progress(range(cfg.epochs), f"adapting ({method}, {tune})", total=cfg.epochs):
        if method in ("shot", "shot_im") and host.cls_wt:
            pseudo = shot_pseudo_labels(*_pass(model, X))  # refreshed every epoch
        epoch_losses = []
        for idx in batches(n, cfg.batch_size, g):
            t += 1
            if len(idx) < 2:
                continue
            feat, seq = model.extract(X[idx])
            logits = model.classifier(feat)
            probs = logits.softmax(1)
            if method in ("shot", "shot_im"):
                loss = shot_loss(logits, pseudo[idx] if host.cls_wt else None, host)
            elif method == "nrc":
                bank.update(idx, feat, probs)
                loss = nrc_loss(probs, idx, bank, host)
            elif method == "aad":
                bank.update(idx, feat, probs)
                loss = aad_loss(probs, idx, bank, aad_alpha(t - 1, n_iter, host), host)
            else:  # mapu
                _, seq_masked = model.extract(mask_segments(X[idx], g, host.n_segments))
                loss = (information_maximisation(probs, host.ent_wt, host.im_wt)
                        + host.tov_wt * tov_loss(seq, seq_masked, imputer))
            opt.zero_grad()
            loss.backward()
            opt.step()
            epoch_losses.append(loss.item())
        result.losses.append(float(np.mean(epoch_losses)) if epoch_losses else float("nan"))
    model.eval()
    return result
