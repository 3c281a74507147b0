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


IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")
MAX_PAIRS = 20_000
MAX_TOTAL_PIXELS = 50_000_000  # 200 MB of float32 images: beyond that a laptop run makes no sense
MAX_SIDE = 512                  # a batch of 16 larger images would need more memory than a laptop has


def read_mask(path, name: str = "mask") -> np.ndarray:
    """A binary mask image (values 0/1 or 0/255) as bool."""
    from iclr25.core.io import read_image
    a = read_image(path, name)
    vals = set(np.unique(a).tolist())
    if vals <= {0, 1}:
        return a.astype(bool)
    if vals <= {0, 255}:
        return a == 255
    raise UserError(f"{name} {path} must be binary (0/1 or 0/255), found {len(vals)} distinct values")


def load_pairs(images, masks) -> tuple[np.ndarray, np.ndarray]:
    """The user's own data: every image in folder `images` with the mask of the same file stem in folder
    `masks`. Images are read as grayscale and standardised per image; all pairs must share one shape,
    which is cropped (top-left) to a multiple of 4 for the U-Net.

    Returns (images (n, 1, H, W) float32, masks (n, H, W) uint8)."""
    from pathlib import Path

    from iclr25.core.io import read_image
    img_dir, mask_dir = Path(images), Path(masks)
    for d, opt in ((img_dir, "--images"), (mask_dir, "--masks")):
        if not d.is_dir():
            raise UserError(f"{opt}: not a folder: {d}")
    by_stem = {p.stem: p for p in sorted(mask_dir.iterdir()) if p.suffix.lower() in IMAGE_SUFFIXES}
    pairs = [(p, by_stem[p.stem]) for p in sorted(img_dir.iterdir())
             if p.suffix.lower() in IMAGE_SUFFIXES and p.stem in by_stem]
    if not pairs:
        raise UserError(f"no image in {img_dir} has a mask of the same name in {mask_dir} "
                        f"(image files: {', '.join(IMAGE_SUFFIXES)})")
    if len(pairs) > MAX_PAIRS:
        raise UserError(f"{len(pairs)} image/mask pairs: more than {MAX_PAIRS:,}; use a subset")
    xs, ys = [], []
    for ip, mp in pairs:
        x, y = read_image(ip, "image").astype(np.float32), read_mask(mp)
        if x.shape != y.shape:
            raise UserError(f"image {ip.name} is {x.shape[1]}x{x.shape[0]} but its mask is "
                            f"{y.shape[1]}x{y.shape[0]}")
        if xs and x.shape != xs[0].shape:
            raise UserError(f"all images must have one size: {ip.name} is {x.shape[1]}x{x.shape[0]}, "
                            f"{pairs[0][0].name} is {xs[0].shape[1]}x{xs[0].shape[0]}")
        if max(x.shape) > MAX_SIDE:
            raise UserError(f"image {ip.name} is {x.shape[1]}x{x.shape[0]}: the CPU U-Net trains on images "
                            f"up to {MAX_SIDE}x{MAX_SIDE}; crop or downscale them (tiles work well)")
        if x.size * (len(xs) + 1) > MAX_TOTAL_PIXELS:
            raise UserError(f"{len(pairs)} pairs of {x.shape[1]}x{x.shape[0]} images exceed "
                            f"{MAX_TOTAL_PIXELS:,} pixels in all; use fewer or smaller images")
        xs.append((x - x.mean()) / (x.std() + 1e-6))
        ys.append(y)
    h, w = (s - s % 4 for s in xs[0].shape)
    if min(h, w) < 16:
        raise UserError(f"images must be at least 16x16 pixels, got {xs[0].shape[1]}x{xs[0].shape[0]}")
    x = np.stack(xs)[:, None, :h, :w].astype(np.float32)
    return x, np.stack(ys)[:, :h, :w].astype(np.uint8)
