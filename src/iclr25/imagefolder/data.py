"""Images in, validated: Fashion-MNIST from the Debian package's idx files, scikit-learn's 8x8 digits
(tests), and the user's own images (a folder of PNG/JPEG files, optionally one sub-folder per class, or
an .npz with `images` and optional `labels`).

Every loader returns an `ImageSet`: float32 pixels in [0, 1] shaped (N, C, H, W) and int64 labels or
None. Bad input raises UserError with one line naming the bad value."""

from __future__ import annotations

import gzip
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from iclr25.core.errors import UserError

FASHION_MNIST_DIR = Path("/usr/share/datasets/fashion-mnist")
FASHION_MNIST_CLASSES = ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt",
                         "Sneaker", "Bag", "Ankle boot")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp")
MAX_CLASSES = 65_536  # class labels are indices 0 .. MAX_CLASSES - 1 (an embedding row per class)


@dataclass
class ImageSet:
    """Pixels (N, C, H, W) float32 in [0, 1]; labels (N,) int64 or None; class names when known."""

    images: np.ndarray
    labels: np.ndarray | None = None
    classes: tuple[str, ...] | None = None

    def __len__(self) -> int:
        return len(self.images)

    @property
    def num_classes(self) -> int:
        if self.labels is None:
            return 0
        return len(self.classes) if self.classes else int(self.labels.max()) + 1

    def subset(self, idx: np.ndarray | slice) -> ImageSet:
        labels = None if self.labels is None else self.labels[idx]
        return ImageSet(self.images[idx], labels, self.classes)


def fashion_mnist_dir() -> Path:
    """`$ICLR25_FASHION_MNIST`, else the Debian package's folder."""
    return Path(os.environ.get("ICLR25_FASHION_MNIST", FASHION_MNIST_DIR))


def fashion_mnist_available() -> bool:
    d = fashion_mnist_dir()
    return all((d / f"{s}-{k}-ubyte.gz").is_file() for s in ("train", "t10k")
               for k in ("images-idx3", "labels-idx1"))


def _read_idx(path: Path, magic: int) -> np.ndarray:
    """An idx file (big-endian header: magic, then one uint32 per dimension, then uint8 data)."""
    with gzip.open(path, "rb") as f:
        raw = f.read()
    got = int.from_bytes(raw[:4], "big")
    if got != magic:
        raise UserError(f"{path}: not an idx file of the expected kind (magic {got}, expected {magic})")
    ndim = magic & 0xFF
    dims = [int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    data = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim)
    if data.size != int(np.prod(dims)):
        raise UserError(f"{path}: truncated idx file ({data.size} values for shape {dims})")
    return data.reshape(dims)


def load_fashion_mnist(split: str = "train", root: str | Path | None = None) -> ImageSet:
    """Fashion-MNIST (60k train / 10k test, 28x28 grey) from the idx files of the Debian package
    `dataset-fashion-mnist` (`/usr/share/datasets/fashion-mnist/`)."""
    if split not in ("train", "test"):
        raise UserError(f"split must be 'train' or 'test', got {split!r}")
    d = Path(root) if root is not None else fashion_mnist_dir()
    stem = "train" if split == "train" else "t10k"
    img_path, lab_path = d / f"{stem}-images-idx3-ubyte.gz", d / f"{stem}-labels-idx1-ubyte.gz"
    if not img_path.is_file() or not lab_path.is_file():
        raise UserError(f"Fashion-MNIST not found in {d}: apt-get install dataset-fashion-mnist "
                        "(or set ICLR25_FASHION_MNIST to a folder with the four idx .gz files)")
    images = _read_idx(img_path, 2051).astype(np.float32)[:, None] / 255.0  # (N, 1, 28, 28)
    labels = _read_idx(lab_path, 2049).astype(np.int64)
    return ImageSet(images, labels, FASHION_MNIST_CLASSES)


def load_digits_images() -> ImageSet:
    """scikit-learn's 1,797 8x8 digits (grey levels 0..16) as an ImageSet; small enough for tests."""
    from sklearn.datasets import load_digits
    d = load_digits()
    images = (d.images.astype(np.float32) / 16.0)[:, None]
    return ImageSet(images, d.target.astype(np.int64), tuple(str(i) for i in range(10)))


