"""pymunk simulations behind the dynamic PhysBench-Synth scenes, each beside the closed-form answer it
must agree with (the tests check formula against simulation): projectile range, free fall with and without
linear air drag, 1-D elastic collision, a see-saw's torque and a block tower's centre-of-mass support.
Units: pixels and seconds, image y pointing down, so gravity is +y."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pymunk

G = 200.0  # px / s^2
DT = 1.0 / 600.0  # small step: semi-implicit Euler then matches the closed forms to < 0.5 px


def _step_until(space: pymunk.Space, t_end: float, t_now: float = 0.0) -> float:
    while t_now < t_end - 1e-12:
        space.step(DT)
        t_now += DT
    return t_now


# ---- projectile (throwing) -------------------------------------------------------------------------


def projectile_landing_x(x0: float, y0: float, vx: float, vy: float, ground_y: float, g: float = G) -> float:
    """Range formula: the x where y0 + vy t + g t^2 / 2 reaches ground_y (later root)."""
    disc = vy * vy + 2 * g * (ground_y - y0)
    t = (-vy + math.sqrt(disc)) / g
    return x0 + vx * t


def simulate_projectile(
    x0: float, y0: float, vx: float, vy: float, ground_y: float, times: list[float]
) -> tuple[list[tuple[float, float]], float]:
    """Ball positions at `times` and the simulated landing x (first step at or below ground_y)."""
    space = pymunk.Space()
    space.gravity = (0.0, G)
    body = pymunk.Body(1.0, pymunk.moment_for_circle(1.0, 0, 3))
    body.position, body.velocity = (x0, y0), (vx, vy)
    space.add(body, pymunk.Circle(body, 3))
    t, out = 0.0, []
    for tk in times:
        t = _step_until(space, tk, t)
        out.append(tuple(body.position))
    prev = tuple(body.position)
    while body.position.y < ground_y:
        prev = tuple(body.position)
        space.step(DT)
    # linear interpolation inside the last step
    y_a, y_b = prev[1], body.position.y
    frac = (ground_y - y_a) / (y_b - y_a) if y_b != y_a else 1.0
    return out, prev[0] + frac * (body.position.x - prev[0])


# ---- free fall with optional air drag (air) ----------------------------------------------------------


def free_fall_y(y0: float, t: float, g: float = G) -> float:
    """No drag: y0 + g t^2 / 2."""
    return y0 + 0.5 * g * t * t


def drag_fall_y(y0: float, t: float, b: float, g: float = G) -> float:
    """Linear drag dv/dt = g - b v from rest: y0 + (g/b) t - (g/b^2)(1 - e^{-bt})."""
    if b == 0:
        return free_fall_y(y0, t, g)
    return y0 + g / b * t - g / b**2 * (1 - math.exp(-b * t))


def simulate_falls(y0: float, drags: list[float], times: list[float]) -> list[list[float]]:
    """y of each ball (linear drag coefficient b, 0 = none) at `times`."""
    space = pymunk.Space()
    space.gravity = (0.0, G)
    bodies = []
    for b in drags:
        body = pymunk.Body(1.0, pymunk.moment_for_circle(1.0, 0, 3))
        body.position = (0.0, y0)

        def with_drag(bd, gravity, damping, dt, b=b):  # dv/dt = g - b v (drag proportional to speed)
            pymunk.Body.update_velocity(bd, gravity, math.exp(-b * dt), dt)

        body.velocity_func = with_drag
        space.add(body)
        bodies.append(body)
    t, out = 0.0, []
    for tk in times:
        t = _step_until(space, tk, t)
        out.append([bd.position.y for bd in bodies])
    return out


# ---- 1-D elastic collision --------------------------------------------------------------------------


def elastic_velocities(m1: float, m2: float, v1: float, v2: float = 0.0) -> tuple[float, float]:
    """Momentum and kinetic energy conserved (1-D)."""
    u1 = ((m1 - m2) * v1 + 2 * m2 * v2) / (m1 + m2)
    u2 = ((m2 - m1) * v2 + 2 * m1 * v1) / (m1 + m2)
    return u1, u2


def collision_positions(
    x1: float, r1: float, x2: float, r2: float, v: float, t: float
) -> tuple[float, float]:
    """Closed form: ball 1 (mass ~ r1^2) moving at v hits ball 2 at rest; centres at time t."""
    t0 = (x2 - x1 - r1 - r2) / v
    if t <= t0:
        return x1 + v * t, x2
    u1, u2 = elastic_velocities(r1 * r1, r2 * r2, v)
    return x1 + v * t0 + u1 * (t - t0), x2 + u2 * (t - t0)


def simulate_collision(
    x1: float, r1: float, x2: float, r2: float, y: float, v: float, times: list[float]
) -> list[tuple[float, float]]:
    """pymunk: two discs (mass ~ area), elasticity 1, no gravity or friction; centres' x at `times`."""
    space = pymunk.Space()
    bodies = []
    for x, r, vel in ((x1, r1, v), (x2, r2, 0.0)):
        body = pymunk.Body(r * r, pymunk.moment_for_circle(r * r, 0, r))
        body.position, body.velocity = (x, y), (vel, 0.0)
        shape = pymunk.Circle(body, r)
        shape.elasticity, shape.friction = 1.0, 0.0
        space.add(body, shape)
        bodies.append(body)
    t, out = 0.0, []
    for tk in times:
        t = _step_until(space, tk, t)
        out.append((bodies[0].position.x, bodies[1].position.x))
    return out


