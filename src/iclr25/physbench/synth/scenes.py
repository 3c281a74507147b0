"""One generator per PhysBench-Synth sub-type. Each draws a scene, asks a question in a wording's words
and knows the answer from geometry, a closed form or a pymunk run (kept in `truth`, never shown to a
model). A generator returns the correct option first; `generate` shuffles the letters.

`Ask` carries what varies between training and evaluation sets: the wording (the generator's templates
or the held-out ones), and `heldout`: scene parameters drawn outside the training ranges (object sizes,
speeds, drag, masses, camera and light geometry, tower shapes, throws) in shifted colour shades."""

from __future__ import annotations

import json
import math
import zlib
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from iclr25.core.data import shared_data
from iclr25.core.errors import UserError
from iclr25.physbench.synth import physics as ph
from iclr25.physbench.synth.render import (
    BALL_BLACK,
    COLOUR_NAMES,
    SHADOW,
    SIZE,
    TABLE,
    Look,
    canvas,
    disc,
    discs_image,
    place_discs,
    polygon,
    to_array,
)
from iclr25.physbench.synth.wording import TEMPLATE, Wording, phrase, stem

N_VIDEO = 16  # rendered frames per synthetic video; models sample 8 of them
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


@dataclass
class Ask:
    """How one item is drawn and worded: `wording` and its template picker `wrng` (a stream apart from
    the scene's), `heldout` scene parameters, the colours `look`, and the attribute table's `part`."""

    wording: Wording = field(default_factory=lambda: TEMPLATE)
    wrng: np.random.Generator | None = None
    heldout: bool = False
    look: Look = field(default_factory=Look.train)
    part: str = "test"

    def stem(self, sub: str, case: str = "", **slots: Any) -> str:
        return stem(self.wording, sub, self.wrng, case, **slots)

    def opt(self, sub: str, slot: str = "option", **slots: Any) -> str:
        return phrase(self.wording, sub, slot, self.wrng, **slots)


def _pick(rng: np.random.Generator, held: bool, train: tuple[float, float],
          *outside: tuple[float, float]) -> float:
    """U(train) for training scenes; for held-out ones U of one of the `outside` ranges (drawn evenly)."""
    lo, hi = outside[int(rng.integers(len(outside)))] if held else train
    return float(rng.uniform(lo, hi))


@dataclass
class Scene:
    stem: str  # the question without placeholders and options
    options: list[Any]  # option texts, or images (general mode); the correct one first
    media: list[np.ndarray]  # context images / videos in file order
    truth: dict[str, Any] = field(default_factory=dict)
    description: Any = None  # depth items: option letter -> pixel, filled after shuffling
    points: list[tuple[int, int]] | None = None  # depth items: option pixels, aligned with options
    objects: list[str] | None = None


def _pick_colours(rng: np.random.Generator, k: int) -> list[str]:
    return [COLOUR_NAMES[i] for i in rng.choice(len(COLOUR_NAMES), size=k, replace=False)]


def _times(t_end: float, n: int = N_VIDEO) -> list[float]:
    return list(np.linspace(0.0, t_end, n))


# ---- property ---------------------------------------------------------------------------------------


def number(rng: np.random.Generator, ask: Ask) -> Scene:
    k = int(rng.integers(1, 9))
    start = int(rng.integers(max(1, k - 3), min(k, 6) + 1))  # 4 consecutive counts around k
    counts = [c for c in range(start, start + 4)]
    if ask.heldout:  # tiny discs, or large ones where few must fit
        big = k <= 4 and rng.random() < 0.5
        radii = list(rng.uniform(7.5, 9.5, size=k) if big else rng.uniform(2.5, 3.6, size=k))
    else:
        radii = list(rng.uniform(4, 7, size=k))
    pos = place_discs(rng, radii, margin=3)
    assert pos is not None  # 8 small discs always fit in 96x96
    cols = [COLOUR_NAMES[i] for i in rng.integers(0, len(COLOUR_NAMES), size=k)]
    img = discs_image([(x, y, r, c) for (x, y), r, c in zip(pos, radii, cols, strict=True)], ask.look)
    opts = [ask.opt("number", n=c, word=NUMBER_WORDS[c]) for c in [k, *[c for c in counts if c != k]]]
    return Scene(ask.stem("number"), opts, [img], {"count": k})


