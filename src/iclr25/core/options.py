"""Command-line options shared by the papers' CLIs, validated where they are declared: a seed, counts
with a cap (a typo like 1e9 epochs is refused, not run), and finite floats."""

from __future__ import annotations

import math
from typing import Annotated

import typer

from iclr25.core.errors import UserError

MAX_SEED = 2**32 - 1  # numpy's legacy seeding (and so every RNG we seed) accepts 0 .. 2^32 - 1

Seed = Annotated[int, typer.Option(min=0, max=MAX_SEED, help="random seed: same seed, same result")]


def count(help: str, cap: int, low: int = 1, flag: str | None = None) -> typer.models.OptionInfo:
    """An integer option in [low, cap] (help shows the range), e.g.
    `epochs: Annotated[int, count("training epochs", 10_000)] = 50`."""
    decls = [flag] if flag else []
    return typer.Option(*decls, min=low, max=cap, help=help)


def finite(value: float | None, name: str, low: float = -math.inf, high: float = math.inf,
           low_open: bool = False) -> float | None:
    """`value` if it is a finite number in [low, high] (or (low, high] with `low_open`); else a UserError."""
    if value is None:
        return None
    ok = math.isfinite(value) and (value > low if low_open else value >= low) and value <= high
    if not ok:
        lo = "(" if low_open else "["
        raise UserError(f"{name} must be a finite number in {lo}{low:g}, {high:g}], got {value!r}")
    return value
