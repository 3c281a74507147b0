"""Checkpoints the CLI passes between its steps: a model (dense or decomposed at some RF), the source
z-normalisation statistics, the original label values and, for MAPU, the imputer. Plain tensors and
numbers only, so loading never unpickles code (torch.load(weights_only=True))."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from iclr25.core.errors import UserError
from iclr25.core.runtime import atomic_write
from iclr25.tucker_sfda.model import AdaTimeCNN, ModelConfig, TemporalImputer
from iclr25.tucker_sfda.tucker import tucker_modules, tucker_reparameterize

FORMAT = "iclr25.tucker_sfda/1"


@dataclass
class Checkpoint:
    model: AdaTimeCNN
    mean: np.ndarray  # (C,) source channel means
    std: np.ndarray  # (C,) source channel stds
    labels: list[int]  # original label value of each class index
    imputer: TemporalImputer | None = None
    rf: int | None = None  # None: dense
    min_channels: int = 3

    def save(self, path: str | Path) -> None:
        blob = {"format": FORMAT, "config": self.model.config.to_dict(), "rf": self.rf,
                "min_channels": self.min_channels, "state_dict": self.model.state_dict(),
                "mean": torch.from_numpy(np.asarray(self.mean, np.float32)),
                "std": torch.from_numpy(np.asarray(self.std, np.float32)), "labels": list(self.labels),
                "imputer": None if self.imputer is None else self.imputer.state_dict()}
        with atomic_write(path) as f:
            torch.save(blob, f)


def load_checkpoint(path: str | Path) -> Checkpoint:
    path = Path(path)
    if not path.is_file():
        raise UserError(f"checkpoint not found: {path}")
    try:
        blob = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises several types for a file that is not a checkpoint
        why = (str(e).splitlines() or [type(e).__name__])[0][:120]  # an empty file gives an empty message
        raise UserError(f"cannot read {path} as a checkpoint: {why}") from None
    if not isinstance(blob, dict) or blob.get("format") != FORMAT:
        raise UserError(f"{path} is not a tucker_sfda checkpoint (expected format {FORMAT})")
    try:
        cfg = ModelConfig(**blob["config"])
        model = AdaTimeCNN(**cfg.to_dict())
        if blob["rf"] is not None:  # rebuild the decomposed structure, then load its weights
            model = tucker_reparameterize(model, blob["rf"], blob["min_channels"])
        model.load_state_dict(blob["state_dict"])
        imputer = None
        if blob["imputer"] is not None:
            imputer = TemporalImputer(cfg.final)
            imputer.load_state_dict(blob["imputer"])
        mean, std, labels = blob["mean"].numpy(), blob["std"].numpy(), [int(v) for v in blob["labels"]]
    except UserError as e:
        raise UserError(f"{path}: {e}") from None
    except (KeyError, TypeError, ValueError, RuntimeError, AttributeError) as e:
        why = (str(e).splitlines() or [type(e).__name__])[0][:120]
        raise UserError(f"{path} is a damaged tucker_sfda checkpoint: {why}") from None
    if mean.shape != (cfg.C,) or std.shape != (cfg.C,) or len(labels) != cfg.classes:
        raise UserError(f"{path} is a damaged tucker_sfda checkpoint: statistics or labels do not match the "
                        f"model")
    model.eval()
    return Checkpoint(model, mean, std, labels, imputer, blob["rf"], blob["min_channels"])


def is_decomposed(model: AdaTimeCNN) -> bool:
    return bool(tucker_modules(model))
