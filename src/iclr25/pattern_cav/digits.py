"""A controlled-artifact benchmark on scikit-learn's bundled digits (no download): a small CNN learns a
shortcut (a bright corner patch inserted into most images of one class), and because we can insert the
patch into any image, every test sample has a ground-truth concept direction a(x~) - a(x). This is
our CPU stand-in for ISIC "timestamp" / Bone Age "brightness" artifacts)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn


@dataclass(frozen=True)
class DigitsConfig:
    """The recipe measured to produce a real shortcut (spec Sec. 4C)."""

    upsample: int = 2  # 8x8 -> 16x16 (np.kron)
    noise: float = 0.6  # N(0, 0.6) pixel noise, then clip to [0, 1]
    patch: int = 4  # artifact: patch x patch square ...
    patch_low: float = 0.7  # ... of value U(0.7, 1) ...
    attacked_class: int = 3  # ... in a random corner of p_artifact of this class's training images
    p_artifact: float = 0.9
    test_size: float = 0.3
    split_seed: int = 0


@dataclass(frozen=True)
class TrainConfig:
    epochs: int = 15
    lr: float = 2e-3  # Adam
    batch_size: int = 64


class SmallCNN(nn.Module):
    """conv3x3 1->16, ReLU, maxpool2, conv 16->32, ReLU, conv 32->32 (`conv3`, the probed layer), ReLU,
    maxpool2, linear 512 -> 10."""

    def __init__(self, n_classes: int = 10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.relu1 = nn.ReLU()
        self.pool1 = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.relu2 = nn.ReLU()
        self.conv3 = nn.Conv2d(32, 32, 3, padding=1)
        self.relu3 = nn.ReLU()
        self.pool2 = nn.MaxPool2d(2)
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(32 * 4 * 4, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (B, 1, 16, 16) -> (B, 10)
        x = self.pool1(self.relu1(self.conv1(x)))  # (B, 16, 8, 8)
        x = self.relu3(self.conv3(self.relu2(self.conv2(x))))  # (B, 32, 8, 8)
        return self.fc(self.flatten(self.pool2(x)))  # (B, 512) -> (B, 10)


def insert_artifact(x: np.ndarray, rng: np.random.Generator, cfg: DigitsConfig = DigitsConfig(),
                    corners: np.ndarray | None = None, values: np.ndarray | None = None) -> np.ndarray:
    """Copy of images x (n, 1, H, W) with a bright square in a random (or given) corner of each."""
    x = x.copy()
    n, _, h, w = x.shape
    k = cfg.patch
    corners = rng.integers(0, 4, n) if corners is None else corners
    values = rng.uniform(cfg.patch_low, 1.0, n) if values is None else values
    for i in range(n):
        r0 = 0 if corners[i] < 2 else h - k
        c0 = 0 if corners[i] % 2 == 0 else w - k
        x[i, 0, r0:r0 + k, c0:c0 + k] = values[i]
    return x


@dataclass
class DigitsData:
    x_train: np.ndarray  # (n, 1, 16, 16) float32, with the artifact in p_artifact of the attacked class
    y_train: np.ndarray
    artifact_train: np.ndarray  # bool (n,): the artifact was inserted
    x_test: np.ndarray  # clean
    y_test: np.ndarray
    x_test_art: np.ndarray  # the same test images, each with the artifact inserted


def make_digits(seed: int, cfg: DigitsConfig = DigitsConfig()) -> DigitsData:
    """Poisoned train / clean test / artifact-inserted test images from sklearn's 8x8 digits."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    rng = np.random.default_rng(seed)
    d = load_digits()
    img = np.stack([np.kron(im, np.ones((cfg.upsample, cfg.upsample))) for im in d.images]) / 16.0
    img = np.clip(img + rng.normal(0, cfg.noise, img.shape), 0, 1)[:, None].astype(np.float32)
    xtr, xte, ytr, yte = train_test_split(img, d.target, test_size=cfg.test_size, stratify=d.target,
                                          random_state=cfg.split_seed)
    art = (ytr == cfg.attacked_class) & (rng.random(ytr.size) < cfg.p_artifact)
    xtr = xtr.copy()
    xtr[art] = insert_artifact(xtr[art], rng, cfg)
    return DigitsData(xtr, ytr, art, xte, yte, insert_artifact(xte, rng, cfg))


def train_cnn(data: DigitsData, seed: int, cfg: TrainConfig = TrainConfig()) -> SmallCNN:
    torch.manual_seed(seed)
    model = SmallCNN()
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    x = torch.as_tensor(data.x_train)
    y = torch.as_tensor(data.y_train, dtype=torch.long)
    gen = torch.Generator().manual_seed(seed)
    model.train()
    for _ in range(cfg.epochs):
        perm = torch.randperm(len(x), generator=gen)
        for i in range(0, len(x), cfg.batch_size):
            idx = perm[i:i + cfg.batch_size]
            loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    return model.eval()


@torch.no_grad()
def predict(model: nn.Module, x: np.ndarray) -> np.ndarray:
    model.eval()
    return model(torch.as_tensor(x)).argmax(1).numpy()


def shortcut_metrics(model: nn.Module, data: DigitsData,
                     cfg: DigitsConfig = DigitsConfig()) -> dict[str, float]:
    """clean accuracy, accuracy on artifact-inserted non-attacked test images, and the shortcut rate:
    the share of those predicted as the attacked class."""
    other = data.y_test != cfg.attacked_class
    p_clean = predict(model, data.x_test)
    p_art = predict(model, data.x_test_art[other])
    return {"clean_acc": float(np.mean(p_clean == data.y_test)),
            "poisoned_acc": float(np.mean(p_art == data.y_test[other])),
            "shortcut_rate": float(np.mean(p_art == cfg.attacked_class))}
