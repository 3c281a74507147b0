"""PhysAgent's vision experts at CPU scale, working from pixels alone (the role of Grounded-SAM2 and
Depth-Anything-V2 in the paper): colour naming by hue, segmentation of objects from a plain background,
connected-component detection, tracking over frames, shadows, the ground line, ordering in depth from
where objects touch the ground, and block towers. Nothing here knows how any scene was drawn: colours are
named from hue and brightness bins of everyday colour words, objects are whatever is saturated or black.

>>> img = np.full((20, 20, 3), 235, np.uint8); img[5:9, 5:9] = (200, 30, 30)
>>> [(b.colour, b.area) for b in detect(img)]
[('red', 16)]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import ndimage

# Everyday colour words by hue (degrees): the centre of each name's range. Saturated pixels take the name
# whose hue range holds them; orange or yellow pixels of low brightness are "brown".
HUE_NAMES = (("red", 0), ("orange", 30), ("yellow", 55), ("green", 120), ("cyan", 180), ("blue", 230),
             ("purple", 280), ("pink", 330))
NAMES = tuple(n for n, _ in HUE_NAMES) + ("brown", "black")
SATURATED, DARK = 0.35, 0.18  # saturation above which a pixel is coloured; value below which it is black
MIN_AREA = 4


def hsv(img: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hue in degrees, saturation and value in [0, 1] of an (..., 3) uint8 image."""
    x = img[..., :3].astype(np.float32) / 255.0
    mx, mn = x.max(-1), x.min(-1)
    d = mx - mn
    s = np.where(mx > 0, d / np.maximum(mx, 1e-6), 0.0)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    safe = np.maximum(d, 1e-6)
    h = np.select([mx == r, mx == g], [((g - b) / safe) % 6, (b - r) / safe + 2], (r - g) / safe + 4) * 60.0
    return np.where(d > 0, h, 0.0), s, mx


def _hue_index(h: np.ndarray) -> np.ndarray:
    centres = np.array([c for _, c in HUE_NAMES], np.float32)
    dist = np.abs((h[..., None] - centres + 180.0) % 360.0 - 180.0)
    return dist.argmin(-1)


def labels(img: np.ndarray) -> np.ndarray:
    """Per pixel the index into NAMES of its colour word, or -1 for background-like pixels (unsaturated and
    not black: white, grey, beige, sky, floor). (H, W, 3) -> (H, W)."""
    h, s, v = hsv(img)
    out = np.full(h.shape, -1, dtype=np.int64)
    coloured = (s > SATURATED) & (v > DARK)
    idx = _hue_index(h)
    brown = coloured & (v < 0.55) & ((idx == 1) | (idx == 2))
    out[coloured] = idx[coloured]
    out[brown] = NAMES.index("brown")
    out[v <= DARK] = NAMES.index("black")
    return out


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

    @property
    def width(self) -> float:
        return float(self.x1 - self.x0 + 1)

    @property
    def height(self) -> float:
        return float(self.y1 - self.y0 + 1)


def _blobs(mask: np.ndarray, name: str, min_area: int) -> list[Blob]:
    comp, _ = ndimage.label(mask)
    out = []
    for j, sl in enumerate(ndimage.find_objects(comp), start=1):
        ys, xs = np.nonzero(comp[sl] == j)
        if len(ys) < min_area:
            continue
        y0, x0 = sl[0].start, sl[1].start
        out.append(Blob(name, len(ys), float(xs.mean() + x0), float(ys.mean() + y0), x0, y0,
                        sl[1].stop - 1, sl[0].stop - 1))
    return out


def detect(img: np.ndarray, colours: tuple[str, ...] | None = None, min_area: int = MIN_AREA) -> list[Blob]:
    """Objects: 4-connected regions of one colour word (saturated or black pixels), largest first."""
    lab = labels(img)
    out = []
    for k in np.unique(lab[lab >= 0]):
        name = NAMES[int(k)]
        if colours is None or name in colours:
            out += _blobs(lab == k, name, min_area)
    return sorted(out, key=lambda b: -b.area)


def largest(img: np.ndarray, colour: str) -> Blob | None:
    blobs = detect(img, (colour,))
    return blobs[0] if blobs else None


