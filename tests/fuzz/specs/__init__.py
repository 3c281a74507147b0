"""One module per paper, `<slug>.py`, owned by that paper: `SPECS` (a Spec per CLI command) and
`valid(folder) -> {key: path}`, the small valid inputs its base invocations name as "{key}"."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def modules() -> dict[str, ModuleType]:
    """slug -> its spec module."""
    return {m.name: importlib.import_module(f"{__name__}.{m.name}") for m in pkgutil.iter_modules(__path__)}
