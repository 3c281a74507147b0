"""Every README's marked blocks run (see readme_blocks.py): the examples are tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from iclr25.core import registry

from .readme_blocks import Block, blocks, output_matches

ROOT = Path(__file__).resolve().parents[2]
READMES = [p.readme for p in registry.PAPERS] + [ROOT / "README.md"]


def test_parser_reads_marks_and_substitutions():
    md = ("x\n<!-- run: --steps 3000 => --steps 2 -->\n```console\n$ iclr25 a --steps 3000\nout ...\n"
          "$ ls\n```\n\n```python\nnot run\n```\n<!-- run -->\n```python\nprint(1)\n```\n")
    b = blocks(md)
    assert [x.lang for x in b] == ["console", "python"] and b[0].line == 4
    assert b[0].commands() == [("iclr25 a --steps 2", ["out ..."]), ("ls", [])]
    assert not b[0].compare_output and b[1].compare_output
    with pytest.raises(ValueError, match="matches nothing"):
        Block("console", "$ a", 1, [("--nope", "x")]).text()


def test_every_paper_readme_has_a_runnable_example():
    missing = [str(p.relative_to(ROOT)) for p in READMES[:-1] if not blocks(p.read_text(encoding="utf-8"))]
    assert not missing, f"no <!-- run --> block in {missing}"


def _env(workdir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["ICLR25_NO_PROGRESS"] = "1"
    env["COLUMNS"] = "120"
    env["ICLR25_README_DIR"] = str(workdir)
    return env


def _run(block: Block, workdir: Path, where: str) -> None:
    env = _env(workdir)
    if block.python:
        proc = subprocess.run([sys.executable, "-c", block.text()], cwd=workdir, env=env, capture_output=True,
                              text=True, timeout=600)
        assert proc.returncode == 0, f"{where}: python block failed:\n{proc.stderr[-3000:]}"
        return
    commands = block.commands()
    if not commands:
        commands = [(block.text(), [])]
    for cmd, expected in commands:
        proc = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=workdir, env=env,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{where}: `{cmd}` exited {proc.returncode}:\n{proc.stderr[-3000:]}"
        got = (proc.stdout + proc.stderr).rstrip("\n").splitlines() if expected else []
        if block.compare_output and expected:
            shown, printed = "\n".join(expected), "\n".join(got)
            assert output_matches(expected, got), (
                f"{where}: `{cmd}` printed\n{printed}\nbut the README shows\n{shown}")


@pytest.mark.slow
@pytest.mark.parametrize("readme", READMES, ids=lambda p: "top" if p.parent == ROOT else p.parent.name)
def test_readme_blocks_run(readme: Path, tmp_path):
    found = blocks(readme.read_text(encoding="utf-8"))
    if not found:
        pytest.skip(f"{readme.relative_to(ROOT)} has no runnable block")
    for b in found:
        _run(b, tmp_path, f"{readme.relative_to(ROOT)}:{b.line}")


def test_output_matching_has_ellipsis_for_text_and_lines():
    assert output_matches(["took ... s", "...", "done"], ["took 1.3 s", "a", "b", "done"])
    assert not output_matches(["took 1.3 s"], ["took 1.4 s"])
    assert not output_matches(["a"], ["a", "extra"])
