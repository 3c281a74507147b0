"""Embodied transfer (the paper's MOKA experiment) as closed-loop pymunk episodes, simulated here on their
own: scenes, drawing, wording and physics are this module's, not PhysBench-Synth's, and no episode is
kept or dropped by what any agent's rule would say. Each episode turns what the robot sees into a
four-option question whose options are its four possible actions; the chosen action is executed in
pymunk and scored.

- stack: a stable two-block tower and a third block held above it at four candidate offsets (four option
  images); success iff the tower still stands after the block is released. Episodes where pymunk keeps
  all four or none standing are redrawn (the choice must matter), by simulation alone.
- catch: a ball is thrown over four coloured mats; the robot picks the mat to wait on; success iff the
  simulated ball first touches that mat.
- push: the robot pushes one ball into another and must foresee the result (four option images: the
  simulation and three simulated counterfactuals: a sticky, a bouncy-back and a mass-swapped collision);
  success iff it picks the real one.
"""

from __future__ import annotations

import numpy as np
import pymunk
from PIL import Image, ImageDraw

from iclr25.physbench.harness import Item
from iclr25.physbench.taxonomy import LETTERS

TASKS = ("stack", "catch", "push")
W, H = 112, 112
GRAVITY = 300.0
STEP = 1.0 / 240.0
# This module's own palette (shades of its own choosing).
PALETTE = {"red": (205, 35, 50), "green": (30, 150, 80), "blue": (35, 95, 200), "yellow": (225, 190, 35),
           "purple": (135, 70, 175), "orange": (235, 120, 35)}
FLOOR, BACK = (120, 120, 125), (235, 235, 230)


def _img() -> tuple[Image.Image, ImageDraw.ImageDraw]:
    im = Image.new("RGB", (W, H), BACK)
    return im, ImageDraw.Draw(im)


def _arr(im: Image.Image) -> np.ndarray:
    return np.asarray(im, dtype=np.uint8).copy()


def _space() -> pymunk.Space:
    sp = pymunk.Space()
    sp.gravity = (0.0, GRAVITY)
    return sp


def _run(sp: pymunk.Space, seconds: float) -> None:
    for _ in range(int(round(seconds / STEP))):
        sp.step(STEP)


# ---- stack -----------------------------------------------------------------------------------------

FLOOR_Y, BLOCK_H = 96.0, 10.0


def _stands(blocks: list[tuple[float, float]]) -> bool:
    """pymunk: blocks (centre x, width), bottom first, released at rest on the floor; True iff the top
    block stays within 3 px of where it started after 2 s."""
    sp = _space()
    floor = pymunk.Segment(sp.static_body, (-300, FLOOR_Y), (400, FLOOR_Y), 0.5)
    floor.friction = 0.8
    sp.add(floor)
    bodies = []
    for k, (x, w) in enumerate(blocks):
        m = w * BLOCK_H / 100.0
        b = pymunk.Body(m, pymunk.moment_for_box(m, (w, BLOCK_H)))
        b.position = (x, FLOOR_Y - BLOCK_H / 2 - k * BLOCK_H)
        s = pymunk.Poly.create_box(b, (w, BLOCK_H))
        s.friction = 0.8
        sp.add(b, s)
        bodies.append(b)
    start = bodies[-1].position
    _run(sp, 2.0)
    return (bodies[-1].position - start).length < 3.0


def _stack_image(blocks: list[tuple[float, float]], cols: list[str]) -> np.ndarray:
    im, d = _img()
    d.rectangle((0, FLOOR_Y, W, H), fill=FLOOR)
    for k, ((x, w), c) in enumerate(zip(blocks, cols, strict=True)):
        top = FLOOR_Y - (k + 1) * BLOCK_H
        d.rectangle((x - w / 2, top, x + w / 2 - 1, top + BLOCK_H - 1), fill=PALETTE[c])
    return _arr(im)


