"""Shared test fixtures: where ../shared lives, and a quiet, isolated cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED = Path(os.environ.get("ICLR25_SHARED", Path(__file__).resolve().parents[1].parent / "shared"))


def shared_data(name: str) -> Path:
    """Path to ../shared/data/<name>, or skip the test with the reason."""
    path = SHARED / "data" / name
    if not path.exists():
        pytest.skip(f"needs {path} (the project's shared data folder), which is absent here")
    return path


@pytest.fixture(autouse=True)
def _quiet_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ICLR25_NO_PROGRESS", "1")
