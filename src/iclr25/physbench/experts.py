"""PhysAgent's vision experts at CPU scale. They see pixels (and the question's text) only, never a
generator's state. `BlobDetector` (scipy.ndimage connected components of named colours) stands in for
Grounded-SAM's detection and segmentation; `track`, `motion_direction` and `shadow_offsets` are the
motion and shadow estimators; the depth expert is `iclr25.physbench.depthnet.DepthNet`."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import ndimage

from iclr25.physbench.synth.render import BALL_BLACK, COLOURS, SHADOW

_NAMES = (*COLOURS, "black", "shadow")
_REFS = np.array([*COLOURS.values(), BALL_BLACK, SHADOW], dtype=np.float32)  # (K, 3)


@lru_cache(maxsize=4)
def _lut(tol: float) -> np.ndarray:
    """Nearest named colour (or -1 beyond `tol`) for every 8x8x8 RGB cell, judged at the cell centre."""
    c = np.arange(32, dtype=np.float32) * 8 + 3.5
    grid = np.stack(np.meshgrid(c, c, c, indexing="ij"), -1)  # (32, 32, 32, 3)
    d = ((grid[..., None, :] - _REFS) ** 2).sum(-1)  # (32, 32, 32, K)
    k = d.argmin(-1)
    k[d.min(-1) > tol**2] = -1
    return k


@dataclass(frozen=True)
class Blob:
    colour: str
    area: int
    cx: float
    cy: float
    x0: int
    y0: int
    x1: int  # inclusive bounding box
    y1: int

    @property
    def radius(self) -> float:
        return float(np.sqrt(self.area / np.pi))


@dataclass(frozen=True)
class BlobDetector:
    """Pixels within `tol` (RGB distance) of a named colour, grouped into 4-connected components."""

    tol: float = 70.0
    min_area: int = 4

    def labels(self, img: np.ndarray) -> np.ndarray:
        """Per pixel: index into the named colours, or -1 (background). (H, W, 3) -> (H, W)."""
        q = img[..., :3].astype(np.intp) >> 3  # 32 levels per channel: a 32^3 lookup table
        return _lut(self.tol)[q[..., 0], q[..., 1], q[..., 2]]

    def detect(self, img: np.ndarray, colours: tuple[str, ...] | None = None) -> list[Blob]:
        lab = self.labels(img)
        out = []
        for k in np.unique(lab[lab >= 0]):
            name = _NAMES[k]
            if colours is not None and name not in colours:
                continue
            comp, _ = ndimage.label(lab == k)
            for j, sl in enumerate(ndimage.find_objects(comp), start=1):
                ys, xs = np.nonzero(comp[sl] == j)
                if len(ys) < self.min_area:
                    continue
                y0, x0 = sl[0].start, sl[1].start
                out.append(
                    Blob(
                        name,
                        len(ys),
                        float(xs.mean() + x0),
                        float(ys.mean() + y0),
                        x0,
                        y0,
                        sl[1].stop - 1,
                        sl[0].stop - 1,
                    )
                )
        return out

    def largest(self, img: np.ndarray, colour: str) -> Blob | None:
        blobs = self.detect(img, (colour,))
        return max(blobs, key=lambda b: b.area) if blobs else None


def track(frames: list[np.ndarray], colour: str, det: BlobDetector = BlobDetector()) -> np.ndarray:
    """Centroid (x, y) of the largest `colour` blob per frame; NaN where it is not seen. -> (T, 2)."""
    out = np.full((len(frames), 2), np.nan)
    for t, f in enumerate(frames):
        b = det.largest(f, colour)
        if b is not None:
            out[t] = (b.cx, b.cy)
    return out


def motion_direction(path: np.ndarray, min_shift: float = 3.0) -> str | None:
    """'left' / 'right' / 'up' / 'down' from a centroid track (frame differencing of positions)."""
    ok = path[~np.isnan(path).any(1)]
    if len(ok) < 2:
        return None
    dx, dy = ok[-1] - ok[0]
    if max(abs(dx), abs(dy)) < min_shift:
        return None
    if abs(dx) >= abs(dy):
        return "right" if dx > 0 else "left"
    return "down" if dy > 0 else "up"


def shadow_offsets(img: np.ndarray, det: BlobDetector = BlobDetector()) -> list[tuple[float, float]]:
    """For each shadow blob, its centroid minus the nearest coloured object's lowest point (dx, dy):
    where the shadow lies relative to what casts it."""
    blobs = det.detect(img)
    objects = [b for b in blobs if b.colour not in ("shadow", "black")]
    out = []
    for s in (b for b in blobs if b.colour == "shadow"):
        if not objects:
            break
        o = min(objects, key=lambda b: (b.cx - s.cx) ** 2 + (b.y1 - s.cy) ** 2)
        out.append((s.cx - o.cx, s.cy - o.y1))
    return out
