"""Reading the user's files at the door: arrays, images, tables and JSON come back validated or raise a
one-line UserError naming the file and what is wrong; output paths are checked before long work starts."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from iclr25.core.errors import UserError

MAX_IMAGE_PIXELS = 64_000_000  # larger images are refused (decompression bombs), not decoded


def _existing_file(path: Path, what: str) -> Path:
    path = Path(path)
    if not path.exists():
        raise UserError(f"{what} file not found: {path}")
    if not path.is_file():
        raise UserError(f"{what} is not a regular file: {path}")
    return path


def first_line(e: BaseException, limit: int = 200) -> str:
    """An exception's message on one line (its type's name when it has none), at most `limit` characters."""
    return (" ".join(str(e).split()) or type(e).__name__)[:limit]


def read_array(path: Path, what: str = "array", key: str | None = None, finite: bool = True):
    """A numeric .npy array, or array `key` (default: the first) of a .npz. Refuses pickles, empty
    files, non-numeric or complex dtypes and (with `finite`) NaN/inf.

    >>> import numpy as np, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "a.npy"); np.save(p, np.eye(2))
    >>> read_array(p).shape
    (2, 2)
    """
    import numpy as np
    path = _existing_file(path, what)
    try:
        obj = np.load(path, allow_pickle=False)
        if isinstance(obj, np.lib.npyio.NpzFile):
            with obj:
                if not obj.files:
                    raise UserError(f"{what} file {path} holds no arrays")
                if key is not None and key not in obj.files:
                    has = ", ".join(obj.files)
                    raise UserError(f"{what} file {path} has no array {key!r} (it has {has})")
                a = obj[key if key is not None else obj.files[0]]
        else:
            a = obj
    except UserError:
        raise
    except Exception as e:  # numpy raises ValueError, EOFError, OSError, zipfile errors, ...
        raise UserError(f"cannot read {what} from {path}: {first_line(e)}") from None
    return check_array(a, f"{what} ({path})", finite=finite)


def check_array(a: Any, what: str, finite: bool = True, ndim: int | None = None):
    """`a` as a real numeric ndarray, or a UserError naming what is wrong with it."""
    import numpy as np
    a = np.asarray(a)
    if a.dtype == bool:
        a = a.astype(np.uint8)
    if not (np.issubdtype(a.dtype, np.integer) or np.issubdtype(a.dtype, np.floating)):
        raise UserError(f"{what} must be real numbers, got dtype {a.dtype}")
    if a.size == 0:
        raise UserError(f"{what} is empty (shape {a.shape})")
    if ndim is not None and a.ndim != ndim:
        raise UserError(f"{what} must be {ndim}-D, got shape {a.shape}")
    if finite and np.issubdtype(a.dtype, np.floating) and not np.isfinite(a).all():
        raise UserError(f"{what} contains NaN or infinite values")
    return a


def read_image(path: Path, what: str = "image", mode: str = "L"):
    """An image file as a uint8 array in PIL `mode` ("L" gray, "RGB"); refuses unreadable, truncated and
    oversized images."""
    import numpy as np
    from PIL import Image
    path = _existing_file(path, what)
    Image.MAX_IMAGE_PIXELS = MAX_IMAGE_PIXELS
    try:
        with Image.open(path) as im:
            if im.width * im.height > MAX_IMAGE_PIXELS:
                raise UserError(f"{what} {path} is {im.width}x{im.height}: larger than "
                                f"{MAX_IMAGE_PIXELS:,} pixels")
            a = np.asarray(im.convert(mode))
    except UserError:
        raise
    except Exception as e:  # PIL raises OSError, SyntaxError, ValueError, DecompressionBombError...
        raise UserError(f"{what} is not a readable image: {path} ({first_line(e)})") from None
    if a.size == 0:
        raise UserError(f"{what} {path} has no pixels")
    return a


def read_csv(path: Path, what: str = "table", sep: str | None = ",", **kwargs: Any):
    """A CSV as a DataFrame with column names stripped of surrounding and repeated spaces; `sep=None`
    sniffs the separator. Refuses unreadable and empty tables."""
    import pandas as pd
    path = _existing_file(path, what)
    try:
        df = pd.read_csv(path, sep=sep, engine="python" if sep is None else "c", **kwargs)
    except Exception as e:  # pandas raises ParserError, UnicodeDecodeError, EmptyDataError, ...
        raise UserError(f"cannot read {what} file {path}: {first_line(e)}") from None
    df.columns = [" ".join(str(c).split()) for c in df.columns]
    if df.empty:
        raise UserError(f"{what} file {path} has no rows")
    return df


def read_json(path: Path, what: str = "JSON", max_bytes: int = 64 << 20) -> Any:
    """Parsed JSON, refusing files over `max_bytes`, invalid text, absurd nesting and huge integers."""
    path = _existing_file(path, what)
    if path.stat().st_size > max_bytes:
        raise UserError(f"{what} file {path} is larger than {max_bytes >> 20} MiB")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, RecursionError, UnicodeDecodeError) as e:
        raise UserError(f"{what} file {path} is not valid JSON: {first_line(e)}") from None


def output_path(path: Path, what: str = "output", suffixes: tuple[str, ...] = ()) -> Path:
    """Check, before any long work, that `path` can be written: its folder exists (or can be made) and
    is writable, `path` is not a folder, and (if `suffixes` are given) it has one of them."""
    path = Path(path)
    if suffixes and path.suffix.lower() not in suffixes:
        raise UserError(f"{what} must end in {' or '.join(suffixes)}, got {path.name!r}")
    if path.is_dir():
        raise UserError(f"{what} path is a folder, expected a file: {path}")
    parent = path.parent if str(path.parent) else Path(".")
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"cannot create the folder for {what} {path}: {e.strerror or e}") from None
    if not os.access(parent, os.W_OK):
        raise UserError(f"cannot write {what} into {parent}: permission denied")
    return path


def output_dir(path: Path, what: str = "output folder") -> Path:
    """Like output_path, for a folder to write several files into."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise UserError(f"{what} is a file, expected a folder: {path}")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"cannot create {what} {path}: {e.strerror or e}") from None
    if not os.access(path, os.W_OK):
        raise UserError(f"cannot write into {what} {path}: permission denied")
    return path