def color(rng: np.random.Generator, ask: Ask) -> Scene:
    cols = _pick_colours(rng, 4)
    sizes = np.array([3.0, 4.0, 15.5, 17.5]) if ask.heldout else np.arange(5, 15, 2.5)
    radii = sorted(rng.choice(sizes, size=3, replace=False), reverse=True)
    pos = place_discs(rng, radii, margin=3)
    assert pos is not None
    img = discs_image([(x, y, r, c) for (x, y), r, c in zip(pos, radii, cols, strict=False)], ask.look)
    return Scene(
        ask.stem("color"),
        [ask.opt("color", c=c) for c in (cols[0], cols[3], cols[1], cols[2])],
        [img],
        {"radii": [float(r) for r in radii], "colours": cols[:3]},
    )


@lru_cache(maxsize=1)
def knowledge_table() -> dict[str, dict[str, list[str]]]:
    """PhysAgent's attribute table (shared/data/10-physbench/physagent_knowledge_pool.json), with objects
    listed both 'most' and 'least' for an attribute dropped."""
    root = shared_data("10-physbench")
    if root is None:
        raise UserError("PhysAgent's attribute table needs the shared data folder 10-physbench, absent here")
    raw = json.loads((root / "physagent_knowledge_pool.json").read_text())["attribute_table"]
    out = {}
    for attr, lists in raw.items():
        most, least = set(lists["most"]), set(lists["least"])
        out[attr] = {"most": sorted(most - least), "least": sorted(least - most)}
    return out


def object_part(name: str) -> str:
    """Train/test split of object names by a stable hash: attribute questions of the two parts never
    share an object, so a model cannot memorise the table from training items."""
    return "train" if zlib.crc32(name.encode()) % 2 == 0 else "test"


def attribute(rng: np.random.Generator, ask: Ask) -> Scene:
    table = knowledge_table()
    attr = list(table)[int(rng.integers(len(table)))]
    ext = "most" if rng.random() < 0.5 else "least"
    other = "least" if ext == "most" else "most"
    good = [o for o in table[attr][ext] if object_part(o) == ask.part]
    bad = [o for o in table[attr][other] if object_part(o) == ask.part]
    right = str(rng.choice(good))
    wrong = [str(o) for o in rng.choice(bad, size=3, replace=False)]
    im, d = canvas(ask.look.background)
    half = 5 if ask.heldout else 8
    for k, c in enumerate(_pick_colours(rng, 4)):
        x = 14 + 23 * k
        d.rounded_rectangle((x - half, 48 - half, x + half, 48 + half), radius=3, fill=ask.look[c])
    return Scene(
        ask.stem("attribute", case=f"{ext}_{attr}", ext=ext, attr=attr),
        [ask.opt("attribute", o=o) for o in (right, *wrong)],
        [to_array(im)],
        {"attribute": attr, "extreme": ext},
        objects=[right, *wrong],
    )


def mass(rng: np.random.Generator, ask: Ask) -> Scene:
    case = int(rng.integers(3))  # 0: left heavier, 1: right heavier, 2: equal
    m = float(rng.choice([1.0, 2.0]))
    heavy = m * float(rng.choice([1.5, 4.0] if ask.heldout else [2.0, 3.0]))
    m_left, m_right = [(heavy, m), (m, heavy), (m, m)][case]
    c_left, c_right = _pick_colours(rng, 2)
    states = ph.simulate_seesaw(m_left, m_right, _times(0.8))
    frames = []
    for plank, boxes, _ in states:
        im, d = canvas(ask.look.background)
        polygon(d, [(48, 66), (42, 80), (54, 80)], TABLE)
        d.rectangle((0, 80, SIZE, SIZE), fill=TABLE)
        polygon(d, plank, (110, 80, 50))
        for poly, c in zip(boxes, (c_left, c_right), strict=True):
            polygon(d, poly, ask.look[c])
        frames.append(to_array(im))
    opts = [
        ask.opt("mass", "heavier", c=c_left),
        ask.opt("mass", "heavier", c=c_right),
        ask.opt("mass", "same"),
        ask.opt("mass", "unknown"),
    ]
    order = [case, *[i for i in range(4) if i != case]]
    return Scene(
        ask.stem("mass", c1=c_left, c2=c_right),
        [opts[i] for i in order],
        [np.stack(frames)],
        {
            "m_left": m_left,
            "m_right": m_right,
            "sim_angle": float(states[-1][2]),
            "torque_sign": ph.seesaw_torque_sign(m_left, m_right),
        },
    )


