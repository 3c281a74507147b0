"""BaseQA: our stand-in for the VLM PhysAgent wraps - a small CNN (< 200k parameters) that reads up to 8
frames at 48x48 plus hashed bag-of-words features of the question and of each option, and scores the four
options. `blind=True` trains the same network with the pixels blanked (the text-only baseline). It answers
through the same `qa(images, prompt, mode)` call as any served VLM."""

from __future__ import annotations

import re
import zlib
from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn

from iclr25.core.runtime import atomic_write, config_hash, progress
from iclr25.physbench.harness import Item, frames
from iclr25.physbench.taxonomy import LETTERS

SLOTS, RES, Q_DIM, O_DIM, EMB = 8, 48, 128, 64, 32
CODE_VERSION = "baseqa-1"


@dataclass(frozen=True)
class BaseQAConfig:
    epochs: int = 12
    lr: float = 3e-3
    batch_size: int = 64
    weight_decay: float = 1e-4
    blind: bool = False  # text only: the pixels are blanked in training and at test time
    seed: int = 0


def _bow(text: str, dim: int) -> np.ndarray:
    v = np.zeros(dim, np.float32)
    for w in re.findall(r"[a-z0-9]+", text.lower()):
        v[zlib.crc32(w.encode()) % dim] += 1.0
    return v


def _small(img: np.ndarray) -> np.ndarray:
    """(H, W, 3) uint8 -> (3, 48, 48) float in [0, 1] by block averaging (nearest for odd sizes)."""
    h, w = img.shape[:2]
    ys = np.arange(RES) * h // RES
    xs = np.arange(RES) * w // RES
    if h == 2 * RES and w == 2 * RES:
        x = img[..., :3].reshape(RES, 2, RES, 2, 3).mean((1, 3))
    else:
        x = img[ys][:, xs, :3]
    return (np.asarray(x, np.float32) / 255.0).transpose(2, 0, 1)


def _parse(prompt: str) -> tuple[str, list[str]]:
    text = re.sub(r"<(image|video)>", " ", prompt.split("\nAnswer with the option")[0])
    parts = re.split(r"\n([ABCD])\.\s?", text)
    stem = parts[0]
    opts = {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}
    return stem, [opts.get(k, "") for k in LETTERS]