def as_image_array(images: np.ndarray, name: str = "images") -> np.ndarray:
    """Validate and convert an array of images to float32 (N, C, H, W) in [0, 1].

    Accepts (N, H, W), (N, H, W, C) with C in {1, 3} (channels last, as image files load) or
    (N, C, H, W) with C in {1, 3}; uint8 is divided by 255, floats must already lie in [0, 1].

    >>> as_image_array(np.zeros((2, 4, 4), np.uint8)).shape
    (2, 1, 4, 4)
    """
    a = np.asarray(images)
    if not (np.issubdtype(a.dtype, np.integer) or np.issubdtype(a.dtype, np.floating) or a.dtype == bool):
        raise UserError(f"{name}: expected real numbers, got dtype {a.dtype}")
    if a.ndim == 3:
        a = a[:, None]
    elif a.ndim == 4:
        if a.shape[1] not in (1, 3) and a.shape[-1] in (1, 3):
            a = np.moveaxis(a, -1, 1)
        if a.shape[1] not in (1, 3):
            raise UserError(f"{name}: 1 or 3 channels expected, got shape {tuple(images.shape)}")
    else:
        raise UserError(f"{name}: expected (N, H, W) or (N, H, W, C), got shape {tuple(a.shape)}")
    if len(a) == 0:
        raise UserError(f"{name}: no images (shape {tuple(a.shape)})")
    if a.dtype == np.uint8:
        return a.astype(np.float32) / 255.0
    a = a.astype(np.float32)
    if not np.isfinite(a).all():
        raise UserError(f"{name}: {int((~np.isfinite(a)).sum())} NaN or infinite pixel values")
    lo, hi = float(a.min()), float(a.max())
    if lo < 0.0 or hi > 1.0:
        raise UserError(f"{name}: float pixels must lie in [0, 1], got range [{lo:g}, {hi:g}] "
                        "(pass uint8 for 0..255)")
    return a


def as_labels(labels: np.ndarray | None, n: int, name: str = "labels") -> np.ndarray | None:
    """Validate labels for n images: integers >= 0, one per image."""
    if labels is None:
        return None
    y = np.asarray(labels)
    if y.ndim != 1:
        raise UserError(f"{name}: expected a 1-D array, got shape {tuple(y.shape)}")
    if len(y) != n:
        raise UserError(f"{name}: {len(y)} labels for {n} images")
    if not np.issubdtype(y.dtype, np.integer):
        if np.issubdtype(y.dtype, np.floating) and np.isfinite(y).all() and (y == np.round(y)).all():
            y = y.astype(np.int64)
        else:
            raise UserError(f"{name}: class labels must be integers, got dtype {y.dtype}")
    if len(y) and y.min() < 0:
        raise UserError(f"{name}: class labels must be >= 0, got {int(y.min())}")
    if len(y) and y.max() >= MAX_CLASSES:
        raise UserError(f"{name}: class labels are indices 0..{MAX_CLASSES - 1} (one embedding row per "
                        f"class), got {int(y.max())}: renumber the classes 0, 1, 2, ...")
    return y.astype(np.int64)


def load_images(path: str | Path) -> ImageSet:
    """The user's images: an .npz (`images` or `x`, optional `labels` or `y`) or a folder of image
    files; with one sub-folder per class, the sub-folder names become the classes (sorted)."""
    p = Path(path)
    if not p.exists():
        raise UserError(f"images: {p} does not exist")
    if p.is_file():
        if p.suffix.lower() != ".npz":
            raise UserError(f"images: {p} is neither a folder nor an .npz file")
        return _load_npz(p)
    return _load_folder(p)