# ---- relationships ----------------------------------------------------------------------------------


def size(rng: np.random.Generator, ask: Ask) -> Scene:
    cols = _pick_colours(rng, 4)
    sizes = np.array([2.5, 3.0, 3.5, 15.0, 16.5]) if ask.heldout else np.arange(4, 15, 2.0)
    radii = list(rng.choice(sizes, size=4, replace=False))
    largest = rng.random() < 0.5
    order = np.argsort(radii)[::-1] if largest else np.argsort(radii)
    pos = place_discs(rng, radii, margin=2)
    assert pos is not None
    img = discs_image([(x, y, r, c) for (x, y), r, c in zip(pos, radii, cols, strict=True)], ask.look)
    word = "largest" if largest else "smallest"
    return Scene(ask.stem("size", case=word, word=word), [ask.opt("size", c=cols[i]) for i in order], [img],
                 {"radii": radii})


def location(rng: np.random.Generator, ask: Ask) -> Scene:
    cols = _pick_colours(rng, 4)
    which = ["leftmost", "rightmost", "highest", "lowest"][int(rng.integers(4))]
    axis, sign = {"leftmost": (0, 1), "rightmost": (0, -1), "highest": (1, 1), "lowest": (1, -1)}[which]
    for _ in range(100):
        radii = [_pick(rng, ask.heldout, (5, 8), (3, 4.5), (8.5, 10)) for _ in range(4)]
        pos = place_discs(rng, radii, margin=2)
        if pos is None:
            continue
        key = sorted(sign * p[axis] for p in pos)
        if key[1] - key[0] >= 6:  # the answer is clear by 6 px
            break
    img = discs_image([(x, y, r, c) for (x, y), r, c in zip(pos, radii, cols, strict=True)], ask.look)
    order = np.argsort([sign * p[axis] for p in pos])
    return Scene(
        ask.stem("location", case=which, word=which),
        [ask.opt("location", c=cols[i]) for i in order],
        [img],
        {"positions": pos},
    )


def distance(rng: np.random.Generator, ask: Ask) -> Scene:
    cols = _pick_colours(rng, 5)
    r = float(rng.choice([4.0, 9.0])) if ask.heldout else 6.0
    for _ in range(100):
        pos = place_discs(rng, [r] * 5, margin=3)
        if pos is None:
            continue
        dist = [math.dist(pos[0], p) for p in pos[1:]]
        srt = sorted(dist)
        if srt[1] - srt[0] >= 6:
            break
    img = discs_image([(x, y, r, c) for (x, y), c in zip(pos, cols, strict=True)], ask.look)
    order = np.argsort(dist)
    return Scene(
        ask.stem("distance", c=cols[0]),
        [ask.opt("distance", c=cols[1 + i]) for i in order],
        [img],
        {"positions": pos},
    )


HORIZON, FOCAL, CAM_H, OBJ_R, FAR = 30.0, 60.0, 1.0, 0.4, 40.0
SKY, GROUND = (205, 225, 245), (175, 160, 135)


@dataclass(frozen=True)
class Camera:
    """Pinhole camera over a ground plane: horizon row, focal length (px), camera height, ball radius."""

    horizon: float = HORIZON
    focal: float = FOCAL
    height: float = CAM_H
    ball_r: float = OBJ_R
    sky: tuple[int, int, int] = SKY
    ground: tuple[int, int, int] = GROUND


