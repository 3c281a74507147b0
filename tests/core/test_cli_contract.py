"""One CLI contract for every paper command (issue #48), checked over all of them: a command that writes a
result has -o/--out; one word per concept (--steps, --batch-size, --seed / --n-seeds); lower-case flags;
every command's --help works without importing torch."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys

import pytest
import typer

from iclr25.core import registry

SLUGS = [p.slug for p in registry.PAPERS if p.has_cli]
SYNONYMS = {"--iters": "--steps", "--iterations": "--steps", "--batch": "--batch-size",
            "--seeds": "--n-seeds", "--save": "-o/--out", "--output": "-o/--out"}


def _commands(slug: str):
    """(path, click command) for every leaf command of the paper's group."""
    group = typer.main.get_command(importlib.import_module(f"iclr25.{slug}.cli").app)
    todo = [((slug,), group)]
    while todo:
        path, cmd = todo.pop()
        subs = getattr(cmd, "commands", None)
        if subs:
            todo += [((*path, name), c) for name, c in subs.items()]
        else:
            yield " ".join(path), cmd


COMMANDS = [(path, cmd) for slug in SLUGS for path, cmd in _commands(slug)]


def _visible_flags(cmd) -> list[list[str]]:
    return [[*p.opts, *p.secondary_opts] for p in cmd.params
            if p.param_type_name == "option" and not getattr(p, "hidden", False)]


@pytest.mark.parametrize("path, cmd", COMMANDS, ids=[p for p, _ in COMMANDS])
def test_command_follows_the_contract(path, cmd):
    problems = []
    for flags in _visible_flags(cmd):
        for f in flags:
            if f.startswith("--") and re.search(r"[A-Z]", f):
                problems.append(f"{f}: flags are lower-case (keep {f} as a hidden alias)")
            if f in SYNONYMS:
                problems.append(f"{f}: say {SYNONYMS[f]} (keep {f} as a hidden alias)")
        if "--out" in flags and "-o" not in flags:
            problems.append("--out without -o")
    assert not problems, f"iclr25 {path}: " + "; ".join(problems)


def test_every_command_has_a_help_line():
    missing = [p for p, cmd in COMMANDS if not (cmd.help or "").strip()]
    assert not missing, f"commands without a docstring: {missing}"
    assert len(COMMANDS) >= 50


@pytest.mark.parametrize("slug", SLUGS)
def test_help_imports_no_heavy_library(slug):
    code = (f"import sys\nfrom iclr25.core.cli import main\nsys.argv = ['iclr25', {slug!r}, '--help']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('HEAVY', [m for m in ('torch', 'sklearn', 'scipy', 'pandas', 'ot') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "HEAVY []" in out.stdout, out.stdout[-500:] + out.stderr[-500:]