def featurize(
    images: list[np.ndarray], prompt: str, mode: str, blind: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """-> frames (8, 3, 48, 48), slot mask (8,), question BOW (128,), option BOW (4, 64). In general
    mode the last 4 images are the options and go to slots 4..7 (the context gets slots 0..3)."""
    x = np.zeros((SLOTS, 3, RES, RES), np.float32)
    mask = np.zeros(SLOTS, np.float32)
    stem, opts = _parse(prompt)
    image_options = mode == "general" and sum(o.strip() == "" for o in opts) == 4 and len(images) >= 5
    ctx = images[:-4] if image_options else images
    n_ctx = 4 if image_options else SLOTS
    pick = np.linspace(0, len(ctx) - 1, min(n_ctx, len(ctx))).round().astype(int) if ctx else []
    for s, j in enumerate(pick):
        x[s], mask[s] = _small(ctx[j]), 1
    if image_options:
        for k in range(4):
            x[4 + k], mask[4 + k] = _small(images[-4 + k]), 1
    if blind:  # no pixels at all: the text-only baseline
        x[:], mask[:] = 0.0, 0.0
    o = np.stack([_bow(t, O_DIM) for t in opts])
    return x, mask, _bow(stem, Q_DIM), o


class BaseQANet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.frame = nn.Sequential(  # (N, 3, 48, 48) -> (N, EMB)
            nn.Conv2d(3, 8, 3, stride=2, padding=1),
            nn.ReLU(),  # (N, 8, 24, 24)
            nn.Conv2d(8, 16, 3, stride=2, padding=1),
            nn.ReLU(),  # (N, 16, 12, 12)
            nn.Conv2d(16, 32, 3, stride=2, padding=1),
            nn.ReLU(),  # (N, 32, 6, 6)
            nn.Flatten(),
            nn.Linear(32 * 6 * 6, EMB),
            nn.ReLU(),
        )
        self.context = nn.Sequential(nn.Linear(SLOTS * EMB + Q_DIM, 96), nn.ReLU())
        self.option = nn.Sequential(nn.Linear(96 + O_DIM + EMB, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, x, mask, q, o):  # x (B, 8, 3, 48, 48), mask (B, 8), q (B, 128), o (B, 4, 64)
        b = x.shape[0]
        emb = torch.zeros(b, SLOTS, EMB)
        real = mask > 0
        if real.any():
            emb[real] = self.frame(x[real])  # only frames that exist are encoded
        h = self.context(torch.cat([emb.reshape(b, -1), q], 1))  # (B, 96)
        opt_img = emb[:, 4:] * (mask[:, 4:].sum(1, keepdim=True) == 4)[..., None]  # (B, 4, EMB)
        z = torch.cat([h[:, None].expand(b, 4, 96), o, opt_img], -1)  # (B, 4, 96 + 64 + 32)
        return self.option(z).squeeze(-1)  # (B, 4) option scores


class BaseQA:
    """fit(items, answers) then qa(images, prompt, mode) -> letter; `state_dict`-cached by config."""

    def __init__(self, config: BaseQAConfig = BaseQAConfig()) -> None:
        self.config = config
        torch.manual_seed(config.seed)
        self.net_ = BaseQANet()
        self.calls = 0

    @property
    def n_params(self) -> int:
        return sum(p.numel() for p in self.net_.parameters())

    def _tensors(self, feats):
        return [torch.from_numpy(np.stack(f)) for f in zip(*feats, strict=True)]

    def fit(self, items: list[Item], answers: list[dict], cache_key: str | None = None) -> BaseQA:
        """Train on items with known answers (cross-entropy over the four options). With `cache_key`
        (e.g. a hash of the training set), weights are cached under cache_dir()."""
        from iclr25.core.runtime import cache_dir

        path = None
        if cache_key is not None:
            key = config_hash({"cfg": asdict(self.config), "data": cache_key, "v": CODE_VERSION})
            path = cache_dir() / "physbench" / f"baseqa-{key}.pt"
            if path.exists():
                self.net_.load_state_dict(torch.load(path, weights_only=True))
                return self
        gt = {a["idx"]: LETTERS.index(a["answer"]) for a in answers}
        feats = [featurize(frames(it), it.prompt(), it.mode, self.config.blind) for it in items]
        feats = [((f[0] * 255).round().astype(np.uint8), *f[1:]) for f in feats]  # 4x less memory
        x, m, q, o = self._tensors(feats)
        y = torch.tensor([gt[it.idx] for it in items])
        g = torch.Generator().manual_seed(self.config.seed)
        opt = torch.optim.AdamW(
            self.net_.parameters(), lr=self.config.lr, weight_decay=self.config.weight_decay
        )
        steps = self.config.epochs * ((len(items) + self.config.batch_size - 1) // self.config.batch_size)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, self.config.lr, total_steps=max(steps, 1))
        self.net_.train()
        for _ in progress(range(self.config.epochs), "training BaseQA"):
            perm = torch.randperm(len(items), generator=g)
            for s in range(0, len(items), self.config.batch_size):
                j = perm[s : s + self.config.batch_size]
                x_j = x[j].float() / 255.0
                loss = nn.functional.cross_entropy(self.net_(x_j, m[j], q[j], o[j]), y[j])
                opt.zero_grad()
                loss.backward()
                opt.step()
                sched.step()
        self.net_.eval()
        if path is not None:
            with atomic_write(path) as f:
                torch.save(self.net_.state_dict(), f)
        return self

    @torch.no_grad()
    def scores(self, images: list[np.ndarray], prompt: str, mode: str) -> np.ndarray:
        f = featurize(images, prompt, mode, self.config.blind)
        x, m, q, o = self._tensors([f])
        return self.net_(x, m, q, o)[0].numpy()

    def qa(self, images: list[np.ndarray], prompt: str, mode: str) -> str:
        """The VLM interface: the letter of the best-scoring option."""
        self.calls += 1
        return LETTERS[int(np.argmax(self.scores(images, prompt, mode)))]