HELDOUT_CAMERA = Camera(horizon=40.0, focal=52.0, height=1.5, ball_r=0.3, sky=(228, 218, 236),
                        ground=(150, 168, 132))


def depth_scene(rng: np.random.Generator, k: int = 4, cam: Camera = Camera(), look: Look | None = None
                ) -> tuple[np.ndarray, np.ndarray, list[dict]]:
    """A ground-plane scene seen by a pinhole camera (height, focal length in px, horizon row): k balls at
    depths z, drawn far to near. Returns the image, the true depth map (per pixel z; sky = FAR) and the
    objects with a visible pixel each."""
    look = look or Look.train()
    yy, xx = np.mgrid[0:SIZE, 0:SIZE].astype(float)
    ground = yy > cam.horizon
    depth = np.full((SIZE, SIZE), FAR)
    depth[ground] = np.minimum(FAR, cam.focal * cam.height / (yy[ground] - cam.horizon))
    img = np.zeros((SIZE, SIZE, 3))
    img[~ground] = cam.sky
    shade = np.clip(1.15 - depth / 15.0, 0.6, 1.1)[..., None]  # texture gradient: nearer ground brighter
    img[ground] = (np.array(cam.ground) * shade)[ground]
    for _ in range(200):
        z = np.sort(rng.uniform(1.3, 8.0, size=k))[::-1]
        if np.all(z[:-1] / z[1:] >= 1.18):  # depths differ by >= 18 %
            break
    owner = np.full((SIZE, SIZE), -1)
    objs = []
    for i, zi in enumerate(z):  # far to near: nearer balls occlude
        r = cam.ball_r * cam.focal / zi
        y_base = cam.horizon + cam.focal * cam.height / zi
        x = rng.uniform(6 + r, SIZE - 6 - r)
        mask = (xx - x) ** 2 + (yy - (y_base - r)) ** 2 <= r * r
        col = np.array(look[COLOUR_NAMES[int(rng.integers(len(COLOUR_NAMES)))]], float)
        top_light = 1.0 - 0.25 * (yy[mask] - (y_base - 2 * r)) / (2 * r)  # lit from above
        img[mask] = col * top_light[:, None]
        depth[mask] = zi
        owner[mask] = i
        objs.append({"z": float(zi), "x": float(x), "r": float(r)})
    for i, o in enumerate(objs):
        ys, xs = np.nonzero(owner == i)
        o["visible_px"] = len(ys)
        if len(ys):
            j = int(np.argmin((ys - ys.mean()) ** 2 + (xs - xs.mean()) ** 2))
            o["point"] = (int(xs[j]), int(ys[j]))
    return np.clip(img, 0, 255).astype(np.uint8), depth, objs


def _mark(img: np.ndarray, points: dict[str, tuple[int, int]]) -> np.ndarray:
    from PIL import Image, ImageDraw

    im = Image.fromarray(img)
    d = ImageDraw.Draw(im)
    for letter, (x, y) in points.items():
        d.rectangle((x - 1, y - 1, x + 1, y + 1), fill=(255, 255, 255))
        d.text((min(x + 2, SIZE - 7), max(y - 11, 0)), letter, fill=(0, 0, 0))
    return np.asarray(im).copy()


def depth(rng: np.random.Generator, ask: Ask) -> Scene:
    cam = HELDOUT_CAMERA if ask.heldout else Camera()
    min_px = 4 if ask.heldout else 6
    for _ in range(200):
        img, dmap, objs = depth_scene(rng, cam=cam, look=ask.look)
        if all(o["visible_px"] >= min_px for o in objs):
            break
    order = np.argsort([o["z"] for o in objs])  # nearest first: the answer
    word = "closest" if rng.random() < 0.5 else "nearest"
    pts = [objs[i]["point"] for i in order]
    return Scene(
        ask.stem("depth", word=word),
        [None] * 4,
        [img],
        {"depth_map": dmap, "z": [objs[i]["z"] for i in order]},
        points=pts,
    )


