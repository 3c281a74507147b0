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


@pytest.fixture
def iclr25_cli(capsys: pytest.CaptureFixture[str]):
    """`iclr25_cli(*argv)` runs `iclr25 *argv` in this process: (exit code, stdout, stderr)."""
    from iclr25.core.cli import main

    def run(*argv: object) -> tuple[int, str, str]:
        try:
            main(["iclr25", *map(str, argv)])
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        out = capsys.readouterr()
        return code, out.out, out.err

    return run