def track(frames: list[np.ndarray], colour: str) -> np.ndarray:
    """Centroid (x, y) of the largest `colour` object per frame; NaN where it is not seen. -> (T, 2)."""
    out = np.full((len(frames), 2), np.nan)
    for t, f in enumerate(frames):
        b = largest(f, colour)
        if b is not None:
            out[t] = (b.cx, b.cy)
    return out


def direction(path: np.ndarray, min_shift: float = 3.0) -> str | None:
    """'left' / 'right' / 'up' / 'down' from a centroid track, or None when it hardly moved."""
    ok = path[~np.isnan(path).any(1)]
    if len(ok) < 2:
        return None
    dx, dy = ok[-1] - ok[0]
    if max(abs(dx), abs(dy)) < min_shift:
        return None
    if abs(dx) >= abs(dy):
        return "right" if dx > 0 else "left"
    return "down" if dy > 0 else "up"


def shadows(img: np.ndarray, min_area: int = MIN_AREA) -> list[Blob]:
    """Dark, colourless regions clearly darker than the image's usual background (cast shadows)."""
    h, s, v = hsv(img)
    bg = float(np.median(v[s < SATURATED]))
    mask = (s < SATURATED) & (v > DARK) & (v < bg - 0.25)
    return _blobs(mask, "shadow", min_area)


def shadow_offsets(img: np.ndarray) -> list[tuple[float, float, float]]:
    """For each shadow, (dx, dy, r): its centroid minus the nearest object's lowest point, and that
    object's radius — where a shadow lies relative to what casts it."""
    objects = [b for b in detect(img) if b.colour != "black"]
    out = []
    for s in shadows(img):
        if not objects:
            break
        o = min(objects, key=lambda b: (b.cx - s.cx) ** 2 + (b.y1 - s.cy) ** 2)
        out.append((s.cx - o.cx, s.cy - o.y1, o.radius))
    return out


def ground_row(img: np.ndarray, share: float = 0.6) -> int | None:
    """The top row of a coloured band that runs to the image's bottom edge (ground zones, mats), or None."""
    lab = labels(img)
    coloured = ((lab >= 0) & (lab != NAMES.index("black"))).mean(1) >= share
    if not coloured[-1]:
        return None
    row = len(coloured) - 1
    while row > 0 and coloured[row - 1]:
        row -= 1
    return row


def region_at(img: np.ndarray, x: int, y: int, radius: int = 3) -> np.ndarray | None:
    """The object under pixel (x, y): the connected region of the colour word most common in a small
    window around it (markers drawn on the point, white or black, are skipped). Boolean mask or None."""
    lab = labels(img)
    h, w = lab.shape
    win = lab[max(0, y - radius): y + radius + 1, max(0, x - radius): x + radius + 1]
    keep = win[(win >= 0) & (win != NAMES.index("black"))]
    if not keep.size:
        return None
    k = int(np.bincount(keep).argmax())
    comp, _ = ndimage.label(lab == k)
    ids = comp[max(0, y - radius): y + radius + 1, max(0, x - radius): x + radius + 1]
    ids = ids[ids > 0]
    if not ids.size:
        return None
    return comp == int(np.bincount(ids).argmax())


def ground_rows(img: np.ndarray, points: dict[str, list[int]]) -> dict[str, tuple[float, bool]]:
    """Per option point, (lowest image row of the object under it, whether another object hides its
    bottom). On a ground plane seen from above, an object standing nearer the camera touches the ground
    lower in the image; an object whose bottom edge borders another object is behind that object."""
    lab = labels(img)
    black = NAMES.index("black")
    out = {}
    for k, (x, y) in points.items():
        mask = region_at(img, int(x), int(y))
        if mask is None:
            continue
        ys, xs = np.nonzero(mask)
        bottom = {}  # the silhouette's lowest row per column (marks drawn inside the object are skipped)
        for yy, xx in zip(ys, xs, strict=True):
            bottom[xx] = max(bottom.get(xx, -1), yy)
        h = lab.shape[0]
        under = np.array([lab[yy + 1, xx] for xx, yy in bottom.items() if yy + 1 < h])
        hidden = int(((under >= 0) & (under != black)).sum()) >= 2  # at least 2 columns rest on an object
        out[k] = (float(np.nonzero(mask)[0].max()), hidden)
    return out


def blocks(img: np.ndarray) -> list[Blob]:
    """Blocks of a stack, bottom first: coloured objects ordered by their lowest row."""
    return sorted((b for b in detect(img) if b.colour != "black"), key=lambda b: -b.y1)