def finish_depth(scene: Scene, letters: list[str], ask: Ask | None = None) -> None:
    """After shuffling: option texts name the points, the description maps letter -> pixel and the
    letters are drawn next to the points."""
    ask = ask or Ask()
    pts = dict(zip(letters, scene.points, strict=True))
    scene.options = [ask.opt("depth", k=letter) for letter in letters]
    scene.description = {k: list(v) for k, v in sorted(pts.items())}
    scene.media = [_mark(scene.media[0], pts)]


def motion(rng: np.random.Generator, ask: Ask) -> Scene:
    cols = _pick_colours(rng, 3)
    dirs = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}
    name = list(dirs)[int(rng.integers(4))]
    dx, dy = dirs[name]
    speed = _pick(rng, ask.heldout, (25, 40), (12, 19), (45, 55))
    r = float(rng.choice([4.0, 9.0])) if ask.heldout else 6.0
    x0 = 48 - dx * speed / 2 + rng.uniform(-15, 15) * (dx == 0)
    y0 = 48 - dy * speed / 2 + rng.uniform(-15, 15) * (dy == 0)
    others = place_discs(rng, [r, r], margin=20)
    frames = []
    for t in _times(1.0):
        objs = [(x, y, r, c) for (x, y), c in zip(others or [], cols[1:], strict=False)]
        objs.append((x0 + dx * speed * t, y0 + dy * speed * t, r, cols[0]))
        frames.append(discs_image(objs, ask.look))
    return Scene(
        ask.stem("motion", c=cols[0]),
        [ask.opt("motion", d) for d in [name, *[d for d in dirs if d != name]]],
        [np.stack(frames)],
        {"direction": name, "speed": speed},
    )


# ---- scene ------------------------------------------------------------------------------------------

CAMERA_CASES = ("closer", "farther", "left", "right")


def viewpoint(rng: np.random.Generator, ask: Ask) -> Scene:
    case = int(rng.integers(4))
    cols = _pick_colours(rng, 3)
    radii = list(rng.uniform(5, 8, size=3))
    pos = place_discs(rng, radii, margin=4, box=(22, 22, 74, 74)) or [(34, 40), (60, 40), (48, 62)]
    if ask.heldout:  # slower or faster zooms and pans than in training
        fast = rng.random() < 0.5
        grow, shrink, pan = (0.8, 0.5, 24.0) if fast else (0.28, 0.2, 9.0)
    else:
        grow, shrink, pan = 0.5, 0.35, 16.0
    frames = []
    for t in _times(1.0):
        s = [1 + grow * t, 1 - shrink * t, 1, 1][case]
        shift = [0, 0, pan * t, -pan * t][case]  # camera left: the world slides right
        objs = [
            (48 + (x - 48) * s + shift, 48 + (y - 48) * s, r * s, c)
            for (x, y), r, c in zip(pos, radii, cols, strict=True)
        ]
        frames.append(discs_image(objs, ask.look))
    opts = [ask.opt("viewpoint", CAMERA_CASES[i]) for i in [case, *[i for i in range(4) if i != case]]]
    return Scene(ask.stem("viewpoint"), opts, [np.stack(frames)], {"case": case})


LIGHT_CASES = ("upper_left", "upper_right", "above", "front")


