"""One generator per PhysBench-Synth sub-type. Each draws a scene, asks a question in PhysBench's words
and knows the answer from geometry, a closed form or a pymunk run (kept in `truth`, never shown to a
model). A generator returns the correct option first; `generate` shuffles the letters."""

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
    COLOURS,
    SHADOW,
    SIZE,
    TABLE,
    canvas,
    disc,
    discs_image,
    place_discs,
    polygon,
    to_array,
)

N_VIDEO = 16  # rendered frames per synthetic video; models sample 8 of them


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


def number(rng: np.random.Generator) -> Scene:
    k = int(rng.integers(1, 9))
    start = int(rng.integers(max(1, k - 3), min(k, 6) + 1))  # 4 consecutive counts around k
    counts = [c for c in range(start, start + 4)]
    radii = list(rng.uniform(4, 7, size=k))
    pos = place_discs(rng, radii, margin=3)
    assert pos is not None  # 8 small discs always fit in 96x96
    cols = [COLOUR_NAMES[i] for i in rng.integers(0, len(COLOUR_NAMES), size=k)]
    img = discs_image([(x, y, r, c) for (x, y), r, c in zip(pos, radii, cols, strict=True)])
    opts = [str(k)] + [str(c) for c in counts if c != k]
    return Scene("How many balls are there in the image?", opts, [img], {"count": k})


