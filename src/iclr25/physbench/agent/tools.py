"""PhysAgent's stages (ii) and (iii) per tool: ask the experts for facts, apply the knowledge memory, and
state a conclusion in the agent's words (or point at an option directly when options are images or marked
points). Each tool declares what it needs — perception (pixels) and/or knowledge (physics, materials) —
so the ablations can take either away."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from iclr25.physbench.agent import knowledge as K
from iclr25.physbench.agent import perception as V
from iclr25.physbench.agent.language import Language, colours_in
from iclr25.physbench.harness import Item, sample_indices


class Unavailable(Exception):
    """The tool needs an expert or a kind of knowledge this agent was built without."""


@dataclass
class Context:
    item: Item
    visuals: list[np.ndarray]  # file order: images (H, W, 3), videos as sampled frames (T, H, W, 3)
    times: list[np.ndarray | None]  # per visual: the sampled frames' positions in [0, 1] of the clip
    arg: str
    language: Language
    perception: bool
    knowledge: bool
    facts: dict[str, Any] = field(default_factory=dict)

    def need(self, perception: bool = True, knowledge: bool = False) -> None:
        if perception and not self.perception:
            raise Unavailable("perception")
        if knowledge and not self.knowledge:
            raise Unavailable("knowledge")

    @property
    def stem(self) -> str:
        return self.item.stem

    def image(self) -> np.ndarray:
        v = self.visuals[0]
        return v[-1] if v.ndim == 4 else v

    def video(self) -> np.ndarray:
        v = self.visuals[0]
        return v if v.ndim == 4 else v[None]

    def option_images(self) -> list[np.ndarray] | None:
        """The four option images of an interleaved item (its last four visuals), if its options are
        images."""
        opts = self.item.options
        if len(self.visuals) >= 5 and all(t.strip() == "<image>" for t in opts.values()):
            return [v if v.ndim == 3 else v[-1] for v in self.visuals[-4:]]
        return None


Result = tuple[str, str]  # ("text", conclusion in words) or ("letter", option letter)


def _objects(img: np.ndarray) -> list[V.Blob]:
    return V.detect(img)


def count(ctx: Context) -> Result | None:
    ctx.need()
    n = len(_objects(ctx.image()))
    ctx.facts["objects"] = n
    return "text", f"there are {n} objects"


def largest_colour(ctx: Context) -> Result | None:
    ctx.need()
    blobs = _objects(ctx.image())
    if not blobs:
        return None
    ctx.facts["largest"] = blobs[0].colour
    return "text", f"it is {blobs[0].colour}"


_EXTREME: dict[str, Callable[[V.Blob], float]] = {
    "largest": lambda b: -b.area, "smallest": lambda b: b.area, "leftmost": lambda b: b.cx,
    "rightmost": lambda b: -b.cx, "highest": lambda b: b.cy, "lowest": lambda b: -b.cy,
}


def extreme(ctx: Context) -> Result | None:
    ctx.need()
    blobs = _objects(ctx.image())
    if not blobs:
        return None
    b = min(blobs, key=_EXTREME[ctx.arg])
    ctx.facts[ctx.arg] = b.colour
    return "text", f"the {b.colour} one"


def nearest_to(ctx: Context) -> Result | None:
    ctx.need()
    named = colours_in(ctx.stem)
    blobs = _objects(ctx.image())
    anchor = [b for b in blobs if named and b.colour == named[0]]
    others = [b for b in blobs if not named or b.colour != named[0]]
    if not anchor or not others:
        return None
    a = anchor[0]
    b = min(others, key=lambda o: (o.cx - a.cx) ** 2 + (o.cy - a.cy) ** 2)
    ctx.facts["nearest"] = b.colour
    return "text", f"the {b.colour} one"


def material(ctx: Context) -> Result | None:
    ctx.need(perception=False, knowledge=True)
    sense = K.MaterialSense(ctx.language.encode)
    prop, ext, _ = sense.which_property(ctx.stem)
    letters = list(ctx.item.options)
    names = [re.sub(r"^(the|a|an)\s+", "", ctx.item.options[k].strip(), flags=re.I) for k in letters]
    scores = sense.score(names, prop)
    k = int(np.argmax(scores) if ext == "most" else np.argmin(scores))
    ctx.facts["material"] = {"property": prop, "extreme": ext, "scores": [round(float(s), 3) for s in scores]}
    return "letter", letters[k]


def _vertical_travel(ctx: Context, colours: list[str]) -> list[float] | None:
    video = list(ctx.video())
    out = []
    for c in colours:
        p = V.track(video, c)
        if np.isnan(p[[0, -1]]).any():
            return None
        out.append(float(p[-1, 1] - p[0, 1]))
    return out


def balance(ctx: Context) -> Result | None:
    ctx.need(knowledge=True)
    cols = colours_in(ctx.stem)[:2]
    if len(cols) < 2:
        return None
    drops = _vertical_travel(ctx, cols)
    if drops is None:
        return None
    side = K.heavier_side(*drops)
    ctx.facts["balance"] = {"drop": [round(d, 2) for d in drops], "heavier": side}
    if side == "equal":
        return "text", "they weigh the same"
    return "text", f"the {cols[0] if side == 'a' else cols[1]} box is heavier"


def depth(ctx: Context) -> Result | None:
    ctx.need(knowledge=True)
    points = ctx.item.description
    if not isinstance(points, dict) or not points:
        return None
    rows = V.ground_rows(ctx.image(), points)
    if len(rows) < len(points):
        return None
    ctx.facts["ground_rows"] = {k: r for k, (r, _) in rows.items()}
    ctx.facts["hidden_below"] = sorted(k for k, (_, h) in rows.items() if h)
    # ties (one region under two points) go to the point lower in the image
    if re.search(r"\b(farthest|furthest|most distant)\b", ctx.stem.lower()):
        cands = {k: (-r, -points[k][1]) for k, (r, _) in rows.items()}  # the highest contact is farthest
    else:  # the nearest object: the lowest contact among those whose bottom nothing hides
        cands = ({k: (r, points[k][1]) for k, (r, h) in rows.items() if not h}
                 or {k: (r, points[k][1]) for k, (r, _) in rows.items()})
    return "letter", max(cands, key=cands.get)


_MOTION_WORDS = {"left": "moving to the left", "right": "moving to the right", "up": "moving upward",
                 "down": "moving downward"}


def motion(ctx: Context) -> Result | None:
    ctx.need()
    cols = colours_in(ctx.stem)
    if not cols:
        return None
    d = V.direction(V.track(list(ctx.video()), cols[0]))
    ctx.facts["direction"] = d
    return ("text", _MOTION_WORDS[d]) if d else None


_CAMERA_WORDS = {"closer": "the camera moves closer to the objects",
                 "farther": "the camera moves away from the objects",
                 "left": "the camera moves to the left", "right": "the camera moves to the right"}


def camera(ctx: Context) -> Result | None:
    ctx.need(knowledge=True)
    video = ctx.video()
    a, b = _objects(video[0]), _objects(video[-1])
    if not a or not b:
        return None
    ratio = sum(x.area for x in b) / sum(x.area for x in a)
    shift = float(np.mean([x.cx for x in b]) - np.mean([x.cx for x in a]))
    verdict = K.camera_motion(ratio, shift)
    ctx.facts["camera"] = {"area_ratio": round(ratio, 3), "shift_x": round(shift, 2), "motion": verdict}
    return ("text", _CAMERA_WORDS[verdict]) if verdict else None


_LIGHT_WORDS = {"upper left": "the light comes from the upper left",
                "upper right": "the light comes from the upper right",
                "above": "the light comes from directly above", "front": "the light comes from in front"}


def light(ctx: Context) -> Result | None:
    ctx.need(knowledge=True)
    offs = V.shadow_offsets(ctx.image())
    if not offs:
        return None
    dx, dy, r = (float(v) for v in np.mean(offs, axis=0))
    where = K.light_direction(dx, dy, r)
    ctx.facts["shadow"] = {"dx": round(dx, 2), "dy": round(dy, 2), "r": round(r, 2), "light": where}
    return "text", _LIGHT_WORDS[where]


def drag(ctx: Context) -> Result | None:
    ctx.need(knowledge=True)
    cols = colours_in(ctx.stem)[:2]
    if len(cols) < 2:
        return None
    falls = _vertical_travel(ctx, cols)
    if falls is None:
        return None
    slowed = K.slowed_by_air(*falls)
    ctx.facts["fall"] = {"travel": [round(f, 2) for f in falls], "slowed": slowed}
    if slowed == "neither":
        return "text", "neither ball is slowed by the air"
    return "text", f"only the {cols[0] if slowed == 'a' else cols[1]} ball is slowed by the air"


_DURATION = re.compile(r"(\d+(?:\.\d+)?|one|two|three|four|five|half a)\s+seconds?", re.I)
_DURATION_WORDS = {"one": 1.0, "two": 2.0, "three": 3.0, "four": 4.0, "five": 5.0, "half a": 0.5}


def _durations(text: str) -> tuple[float, float]:
    """(clip length, how long after it) from the duration expressions in a question: the first and the
    last mentioned (1 s each when none)."""
    found = [float(_DURATION_WORDS.get(m.lower(), m) if not m[0].isdigit() else m)
             for m in _DURATION.findall(text)]
    return (found[0], found[-1]) if found else (1.0, 1.0)


def collision(ctx: Context) -> Result | None:
    ctx.need(knowledge=True)
    options = ctx.option_images()
    video, times = ctx.video(), ctx.times[0]
    if options is None or times is None:
        return None
    blobs = _objects(video[0])
    cols = [c for c in colours_in(ctx.stem) if any(b.colour == c for b in blobs)][:2]
    if len(cols) < 2:
        cols = list(dict.fromkeys(b.colour for b in blobs))[:2]
    if len(cols) < 2:
        return None
    clip, after = _durations(ctx.stem)
    t = times * clip
    paths = [V.track(list(video), c) for c in cols]
    moves = [np.nanmax(p[:, 0]) - np.nanmin(p[:, 0]) for p in paths]
    i1 = int(np.argmax(moves))  # the moving ball hits the one at rest
    p1, p2 = paths[i1], paths[1 - i1]
    ok = ~np.isnan(p1[:, 0])
    if ok.sum() < 3 or np.isnan(p2[0, 0]):
        return None
    v, x1 = np.polyfit(t[ok], p1[ok, 0], 1)
    b1, b2 = V.largest(video[0], cols[i1]), V.largest(video[0], cols[1 - i1])
    if b1 is None or b2 is None:
        return None
    sign = 1.0 if p2[0, 0] > x1 else -1.0  # mirror a leftward push into the rightward form
    pred = K.elastic_after(sign * x1, b1.radius, sign * p2[0, 0], b2.radius, sign * v, clip + after)
    pred = (sign * pred[0], sign * pred[1])
    ctx.facts["collision"] = {"v_px_s": round(float(v), 2), "predicted_x": [round(float(x), 1) for x in pred]}
    errs = {}
    for k, img in zip(ctx.item.options, options, strict=True):
        q1, q2 = V.largest(img, cols[i1]), V.largest(img, cols[1 - i1])
        if q1 is not None and q2 is not None:
            errs[k] = abs(q1.cx - pred[0]) + abs(q2.cx - pred[1])
    return ("letter", min(errs, key=errs.get)) if errs else None


def _landing(ctx: Context) -> tuple[float, int, np.ndarray] | None:
    video, times = ctx.video(), ctx.times[0]
    if times is None:
        return None
    path = V.track(list(video), "black")
    ground = V.ground_row(video[0])
    ball = V.largest(video[0], "black")
    if ground is None or ball is None:
        return None
    land = K.projectile_landing(times, path, ground - ball.radius)
    ctx.facts["throw"] = {"ground_row": ground, "landing_x": None if land is None else round(land, 1)}
    if land is None or not 0 <= land < video.shape[2]:
        return None
    return land, ground, video[0]


def projectile(ctx: Context) -> Result | None:
    ctx.need(knowledge=True)
    found = _landing(ctx)
    if found is None:
        return None
    land, ground, frame = found
    lab = V.labels(frame)[min(ground + 2, frame.shape[0] - 1), int(land)]
    if lab < 0:
        return None
    return "text", f"the {V.NAMES[lab]} zone"


def _stack(img: np.ndarray) -> list[tuple[float, float, float]]:
    return [((b.x0 + b.x1 + 1) / 2, b.width, b.height) for b in V.blocks(img)]


_STACK_WORDS = {"stays": "the tower stays standing upright", "left": "the tower falls over to the left",
                "right": "the tower falls over to the right"}


def stack(ctx: Context) -> Result | None:
    ctx.need(knowledge=True)
    blocks = _stack(ctx.image())
    if len(blocks) < 2:
        return None
    verdict = K.stack_verdict(blocks)
    ctx.facts["stack"] = {"blocks": [(round(x, 1), w, h) for x, w, h in blocks], "verdict": verdict}
    return "text", _STACK_WORDS[verdict]


def placement(ctx: Context) -> Result | None:
    """The option image whose stack stands with the largest safety margin."""
    ctx.need(knowledge=True)
    options = ctx.option_images()
    if options is None:
        return None
    margins = {}
    for k, img in zip(ctx.item.options, options, strict=True):
        blocks = _stack(img)
        if len(blocks) >= 2 and K.stack_verdict(blocks) == "stays":
            margins[k] = K.stack_margin(blocks)
    ctx.facts["stable_options"] = {k: round(m, 2) for k, m in margins.items()}
    return ("letter", max(margins, key=margins.get)) if margins else None


TOOLS: dict[str, Callable[[Context], Result | None]] = {
    "count": count, "largest_colour": largest_colour, "material": material, "balance": balance,
    "extreme": extreme, "nearest_to": nearest_to, "depth": depth, "motion": motion, "camera": camera,
    "light": light, "drag": drag, "collision": collision, "push": collision, "projectile": projectile,
    "catch": projectile, "stack": stack, "placement": placement,
}


def clip_times(n_frames: int, n: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """The frames a model samples from an n_frames-long clip and their positions in [0, 1] of it."""
    idx = sample_indices(n_frames, n)
    return idx, idx / max(n_frames - 1, 1)
