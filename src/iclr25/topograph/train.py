"""Training harness (spec Sec. 4): a small U-Net warm-started with Dice, then fine-tuned from that same
checkpoint with Dice, Dice+clDice, Dice+Topograph and Dice+PH on identical batches, and evaluated on
held-out images with DIU, Betti errors, Dice and clDice."""

from __future__ import annotations

import io
from dataclasses import asdict, dataclass, replace

import numpy as np
import torch
from torch import nn

from iclr25.core.errors import UserError
from iclr25.core.runtime import atomic_write, cache_dir, config_hash, progress
from iclr25.topograph.data import FAMILIES, DataConfig, make_dataset
from iclr25.topograph.losses import DiceClDiceLoss, DiceLoss, DiceTopographLoss
from iclr25.topograph.metrics import evaluate
from iclr25.topograph.ph import PHLoss
from iclr25.topograph.unet import UNet

LOSSES = ("dice", "dice+cldice", "dice+topograph", "dice+ph")


@dataclass(frozen=True)
class TrainConfig:
    family: str = "curvilinear"       # one of data.FAMILIES
    size: int = 128                   # image side
    n_train: int = 800
    n_test: int = 200
    batch: int = 8                    # spec: batch 8, Adam 1e-3 (the compared fine-tuning arms)
    warm_batch: int = 32              # the shared Dice warm start: larger batches converge it in fewer steps
    lr: float = 1e-3
    warm_iters: int = 1500            # Dice-only warm start shared by all arms
    finetune_iters: int = 400         # per loss, from the warm start
    finetune_lr: float = 2e-4         # fine-tuning a converged model: a smaller step than the warm start
    alpha_topograph: float = 0.5      # spec: alpha in {0.1, 0.5}
    alpha_ph: float = 0.05            # PH loss sums squared distances over all pairs: smaller weight
    ph_backend: str = "cripser"       # the faster PH backend for training; gudhi gives the same diagrams
    channels: tuple[int, ...] = (8, 16, 32)
    seed: int = 0


class DicePHLoss(nn.Module):
    """Dice + alpha * PH (HuTopo) loss."""

    def __init__(self, alpha: float, backend: str) -> None:
        super().__init__()
        self.dice, self.ph = DiceLoss(), PHLoss(alpha=alpha, backend=backend)

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return self.dice(logits, target) + self.ph(logits, target)


def make_loss(name: str, cfg: TrainConfig) -> nn.Module:
    """The loss module for an arm name in LOSSES."""
    if name == "dice":
        return DiceLoss()
    if name == "dice+cldice":
        return DiceClDiceLoss()
    if name == "dice+topograph":
        return DiceTopographLoss(alpha=cfg.alpha_topograph, seed=cfg.seed)
    if name == "dice+ph":
        return DicePHLoss(cfg.alpha_ph, cfg.ph_backend)
    raise UserError(f"unknown loss {name!r}; choose from {', '.join(LOSSES)}")


def load_data(cfg: TrainConfig) -> tuple[np.ndarray, ...]:
    if cfg.family not in FAMILIES:
        raise UserError(f"unknown data family {cfg.family!r}; choose from {', '.join(FAMILIES)}")
    dcfg = DataConfig(size=cfg.size)
    xtr, ytr = make_dataset(cfg.family, cfg.n_train, cfg.seed * 1000 + 1, dcfg)
    xte, yte = make_dataset(cfg.family, cfg.n_test, cfg.seed * 1000 + 2, dcfg)
    return xtr, ytr, xte, yte