def light(rng: np.random.Generator, ask: Ask) -> Scene:
    case = int(rng.integers(4))
    floor = (214, 214, 198) if ask.heldout else (205, 200, 185)
    shadow = tuple(int(v) for v in rng.integers(88, 112, size=1).repeat(3)) if ask.heldout else SHADOW
    im, d = canvas(ask.look.background)
    d.rectangle((0, 50, SIZE, SIZE), fill=floor)
    cols = _pick_colours(rng, 2)
    xs = rng.permutation([26.0, 70.0]) + rng.uniform(-4, 4, 2)
    balls = [(x, float(rng.uniform(68, 84)), float(rng.uniform(4.5, 5.5) if ask.heldout else
                                                      rng.uniform(6, 8))) for x in xs]
    reach = float(rng.choice([1.5, 3.0])) if ask.heldout else 2.2  # shadow offset, in radii
    for x, yc, r in balls:  # shadow on the ground, away from the light
        sx, sy, w, h = [
            (x + reach * r, yc, 2.0 * r, 0.6 * r),
            (x - reach * r, yc, 2.0 * r, 0.6 * r),
            (x, yc, 1.1 * r, 0.5 * r),
            (x, yc - 1.6 * r, 0.9 * r, 1.4 * r),
        ][case]
        d.ellipse((sx - w, sy - h, sx + w, sy + h), fill=shadow)
    for (x, yc, r), c in zip(balls, cols, strict=True):
        disc(d, x, yc - r, r, ask.look[c])
    opts = [ask.opt("light", LIGHT_CASES[i]) for i in [case, *[i for i in range(4) if i != case]]]
    return Scene(ask.stem("light"), opts, [to_array(im)], {"case": case})


def air(rng: np.random.Generator, ask: Ask) -> Scene:
    case = int(rng.integers(3))  # 0: first colour dragged, 1: second, 2: neither
    cols = _pick_colours(rng, 2)
    b = _pick(rng, ask.heldout, (2.0, 3.5), (1.2, 1.7), (4.2, 5.5))
    drags = [[b, 0.0], [0.0, b], [0.0, 0.0]][case]
    y0, t_end = 10.0, 0.75
    times = _times(t_end)
    ys = ph.simulate_falls(y0, drags, times)
    xs, r = ((20.0, 76.0), float(rng.choice([3.5, 7.0]))) if ask.heldout else ((30.0, 66.0), 5.0)
    frames = []
    for row in ys:
        im, d = canvas(ask.look.background)
        d.rectangle((0, 88, SIZE, SIZE), fill=TABLE)
        for x, y, c in zip(xs, row, cols, strict=True):
            disc(d, x, y, r, ask.look[c])
        frames.append(to_array(im))
    opts = [
        ask.opt("air", "only", c=cols[0]),
        ask.opt("air", "only", c=cols[1]),
        ask.opt("air", "neither"),
        ask.opt("air", "both"),
    ]
    order = [case, *[i for i in range(4) if i != case]]
    return Scene(
        ask.stem("air", c1=cols[0], c2=cols[1]),
        [opts[i] for i in order],
        [np.stack(frames)],
        {"drags": drags, "y0": y0, "t_end": t_end, "sim_final_y": ys[-1]},
    )


# ---- dynamics ---------------------------------------------------------------------------------------


def collision(rng: np.random.Generator, ask: Ask) -> Scene:
    y = 48.0
    radii = [4.0, 10.0, 11.0] if ask.heldout else [5.0, 6.0, 7.0, 8.0, 9.0]
    for _ in range(2000):
        r1, r2 = (float(v) for v in rng.choice(radii, size=2))
        x1 = float(rng.uniform(6, 14) if ask.heldout else rng.uniform(10, 20))
        x2 = float(rng.uniform(40, 66) if ask.heldout else rng.uniform(45, 60))
        v = _pick(rng, ask.heldout, (18, 35), (12, 17), (36, 45))
        t0 = (x2 - x1 - r1 - r2) / v
        if not 1.1 <= t0 <= 1.5:
            continue
        f1, f2 = ph.collision_positions(x1, r1, x2, r2, v, 2.0)
        if not (r1 + 2 <= f1 and f2 <= SIZE - r2 - 2):
            continue
        cands = {
            "inelastic": (lambda vc: (x1 + v * t0 + vc * (2 - t0), x2 + vc * (2 - t0)))(
                r1 * r1 * v / (r1 * r1 + r2 * r2)
            ),
            "no_transfer": (x1 + v * t0, x2),
            "bounce": (x1 + v * t0 - v * (2 - t0), x2),
            "swapped": ph.collision_positions(x1, r2, x2, r1, v, 2.0),
        }
        cands = {
            k: c
            for k, c in cands.items()
            if max(abs(c[0] - f1), abs(c[1] - f2)) >= 5 and r1 <= c[0] and c[1] <= SIZE - r2
        }
        if len(cands) >= 3:
            break
    names = [str(k) for k in rng.permutation(sorted(cands))[:3]]
    c1, c2 = _pick_colours(rng, 2)
    times = _times(1.0)
    sim = ph.simulate_collision(x1, r1, x2, r2, y, v, [*times, 2.0])
    video = np.stack([discs_image([(a, y, r1, c1), (b, y, r2, c2)], ask.look) for a, b in sim[:-1]])
    finals = [sim[-1], *[cands[n] for n in names]]
    opts = [discs_image([(a, y, r1, c1), (b, y, r2, c2)], ask.look) for a, b in finals]
    return Scene(
        ask.stem("collision", c1=c1, c2=c2),
        opts,
        [video],
        {"x1": x1, "r1": r1, "x2": x2, "r2": r2, "v": v, "sim_final": sim[-1], "distractors": names},
    )


