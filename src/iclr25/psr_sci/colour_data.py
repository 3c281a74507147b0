"""Spectral data of the colour-science wheel read as data, without importing `colour` (its import costs
seconds): the CIE 1931 2° observer and the BabelColor ColorChecker spectra are literal dicts in its
source files, parsed with `ast.literal_eval`."""

from __future__ import annotations

import ast
import functools

import numpy as np

from iclr25.core.data import package_file
from iclr25.core.errors import UserError

PIP = "colour-science==0.4.7"


def _literal(parts: tuple[str, ...], name: str, key: str | None = None):
    """The dict literal assigned to `name` (or its entry `key`) in a colour source file: brace-matched
    text passed to ast.literal_eval (parsing the whole file would take seconds)."""
    path = package_file("colour", *parts, pip_name=PIP)
    text = path.read_text(encoding="utf-8")
    start = text.find(f"\n{name}")
    if start >= 0 and key is not None:
        start = text.find(f'"{key}": {{', start)
    if start < 0:
        raise UserError(f"{name} not found in {path}; reinstall {PIP}")
    i = text.index("{", start)
    depth = 0
    for j in range(i, len(text)):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        if depth == 0:
            return ast.literal_eval(text[i:j + 1])
    raise UserError(f"{name} in {path} is not a complete literal; reinstall {PIP}")


@functools.lru_cache(maxsize=1)
def cie1931_cmfs() -> tuple[np.ndarray, np.ndarray]:
    """(wavelengths (n,), x̄ȳz̄ (n, 3)) of the CIE 1931 2° standard observer, 1 nm steps."""
    obs = _literal(("colorimetry", "datasets", "cmfs.py"), "DATA_CMFS_STANDARD_OBSERVER",
                   "CIE 1931 2 Degree Standard Observer")
    wl = np.array(sorted(obs), dtype=np.float64)
    return wl, np.array([obs[w] for w in sorted(obs)], dtype=np.float64)


@functools.lru_cache(maxsize=1)
def colorchecker_spectra() -> tuple[np.ndarray, np.ndarray]:
    """(wavelengths (n,), reflectances (24, n)) of the BabelColor average ColorChecker."""
    data = _literal(("characterisation", "datasets", "colour_checkers", "sds.py"), "DATA_BABELCOLOR_AVERAGE")
    patches = list(data.values())
    wl = np.array(sorted(patches[0]), dtype=np.float64)
    return wl, np.array([[p[w] for w in sorted(p)] for p in patches], dtype=np.float64)