# ---- see-saw (mass) --------------------------------------------------------------------------------


@dataclass
class SeeSaw:
    pivot: tuple[float, float] = (48.0, 66.0)
    half_length: float = 34.0
    arm: float = 24.0  # box centre distance from the pivot
    box: float = 10.0


def seesaw_torque_sign(m_left: float, m_right: float) -> int:
    """Torque about the pivot (equal arms): +1 right side goes down, -1 left side, 0 balanced."""
    return (m_right > m_left) - (m_right < m_left)


def simulate_seesaw(m_left: float, m_right: float, times: list[float], geo: SeeSaw | None = None):
    """A plank on a pivot joint with two boxes; returns per time the plank and box polygons and the
    plank angle (positive: clockwise on screen, i.e. the right side down)."""
    geo = geo or SeeSaw()
    space = pymunk.Space()
    space.gravity = (0.0, G)
    px, py = geo.pivot
    plank = pymunk.Body(1.0, pymunk.moment_for_box(1.0, (2 * geo.half_length, 4)))
    plank.position = (px, py)
    plank_shape = pymunk.Poly.create_box(plank, (2 * geo.half_length, 4))
    plank_shape.friction = 1.5
    joint = pymunk.PivotJoint(space.static_body, plank, (px, py))
    space.add(plank, plank_shape, joint)
    boxes = []
    for side, m in ((-1, m_left), (1, m_right)):
        body = pymunk.Body(m, pymunk.moment_for_box(m, (geo.box, geo.box)))
        body.position = (px + side * geo.arm, py - 2 - geo.box / 2)
        shape = pymunk.Poly.create_box(body, (geo.box, geo.box))
        shape.friction = 1.5
        space.add(body, shape)
        boxes.append(shape)
    t, out = 0.0, []
    for tk in times:
        t = _step_until(space, tk, t)
        out.append(
            (
                [tuple(plank.local_to_world(v)) for v in plank_shape.get_vertices()],
                [[tuple(s.body.local_to_world(v)) for v in s.get_vertices()] for s in boxes],
                plank.angle,
            )
        )
    return out


# ---- block tower (manipulation) --------------------------------------------------------------------


def tower_verdict(blocks: list[tuple[float, float]]) -> str:
    """Centre-of-mass support rule for blocks (centre x, width), bottom first, equal height and density
    (mass ~ width): the stack above block k stands iff its centre of mass lies over block k. Returns
    'stays', 'left' or 'right' (the lowest failing interface decides)."""
    for k in range(len(blocks) - 1):
        above = blocks[k + 1 :]
        com = sum(x * w for x, w in above) / sum(w for _, w in above)
        x, w = blocks[k]
        if com < x - w / 2:
            return "left"
        if com > x + w / 2:
            return "right"
    return "stays"


def simulate_tower(
    blocks: list[tuple[float, float]], table_y: float, height: float, t_end: float = 1.5
) -> tuple[str, list]:
    """pymunk: the tower on a static table; 'stays' if the top block moved < 3 px, else the side it
    went. Also returns the final block polygons."""
    space = pymunk.Space()
    space.gravity = (0.0, G)
    table = pymunk.Segment(space.static_body, (-200, table_y), (300, table_y), 0.5)
    table.friction = 0.9
    space.add(table)
    shapes = []
    for k, (x, w) in enumerate(blocks):
        m = w / 10.0
        body = pymunk.Body(m, pymunk.moment_for_box(m, (w, height)))
        body.position = (x, table_y - height / 2 - k * height)
        shape = pymunk.Poly.create_box(body, (w, height))
        shape.friction = 0.9
        space.add(body, shape)
        shapes.append(shape)
    top0 = shapes[-1].body.position
    _step_until(space, t_end)
    top = shapes[-1].body.position
    polys = [[tuple(s.body.local_to_world(v)) for v in s.get_vertices()] for s in shapes]
    if abs(top.x - top0.x) < 3 and abs(top.y - top0.y) < 3:
        return "stays", polys
    return ("left" if top.x < top0.x else "right"), polys
