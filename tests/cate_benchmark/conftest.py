"""The `cli` fixture of cate_benchmark's CLI tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def cli(capsys):
    """The top-level CLI in process (cheap): returns (exit code, stdout, stderr)."""
    def run(*args: str):
        from iclr25.core.cli import main
        with pytest.raises(SystemExit) as info:
            main(["iclr25", "cate_benchmark", *args])
        out = capsys.readouterr()
        return info.value.code, out.out, out.err
    return run
