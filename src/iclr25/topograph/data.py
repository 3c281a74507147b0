"""Synthetic, topology-rich segmentation data with exact ground truth (numpy only, nothing downloaded).

Families (spec Sec. 4): "curvilinear" (road/vessel-like polylines with junctions and loops), "membranes"
(CREMI-like Voronoi cell boundaries: many holes) and "blobs" (smooth blobs with holes). The input image is
the ground truth blurred, with intensity drop-outs (gaps) along the structure, distractor blobs and noise,
so that a pixel-wise model tends to break thin structures: exactly the errors a topology loss targets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import ndimage
from scipy.spatial import cKDTree

from iclr25.core.errors import UserError

FAMILIES = ("curvilinear", "membranes", "blobs")


@dataclass(frozen=True)
class DataConfig:
    size: int = 64              # image side (quick 48-64, full 128)
    gaps: int = 4               # drop-outs along the structure per image
    gap_radius: float = 1.5     # radius of a drop-out in pixels
    noise: float = 0.3         # std of the additive Gaussian noise
    distractors: int = 3        # faint blobs that are not foreground
    blur: float = 1.0           # sigma of the blur of the clean image


def _draw_segment(img: np.ndarray, p: np.ndarray, q: np.ndarray) -> None:
    n = int(np.ceil(np.abs(q - p).max() * 2)) + 1
    t = np.linspace(0.0, 1.0, n)[:, None]
    pts = np.rint(p + t * (q - p)).astype(int)
    img[pts[:, 0], pts[:, 1]] = True


def curvilinear_gt(rng: np.random.Generator, size: int) -> np.ndarray:
    """Random "roads": 3-5 gently bent polylines running across the image; their crossings make
    junctions and loops. Width 2 or 3 px."""
    img = np.zeros((size, size), dtype=bool)
    for _ in range(int(rng.integers(3, 6))):
        a, b = rng.uniform(0, size - 1, 2), rng.uniform(0, size - 1, 2)
        side = rng.integers(2)
        a[side], b[side] = 0.0, size - 1.0                                  # enter and leave the image
        pts = [a + t * (b - a) + rng.normal(0, size / 25, 2) * (0 < t < 1) for t in np.linspace(0, 1, 5)]
        pts = [np.clip(p, 0, size - 1) for p in pts]
        for p, q in zip(pts[:-1], pts[1:], strict=True):
            _draw_segment(img, p, q)
    thick = ndimage.binary_dilation(img, np.array([[0, 0, 0], [0, 1, 1], [0, 1, 1]], bool))  # width 2
    return ndimage.binary_dilation(img) if rng.random() < 0.3 else thick


def membranes_gt(rng: np.random.Generator, size: int) -> np.ndarray:
    """Voronoi cell boundaries of random seeds: a connected membrane network with many holes."""
    n = int(rng.integers(8, 14))
    seeds = rng.uniform(0, size, size=(n, 2))
    yy, xx = np.mgrid[0:size, 0:size]
    _, cell = cKDTree(seeds).query(np.stack([yy.ravel(), xx.ravel()], 1))
    cell = cell.reshape(size, size)
    b = np.zeros((size, size), dtype=bool)
    h = cell[:, :-1] != cell[:, 1:]
    v = cell[:-1, :] != cell[1:, :]
    b[:, :-1] |= h
    b[:, 1:] |= h          # both sides of a cell change: membranes 2 px wide, like CREMI's
    b[:-1, :] |= v
    b[1:, :] |= v
    return b


def blobs_gt(rng: np.random.Generator, size: int, volume_fraction: float = 0.6) -> np.ndarray:
    """Smooth random blobs with holes (like skimage's binary_blobs), small specks removed."""
    field = ndimage.gaussian_filter(rng.normal(size=(size, size)), sigma=size / 14)
    m = field > np.quantile(field, 1 - volume_fraction)
    return ndimage.binary_opening(m, iterations=1)


_GENERATORS = {"curvilinear": curvilinear_gt, "membranes": membranes_gt, "blobs": blobs_gt}


def degrade(gt: np.ndarray, rng: np.random.Generator, cfg: DataConfig) -> np.ndarray:
    """The network input: blurred GT with gaps along the structure, distractor blobs and noise."""
    size = gt.shape[0]
    img = gt.astype(np.float32)
    fg = np.argwhere(gt)
    yy, xx = np.mgrid[0:size, 0:size]
    if len(fg):
        for y, x in fg[rng.integers(len(fg), size=cfg.gaps)]:
            img[(yy - y) ** 2 + (xx - x) ** 2 <= cfg.gap_radius ** 2] *= 0.15     # drop-out, GT unchanged
    for _ in range(cfg.distractors):
        y, x = rng.uniform(0, size, 2)
        img += 0.45 * np.exp(-((yy - y) ** 2 + (xx - x) ** 2) / (2 * rng.uniform(1, 3) ** 2))
    img = ndimage.gaussian_filter(img, cfg.blur)
    img = img + rng.normal(0, cfg.noise, img.shape)
    return ((img - img.mean()) / (img.std() + 1e-6)).astype(np.float32)


def make_dataset(family: str, n: int, seed: int, cfg: DataConfig = DataConfig()
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(images (n, 1, S, S) float32, masks (n, S, S) uint8) for one family, reproducible from `seed`.

    >>> x, y = make_dataset("membranes", 2, seed=0, cfg=DataConfig(size=32))
    >>> x.shape, y.shape, set(np.unique(y)) <= {0, 1}
    ((2, 1, 32, 32), (2, 32, 32), True)
    """
    if family not in _GENERATORS:
        raise UserError(f"unknown data family {family!r}; choose from {', '.join(FAMILIES)}")
    if n < 1 or cfg.size < 16:
        raise UserError(f"need n >= 1 and size >= 16, got n={n}, size={cfg.size}")
    rng = np.random.default_rng(seed)
    xs = np.zeros((n, 1, cfg.size, cfg.size), np.float32)
    ys = np.zeros((n, cfg.size, cfg.size), np.uint8)
    for i in range(n):
        gt = _GENERATORS[family](rng, cfg.size)
        ys[i] = gt
        xs[i, 0] = degrade(gt, rng, cfg)
    return xs, ys
