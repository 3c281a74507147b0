"""Training a RelationalGNN on a GraphTask: the paper's protocol (random 80/10/10 split, Adam, batch 64,
ReduceLROnPlateau on the training loss, early stopping on validation accuracy, test accuracy reported at
the best validation epoch). Validation sets are small (18 MUTAG graphs), so accuracy ties are common; a
tie is broken by the lower validation loss, else the first epoch that predicts the majority class
would stay "best" and the test accuracy reported would be an untrained model's."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from iclr25.core.errors import UserError
from iclr25.simplicial_oversquashing.batch import Batch, collate
from iclr25.simplicial_oversquashing.data import GraphTask
from iclr25.simplicial_oversquashing.models import CONVS, READOUTS, RelationalGNN
from iclr25.simplicial_oversquashing.structure import RELATIONS


@dataclass(frozen=True)
class TrainConfig:
    """Defaults: the paper's TU setting (experiment_config.yaml: 4 layers, hidden 64, dropout 0.5, Adam
    1e-3, batch 64, ≤ 500 epochs, patience 100)."""

    conv: str = "rgcn"
    hidden: int = 64
    layers: int = 4
    dropout: float = 0.5
    lr: float = 1e-3
    batch_size: int = 64
    max_epochs: int = 500
    patience: int = 100
    readout: str = "mean"

    def __post_init__(self) -> None:
        if self.conv not in CONVS:
            raise UserError(f"unknown conv {self.conv!r}; choose from {', '.join(CONVS)}")
        if self.readout not in READOUTS:
            raise UserError(f"unknown readout {self.readout!r}; choose from {', '.join(READOUTS)}")
        for name in ("hidden", "layers", "batch_size", "max_epochs", "patience"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < 1:
                raise UserError(f"{name} must be a positive integer, got {v!r}")
        if not self.lr > 0:
            raise UserError(f"lr must be > 0, got {self.lr}")


@dataclass
class TrainResult:
    test_acc: float  # at the best validation epoch
    val_acc: float  # best
    train_loss: float  # mean cross-entropy of the last epoch
    best_epoch: int
    epochs: int  # run before stopping
    history: list[tuple[float, float]] = field(default_factory=list)  # (val, test) per epoch


def split_indices(n: int, seed: int, fractions: tuple[float, float, float] = (0.8, 0.1, 0.1)
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A random train/validation/test split of range(n) (sizes floor(0.8n), floor(0.1n), the rest)."""
    perm = np.random.default_rng(seed).permutation(n)
    n_train, n_val = int(fractions[0] * n), int(fractions[1] * n)
    if min(n_train, n_val, n - n_train - n_val) < 1:
        raise UserError(f"{n} graphs are too few for a train/validation/test split")
    return perm[:n_train], perm[n_train:n_train + n_val], perm[n_train + n_val:]


def task_relations(task: GraphTask) -> tuple[str, ...]:
    """Relations used by any structure of the task, in canonical order."""
    used = {r for s in task.structures for r in s.relation_names}
    return tuple(r for r in RELATIONS if r in used) or ("upper",)


def _batch(task: GraphTask, idx: np.ndarray) -> tuple[Batch, torch.Tensor]:
    b = collate([task.structures[i] for i in idx], roots=task.roots[idx])
    return b, torch.from_numpy(task.labels[idx])


def _chunks(task: GraphTask, idx: np.ndarray, size: int = 256) -> list[tuple[Batch, torch.Tensor]]:
    return [_batch(task, idx[i:i + size]) for i in range(0, len(idx), size)]


@torch.no_grad()
def evaluate(model: RelationalGNN, data: list[tuple[Batch, torch.Tensor]]) -> tuple[float, float]:
    """(accuracy, mean cross-entropy) over the batches."""
    model.eval()
    correct, loss, n = 0, 0.0, 0
    for b, y in data:
        logits = model(b)
        correct += int((logits.argmax(1) == y).sum())
        loss += float(torch.nn.functional.cross_entropy(logits, y, reduction="sum"))
        n += len(y)
    return correct / max(1, n), loss / max(1, n)


def accuracy(model: RelationalGNN, data: list[tuple[Batch, torch.Tensor]]) -> float:
    return evaluate(model, data)[0]


def train(task: GraphTask, config: TrainConfig, split: tuple[np.ndarray, np.ndarray, np.ndarray],
          seed: int = 0, relations: tuple[str, ...] | None = None) -> TrainResult:
    """Train one model (seeded) on the split's training graphs; evaluate every epoch."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    train_idx, val_idx, test_idx = split
    model = RelationalGNN(task.structures[0].x.shape[1], config.hidden, task.classes,
                          relations=relations or task_relations(task), layers=config.layers,
                          conv=config.conv, dropout=config.dropout, readout=config.readout)
    opt = torch.optim.Adam(model.parameters(), lr=config.lr)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt)
    val, test = _chunks(task, val_idx), _chunks(task, test_idx)
    best = TrainResult(0.0, -1.0, 0.0, 0, 0)
    best_val_loss = float("inf")
    history: list[tuple[float, float]] = []
    since_best = 0
    for epoch in range(1, config.max_epochs + 1):
        model.train()
        total = 0.0
        order = rng.permutation(train_idx)
        for i in range(0, len(order), config.batch_size):
            idx = order[i:i + config.batch_size]
            b, y = _batch(task, idx)
            loss = torch.nn.functional.cross_entropy(model(b), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        sched.step(total)
        (v, v_loss), t = evaluate(model, val), accuracy(model, test)
        history.append((v, t))
        if v > best.val_acc or (v == best.val_acc and v_loss < best_val_loss):
            best = TrainResult(t, v, 0.0, epoch, epoch)
            best_val_loss, since_best = v_loss, 0
        else:
            since_best += 1
            if since_best >= config.patience:
                break
    best.epochs, best.history, best.train_loss = len(history), history, total / len(train_idx)
    return best
