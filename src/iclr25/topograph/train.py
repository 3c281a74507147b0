"""Training harness (spec Sec. 4, the paper's recipe): a small U-Net trained with Dice until its validation
Dice plateaus (the shared warm start), then fine-tuned from that same checkpoint with Dice, Dice+clDice,
Dice+Topograph and Dice+PH on identical batches for the same number of steps, and evaluated on held-out
images with DIU, Betti errors, Dice and clDice.

Why a converged warm start: fine-tuning a Dice model that has not converged mixes two effects, the
topology term and the Dice training still in progress; in that regime the Topograph term opens new small
breaks (so does the official loss). The paper fine-tunes from a trained Dice checkpoint.
"""

from __future__ import annotations

import hashlib
import io
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from iclr25.core.errors import UserError
from iclr25.core.runtime import atomic_write, cache_dir, config_hash, progress
from iclr25.topograph.data import FAMILIES, DataConfig, make_dataset
from iclr25.topograph.losses import DiceClDiceLoss, DiceLoss, DiceTopographLoss
from iclr25.topograph.metrics import diu, evaluate
from iclr25.topograph.ph import PHLoss
from iclr25.topograph.unet import UNet

LOSSES = ("dice", "dice+cldice", "dice+topograph", "dice+ph")
JITTER_ARM = "dice+topograph+jitter"  # Dice+Topograph with uniform threshold jitter (TrainConfig.thres_noise)
WARM_CODE_VERSION = "plateau-1"  # part of the warm-start cache key: bump when the warm-start code changes

Split = tuple[np.ndarray, np.ndarray]  # images (n, 1, H, W) float32, masks (n, H, W) uint8


@dataclass(frozen=True)
class TrainConfig:
    family: str = "curvilinear"       # one of data.FAMILIES (ignored when the caller passes its own data)
    size: int = 64                    # image side of the synthetic families
    n_train: int = 800
    n_val: int = 100                  # validation images for the warm start's plateau rule
    n_test: int = 200
    batch: int = 8                    # spec: batch 8, Adam 1e-3 (the compared fine-tuning arms)
    warm_batch: int = 16              # the shared Dice warm start: twice the arms' batch
    lr: float = 1e-3
    warm_iters: int = 2000            # at most this many Dice warm-start steps ...
    min_warm_iters: int = 600         # ... at least this many (clamped to warm_iters) ...
    eval_every: int = 100             # ... validation Dice measured every eval_every steps ...
    patience: int = 3                 # ... stop after `patience` evaluations without a gain > min_delta
    min_delta: float = 2e-3
    finetune_iters: int = 300         # per loss, from the warm start, the same for every arm
    finetune_lr: float = 2e-4         # fine-tuning a converged model: a smaller step than the warm start
    alpha_topograph: float = 0.5      # spec: alpha in {0.1, 0.5}
    thres_noise: float = 0.1          # the jitter arm's uniform threshold noise (official default: none)
    alpha_ph: float = 0.05            # PH loss sums squared distances over all pairs: smaller weight
    ph_backend: str = "cripser"       # the faster PH backend for training; gudhi gives the same diagrams
    channels: tuple[int, ...] = (8, 16, 32)
    seed: int = 0


@dataclass(frozen=True)
class Data:
    """Train / validation / test splits, and a key naming their content (for the warm-start cache)."""

    train: Split
    val: Split
    test: Split
    key: str


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
    if name == JITTER_ARM:
        return DiceTopographLoss(alpha=cfg.alpha_topograph, thres_noise=cfg.thres_noise, seed=cfg.seed)
    if name == "dice+ph":
        return DicePHLoss(cfg.alpha_ph, cfg.ph_backend)
    raise UserError(f"unknown loss {name!r}; choose from {', '.join((*LOSSES, JITTER_ARM))}")


