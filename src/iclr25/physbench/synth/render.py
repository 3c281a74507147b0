"""Drawing PhysBench-Synth scenes with Pillow: a palette of named colours, discs, polygons and pymunk
bodies on a 96x96 canvas (image y points down). Training scenes use the exact palette on a grey
background; held-out scenes (`Look.heldout`) shift each colour's hue and brightness and tint the
background, so a model that learned the exact RGB values meets shades it never saw."""

from __future__ import annotations

import colorsys
from dataclasses import dataclass, field

import numpy as np
from PIL import Image, ImageDraw

SIZE = 96
BACKGROUND = (240, 240, 240)
TABLE = (150, 150, 150)
SHADOW = (60, 60, 60)
BALL_BLACK = (25, 25, 25)
COLOURS: dict[str, tuple[int, int, int]] = {
    "red": (220, 40, 40),
    "green": (40, 170, 60),
    "blue": (40, 80, 220),
    "yellow": (235, 200, 20),
    "purple": (150, 60, 190),
    "orange": (245, 135, 20),
}
COLOUR_NAMES = tuple(COLOURS)


@dataclass
class Look:
    """The colours of one scene: name -> RGB for the objects, and the background. `Look.train()` is the
    exact palette; `Look.heldout(rng)` draws shades outside it (hue moved 6-12 degrees away from the
    nearest other palette colour, value x 0.78-0.92, a tinted background) that keep each colour's name."""

    colours: dict[str, tuple[int, int, int]] = field(default_factory=lambda: dict(COLOURS))
    background: tuple[int, int, int] = BACKGROUND

    @classmethod
    def train(cls) -> Look:
        return cls()

    @classmethod
    def heldout(cls, rng: np.random.Generator) -> Look:
        hues = {n: colorsys.rgb_to_hsv(*(c / 255 for c in rgb))[0] * 360 for n, rgb in COLOURS.items()}
        out = {}
        for name, rgb in COLOURS.items():
            h, s, v = colorsys.rgb_to_hsv(*(c / 255 for c in rgb))
            # away from the nearest other palette hue, so that no two colours of a scene meet (orange and
            # yellow are only 19 degrees apart) and each keeps its name
            gap = {n: (hues[n] - hues[name] + 180) % 360 - 180 for n in hues if n != name}
            nearest = min(gap.values(), key=abs)
            dh = float(rng.uniform(6, 12)) * (-1 if nearest > 0 else 1) / 360
            r, g, b = colorsys.hsv_to_rgb((h + dh) % 1.0, min(1.0, s * float(rng.uniform(0.85, 1.0))),
                                          v * float(rng.uniform(0.78, 0.92)))
            out[name] = (round(255 * r), round(255 * g), round(255 * b))
        bg = tuple(int(x) for x in rng.integers(214, 236, size=3))
        return cls(out, bg)  # type: ignore[arg-type]

    def __getitem__(self, name: str) -> tuple[int, int, int]:
        return self.colours.get(name, BALL_BLACK)


def canvas(bg: tuple[int, int, int] = BACKGROUND) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    im = Image.new("RGB", (SIZE, SIZE), bg)
    return im, ImageDraw.Draw(im)


def disc(draw: ImageDraw.ImageDraw, x: float, y: float, r: float, colour: tuple[int, int, int]) -> None:
    draw.ellipse((x - r, y - r, x + r, y + r), fill=colour)


def polygon(
    draw: ImageDraw.ImageDraw, points: list[tuple[float, float]], colour: tuple[int, int, int]
) -> None:
    draw.polygon([(float(x), float(y)) for x, y in points], fill=colour)


def body_polygon(shape) -> list[tuple[float, float]]:
    """World-space corners of a pymunk Poly shape."""
    return [tuple(shape.body.local_to_world(v)) for v in shape.get_vertices()]


def to_array(im: Image.Image) -> np.ndarray:
    return np.asarray(im, dtype=np.uint8).copy()


def discs_image(objs: list[tuple[float, float, float, str]], look: Look | None = None) -> np.ndarray:
    """Discs (x, y, r, colour name) drawn in order on a plain background, in `look`'s colours."""
    look = look or Look.train()
    im, d = canvas(look.background)
    for x, y, r, c in objs:
        disc(d, x, y, r, look[c])
    return to_array(im)


def place_discs(
    rng: np.random.Generator,
    radii: list[float],
    margin: float = 3.0,
    box: tuple[float, float, float, float] = (4, 4, SIZE - 4, SIZE - 4),
    tries: int = 2000,
) -> list[tuple[float, float]] | None:
    """Non-overlapping centres (gap >= margin) for discs of the given radii inside `box`, or None."""
    placed: list[tuple[float, float, float]] = []
    x0, y0, x1, y1 = box
    for r in radii:
        for _ in range(tries):
            x, y = rng.uniform(x0 + r, x1 - r), rng.uniform(y0 + r, y1 - r)
            if all((x - px) ** 2 + (y - py) ** 2 >= (r + pr + margin) ** 2 for px, py, pr in placed):
                placed.append((x, y, r))
                break
        else:
            return None
    return [(x, y) for x, y, _ in placed]
