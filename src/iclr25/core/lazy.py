"""Lazy paper packages: `iclr25.<slug>` exports its public names without importing their modules, so
`iclr25 <slug> --help` (which imports the package first) does not pay for torch or scikit-learn. A name
loads its module on first use; `PAPER` is built from the package's `CLAIMS` and `run` when asked for.

>>> import iclr25.topograph as t
>>> "diu" in dir(t) and callable(t.diu) and t.PAPER.slug
'topograph'
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from collections.abc import Callable
from typing import Any


def lazy_package(package: str, exports: dict[str, list[str]]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """`__getattr__, __dir__, __all__` for `package`, where `exports` maps each submodule to the names it
    provides. Submodules themselves stay reachable as attributes (`pkg.losses`), as after an eager import."""
    where = {name: module for module, names in exports.items() for name in names}
    public = sorted([*where, "PAPER"])
    shadowed = {name for name, module in where.items() if name == module}

    class _Package(types.ModuleType):
        def __setattr__(self, name: str, value: Any) -> None:
            # importing submodule `q_hat` makes the import system set pkg.q_hat to the module; where the
            # package exports a function of that name, the function wins, as it did after an eager import
            if name in shadowed and isinstance(value, types.ModuleType):
                self.__dict__.pop(name, None)
                return
            super().__setattr__(name, value)

    sys.modules[package].__class__ = _Package

    def __getattr__(name: str) -> Any:
        if name == "PAPER":
            from iclr25.core.registry import make_paper
            value = make_paper(package.rsplit(".", 1)[-1], __getattr__("CLAIMS"), __getattr__("run"))
        elif name in where:
            value = getattr(importlib.import_module(f"{package}.{where[name]}"), name)
        elif importlib.util.find_spec(f"{package}.{name}") is not None:
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return public

    return __getattr__, __dir__, public
