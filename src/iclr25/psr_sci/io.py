"""Reading CASSI files: measurements and masks from .npz/.npy (numpy) or .mat (MATLAB ≤ v7.2 via
scipy.io), each under one of the keys the TSA-Net/MST/PSR-SCI releases use; a one-line UserError names
what is wrong."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from iclr25.core.errors import UserError
from iclr25.core.io import check_array, read_array

MEAS_KEYS = ("meas", "meas_real", "y", "measurement")
MASK_KEYS = ("mask", "Phi", "mask_3d")
CUBE_KEYS = ("cube", "img", "x", "truth")


def read_mat(path: Path, what: str, keys: tuple[str, ...]) -> np.ndarray:
    """The first of `keys` found in a MATLAB file, as float32."""
    import scipy.io

    path = Path(path)
    if not path.is_file():
        raise UserError(f"{what} file not found: {path}")
    try:
        data = scipy.io.loadmat(str(path))
    except NotImplementedError:
        raise UserError(f"{what} file {path} is MATLAB v7.3 (HDF5); save it with -v7 or as .npz") from None
    except Exception as e:  # scipy raises ValueError, TypeError, OSError, MatReadError on bad files
        raise UserError(f"cannot read {what} from {path}: {' '.join(str(e).split())[:160]}") from None
    for k in keys:
        if k in data:
            return check_array(data[k], f"{what} ({path}:{k})").astype(np.float32)
    found = ", ".join(k for k in data if not k.startswith("__")) or "none"
    raise UserError(f"{what} file {path} has none of the keys {', '.join(keys)} (it has: {found})")


def read_any(path: Path, what: str, keys: tuple[str, ...]) -> np.ndarray:
    """A float32 array from .mat (by key), .npz (by key, else its only array) or .npy."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".mat":
        return read_mat(path, what, keys)
    if suffix == ".npz":
        return read_array(path, what, key=_npz_key(path, what, keys)).astype(np.float32)
    if suffix == ".npy":
        return read_array(path, what).astype(np.float32)
    raise UserError(f"{what} must be a .mat, .npz or .npy file, got {path.name!r}")


def _npz_key(path: Path, what: str, keys: tuple[str, ...]) -> str | None:
    if not path.is_file():
        raise UserError(f"{what} file not found: {path}")
    try:
        with np.load(path, allow_pickle=False) as z:
            files = list(z.files)
    except Exception as e:  # numpy raises ValueError, OSError, BadZipFile, ...
        raise UserError(f"cannot read {what} from {path}: {' '.join(str(e).split())[:160]}") from None
    return next((k for k in keys if k in files), None)
