"""The five real CASSI measurements of TSA-Net (660 × 714, 28 bands, 2-px step) with their 660² mask, from
the shared data folder; `real_crop` cuts a square region and the matching measurement columns."""

from __future__ import annotations

import numpy as np

from iclr25.core.data import shared_data
from iclr25.core.errors import UserError
from iclr25.psr_sci.io import read_mat
from iclr25.psr_sci.training import DATA


def real_scene(scene: int) -> tuple[np.ndarray, np.ndarray]:
    """(measurement (660, 714), mask (660, 660)) of real scene 1..5."""
    if not 1 <= scene <= 5:
        raise UserError(f"--scene must be 1..5, got {scene}")
    folder = shared_data(DATA)
    if folder is None or not (folder / "real").is_dir():
        raise UserError(f"the real CASSI data is missing: expected shared/data/{DATA}/real/")
    y = read_mat(folder / "real" / f"scene{scene}.mat", "real measurement", ("meas_real",))
    mask = read_mat(folder / "real" / "mask_real_660.mat", "real mask", ("mask",))
    return y, mask


def real_crop(y: np.ndarray, mask: np.ndarray, size: int, bands: int = 28,
              step: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """The central size × size region of the scene: mask[r, c] and y[r, c : c + size + step(B−1)]."""
    h, w = mask.shape
    if size <= 0 or size >= min(h, w):
        return y, mask
    r0, c0 = (h - size) // 2, (w - size) // 2
    return (np.ascontiguousarray(y[r0:r0 + size, c0:c0 + size + step * (bands - 1)]),
            np.ascontiguousarray(mask[r0:r0 + size, c0:c0 + size]))


def normalise_real(y: np.ndarray, mask: np.ndarray, bands: int = 28, step: int = 2,
                   level: float = 0.3) -> np.ndarray:
    """Rescale a real measurement so its least-norm cube has mean `level`, the brightness of the
    synthetic training scenes (real captures have arbitrary exposure and gain)."""
    from iclr25.psr_sci.operators import least_norm

    mean = float(np.mean(least_norm(y, mask, bands, step)))
    if mean <= 0:
        raise UserError("the measurement is all zeros")
    return (y * (level / mean)).astype(np.float32)