def stack_episode(rng: np.random.Generator, idx: int) -> tuple[Item, dict[str, bool]]:
    while True:
        base = [(56.0, float(rng.uniform(20, 30)))]
        base.append((56.0 + float(rng.uniform(-6, 6)), float(rng.uniform(14, 22))))
        if not _stands(base):
            continue
        w = float(rng.uniform(12, 20))
        xs = base[1][0] + rng.uniform(-20, 20, size=4)
        options = [[*base, (float(x), w)] for x in xs]
        ok = [_stands(b) for b in options]
        if 0 < sum(ok) < 4:
            break
    cols = [str(c) for c in rng.choice(list(PALETTE), size=3, replace=False)]
    media = [_stack_image(base, cols[:2])] + [_stack_image(b, cols) for b in options]
    question = ("<image>\nA robot arm holds one more block above this stack. Where should it let go of the "
                "block so that the stack does not fall?" + "".join(f"\n{k}. <image>" for k in LETTERS))
    item = Item(idx=idx, question=question, file_name=[f"stack_{idx}_{k}.png" for k in range(5)],
                mode="general", media=media, source="simulation", scene="embodied stack")
    return item, dict(zip(LETTERS, ok, strict=True))


# ---- catch -----------------------------------------------------------------------------------------

MAT_Y, MAT_X0, MAT_W = 100.0, 6.0, 25.0


def _flight(x0: float, y0: float, vx: float, vy: float, times: list[float]) -> tuple[list[tuple], float]:
    """pymunk: a small ball's positions at `times`, and where it first reaches the mats' level."""
    sp = _space()
    b = pymunk.Body(1.0, pymunk.moment_for_circle(1.0, 0, 2.5))
    b.position, b.velocity = (x0, y0), (vx, vy)
    sp.add(b, pymunk.Circle(b, 2.5))
    out, t = [], 0.0
    for tk in times:
        while t < tk - 1e-12:
            sp.step(STEP)
            t += STEP
        out.append(tuple(b.position))
    while b.position.y < MAT_Y - 2.5 and t < 10:
        sp.step(STEP)
        t += STEP
    return out, float(b.position.x)


