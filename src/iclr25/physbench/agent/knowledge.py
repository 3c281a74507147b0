"""PhysAgent's knowledge memory at CPU scale: textbook physics applied to what the experts measured
(projectile motion, support by the centre of mass, elastic collisions, the lever, air drag, perspective and
shadows), and material properties judged by a sentence encoder's sense of words (all-MiniLM-L6-v2 via
`iclr25.core.models`), not looked up in a table. Written from the physics, in the agent's own units
(pixels, frames, seconds): nothing is shared with the code that builds benchmark answers.

>>> stack_verdict([(50.0, 20.0, 9.0), (58.0, 12.0, 9.0)])   # top block's centre 58 over 40..60: stands
'stays'
"""

from __future__ import annotations

import numpy as np


def projectile_landing(t: np.ndarray, path: np.ndarray, ground_y: float) -> float | None:
    """Constant gravity: x is linear and y quadratic in time. Fit both over the tracked frames and solve
    y(t) = ground_y for the later root; the landing x, or None if the fit is not a falling arc."""
    ok = ~np.isnan(path).any(1)
    if ok.sum() < 4:
        return None
    bx = np.polyfit(t[ok], path[ok, 0], 1)
    c2, c1, c0 = np.polyfit(t[ok], path[ok, 1], 2)
    if c2 <= 0:  # image y points down: gravity makes y convex in time
        return None
    roots = np.roots([c2, c1, c0 - ground_y])
    roots = roots[np.isreal(roots)].real
    roots = roots[roots >= t[ok][0]]
    if not len(roots):
        return None
    return float(np.polyval(bx, roots.max()))


def stack_verdict(stack: list[tuple[float, float, float]], margin: float = 0.0) -> str:
    """A stack of blocks (centre x, width, height), bottom first, of one material: everything above
    block k stays up iff its centre of mass (mass ~ width x height) lies over block k's top face.
    'stays', or the side the lowest unsupported part falls to ('left' / 'right')."""
    for k in range(len(stack) - 1):
        above = stack[k + 1:]
        mass = sum(w * h for _, w, h in above)
        com = sum(x * w * h for x, w, h in above) / mass
        x, w, _ = stack[k]
        if com < x - w / 2 - margin:
            return "left"
        if com > x + w / 2 + margin:
            return "right"
    return "stays"


def stack_margin(stack: list[tuple[float, float, float]]) -> float:
    """The smallest distance (px) between a centre of mass and the edge of the face it rests on (negative
    when it overhangs): how safely the stack stands."""
    out = np.inf
    for k in range(len(stack) - 1):
        above = stack[k + 1:]
        com = sum(x * w * h for x, w, h in above) / sum(w * h for _, w, h in above)
        x, w, _ = stack[k]
        out = min(out, com - (x - w / 2), (x + w / 2) - com)
    return float(out)


def elastic_after(x1: float, r1: float, x2: float, r2: float, v: float, t: float) -> tuple[float, float]:
    """Ball 1 (radius r1) rolling at v into ball 2 (r2) at rest along a line, perfectly elastic, same
    material so mass ~ r^3 (solid balls): the two centres at time t (momentum and energy conserved)."""
    gap = x2 - x1 - r1 - r2
    if v <= 0 or t <= gap / v:
        return x1 + v * t, x2
    t_hit = gap / v
    m1, m2 = r1 ** 3, r2 ** 3
    u1, u2 = (m1 - m2) / (m1 + m2) * v, 2 * m1 / (m1 + m2) * v
    return x1 + v * t_hit + u1 * (t - t_hit), x2 + u2 * (t - t_hit)


def heavier_side(drop_a: float, drop_b: float, tol: float = 2.0) -> str:
    """A balance tips toward the heavier load: 'a' or 'b' (the one that went down), or 'equal'."""
    if abs(drop_a - drop_b) < tol:
        return "equal"
    return "a" if drop_a > drop_b else "b"


def slowed_by_air(fall_a: float, fall_b: float, rel_tol: float = 0.08) -> str:
    """Without air every body falls alike; one that fell clearly less is held back: 'a', 'b' or
    'neither'."""
    if abs(fall_a - fall_b) <= max(2.0, rel_tol * max(abs(fall_a), abs(fall_b))):
        return "neither"
    return "a" if fall_a < fall_b else "b"


def camera_motion(area_ratio: float, shift_x: float, min_shift: float = 3.0) -> str | None:
    """Perspective: everything growing means the camera approaches, shrinking that it recedes; the whole
    scene sliding right means the camera moved left (and the other way round)."""
    if area_ratio > 1.12:
        return "closer"
    if area_ratio < 0.89:
        return "farther"
    if abs(shift_x) < min_shift:
        return None
    return "left" if shift_x > 0 else "right"


def light_direction(dx: float, dy: float, r: float) -> str:
    """Shadows fall away from the light (offsets from the object's lowest point, in units of its radius):
    to the right -> the light is at the upper left; to the left -> upper right; behind the object (up in
    the picture) -> in front of it; under it -> straight above."""
    if dy < -0.5 * r:
        return "front"
    if dx > 0.6 * r:
        return "upper left"
    if dx < -0.6 * r:
        return "upper right"
    return "above"


# What a word for a material property means, in the agent's own words; the stem's best match says which
# property is asked about and whether the question wants the most or the least of it.
PROPERTIES = {
    "brittle": "brittle, fragile, shatters or breaks easily",
    "stiff": "stiff, rigid, does not bend",
    "soft": "soft, squishy, yields when pressed",
    "smooth": "smooth, slick surface, not rough",
    "malleable": "malleable, can be bent, folded or reshaped",
    "sharp": "sharp, has a cutting edge or point",
    "elastic": "elastic, stretchy, springs back",
    "heavy": "heavy, weighs a lot",
    "hot": "hot, high temperature",
}


class MaterialSense:
    """Judge material properties of named objects with a sentence encoder: the question's property and
    extreme by similarity to descriptions of each, and each object by the similarity of "a <object>" to
    "something <property>". `encode(texts) -> unit vectors`."""

    def __init__(self, encode) -> None:
        self.encode = encode

    def which_property(self, question: str) -> tuple[str, str, float]:
        """(property, 'most' | 'least', similarity) that the question asks for."""
        cands = [(p, e) for p in PROPERTIES for e in ("most", "least")]
        texts = [f"which object is the {'most' if e == 'most' else 'least'} {p}: "
                 f"{'very' if e == 'most' else 'not at all'} {PROPERTIES[p]}" for p, e in cands]
        sims = self.encode(texts) @ self.encode([question])[0]
        k = int(np.argmax(sims))
        return cands[k][0], cands[k][1], float(sims[k])

    def score(self, objects: list[str], prop: str) -> np.ndarray:
        """How strongly each object has the property (cosine similarity)."""
        v = self.encode([f"a {o}" for o in objects])
        return v @ self.encode([f"something {PROPERTIES[prop]}"])[0]
