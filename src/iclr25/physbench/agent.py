"""PhysAgent at CPU scale: (i) route the question to a tool type and recall knowledge, (ii) ask the vision
experts for facts, (iii) reason type by type on those facts, verify by majority over `verify` perturbed
runs, and fall back to the base model when no tool applies or the runs disagree. Returns a letter and a
trace (tool, knowledge used, expert facts, votes), as PhysAgent's answer + chain of thought."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from iclr25.physbench.depthnet import read_at
from iclr25.physbench.experts import BlobDetector, motion_direction, shadow_offsets, track
from iclr25.physbench.harness import Item, frames, sample_indices
from iclr25.physbench.knowledge import KnowledgeMemory
from iclr25.physbench.router import choose_tool
from iclr25.physbench.synth.render import COLOUR_NAMES


class VLM(Protocol):
    def qa(self, images: list[np.ndarray], prompt: str, mode: str) -> str: ...


class DepthExpert(Protocol):
    def disparity(self, img: np.ndarray) -> np.ndarray: ...


@dataclass
class Trace:
    tool: str
    letter: str = ""
    source: str = "base"  # 'experts' (reasoning on facts), 'knowledge' (table) or 'base' (fallback)
    knowledge: list[str] = field(default_factory=list)
    facts: list[dict[str, Any]] = field(default_factory=list)
    votes: list[str | None] = field(default_factory=list)
    base_calls: int = 0


class _Unavailable(Exception):
    """A reasoning step needs an expert or a rule this agent does not have."""


def _colour_in(text: str) -> list[str]:
    return [c for c in re.findall(r"[a-z]+", text.lower()) if c in COLOUR_NAMES]


def _option_with(options: dict[str, str], word: str) -> str | None:
    hits = [k for k, t in options.items() if re.search(rf"\b{re.escape(word)}\b", t.lower())]
    return hits[0] if len(hits) == 1 else None


@dataclass
class Context:
    item: Item
    visuals: list[np.ndarray]  # file order: images (H, W, 3) and videos (T, H, W, 3)
    det: BlobDetector | None
    depth: DepthExpert | None
    know: KnowledgeMemory | None
    facts: dict[str, Any] = field(default_factory=dict)

    def need_det(self) -> BlobDetector:
        if self.det is None:
            raise _Unavailable("blob detector")
        return self.det

    def need_know(self) -> KnowledgeMemory:
        if self.know is None:
            raise _Unavailable("knowledge")
        return self.know

    def image(self) -> np.ndarray:
        v = self.visuals[0]
        return v[-1] if v.ndim == 4 else v

    def video(self) -> list[np.ndarray]:
        v = self.visuals[0]
        return list(v) if v.ndim == 4 else [v]


# ---- type-specific reasoning: facts from experts, rules from knowledge -> a letter --------------------


def _count(ctx: Context) -> str | None:
    blobs = [b for b in ctx.need_det().detect(ctx.image()) if b.colour not in ("shadow",)]
    ctx.facts["count"] = len(blobs)
    return _option_exact(ctx.item.options, str(len(blobs)))


def _option_exact(options: dict[str, str], text: str) -> str | None:
    hits = [k for k, t in options.items() if t.strip().lower() == text.lower()]
    return hits[0] if len(hits) == 1 else None


def _largest_colour(ctx: Context) -> str | None:
    blobs = ctx.need_det().detect(ctx.image(), COLOUR_NAMES)
    if not blobs:
        return None
    c = max(blobs, key=lambda b: b.area).colour
    ctx.facts["largest"] = c
    return _option_exact(ctx.item.options, c)


def _extreme_ball(ctx: Context, which: str) -> str | None:
    blobs = ctx.need_det().detect(ctx.image(), COLOUR_NAMES)
    if not blobs:
        return None
    key = {
        "largest": lambda b: -b.area,
        "smallest": lambda b: b.area,
        "leftmost": lambda b: b.cx,
        "rightmost": lambda b: -b.cx,
        "highest": lambda b: b.cy,
        "lowest": lambda b: -b.cy,
    }[which]
    c = min(blobs, key=key).colour
    ctx.facts[which] = c
    return _option_with(ctx.item.options, c)


def _closest_ball(ctx: Context, ref: str) -> str | None:
    blobs = ctx.need_det().detect(ctx.image(), COLOUR_NAMES)
    anchor = [b for b in blobs if b.colour == ref]
    others = [b for b in blobs if b.colour != ref]
    if not anchor or not others:
        return None
    a = anchor[0]
    c = min(others, key=lambda b: (b.cx - a.cx) ** 2 + (b.cy - a.cy) ** 2).colour
    ctx.facts["closest"] = c
    return _option_with(ctx.item.options, c)


def _depth(ctx: Context) -> str | None:
    if ctx.depth is None:
        raise _Unavailable("depth expert")
    points = ctx.item.description
    if not isinstance(points, dict) or not points:
        return None
    disp = read_at(ctx.depth.disparity(ctx.image()), points)
    ctx.facts["disparity"] = {k: round(v, 3) for k, v in disp.items()}
    far = re.search(r"farthest", ctx.item.stem)
    return (min if far else max)(disp, key=disp.get)  # max disparity = closest (PhysAgent's rule)


def _motion(ctx: Context, colour: str) -> str | None:
    path = track(ctx.video(), colour, ctx.need_det())
    d = motion_direction(path)
    ctx.facts["direction"] = d
    return _option_exact(ctx.item.options, d) if d else None


def _camera(ctx: Context) -> str | None:
    det = ctx.need_det()
    first, last = ctx.video()[0], ctx.video()[-1]
    a, b = det.detect(first, COLOUR_NAMES), det.detect(last, COLOUR_NAMES)
    if not a or not b:
        return None
    ratio = sum(x.area for x in b) / sum(x.area for x in a)
    shift = float(np.mean([x.cx for x in b]) - np.mean([x.cx for x in a]))
    verdict = ctx.need_know().perspective(ratio, shift)
    ctx.facts["camera"] = {"area_ratio": round(ratio, 3), "shift_x": round(shift, 2), "rule": verdict}
    word = {"closer": "closer", "farther": "farther", "left": "left", "right": "right"}.get(verdict)
    return _option_with(ctx.item.options, word) if word else None


def _light(ctx: Context) -> str | None:
    offs = shadow_offsets(ctx.image(), ctx.need_det())
    if not offs:
        return None
    dx, dy = np.mean(offs, axis=0)
    where = ctx.need_know().light_from_shadow(float(dx), float(dy))
    ctx.facts["shadow"] = {"dx": round(float(dx), 2), "dy": round(float(dy), 2), "light": where}
    key = {
        "upper left": "upper left",
        "upper right": "upper right",
        "above": "directly above",
        "front": "in front",
    }[where]
    hits = [k for k, t in ctx.item.options.items() if key in t]
    return hits[0] if len(hits) == 1 else None


def _attribute(ctx: Context, attr: str, extreme: str) -> str | None:
    know = ctx.need_know()
    letter = know.attribute_answer(attr, extreme, ctx.item.options)
    ctx.facts["attribute"] = {"attribute": attr, "extreme": extreme, "table_hit": letter}
    return letter


def _vertical_travel(ctx: Context, colours: tuple[str, str]) -> list[float] | None:
    """Downward travel (pixels, first to last frame) of each coloured object; None if one is lost."""
    det = ctx.need_det()
    video = ctx.video()
    travel = []
    for c in colours:
        p = track(video, c, det)
        if np.isnan(p[[0, -1]]).any():
            return None
        travel.append(float(p[-1, 1] - p[0, 1]))
    return travel


def _mass(ctx: Context, left: str, right: str) -> str | None:
    drops = _vertical_travel(ctx, (left, right))
    if drops is None:
        return None
    heavier = ctx.need_know().lever(*drops)
    ctx.facts["mass"] = {"drop": [round(d, 2) for d in drops], "heavier": heavier}
    if heavier == "equal":
        return _option_with(ctx.item.options, "same")
    colour = left if heavier == "left" else right
    hits = [k for k, t in ctx.item.options.items() if t.lower().startswith(f"the {colour} box is heavier")]
    return hits[0] if len(hits) == 1 else None


def _air(ctx: Context, a: str, b: str) -> str | None:
    falls = _vertical_travel(ctx, (a, b))
    if falls is None:
        return None
    slowed = ctx.need_know().drag(*falls)
    ctx.facts["air"] = {"fall": [round(f, 2) for f in falls], "slowed": slowed}
    if slowed == "neither":
        return _option_with(ctx.item.options, "neither")
    colour = a if slowed == "a" else b
    hits = [k for k, t in ctx.item.options.items() if t.lower().startswith(f"only the {colour} ball")]
    return hits[0] if len(hits) == 1 else None


def _collision(ctx: Context, c1: str, c2: str, t_video: float, t_after: float) -> str | None:
    det = ctx.need_det()
    video = ctx.video()
    p1, p2 = track(video, c1, det), track(video, c2, det)
    ok = ~np.isnan(p1[:, 0])
    if ok.sum() < 3 or np.isnan(p2[0, 0]):
        return None
    t = np.linspace(0, t_video, len(video))
    v, x1 = np.polyfit(t[ok], p1[ok, 0], 1)
    b1, b2 = det.largest(video[0], c1), det.largest(video[0], c2)
    if v <= 0 or b1 is None or b2 is None:
        return None
    pred = ctx.need_know().collision_positions(x1, b1.radius, p2[0, 0], b2.radius, v, t_video + t_after)
    ctx.facts["collision"] = {"v": round(float(v), 2), "predicted_x": [round(float(x), 1) for x in pred]}
    errs = {}
    for k, img in zip("ABCD", ctx.visuals[-4:], strict=True):
        q1, q2 = det.largest(img, c1), det.largest(img, c2)
        if q1 is None or q2 is None:
            continue
        errs[k] = abs(q1.cx - pred[0]) + abs(q2.cx - pred[1])
    return min(errs, key=errs.get) if errs else None


def _ground_row(img: np.ndarray) -> int | None:
    """The first row (from the top) where the coloured ground zones start, at the image centre."""
    det = BlobDetector()
    lab = det.labels(img[:, :, :])
    col = lab[:, img.shape[1] // 2]
    rows = np.nonzero((col >= 0) & (col < len(COLOUR_NAMES)))[0]
    bottom = rows[rows > img.shape[0] // 2]
    return int(bottom.min()) if len(bottom) else None


def _throwing(ctx: Context) -> str | None:
    det = ctx.need_det()
    video = ctx.video()
    path = track(video, "black", det)
    ground = _ground_row(video[0])
    if ground is None:
        return None
    land = ctx.need_know().projectile_landing(path, ground - 3.0)  # the ball's centre at touch-down
    ctx.facts["throw"] = {"ground_row": ground, "landing_x": None if land is None else round(land, 1)}
    if land is None or not 0 <= land < video[0].shape[1]:
        return None
    lab = det.labels(video[0])[ground + 3, int(land)]
    if not 0 <= lab < len(COLOUR_NAMES):
        return None
    return _option_with(ctx.item.options, COLOUR_NAMES[lab])


def blocks_in(img: np.ndarray, det: BlobDetector) -> list[tuple[float, float]]:
    """Blocks of a tower as (centre x, width), bottom first, from coloured blobs' bounding boxes."""
    blobs = sorted(det.detect(img, COLOUR_NAMES), key=lambda b: -b.y1)
    return [((b.x0 + b.x1 + 1) / 2, float(b.x1 - b.x0 + 1)) for b in blobs]


