"""Two small CNN classifiers trained on the labelled training images, with different architectures and
seeds so that the metric never sees what the tokenizer was taught:

- `TeacherCNN`: the frozen semantic teacher (our stand-in for DINOv2): its 64-d pooled feature is the
  target of the tokenizer's semantic InfoNCE.
- `FeatureCNN`: the feature space of the Fréchet distance and KID (our stand-in for Inception): a
  deeper, batch-normalised net whose 128-d penultimate layer is the feature; its class head scores the
  class consistency of conditional samples."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from iclr25.core.errors import UserError
from iclr25.core.runtime import progress
from iclr25.imagefolder.optim import warmup_cosine


class TeacherCNN(nn.Module):
    """conv16 -> pool -> conv32 -> pool -> conv64 -> global average -> linear `feat_dim` (the feature)."""

    def __init__(self, channels: int, num_classes: int, feat_dim: int = 64):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(channels, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2, ceil_mode=True),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2, ceil_mode=True),
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
            nn.Linear(64, feat_dim), nn.ReLU())
        self.head = nn.Linear(feat_dim, num_classes)
        self.feat_dim = feat_dim

    def features(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


class FeatureCNN(nn.Module):
    """conv5x5 16 -> BN -> pool -> conv 32 -> BN -> pool -> conv 64 -> BN -> 4x4 average -> linear 128."""

    def __init__(self, channels: int, num_classes: int, feat_dim: int = 128):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(channels, 16, 5, padding=2), nn.BatchNorm2d(16), nn.ReLU(),
            nn.MaxPool2d(2, ceil_mode=True),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2, ceil_mode=True),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.AdaptiveAvgPool2d(4),
            nn.Flatten(), nn.Linear(64 * 16, feat_dim), nn.ReLU())
        self.head = nn.Linear(feat_dim, num_classes)
        self.feat_dim = feat_dim

    def features(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


def train_classifier(net: nn.Module, images: np.ndarray, labels: np.ndarray, epochs: int = 2,
                     batch_size: int = 128, lr: float = 2e-3, seed: int = 0) -> nn.Module:
    """Adam on cross-entropy over (N, C, H, W) images in [0, 1]; returns the net frozen in eval mode."""
    if labels is None:
        raise UserError("training a classifier needs class labels")
    if len(images) != len(labels):
        raise UserError(f"{len(labels)} labels for {len(images)} images")
    g = torch.Generator().manual_seed(seed)
    x = torch.as_tensor(images, dtype=torch.float32)
    y = torch.as_tensor(labels, dtype=torch.long)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    steps = epochs * max(1, -(-len(x) // batch_size))
    sched = warmup_cosine(opt, steps, 0.1)
    net.train()
    for _ in progress(range(epochs), "classifier epochs"):
        perm = torch.randperm(len(x), generator=g)
        for i in range(0, len(x), batch_size):
            idx = perm[i:i + batch_size]
            loss = F.cross_entropy(net(x[idx] * 2 - 1), y[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
    net.eval()
    for p in net.parameters():
        p.requires_grad_(False)
    return net


@torch.no_grad()
def embed(net: nn.Module, images: np.ndarray | torch.Tensor, batch_size: int = 500,
          logits: bool = False) -> np.ndarray:
    """Features (or class logits) of (N, C, H, W) images in [0, 1], batched: (N, feat) float64."""
    net.eval()
    x = torch.as_tensor(np.asarray(images), dtype=torch.float32)
    fn = net if logits else net.features
    out = [fn(x[i:i + batch_size] * 2 - 1) for i in range(0, len(x), batch_size)]
    return torch.cat(out).double().numpy()


@torch.no_grad()
def accuracy(net: nn.Module, images: np.ndarray, labels: np.ndarray) -> float:
    """Share of images whose arg-max class equals the label."""
    return float((embed(net, images, logits=True).argmax(1) == np.asarray(labels)).mean())