def color(rng: np.random.Generator) -> Scene:
    cols = _pick_colours(rng, 4)
    radii = sorted(rng.choice(np.arange(5, 15, 2.5), size=3, replace=False), reverse=True)
    pos = place_discs(rng, radii, margin=3)
    assert pos is not None
    img = discs_image([(x, y, r, c) for (x, y), r, c in zip(pos, radii, cols, strict=False)])
    return Scene(
        "What color is the largest ball?",
        [cols[0], cols[3], cols[1], cols[2]],
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


def attribute(rng: np.random.Generator, part: str = "test") -> Scene:
    table = knowledge_table()
    attr = list(table)[int(rng.integers(len(table)))]
    ext = "most" if rng.random() < 0.5 else "least"
    other = "least" if ext == "most" else "most"
    good = [o for o in table[attr][ext] if object_part(o) == part]
    bad = [o for o in table[attr][other] if object_part(o) == part]
    right = str(rng.choice(good))
    wrong = [str(o) for o in rng.choice(bad, size=3, replace=False)]
    im, d = canvas()
    for k, c in enumerate(_pick_colours(rng, 4)):
        x = 14 + 23 * k
        d.rounded_rectangle((x - 8, 40, x + 8, 56), radius=3, fill=COLOURS[c])
    return Scene(
        f"Which object is the {ext} {attr}?",
        [right, *wrong],
        [to_array(im)],
        {"attribute": attr, "extreme": ext},
        objects=[right, *wrong],
    )


def mass(rng: np.random.Generator) -> Scene:
    case = int(rng.integers(3))  # 0: left heavier, 1: right heavier, 2: equal
    m = float(rng.choice([1.0, 2.0]))
    heavy = m * float(rng.choice([2.0, 3.0]))
    m_left, m_right = [(heavy, m), (m, heavy), (m, m)][case]
    c_left, c_right = _pick_colours(rng, 2)
    states = ph.simulate_seesaw(m_left, m_right, _times(0.8))
    frames = []
    for plank, boxes, _ in states:
        im, d = canvas()
        polygon(d, [(48, 66), (42, 80), (54, 80)], TABLE)
        d.rectangle((0, 80, SIZE, SIZE), fill=TABLE)
        polygon(d, plank, (110, 80, 50))
        for poly, c in zip(boxes, (c_left, c_right), strict=True):
            polygon(d, poly, COLOURS[c])
        frames.append(to_array(im))
    opts = [
        f"The {c_left} box is heavier",
        f"The {c_right} box is heavier",
        "They have the same mass",
        "The mass of the boxes cannot be compared",
    ]
    order = [case, *[i for i in range(4) if i != case]]
    return Scene(
        f"What can you tell about the mass of the {c_left} box and the {c_right} box?",
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


def size(rng: np.random.Generator) -> Scene:
    cols = _pick_colours(rng, 4)
    radii = list(rng.choice(np.arange(4, 15, 2.0), size=4, replace=False))
    largest = rng.random() < 0.5
    order = np.argsort(radii)[::-1] if largest else np.argsort(radii)
    pos = place_discs(rng, radii, margin=2)
    assert pos is not None
    img = discs_image([(x, y, r, c) for (x, y), r, c in zip(pos, radii, cols, strict=True)])
    opts = [f"the {cols[i]} ball" for i in order]
    word = "largest" if largest else "smallest"
    return Scene(f"Which ball is the {word}?", [opts[0], *opts[1:]], [img], {"radii": radii})


def location(rng: np.random.Generator) -> Scene:
    cols = _pick_colours(rng, 4)
    which = ["leftmost", "rightmost", "highest", "lowest"][int(rng.integers(4))]
    axis, sign = {"leftmost": (0, 1), "rightmost": (0, -1), "highest": (1, 1), "lowest": (1, -1)}[which]
    for _ in range(100):
        radii = list(rng.uniform(5, 8, size=4))
        pos = place_discs(rng, radii, margin=2)
        if pos is None:
            continue
        key = sorted(sign * p[axis] for p in pos)
        if key[1] - key[0] >= 6:  # the answer is clear by 6 px
            break
    img = discs_image([(x, y, r, c) for (x, y), r, c in zip(pos, radii, cols, strict=True)])
    order = np.argsort([sign * p[axis] for p in pos])
    return Scene(
        f"Which ball is the {which} in the image?",
        [f"the {cols[i]} ball" for i in order],
        [img],
        {"positions": pos},
    )


def distance(rng: np.random.Generator) -> Scene:
    cols = _pick_colours(rng, 5)
    for _ in range(100):
        pos = place_discs(rng, [6.0] * 5, margin=3)
        if pos is None:
            continue
        dist = [math.dist(pos[0], p) for p in pos[1:]]
        srt = sorted(dist)
        if srt[1] - srt[0] >= 6:
            break
    img = discs_image([(x, y, 6.0, c) for (x, y), c in zip(pos, cols, strict=True)])
    order = np.argsort(dist)
    return Scene(
        f"Which ball is closest to the {cols[0]} ball?",
        [f"the {cols[1 + i]} ball" for i in order],
        [img],
        {"positions": pos},
    )


HORIZON, FOCAL, CAM_H, OBJ_R, FAR = 30.0, 60.0, 1.0, 0.4, 40.0
SKY, GROUND = (205, 225, 245), (175, 160, 135)


def depth_scene(rng: np.random.Generator, k: int = 4) -> tuple[np.ndarray, np.ndarray, list[dict]]:
    """A ground-plane scene seen by a pinhole camera (height CAM_H, focal FOCAL px, horizon row
    HORIZON): k balls at depths z, drawn far to near. Returns the image, the true depth map (per pixel
    z; sky = FAR) and the objects with a visible pixel each."""
    yy, xx = np.mgrid[0:SIZE, 0:SIZE].astype(float)
    ground = yy > HORIZON
    depth = np.full((SIZE, SIZE), FAR)
    depth[ground] = np.minimum(FAR, FOCAL * CAM_H / (yy[ground] - HORIZON))
    img = np.zeros((SIZE, SIZE, 3))
    img[~ground] = SKY
    shade = np.clip(1.15 - depth / 15.0, 0.6, 1.1)[..., None]  # texture gradient: nearer ground brighter
    img[ground] = (np.array(GROUND) * shade)[ground]
    for _ in range(200):
        z = np.sort(rng.uniform(1.3, 8.0, size=k))[::-1]
        if np.all(z[:-1] / z[1:] >= 1.18):  # depths differ by >= 18 %
            break
    owner = np.full((SIZE, SIZE), -1)
    objs = []
    for i, zi in enumerate(z):  # far to near: nearer balls occlude
        r = OBJ_R * FOCAL / zi
        y_base = HORIZON + FOCAL * CAM_H / zi
        x = rng.uniform(6 + r, SIZE - 6 - r)
        mask = (xx - x) ** 2 + (yy - (y_base - r)) ** 2 <= r * r
        col = np.array(COLOURS[COLOUR_NAMES[int(rng.integers(len(COLOUR_NAMES)))]], float)
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


def depth(rng: np.random.Generator) -> Scene:
    for _ in range(200):
        img, dmap, objs = depth_scene(rng)
        if all(o["visible_px"] >= 6 for o in objs):
            break
    order = np.argsort([o["z"] for o in objs])  # nearest first: the answer
    word = "closest" if rng.random() < 0.5 else "nearest"
    pts = [objs[i]["point"] for i in order]
    return Scene(
        f"Which point is {word} to the camera?",
        [None] * 4,
        [img],
        {"depth_map": dmap, "z": [objs[i]["z"] for i in order]},
        points=pts,
    )


def finish_depth(scene: Scene, letters: list[str]) -> None:
    """After shuffling: option texts name the points, the description maps letter -> pixel and the
    letters are drawn next to the points."""
    pts = dict(zip(letters, scene.points, strict=True))
    scene.options = [f"Point {letter}" for letter in letters]
    scene.description = {k: list(v) for k, v in sorted(pts.items())}
    scene.media = [_mark(scene.media[0], pts)]


def motion(rng: np.random.Generator) -> Scene:
    cols = _pick_colours(rng, 3)
    dirs = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}
    name = list(dirs)[int(rng.integers(4))]
    dx, dy = dirs[name]
    speed = float(rng.uniform(25, 40))
    x0 = 48 - dx * speed / 2 + rng.uniform(-15, 15) * (dx == 0)
    y0 = 48 - dy * speed / 2 + rng.uniform(-15, 15) * (dy == 0)
    others = place_discs(rng, [6.0, 6.0], margin=20)
    frames = []
    for t in _times(1.0):
        objs = [(x, y, 6.0, c) for (x, y), c in zip(others or [], cols[1:], strict=False)]
        objs.append((x0 + dx * speed * t, y0 + dy * speed * t, 6.0, cols[0]))
        frames.append(discs_image(objs))
    return Scene(
        f"In which direction is the {cols[0]} ball moving?",
        [name, *[d for d in dirs if d != name]],
        [np.stack(frames)],
        {"direction": name, "speed": speed},
    )


# ---- scene ------------------------------------------------------------------------------------------

CAMERA_OPTIONS = [
    "The camera is closer to the objects",
    "The camera is farther away from the objects",
    "The camera moves to the left",
    "The camera moves to the right",
]


def viewpoint(rng: np.random.Generator) -> Scene:
    case = int(rng.integers(4))
    cols = _pick_colours(rng, 3)
    radii = list(rng.uniform(5, 8, size=3))
    pos = place_discs(rng, radii, margin=4, box=(22, 22, 74, 74)) or [(34, 40), (60, 40), (48, 62)]
    frames = []
    for t in _times(1.0):
        s = [1 + 0.5 * t, 1 - 0.35 * t, 1, 1][case]
        shift = [0, 0, 16 * t, -16 * t][case]  # camera left: the world slides right
        objs = [
            (48 + (x - 48) * s + shift, 48 + (y - 48) * s, r * s, c)
            for (x, y), r, c in zip(pos, radii, cols, strict=True)
        ]
        frames.append(discs_image(objs))
    opts = [CAMERA_OPTIONS[case], *[o for i, o in enumerate(CAMERA_OPTIONS) if i != case]]
    return Scene("How does the camera move in the video shot?", opts, [np.stack(frames)], {"case": case})


LIGHT_OPTIONS = [
    "The light source is at the upper left",
    "The light source is at the upper right",
    "The light source is directly above the balls",
    "The light source is in front of the balls",
]


def light(rng: np.random.Generator) -> Scene:
    case = int(rng.integers(4))
    im, d = canvas()
    d.rectangle((0, 50, SIZE, SIZE), fill=(205, 200, 185))
    cols = _pick_colours(rng, 2)
    xs = rng.permutation([26.0, 70.0]) + rng.uniform(-4, 4, 2)
    balls = [(x, float(rng.uniform(68, 84)), float(rng.uniform(6, 8))) for x in xs]
    for x, yc, r in balls:  # shadow on the ground, away from the light
        sx, sy, w, h = [
            (x + 2.2 * r, yc, 2.0 * r, 0.6 * r),
            (x - 2.2 * r, yc, 2.0 * r, 0.6 * r),
            (x, yc, 1.1 * r, 0.5 * r),
            (x, yc - 1.6 * r, 0.9 * r, 1.4 * r),
        ][case]
        d.ellipse((sx - w, sy - h, sx + w, sy + h), fill=SHADOW)
    for (x, yc, r), c in zip(balls, cols, strict=True):
        disc(d, x, yc - r, r, COLOURS[c])
    opts = [LIGHT_OPTIONS[case], *[o for i, o in enumerate(LIGHT_OPTIONS) if i != case]]
    return Scene("Where is the light source?", opts, [to_array(im)], {"case": case})


def air(rng: np.random.Generator) -> Scene:
    case = int(rng.integers(3))  # 0: first colour dragged, 1: second, 2: neither
    cols = _pick_colours(rng, 2)
    b = float(rng.uniform(2.0, 3.5))
    drags = [[b, 0.0], [0.0, b], [0.0, 0.0]][case]
    y0, t_end = 10.0, 0.75
    times = _times(t_end)
    ys = ph.simulate_falls(y0, drags, times)
    frames = []
    for row in ys:
        im, d = canvas()
        d.rectangle((0, 88, SIZE, SIZE), fill=TABLE)
        for x, y, c in zip((30.0, 66.0), row, cols, strict=True):
            disc(d, x, y, 5, COLOURS[c])
        frames.append(to_array(im))
    opts = [
        f"Only the {cols[0]} ball is slowed by air resistance",
        f"Only the {cols[1]} ball is slowed by air resistance",
        "Neither ball is slowed by air resistance",
        "Both balls are slowed equally by air resistance",
    ]
    order = [case, *[i for i in range(4) if i != case]]
    return Scene(
        f"The {cols[0]} ball and the {cols[1]} ball are dropped at the same time. Which statement is true?",
        [opts[i] for i in order],
        [np.stack(frames)],
        {"drags": drags, "y0": y0, "t_end": t_end, "sim_final_y": ys[-1]},
    )


# ---- dynamics ---------------------------------------------------------------------------------------


def collision(rng: np.random.Generator) -> Scene:
    y = 48.0
    for _ in range(500):
        r1, r2 = (float(v) for v in rng.choice([5.0, 6.0, 7.0, 8.0, 9.0], size=2))
        x1, x2, v = float(rng.uniform(10, 20)), float(rng.uniform(45, 60)), float(rng.uniform(18, 35))
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
    video = np.stack([discs_image([(a, y, r1, c1), (b, y, r2, c2)]) for a, b in sim[:-1]])
    finals = [sim[-1], *[cands[n] for n in names]]
    opts = [discs_image([(a, y, r1, c1), (b, y, r2, c2)]) for a, b in finals]
    return Scene(
        f"Both balls are made of the same material. The video lasts 1 second. Which image shows "
        f"the {c1} ball and the {c2} ball 1 second after the video ends?",
        opts,
        [video],
        {"x1": x1, "r1": r1, "x2": x2, "r2": r2, "v": v, "sim_final": sim[-1], "distractors": names},
    )


def throwing(rng: np.random.Generator) -> Scene:
    ground_y = 88.0
    zones = _pick_colours(rng, 4)
    for _ in range(1000):
        x0, y0 = float(rng.uniform(6, 14)), float(rng.uniform(55, 75))
        vx, vy = float(rng.uniform(25, 90)), float(rng.uniform(-110, -50))
        land = ph.projectile_landing_x(x0, y0, vx, vy, ground_y)
        if 6 <= land <= 90 and min(abs(land - (4 + 22 * k)) for k in range(5)) >= 3:
            break
    t_land = (-vy + math.sqrt(vy * vy + 2 * ph.G * (ground_y - y0))) / ph.G
    times = _times(0.45 * t_land)
    track, sim_land = ph.simulate_projectile(x0, y0, vx, vy, ground_y, times)
    frames = []
    for x, y in track:
        im, d = canvas()
        for k, c in enumerate(zones):
            d.rectangle((4 + 22 * k, ground_y, 4 + 22 * (k + 1) - 1, SIZE), fill=COLOURS[c])
        disc(d, x, y, 3, BALL_BLACK)
        frames.append(to_array(im))
    zone = int((land - 4) // 22)
    return Scene(
        "The black ball is thrown. In which zone will it land?",
        [f"the {zones[zone]} zone", *[f"the {c} zone" for i, c in enumerate(zones) if i != zone]],
        [np.stack(frames)],
        {
            "x0": x0,
            "y0": y0,
            "vx": vx,
            "vy": vy,
            "ground_y": ground_y,
            "zone_index": zone,
            "sim_landing_x": sim_land,
            "formula_landing_x": land,
        },
    )


TOWER_OPTIONS = {
    "stays": "The tower stays standing",
    "left": "The tower falls to the left",
    "right": "The tower falls to the right",
}
TABLE_Y, BLOCK_H = 80.0, 9.0


def tower_image(blocks: list[tuple[float, float]], cols: list[str]) -> np.ndarray:
    im, d = canvas()
    d.rectangle((0, TABLE_Y, SIZE, SIZE), fill=TABLE)
    for k, ((x, w), c) in enumerate(zip(blocks, cols, strict=True)):
        top = TABLE_Y - (k + 1) * BLOCK_H
        d.rectangle((x - w / 2, top, x + w / 2 - 1, top + BLOCK_H - 1), fill=COLOURS[c])
    return to_array(im)


def random_tower(rng: np.random.Generator, want: str, n: int = 3) -> list[tuple[float, float]]:
    """A tower whose CoM verdict is `want`, every CoM >= 2 px from a support edge, agreeing with pymunk."""
    for _ in range(2000):
        blocks = [(48.0, float(rng.uniform(18, 26)))]
        for _k in range(n - 1):
            w = float(rng.uniform(12, 24))
            blocks.append((blocks[-1][0] + float(rng.uniform(-14, 14)), w))
        if ph.tower_verdict(blocks) != want:
            continue
        margins = []
        for k in range(n - 1):
            above = blocks[k + 1 :]
            com = sum(x * w for x, w in above) / sum(w for _, w in above)
            margins.append(
                min(
                    abs(com - (blocks[k][0] - blocks[k][1] / 2)), abs(com - (blocks[k][0] + blocks[k][1] / 2))
                )
            )
        if min(margins) < 2.0:
            continue
        if ph.simulate_tower(blocks, TABLE_Y, BLOCK_H)[0] == want:
            return blocks
    raise RuntimeError(f"no tower with verdict {want!r} found")


def manipulation(rng: np.random.Generator) -> Scene:
    want = ["stays", "left", "right"][int(rng.integers(3))]
    blocks = random_tower(rng, want)
    cols = _pick_colours(rng, 3)
    opts = [
        TOWER_OPTIONS[want],
        *[v for k, v in TOWER_OPTIONS.items() if k != want],
        "The tower sinks into the table",
    ]
    return Scene(
        "What will happen to this tower of blocks?",
        opts,
        [tower_image(blocks, cols)],
        {"blocks": blocks, "verdict": want},
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