def _tower(ctx: Context) -> str | None:
    blocks = blocks_in(ctx.image(), ctx.need_det())
    if len(blocks) < 2:
        return None
    verdict = ctx.need_know().tower_verdict(blocks)
    ctx.facts["tower"] = {"blocks": [(round(x, 1), w) for x, w in blocks], "verdict": verdict}
    word = {"stays": "stays standing", "left": "to the left", "right": "to the right"}[verdict]
    hits = [k for k, t in ctx.item.options.items() if word in t]
    return hits[0] if len(hits) == 1 else None


def _stable_placement(ctx: Context) -> str | None:
    """Embodied 'stack': the option image whose tower satisfies the centre-of-mass rule."""
    det, know = ctx.need_det(), ctx.need_know()
    ok = [
        k
        for k, img in zip("ABCD", ctx.visuals[-4:], strict=True)
        if know.tower_verdict(blocks_in(img, det)) == "stays"
    ]
    ctx.facts["stable_options"] = ok
    return ok[0] if len(ok) == 1 else None


_RULES: list[tuple[re.Pattern[str], Callable[..., str | None]]] = [
    (re.compile(r"How many balls"), lambda c, m: _count(c)),
    (re.compile(r"What color is the largest ball"), lambda c, m: _largest_colour(c)),
    (re.compile(r"Which object is the (most|least) (\w+)\?"), lambda c, m: _attribute(c, m[2], m[1])),
    (re.compile(r"mass of the (\w+) box and the (\w+) box"), lambda c, m: _mass(c, m[1], m[2])),
    (
        re.compile(r"Which ball is the (largest|smallest|leftmost|rightmost|highest|lowest)"),
        lambda c, m: _extreme_ball(c, m[1]),
    ),
    (re.compile(r"Which ball is closest to the (\w+) ball"), lambda c, m: _closest_ball(c, m[1])),
    (re.compile(r"point is (?:the )?(closest|nearest|farthest)"), lambda c, m: _depth(c)),
    (re.compile(r"direction is the (\w+) ball moving"), lambda c, m: _motion(c, m[1])),
    (re.compile(r"How does the camera move"), lambda c, m: _camera(c)),
    (re.compile(r"Where is the light source"), lambda c, m: _light(c)),
    (re.compile(r"The (\w+) ball and the (\w+) ball are dropped"), lambda c, m: _air(c, m[1], m[2])),
    (
        re.compile(
            r"video lasts ([\d.]+) seconds?\. Which image shows the (\w+) ball and the (\w+) ball "
            r"([\d.]+) seconds? after"
        ),
        lambda c, m: _collision(c, m[2], m[3], float(m[1]), float(m[4])),
    ),
    (re.compile(r"ball is thrown\. In which zone will it land"), lambda c, m: _throwing(c)),
    (re.compile(r"What will happen to this tower"), lambda c, m: _tower(c)),
    (re.compile(r"Which placement keeps the tower standing"), lambda c, m: _stable_placement(c)),
]