def _load_npz(p: Path) -> ImageSet:
    try:
        with np.load(p, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except Exception as e:  # numpy raises OSError, ValueError, EOFError, zipfile.BadZipFile, ...
        raise UserError(f"images: cannot read {p}: {' '.join(str(e).split())[:120]}") from None
    key = next((k for k in ("images", "x", "X") if k in arrays), None)
    if key is None:
        raise UserError(f"images: {p.name} has no 'images' array (found: {', '.join(arrays) or 'none'})")
    images = as_image_array(arrays[key], f"{p.name}:{key}")
    lab_key = next((k for k in ("labels", "y") if k in arrays), None)
    labels = as_labels(arrays[lab_key], len(images), f"{p.name}:{lab_key}") if lab_key else None
    return ImageSet(images, labels)


def _image_files(d: Path) -> list[Path]:
    return sorted(f for f in d.iterdir() if f.is_file() and f.suffix.lower() in IMAGE_SUFFIXES)


def _load_folder(d: Path) -> ImageSet:
    from PIL import Image

    from iclr25.core.io import MAX_IMAGE_PIXELS, read_image

    subdirs = sorted(s for s in d.iterdir() if s.is_dir() and not s.name.startswith("."))
    loose = _image_files(d)
    if subdirs and loose:
        raise UserError(f"images: {d} mixes image files ({loose[0].name}) with class sub-folders "
                        f"({subdirs[0].name}/); use one layout")
    groups = [(s.name, _image_files(s)) for s in subdirs] if subdirs else [("", loose)]
    groups = [(name, files) for name, files in groups if files]
    files = [f for _, files in groups for f in files]
    if not files:
        raise UserError(f"images: no image files ({', '.join(IMAGE_SUFFIXES)}) in {d}")
    # headers first (size, mode): mixed sizes and oversized files are refused before any decoding
    size, first, grey = None, None, True
    for f in files:
        try:
            with Image.open(f) as im:
                f_size, f_mode = im.size, im.mode
        except Exception as e:  # PIL raises OSError, SyntaxError, ValueError, DecompressionBombError...
            raise UserError(f"images: cannot read {f}: {' '.join(str(e).split())[:120]}") from None
        if f_size[0] * f_size[1] > MAX_IMAGE_PIXELS:
            raise UserError(f"images: {f} is {f_size[0]}x{f_size[1]}: larger than "
                            f"{MAX_IMAGE_PIXELS:,} pixels")
        if size is None:
            size, first = f_size, f
        elif f_size != size:
            raise UserError(f"images: mixed image sizes: {f} is {f_size[0]}x{f_size[1]}, "
                            f"{first.name} is {size[0]}x{size[1]}")
        grey = grey and f_mode in ("1", "L", "LA", "I", "I;16", "F")
    mode = "L" if grey else "RGB"
    arr = np.stack([read_image(f, "images: file", mode) for f in files])
    images = as_image_array(arr, str(d))
    if not subdirs:
        return ImageSet(images)
    labels = np.concatenate([np.full(len(fs), i) for i, (_, fs) in enumerate(groups)]).astype(np.int64)
    return ImageSet(images, labels, tuple(name for name, _ in groups))


def save_grid(images: np.ndarray, path: str | Path, nrow: int | None = None, title: str = "",
              col_labels: Sequence[str] = (), min_cell: int = 96) -> Path:
    """Tile (N, C, H, W) images in [0, 1] into one PNG (nrow images per row), each image enlarged by an
    integer factor (nearest neighbour: pixels stay pixels) to at least `min_cell` pixels a side, under a
    `title` line and, where given, one label per column (e.g. "original", "reconstruction")."""
    from PIL import Image, ImageDraw

    from iclr25.core.runtime import atomic_write

    x = np.clip(np.asarray(images, dtype=np.float32), 0.0, 1.0)
    n, c, h, w = x.shape
    k = max(1, -(-min_cell // max(h, w)))  # the integer zoom
    x = x.repeat(k, axis=2).repeat(k, axis=3)
    h, w, gap = h * k, w * k, 2
    nrow = nrow or int(np.ceil(np.sqrt(n)))
    rows = int(np.ceil(n / nrow))
    grid = np.ones((c, rows * (h + gap) + gap, nrow * (w + gap) + gap), np.float32)
    for i in range(n):
        r, q = divmod(i, nrow)
        top, left = gap + r * (h + gap), gap + q * (w + gap)
        grid[:, top:top + h, left:left + w] = x[i]
    pix = (grid * 255).round().astype(np.uint8)
    body = Image.fromarray(pix[0] if c == 1 else np.moveaxis(pix, 0, -1)).convert("RGB")
    line = 14  # the default bitmap font is ~11 px high
    head = (line if title else 0) + (line if col_labels else 0)
    width = max(body.width, int(ImageDraw.Draw(body).textlength(title)) + 2 * gap + 4 if title else 0)
    im = Image.new("RGB", (width, body.height + head + (4 if head else 0)), "white")
    im.paste(body, (0, im.height - body.height))
    draw = ImageDraw.Draw(im)
    if title:
        draw.text((gap + 2, 2), title, fill="black")
    for q, label in enumerate(list(col_labels)[:nrow]):
        draw.text((gap + q * (w + gap) + 2, 2 + (line if title else 0)), label, fill="black")
    path = Path(path)
    with atomic_write(path) as f:
        im.save(f, format="PNG")
    return path