def catch_episode(rng: np.random.Generator, idx: int) -> tuple[Item, dict[str, bool]]:
    cols = [str(c) for c in rng.choice(list(PALETTE), size=4, replace=False)]
    while True:
        x0, y0 = float(rng.uniform(4, 16)), float(rng.uniform(20, 70))
        vx, vy = float(rng.uniform(20, 110)), float(rng.uniform(-140, -20))
        track, land = _flight(x0, y0, vx, vy, list(np.linspace(0, 0.35, 12)))
        if MAT_X0 <= land < MAT_X0 + 4 * MAT_W and all(y < MAT_Y - 4 for _, y in track):
            break
    frames = []
    for x, y in track:
        im, d = _img()
        for k, c in enumerate(cols):
            d.rectangle((MAT_X0 + k * MAT_W, MAT_Y, MAT_X0 + (k + 1) * MAT_W - 1, H), fill=PALETTE[c])
        d.ellipse((x - 2.5, y - 2.5, x + 2.5, y + 2.5), fill=(20, 20, 20))
        frames.append(_arr(im))
    hit = int((land - MAT_X0) // MAT_W)
    order = rng.permutation(4)
    question = ("<video>\nA ball has just been thrown toward the coloured mats. The robot has to be standing "
                "on the right mat to catch it. Where should the robot wait?"
                + "".join(f"\n{k}. on the {cols[j]} mat" for k, j in zip(LETTERS, order, strict=True)))
    item = Item(idx=idx, question=question, file_name=[f"catch_{idx}.mp4"], mode="image&video",
                media=[np.stack(frames)], source="simulation", scene="embodied catch")
    return item, {k: int(j) == hit for k, j in zip(LETTERS, order, strict=True)}


# ---- push ------------------------------------------------------------------------------------------

Y_LINE = 56.0


def _push(x1: float, r1: float, x2: float, r2: float, v: float, times: list[float], elasticity: float = 1.0,
          masses: tuple[float, float] | None = None, reverse: bool = False) -> list[tuple[float, float]]:
    """pymunk: disc 1 (mass ~ r^3 unless `masses`) pushed at v into disc 2 at rest; centres' x at
    `times`. `reverse`: disc 1 bounces straight back at its speed (a counterfactual)."""
    sp = pymunk.Space()
    ms = masses or (r1 ** 3 / 100.0, r2 ** 3 / 100.0)
    bodies = []
    for x, r, m, vel in ((x1, r1, ms[0], v), (x2, r2, ms[1], 0.0)):
        b = pymunk.Body(m, pymunk.moment_for_circle(m, 0, r))
        b.position, b.velocity = (x, Y_LINE), (vel, 0.0)
        s = pymunk.Circle(b, r)
        s.elasticity, s.friction = elasticity, 0.0
        sp.add(b, s)
        bodies.append(b)
    out, t, flipped = [], 0.0, False
    for tk in times:
        while t < tk - 1e-12:
            sp.step(STEP)
            t += STEP
            if reverse and not flipped and bodies[0].position.x + r1 >= bodies[1].position.x - r2 - 0.5:
                bodies[0].velocity, bodies[1].velocity, flipped = (-v, 0.0), (0.0, 0.0), True
        out.append((bodies[0].position.x, bodies[1].position.x))
    return out


def _discs(pos: tuple[float, float], r: tuple[float, float], cols: tuple[str, str]) -> np.ndarray:
    im, d = _img()
    for x, rr, c in zip(pos, r, cols, strict=True):
        d.ellipse((x - rr, Y_LINE - rr, x + rr, Y_LINE + rr), fill=PALETTE[c])
    return _arr(im)


def push_episode(rng: np.random.Generator, idx: int) -> tuple[Item, dict[str, bool]]:
    while True:
        r1, r2 = (float(v) for v in rng.uniform(4, 10, size=2))
        x1, x2 = float(rng.uniform(8, 20)), float(rng.uniform(48, 70))
        v = float(rng.uniform(20, 45))
        t_hit = (x2 - x1 - r1 - r2) / v
        if not 1.05 <= t_hit <= 1.6:
            continue
        times = [*np.linspace(0.0, 1.0, 12), 2.0]
        real = _push(x1, r1, x2, r2, v, times)
        others = [_push(x1, r1, x2, r2, v, times, elasticity=0.0)[-1],
                  _push(x1, r1, x2, r2, v, times, reverse=True)[-1],
                  _push(x1, r1, x2, r2, v, times, masses=(r2 ** 3 / 100.0, r1 ** 3 / 100.0))[-1]]
        finals = [real[-1], *others]
        inside = all(r1 <= a <= W - r1 and r2 <= b <= W - r2 for a, b in finals)
        apart = all(max(abs(a - finals[0][0]), abs(b - finals[0][1])) >= 4 for a, b in others)
        if inside and apart:
            break
    cols = tuple(str(c) for c in rng.choice(list(PALETTE), size=2, replace=False))
    video = np.stack([_discs(p, (r1, r2), cols) for p in real[:-1]])
    order = rng.permutation(4)
    question = (f"<video>\nThe robot pushes the {cols[0]} ball into the {cols[1]} ball; the clip shows the "
                "first second. Which picture shows the two balls one second after the clip?"
                + "".join(f"\n{k}. <image>" for k in LETTERS))
    media = [video] + [_discs(finals[j], (r1, r2), cols) for j in order]
    item = Item(idx=idx, question=question, file_name=[f"push_{idx}.mp4"] + [f"push_{idx}_{k}.png" for k in
                                                                            LETTERS],
                mode="general", media=media, source="simulation", scene="embodied push")
    return item, {k: int(j) == 0 for k, j in zip(LETTERS, order, strict=True)}


EPISODES = {"stack": stack_episode, "catch": catch_episode, "push": push_episode}


def episodes(task: str, n: int, seed: int) -> list[tuple[Item, dict[str, bool]]]:
    """n episodes of `task` (observation as an item, and per action whether it succeeds in pymunk)."""
    rng = np.random.default_rng([seed, TASKS.index(task), 99])
    return [EPISODES[task](rng, 900_000 + 1000 * TASKS.index(task) + e) for e in range(n)]


def run_task(task: str, model, n: int, seed: int) -> list[bool]:
    """n fresh episodes of `task` played by `model`: success per episode."""
    return play(episodes(task, n, seed), model)


def play(eps: list[tuple[Item, dict[str, bool]]], model) -> list[bool]:
    """Closed loop per episode: observe -> ask the model (`qa_item` for an agent, else `qa`) -> act ->
    simulate (precomputed per action) -> success."""
    from iclr25.physbench.harness import frames

    out = []
    for item, outcome in eps:
        if hasattr(model, "qa_item"):
            letter = model.qa_item(item)
        else:
            letter = model.qa(frames(item), item.prompt(), item.mode)
        out.append(bool(outcome.get(str(letter).strip()[:1], False)))
    return out