def perturb(visuals: list[np.ndarray], rng: np.random.Generator) -> list[np.ndarray]:
    """A self-verification view: brightness x U(0.92, 1.08) and uniform pixel noise in [-8, 8]."""
    out = []
    for v in visuals:
        noisy = v.astype(np.float32) * rng.uniform(0.92, 1.08) + rng.integers(-8, 9, v.shape, dtype=np.int8)
        out.append(np.clip(noisy, 0, 255).astype(np.uint8))
    return out


def _sampled(v: np.ndarray, n: int = 8) -> np.ndarray:
    """Videos as the n uniformly sampled frames every model gets."""
    return v[sample_indices(len(v), n)] if v.ndim == 4 else v


class PhysAgent:
    """`PhysAgent(base, experts, knowledge, verify=3).answer(item) -> (letter, Trace)`.

    `experts`: {"detector": BlobDetector, "depth": DepthNet-like} (None or {} = no experts),
    `knowledge`: a KnowledgeMemory (None = none), `verify`: runs voted on (1 = no verification)."""

    def __init__(
        self,
        base: VLM,
        experts: dict[str, Any] | None = None,
        knowledge: KnowledgeMemory | None = None,
        verify: int = 3,
        seed: int = 0,
    ) -> None:
        if verify < 1:
            raise ValueError(f"verify must be >= 1, got {verify}")
        self.base, self.experts, self.knowledge, self.verify = base, experts or {}, knowledge, verify
        self.seed = seed

    def _reason(self, item: Item, visuals: list[np.ndarray], facts: dict[str, Any]) -> str | None:
        ctx = Context(item, visuals, self.experts.get("detector"), self.experts.get("depth"), self.knowledge)
        for pattern, fn in _RULES:
            m = pattern.search(item.stem)
            if m:
                try:
                    letter = fn(ctx, m)
                except _Unavailable:
                    return None
                facts.update(ctx.facts)
                return letter
        return None

    def answer(self, item: Item) -> tuple[str, Trace]:
        trace = Trace(tool=choose_tool(item.stem))
        visuals = [_sampled(item.visual(i)) for i in range(len(item.file_name))]
        rng = np.random.default_rng([self.seed, item.idx])
        for run in range(self.verify):
            facts: dict[str, Any] = {}
            view = visuals if run == 0 else perturb(visuals, rng)
            trace.votes.append(self._reason(item, view, facts))
            trace.facts.append(facts)
            if "attribute" in facts:
                trace.knowledge.append(
                    f"attribute_table[{facts['attribute']['attribute']}][{facts['attribute']['extreme']}]"
                )
        votes = Counter(v for v in trace.votes if v is not None)
        if votes:
            letter, n = votes.most_common(1)[0]
            if n > self.verify // 2:  # a strict majority of the runs agree
                trace.letter = letter
                trace.source = "knowledge" if "attribute" in trace.facts[0] else "experts"
                return letter, trace
        trace.letter = self.base.qa(frames(item), item.prompt(), item.mode)[:1]
        trace.base_calls = 1
        return trace.letter, trace

    def qa_item(self, item: Item) -> str:
        return self.answer(item)[0]
