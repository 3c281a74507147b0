"""PhysAgent's knowledge memory: the shipped attribute table (which objects are most / least brittle,
stiff, soft, smooth, malleable, sharp, elastic) and the physics rules our reasoning step applies to expert
facts: projectile range, centre-of-mass support, momentum in collisions, the lever, air drag,
perspective and shadows."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from iclr25.physbench.synth import physics as ph
from iclr25.physbench.synth.scenes import knowledge_table


@dataclass
class KnowledgeMemory:
    table: dict[str, dict[str, list[str]]] = field(default_factory=dict)

    @classmethod
    def default(cls) -> KnowledgeMemory:
        """PhysAgent's attribute table (shared/data/10-physbench) and the rules below."""
        return cls(knowledge_table())

    def attribute_answer(self, attribute: str, extreme: str, options: dict[str, str]) -> str | None:
        """PhysAgent's direct answer: if exactly one option object is listed as `extreme` ('most' or
        'least') for the attribute, that option's letter; else None."""
        listed = set(self.table.get(attribute, {}).get(extreme, []))
        hits = [k for k, name in options.items() if name.strip().lower() in listed]
        return hits[0] if len(hits) == 1 else None

    # ---- rules applied to measured facts ----------------------------------------------------------

    @staticmethod
    def projectile_landing(path: np.ndarray, ground_y: float) -> float | None:
        """Projectile rule: x is linear and y quadratic in time (constant gravity), so fitting the
        tracked frames and solving y(t) = ground_y gives the landing x."""
        t = np.arange(len(path), dtype=float)
        ok = ~np.isnan(path).any(1)
        if ok.sum() < 4:
            return None
        bx = np.polyfit(t[ok], path[ok, 0], 1)
        c2, c1, c0 = np.polyfit(t[ok], path[ok, 1], 2)
        if c2 <= 0:
            return None
        roots = np.roots([c2, c1, c0 - ground_y])
        roots = roots[np.isreal(roots)].real
        if not len(roots):
            return None
        return float(np.polyval(bx, roots.max()))

    @staticmethod
    def tower_verdict(blocks: list[tuple[float, float]]) -> str:
        """Centre-of-mass support rule ('stays' / 'left' / 'right'), blocks bottom first."""
        return ph.tower_verdict(blocks)

    @staticmethod
    def collision_positions(
        x1: float, r1: float, x2: float, r2: float, v: float, t: float
    ) -> tuple[float, float]:
        """Momentum and energy conservation (same material: mass ~ r^2), centres at time t."""
        return ph.collision_positions(x1, r1, x2, r2, v, t)

    @staticmethod
    def lever(drop_left: float, drop_right: float, tol: float = 2.0) -> str:
        """A balanced lever tips toward the heavier side: 'left' / 'right' heavier or 'equal'."""
        if abs(drop_left - drop_right) < tol:
            return "equal"
        return "left" if drop_left > drop_right else "right"

    @staticmethod
    def drag(fall_a: float, fall_b: float, tol: float = 2.0) -> str:
        """Without drag all bodies fall alike; the one that fell less is slowed by air ('a' / 'b' /
        'neither')."""
        if abs(fall_a - fall_b) < tol:
            return "neither"
        return "a" if fall_a < fall_b else "b"

    @staticmethod
    def perspective(area_ratio: float, shift_x: float) -> str:
        """Objects growing: the camera approaches; shrinking: it recedes; the scene sliding right: the
        camera moves left (and vice versa)."""
        if area_ratio > 1.15:
            return "closer"
        if area_ratio < 0.87:
            return "farther"
        if abs(shift_x) < 3:
            return "unknown"
        return "left" if shift_x > 0 else "right"

    @staticmethod
    def light_from_shadow(dx: float, dy: float) -> str:
        """Shadows fall away from the light: shadow to the right -> light at the upper left; to the left
        -> upper right; under the object -> directly above; behind it (up in the image) -> in front."""
        if dy < -3:
            return "front"
        if dx > 4:
            return "upper left"
        if dx < -4:
            return "upper right"
        return "above"