@dataclass(frozen=True)
class Field:
    """The throwing scene: ground row, zones' left edge and width."""

    ground_y: float = 88.0
    zone_x0: float = 4.0
    zone_w: float = 22.0


HELDOUT_FIELD = Field(ground_y=80.0, zone_x0=8.0, zone_w=20.0)


def throwing(rng: np.random.Generator, ask: Ask) -> Scene:
    fld = HELDOUT_FIELD if ask.heldout else Field()
    ground_y, z0, zw = fld.ground_y, fld.zone_x0, fld.zone_w
    zones = _pick_colours(rng, 4)
    for _ in range(1000):
        if ask.heldout:  # launched higher and slower than any training throw
            x0, y0 = float(rng.uniform(4, 10)), float(rng.uniform(30, 48))
            vx, vy = float(rng.uniform(20, 60)), float(rng.uniform(-45, -20))
        else:
            x0, y0 = float(rng.uniform(6, 14)), float(rng.uniform(55, 75))
            vx, vy = float(rng.uniform(25, 90)), float(rng.uniform(-110, -50))
        land = ph.projectile_landing_x(x0, y0, vx, vy, ground_y)
        if z0 + 2 <= land <= z0 + 4 * zw - 2 and min(abs(land - (z0 + zw * k)) for k in range(5)) >= 3:
            break
    t_land = (-vy + math.sqrt(vy * vy + 2 * ph.G * (ground_y - y0))) / ph.G
    times = _times(0.45 * t_land)
    track, sim_land = ph.simulate_projectile(x0, y0, vx, vy, ground_y, times)
    ball_r = 2.5 if ask.heldout else 3
    frames = []
    for x, y in track:
        im, d = canvas(ask.look.background)
        for k, c in enumerate(zones):
            d.rectangle((z0 + zw * k, ground_y, z0 + zw * (k + 1) - 1, SIZE), fill=ask.look[c])
        disc(d, x, y, ball_r, BALL_BLACK)
        frames.append(to_array(im))
    zone = int((land - z0) // zw)
    return Scene(
        ask.stem("throwing"),
        [ask.opt("throwing", c=zones[zone]),
         *[ask.opt("throwing", c=c) for i, c in enumerate(zones) if i != zone]],
        [np.stack(frames)],
        {
            "x0": x0,
            "y0": y0,
            "vx": vx,
            "vy": vy,
            "ground_y": ground_y,
            "zone_x0": z0,
            "zone_w": zw,
            "zone_index": zone,
            "sim_landing_x": sim_land,
            "formula_landing_x": land,
        },
    )


TOWER_CASES = ("stays", "left", "right")
TABLE_Y, BLOCK_H = 80.0, 9.0


@dataclass(frozen=True)
class TowerShape:
    """Blocks of a tower: how many, the base and upper widths' ranges, the largest horizontal step, the
    table row and block height."""

    n: int = 3
    base_w: tuple[float, float] = (18, 26)
    upper_w: tuple[float, float] = (12, 24)
    step: float = 14.0
    table_y: float = TABLE_Y
    block_h: float = BLOCK_H


HELDOUT_TOWER = TowerShape(n=4, base_w=(28, 34), upper_w=(8, 11.5), step=9.0, table_y=84.0, block_h=7.0)


def tower_image(blocks: list[tuple[float, float]], cols: list[str], look: Look | None = None,
                table_y: float = TABLE_Y, block_h: float = BLOCK_H) -> np.ndarray:
    look = look or Look.train()
    im, d = canvas(look.background)
    d.rectangle((0, table_y, SIZE, SIZE), fill=TABLE)
    for k, ((x, w), c) in enumerate(zip(blocks, cols, strict=True)):
        top = table_y - (k + 1) * block_h
        d.rectangle((x - w / 2, top, x + w / 2 - 1, top + block_h - 1), fill=look[c])
    return to_array(im)


def random_tower(rng: np.random.Generator, want: str, shape: TowerShape = TowerShape()
                 ) -> list[tuple[float, float]]:
    """A tower whose CoM verdict is `want`, every CoM >= 2 px from a support edge, agreeing with pymunk."""
    for _ in range(4000):
        blocks = [(48.0, float(rng.uniform(*shape.base_w)))]
        for _k in range(shape.n - 1):
            w = float(rng.uniform(*shape.upper_w))
            blocks.append((blocks[-1][0] + float(rng.uniform(-shape.step, shape.step)), w))
        if ph.tower_verdict(blocks) != want:
            continue
        margins = []
        for k in range(shape.n - 1):
            above = blocks[k + 1 :]
            com = sum(x * w for x, w in above) / sum(w for _, w in above)
            margins.append(
                min(
                    abs(com - (blocks[k][0] - blocks[k][1] / 2)), abs(com - (blocks[k][0] + blocks[k][1] / 2))
                )
            )
        if min(margins) < 2.0:
            continue
        if ph.simulate_tower(blocks, shape.table_y, shape.block_h)[0] == want:
            return blocks
    raise RuntimeError(f"no tower with verdict {want!r} found")


def manipulation(rng: np.random.Generator, ask: Ask) -> Scene:
    want = TOWER_CASES[int(rng.integers(3))]
    shape = HELDOUT_TOWER if ask.heldout else TowerShape()
    blocks = random_tower(rng, want, shape)
    cols = _pick_colours(rng, shape.n)
    opts = [ask.opt("manipulation", k) for k in (want, *[c for c in TOWER_CASES if c != want], "sinks")]
    return Scene(
        ask.stem("manipulation"),
        opts,
        [tower_image(blocks, cols, ask.look, shape.table_y, shape.block_h)],
        {"blocks": blocks, "verdict": want, "table_y": shape.table_y, "block_h": shape.block_h},
    )


# sub_type -> (generator, task_type, ability_type, mode)
GENERATORS: dict[str, tuple[Any, str, str, str]] = {
    "number": (number, "property", "identify", "image-only"),
    "color": (color, "property", "identify", "image-only"),
    "attribute": (attribute, "property", "comparison", "image-only"),
    "mass": (mass, "property", "comparison", "image&video"),
    "size": (size, "relationships", "static", "image-only"),
    "location": (location, "relationships", "static", "image-only"),
    "depth": (depth, "relationships", "static", "image-only"),
    "distance": (distance, "relationships", "static", "image-only"),
    "motion": (motion, "relationships", "dynamic", "image&video"),
    "viewpoint": (viewpoint, "scene", "judgment", "image&video"),
    "light": (light, "scene", "perception", "image-only"),
    "air": (air, "scene", "reasoning", "image&video"),
    "collision": (collision, "dynamics", "prediction", "general"),
    "throwing": (throwing, "dynamics", "prediction", "image&video"),
    "manipulation": (manipulation, "dynamics", "judgment", "image-only"),
}
SYNTH_SUB_TYPES = tuple(GENERATORS)
