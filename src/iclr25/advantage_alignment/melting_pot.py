"""Melting Pot 2.0 score normalisation used by the paper: (x - min) / (max - min) over the published
MP2.0 baseline runs of a scenario. Melting Pot itself cannot be installed here (see README); this lets a
user with their own Melting Pot results put them on the paper's scale."""

from __future__ import annotations

import csv
import os
from pathlib import Path

from iclr25.core.errors import UserError

BASELINES_CSV = "02-advantage-alignment/mp2_commons_harvest_open_baselines.csv"


def default_baselines_path() -> Path:
    """shared/data/... next to the repository (override the shared root with ICLR25_SHARED)."""
    root = os.environ.get("ICLR25_SHARED")
    base = Path(root) if root else Path(__file__).resolve().parents[3] / ".." / "shared"
    return base / "data" / BASELINES_CSV


def load_bounds(path: str | os.PathLike | None = None) -> dict[str, tuple[float, float]]:
    """scenario -> (min, max) focal per-capita return over the baseline rows of that scenario."""
    p = Path(path) if path is not None else default_baselines_path()
    if not p.is_file():
        raise FileNotFoundError(2, "no such file", str(p))
    bounds: dict[str, tuple[float, float]] = {}
    with p.open(newline="") as f:
        for row in csv.DictReader(f):
            x = float(row["focal_per_capita_return"])
            lo, hi = bounds.get(row["scenario"], (x, x))
            bounds[row["scenario"]] = (min(lo, x), max(hi, x))
    return bounds


def normalise(raw: float, scenario: str, bounds: dict[str, tuple[float, float]]) -> float:
    """(raw - min) / (max - min) for the scenario.

    >>> normalise(15.0, "s", {"s": (10.0, 20.0)})
    0.5
    """
    if scenario not in bounds:
        raise UserError(f"unknown scenario {scenario!r}; known: {', '.join(sorted(bounds))}")
    lo, hi = bounds[scenario]
    return (raw - lo) / (hi - lo)