def _fit(model: nn.Module, loss_fn: nn.Module, x: np.ndarray, y: np.ndarray, iters: int, batch: int,
         lr: float, seed: int, desc: str) -> nn.Module:
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    rng = np.random.default_rng(seed)  # same seed -> same batches for every arm
    xt, yt = torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))
    model.train()
    for _ in progress(range(iters), desc):
        idx = torch.from_numpy(rng.integers(len(x), size=batch))
        loss = loss_fn(model(xt[idx]), yt[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model


def warm_start(cfg: TrainConfig, x: np.ndarray, y: np.ndarray) -> dict[str, torch.Tensor]:
    """The shared Dice-only checkpoint, cached under the iclr25 cache keyed by the config."""
    fine = ("finetune_iters", "finetune_lr", "alpha_topograph", "alpha_ph", "ph_backend", "n_test")
    key = {k: v for k, v in asdict(cfg).items() if k not in fine}
    path = cache_dir() / "topograph" / f"warm-{config_hash(key)}.pt"
    if path.exists():
        return torch.load(path, weights_only=True)
    torch.manual_seed(cfg.seed)
    model = _fit(UNet(channels=cfg.channels), DiceLoss(), x, y, cfg.warm_iters, cfg.warm_batch, cfg.lr,
                 cfg.seed, f"warm start {cfg.family}")
    state = model.state_dict()
    buf = io.BytesIO()
    torch.save(state, buf)
    with atomic_write(path) as f:
        f.write(buf.getvalue())
    return state


@torch.no_grad()
def predict(model: nn.Module, x: np.ndarray, batch: int = 32) -> np.ndarray:
    """Foreground probabilities (N, H, W)."""
    model.eval()
    out = [torch.sigmoid(model(torch.from_numpy(x[i:i + batch])))[:, 0] for i in range(0, len(x), batch)]
    return torch.cat(out).numpy()


def evaluate_predictions(prob: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Mean of each metric over the test images (binarised at 0.5)."""
    rows = [evaluate(p > 0.5, g.astype(bool)) for p, g in zip(prob, y, strict=True)]
    return {k: float(np.mean([r[k] for r in rows])) for k in rows[0]}


def run_family(cfg: TrainConfig, losses: tuple[str, ...] = LOSSES, n_examples: int = 0
               ) -> tuple[dict[str, dict[str, float]], dict[str, np.ndarray]]:
    """Warm start once, fine-tune each loss from it on the same batches.

    Returns ({arm: test metrics (+ 'train_s')}, examples) where examples holds the first `n_examples`
    test inputs ('x'), masks ('y') and each arm's foreground probabilities (for figures)."""
    import time
    xtr, ytr, xte, yte = load_data(cfg)
    state = warm_start(cfg, xtr, ytr)
    prob = predict(_model(cfg, state), xte)
    metrics: dict[str, dict[str, float]] = {"warm": evaluate_predictions(prob, yte)}
    examples = {"x": xte[:n_examples, 0], "y": yte[:n_examples], "warm": prob[:n_examples]}
    for name in losses:
        model = _model(cfg, state)
        t0 = time.perf_counter()
        _fit(model, make_loss(name, cfg), xtr, ytr, cfg.finetune_iters, cfg.batch, cfg.finetune_lr,
             cfg.seed + 7, f"{cfg.family} {name}")
        train_s = time.perf_counter() - t0
        prob = predict(model, xte)
        metrics[name] = {**evaluate_predictions(prob, yte), "train_s": train_s}
        examples[name] = prob[:n_examples]
    return metrics, examples


def _model(cfg: TrainConfig, state: dict[str, torch.Tensor]) -> UNet:
    m = UNet(channels=cfg.channels)
    m.load_state_dict(state)
    return m


def train_one(cfg: TrainConfig, loss: str) -> tuple[UNet, dict[str, float]]:
    """Warm start (cached) then fine-tune one loss; returns the model and its test metrics (CLI)."""
    xtr, ytr, xte, yte = load_data(cfg)
    model = _model(cfg, warm_start(cfg, xtr, ytr))
    _fit(model, make_loss(loss, cfg), xtr, ytr, cfg.finetune_iters, cfg.batch, cfg.finetune_lr,
         cfg.seed + 7, loss)
    return model, evaluate_predictions(predict(model, xte), yte)


__all__ = ["LOSSES", "TrainConfig", "make_loss", "run_family", "train_one", "warm_start", "replace"]
