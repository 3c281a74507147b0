"""DepthNet: the depth expert (Depth-Anything-V2's role in PhysAgent) - a tiny U-Net trained here on
rendered PhysBench-Synth ground-plane scenes to predict disparity (1 / depth) at 48x48, read at the
option pixels of a depth question (larger disparity = closer to the camera). `OracleDepth` returns an
exact map instead: injected, it must make every depth item right."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn

from iclr25.core.runtime import atomic_write, cache_dir, config_hash, progress
from iclr25.physbench.synth.render import SIZE
from iclr25.physbench.synth.scenes import depth_scene

RES = 48
OUT = 24  # disparity map resolution
CODE_VERSION = "depthnet-1"


@dataclass(frozen=True)
class DepthNetConfig:
    n_scenes: int = 400
    epochs: int = 10
    lr: float = 3e-3
    batch_size: int = 32
    seed: int = 0


def _conv(c_in: int, c_out: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1), nn.ReLU())


class TinyUNet(nn.Module):
    """Encoder 48 -> 24 -> 12 -> 6, decoder back to 24 with skips; disparity at 24x24 (2x2 input
    pixels per output cell is finer than any object in the scenes)."""

    def __init__(self) -> None:
        super().__init__()
        self.e1, self.e2, self.e3 = _conv(3, 8), _conv(8, 16), _conv(16, 24)
        self.mid = _conv(24, 24)
        self.d3, self.d2 = _conv(24 + 24, 16), _conv(16 + 16, 16)
        self.out = nn.Conv2d(16, 1, 1)
        self.pool, self.up = nn.MaxPool2d(2), nn.Upsample(scale_factor=2)

    def forward(self, x):  # (B, 3, 48, 48)
        a = self.pool(self.e1(x))  # (B, 8, 24, 24)
        b = self.e2(a)  # (B, 16, 24, 24)
        c = self.e3(self.pool(b))  # (B, 24, 12, 12)
        m = self.mid(self.pool(c))  # (B, 24, 6, 6)
        d = self.d3(torch.cat([self.up(m), c], 1))  # (B, 16, 12, 12)
        return self.out(self.d2(torch.cat([self.up(d), b], 1)))[:, 0]  # (B, 24, 24) disparity


def _small(img: np.ndarray) -> np.ndarray:
    return img[..., :3].reshape(RES, SIZE // RES, RES, SIZE // RES, 3).mean((1, 3)).transpose(2, 0, 1) / 255.0


def _disparity(depth: np.ndarray) -> np.ndarray:
    return (1.0 / depth).reshape(OUT, SIZE // OUT, OUT, SIZE // OUT).mean((1, 3))


class DepthNet:
    """fit() on freshly rendered scenes (train seeds), then `disparity(img)` -> (96, 96) map."""

    def __init__(self, config: DepthNetConfig = DepthNetConfig()) -> None:
        self.config = config
        torch.manual_seed(config.seed)
        self.net_ = TinyUNet()

    def fit(self) -> DepthNet:
        key = config_hash({"cfg": asdict(self.config), "v": CODE_VERSION})
        path = cache_dir() / "physbench" / f"depthnet-{key}.pt"
        if path.exists():
            self.net_.load_state_dict(torch.load(path, weights_only=True))
            self.net_.eval()
            return self
        rng = np.random.default_rng([self.config.seed, 4242])  # never a test stream
        xs, ys = [], []
        for _ in range(self.config.n_scenes):
            img, dmap, _ = depth_scene(rng)
            xs.append(_small(img))
            ys.append(_disparity(dmap))
        x = torch.tensor(np.stack(xs), dtype=torch.float32)
        y = torch.tensor(np.stack(ys), dtype=torch.float32)
        opt = torch.optim.Adam(self.net_.parameters(), lr=self.config.lr)
        g = torch.Generator().manual_seed(self.config.seed)
        self.net_.train()
        for _ in progress(range(self.config.epochs), "training DepthNet"):
            perm = torch.randperm(len(x), generator=g)
            for s in range(0, len(x), self.config.batch_size):
                j = perm[s : s + self.config.batch_size]
                x_j = x[j] + 0.02 * torch.randn(x[j].shape, generator=g)  # robust to marks and noise
                loss = nn.functional.l1_loss(self.net_(x_j), y[j])
                opt.zero_grad()
                loss.backward()
                opt.step()
        self.net_.eval()
        with atomic_write(path) as f:
            torch.save(self.net_.state_dict(), f)
        return self

    @torch.no_grad()
    def disparity(self, img: np.ndarray) -> np.ndarray:
        """(96, 96, 3) uint8 -> (96, 96) predicted disparity (nearest-neighbour upsampled)."""
        x = torch.tensor(_small(img)[None], dtype=torch.float32)
        d = self.net_(x)[0].numpy()
        return np.kron(d, np.ones((SIZE // OUT, SIZE // OUT)))


class OracleDepth:
    """An exact disparity map (tests: inject the generator's depth to check the reasoning step)."""

    def __init__(self, depth_map: np.ndarray) -> None:
        self.depth_map = depth_map

    def disparity(self, img: np.ndarray) -> np.ndarray:
        return 1.0 / self.depth_map


def read_at(disp: np.ndarray, points: dict[str, list[int]], radius: int = 1) -> dict[str, float]:
    """Mean disparity in a (2r+1)^2 window at each option pixel (x, y)."""
    h, w = disp.shape
    out = {}
    for k, (x, y) in points.items():
        x, y = int(np.clip(x, 0, w - 1)), int(np.clip(y, 0, h - 1))
        out[k] = float(disp[max(0, y - radius) : y + radius + 1, max(0, x - radius) : x + radius + 1].mean())
    return out