def synthetic_data(cfg: TrainConfig) -> Data:
    """The family's train / validation / test images, each split from its own seed."""
    if cfg.family not in FAMILIES:
        raise UserError(f"unknown data family {cfg.family!r}; choose from {', '.join(FAMILIES)}")
    dcfg = DataConfig(size=cfg.size)
    splits = [make_dataset(cfg.family, n, cfg.seed * 1000 + i, dcfg)
              for i, n in ((1, cfg.n_train), (3, cfg.n_val), (2, cfg.n_test))]
    # the data config is part of the key: a change of noise or gaps must not reuse an old warm start
    return Data(*splits, key=config_hash({"family": cfg.family, "n_train": cfg.n_train, "n_val": cfg.n_val,
                                          "seed": cfg.seed, "data": asdict(dcfg)}))


def folder_data(x: np.ndarray, y: np.ndarray, test_fraction: float, seed: int) -> Data:
    """Split the user's images (n, 1, H, W) and masks (n, H, W) into train / validation / test
    (validation: 10% of the rest, at least 1 image)."""
    n = len(x)
    n_test = max(1, int(round(test_fraction * n)))
    n_val = max(1, int(round(0.1 * (n - n_test))))
    if n - n_test - n_val < 1:
        raise UserError(f"{n} image/mask pairs are too few to split into train, validation and test "
                        f"(need at least 3)")
    idx = np.random.default_rng(seed).permutation(n)
    te, va, tr = idx[:n_test], idx[n_test:n_test + n_val], idx[n_test + n_val:]
    digest = hashlib.sha256(x.tobytes() + y.tobytes() + idx.tobytes()).hexdigest()[:16]
    return Data((x[tr], y[tr]), (x[va], y[va]), (x[te], y[te]), key=f"folder-{digest}")


def _steps(model: nn.Module, opt: torch.optim.Optimizer, loss_fn: nn.Module, data: Split, n: int,
           batch: int, rng: np.random.Generator) -> None:
    x, y = data
    model.train()
    for _ in range(n):
        idx = rng.integers(len(x), size=batch)
        loss = loss_fn(model(torch.from_numpy(x[idx])), torch.from_numpy(y[idx].astype(np.int64)))
        opt.zero_grad()
        loss.backward()
        opt.step()


def _fit(model: nn.Module, loss_fn: nn.Module, data: Split, iters: int, batch: int, lr: float, seed: int,
         desc: str, opt_state: dict | None = None) -> torch.optim.Optimizer:
    """`iters` Adam steps of `loss_fn` on random batches of `data` (the same batches for the same seed);
    returns the optimiser (its state resumes a run)."""
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    if opt_state:
        opt.load_state_dict(opt_state)
    rng = np.random.default_rng(seed)  # same seed -> same batches for every arm
    for _ in progress(range(iters), desc):
        _steps(model, opt, loss_fn, data, 1, batch, rng)
    return opt


def mean_dice(prob: np.ndarray, y: np.ndarray) -> float:
    """Mean per-image Dice of predictions binarised at 0.5 (1 for an image where both are empty)."""
    p, g = prob > 0.5, y.astype(bool)
    inter = (p & g).sum((1, 2))
    s = p.sum((1, 2)) + g.sum((1, 2))
    return float(np.mean(np.where(s > 0, 2 * inter / np.maximum(s, 1), 1.0)))


