"""Drawing PhysBench-Synth scenes with Pillow: a fixed palette of named colours (the experts' detector
uses the same names), discs, polygons and pymunk bodies on a 96x96 canvas (image y points down)."""

from __future__ import annotations

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


def discs_image(
    objs: list[tuple[float, float, float, str]], bg: tuple[int, int, int] = BACKGROUND
) -> np.ndarray:
    """Discs (x, y, r, colour name) drawn in order on a plain background."""
    im, d = canvas(bg)
    for x, y, r, c in objs:
        disc(d, x, y, r, COLOURS.get(c, BALL_BLACK))
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