def warm_start(cfg: TrainConfig, data: Data, arch: dict | None = None
               ) -> tuple[dict[str, torch.Tensor], dict[str, float]]:
    """The shared Dice-only checkpoint, trained until validation Dice plateaus (plateau rule: stop after
    `patience` evaluations without a gain > `min_delta`, never before `min_warm_iters` steps nor after
    `warm_iters`), best validation checkpoint kept. Cached under the iclr25 cache, keyed by the warm-start
    fields of the config, the data and the code version.

    Returns (state_dict, info) with info = steps trained, best validation Dice and its step."""
    fields = ("warm_batch", "lr", "warm_iters", "min_warm_iters", "eval_every", "patience", "min_delta",
              "channels", "seed")
    key = {"cfg": {k: getattr(cfg, k) for k in fields}, "data": data.key, "code": WARM_CODE_VERSION}
    if arch is not None and arch.get("kind") == "user":  # the user's network: its file's content too
        file = Path(str(arch["spec"]).rpartition(":")[0])
        key["user_model"] = [arch["spec"], hashlib.sha256(file.read_bytes()).hexdigest()]
    path = cache_dir() / "topograph" / f"warm-{config_hash(key)}.pt"
    if path.exists():
        saved = torch.load(path, weights_only=True)
        return saved["state"], {k: float(v) for k, v in saved["info"].items()}
    torch.manual_seed(cfg.seed)
    model = _build(cfg, arch)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    rng = np.random.default_rng(cfg.seed)
    best, best_step, best_state, since, step = -1.0, 0, model.state_dict(), 0, 0
    floor = min(cfg.min_warm_iters, cfg.warm_iters)
    chunks = -(-cfg.warm_iters // cfg.eval_every) if cfg.warm_iters else 0
    for _ in progress(range(chunks), f"warm start {cfg.family} (Dice, until plateau)"):
        n = min(cfg.eval_every, cfg.warm_iters - step)
        _steps(model, opt, DiceLoss(), data.train, n, cfg.warm_batch, rng)
        step += n
        d = mean_dice(predict(model, data.val[0]), data.val[1])
        if d > best + cfg.min_delta:
            since = 0
        else:
            since += 1
        if d > best:
            best, best_step = d, step
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
        if step >= floor and since >= cfg.patience:
            break
    info = {"warm_steps": float(step), "warm_best_step": float(best_step), "warm_val_dice": best}
    buf = io.BytesIO()
    torch.save({"state": best_state, "info": info}, buf)
    with atomic_write(path) as f:
        f.write(buf.getvalue())
    return best_state, info


@torch.no_grad()
def predict(model: nn.Module, x: np.ndarray, batch: int = 32) -> np.ndarray:
    """Foreground probabilities (N, H, W)."""
    model.eval()
    out = [torch.sigmoid(model(torch.from_numpy(x[i:i + batch])))[:, 0] for i in range(0, len(x), batch)]
    return torch.cat(out).numpy()


def per_image_metrics(prob: np.ndarray, y: np.ndarray, boundary: str = "pad") -> dict[str, np.ndarray]:
    """Every metric of every test image (binarised at 0.5), one array per metric; with boundary "pad"
    also DIU without padding ("diu_none"), so reports can show both conventions."""
    rows = [evaluate(p > 0.5, g.astype(bool), boundary) for p, g in zip(prob, y, strict=True)]
    out = {k: np.array([r[k] for r in rows]) for k in rows[0]}
    if boundary == "pad":
        out["diu_none"] = np.array([diu(p > 0.5, g.astype(bool), "none")
                                    for p, g in zip(prob, y, strict=True)], dtype=float)
    return out


def evaluate_predictions(prob: np.ndarray, y: np.ndarray, boundary: str = "pad") -> dict[str, float]:
    """Mean of each metric over the test images (binarised at 0.5)."""
    return {k: float(v.mean()) for k, v in per_image_metrics(prob, y, boundary).items()}


PerImage = dict[str, dict[str, np.ndarray]]  # arm -> metric -> one value per test image


def run_family(cfg: TrainConfig, losses: tuple[str, ...] = LOSSES, n_examples: int = 0,
               data: Data | None = None
               ) -> tuple[dict[str, dict[str, float]], dict[str, np.ndarray], PerImage]:
    """Warm start once (to convergence), fine-tune each loss from it on the same batches.

    Returns ({arm: test metrics (+ 'train_s')} with arm "warm" also holding the warm start's info,
    examples, per-image metrics) where examples holds the first `n_examples` test inputs ('x'), masks
    ('y') and each arm's foreground probabilities (for figures), and the per-image metrics pair every arm
    on the same test images."""
    data = data or synthetic_data(cfg)
    xte, yte = data.test
    state, info = warm_start(cfg, data)
    prob = predict(_model(cfg, state), xte)
    per: PerImage = {"warm": per_image_metrics(prob, yte)}
    metrics: dict[str, dict[str, float]] = {"warm": {**{k: float(v.mean()) for k, v in per["warm"].items()},
                                                     **info}}
    examples = {"x": xte[:n_examples, 0], "y": yte[:n_examples], "warm": prob[:n_examples]}
    for name in losses:
        model = _model(cfg, state)
        t0 = time.process_time()
        _fit(model, make_loss(name, cfg), data.train, cfg.finetune_iters, cfg.batch, cfg.finetune_lr,
             cfg.seed + 7, f"{cfg.family} {name}")
        train_s = time.process_time() - t0
        prob = predict(model, xte)
        per[name] = per_image_metrics(prob, yte)
        metrics[name] = {**{k: float(v.mean()) for k, v in per[name].items()}, "train_cpu_s": train_s}
        examples[name] = prob[:n_examples]
    return metrics, examples, per


def _build(cfg: TrainConfig, arch: dict | None = None) -> nn.Module:
    """Our U-Net (cfg.channels) or the network `arch` names."""
    if arch is None or arch.get("kind") != "user":
        return UNet(channels=cfg.channels)
    from iclr25.topograph.model_io import build
    return build(arch)


def _model(cfg: TrainConfig, state: dict[str, torch.Tensor], arch: dict | None = None) -> nn.Module:
    m = _build(cfg, arch)
    m.load_state_dict(state)
    return m


def default_arch(cfg: TrainConfig) -> dict:
    return {"kind": "unet", "channels": list(cfg.channels)}


def train_compare(cfg: TrainConfig, loss: str, data: Data | None = None, boundary: str = "pad",
                  arch: dict | None = None, baseline: bool = True
                  ) -> tuple[nn.Module, torch.optim.Optimizer, dict[str, dict[str, float]]]:
    """What `topograph train` runs: the cached warm start (Dice to a validation plateau), then LOSS
    fine-tuned from it and, as the baseline, Dice alone for the same steps on the same batches. Returns
    (LOSS's model, its optimiser, {"dice": ..., loss: ...} held-out metrics with the warm start's info)."""
    data = data or synthetic_data(cfg)
    state, info = warm_start(cfg, data, arch)
    out: dict[str, dict[str, float]] = {}
    model, opt = None, None
    for name in ([] if loss == "dice" or not baseline else ["dice"]) + [loss]:
        m = _model(cfg, state, arch)
        o = _fit(m, make_loss(name, cfg), data.train, cfg.finetune_iters, cfg.batch, cfg.finetune_lr,
                 cfg.seed + 7, name)
        out[name] = {**evaluate_predictions(predict(m, data.test[0]), data.test[1], boundary), **info}
        if name == loss:
            model, opt = m, o
    return model, opt, out  # type: ignore[return-value]


def resume(model: nn.Module, opt_state: dict, cfg: TrainConfig, loss: str, data: Data, steps_done: int,
           boundary: str = "pad"
           ) -> tuple[nn.Module, torch.optim.Optimizer, dict[str, float], dict[str, float]]:
    """Continue fine-tuning a checkpoint with `loss` for cfg.finetune_iters more steps (fresh batches:
    the batch stream is seeded by the steps already done). Returns (model, optimiser, metrics before,
    metrics after)."""
    before = evaluate_predictions(predict(model, data.test[0]), data.test[1], boundary)
    opt = _fit(model, make_loss(loss, cfg), data.train, cfg.finetune_iters, cfg.batch, cfg.finetune_lr,
               cfg.seed + 7 + steps_done, f"resume {loss}", opt_state or None)
    after = evaluate_predictions(predict(model, data.test[0]), data.test[1], boundary)
    return model, opt, before, after


def train_one(cfg: TrainConfig, loss: str, data: Data | None = None, boundary: str = "pad"
              ) -> tuple[UNet, dict[str, float]]:
    """Warm start (cached, to a validation plateau) then fine-tune one loss; returns the model and its
    test metrics together with the warm start's (CLI)."""
    data = data or synthetic_data(cfg)
    state, info = warm_start(cfg, data)
    model = _model(cfg, state)
    _fit(model, make_loss(loss, cfg), data.train, cfg.finetune_iters, cfg.batch, cfg.finetune_lr,
         cfg.seed + 7, loss)
    return model, {**evaluate_predictions(predict(model, data.test[0]), data.test[1], boundary), **info}


__all__ = ["JITTER_ARM", "LOSSES", "Data", "TrainConfig", "default_arch", "folder_data", "make_loss",
           "per_image_metrics", "resume", "run_family", "synthetic_data", "train_compare", "train_one",
           "warm_start"]
