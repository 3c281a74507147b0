"""Every command of every paper's CLI, fed hostile files and values: each call must succeed, say "no
match" (grep-like commands), or print one line and exit 2 - never a traceback, a hang or an internal error.

Each command has a base invocation that is valid and fast; hypothesis replaces one or two of its
parameters (found by introspecting the command) with values drawn from pools by type."""

from __future__ import annotations

import importlib
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.conftest import shared_data

from iclr25.core import registry

from . import specs
from .harness import DEVICES, invoke, problems

INTS = ["-1", "0", "1", "-5", "1000000000", "9223372036854775808", "1e7", "x"]
FLOATS = ["nan", "inf", "-inf", "-1", "0", "1e300", "-1e-300", "1", "x"]
STRS = ["", "nope", "\x01", "a" * 4000, "../../../etc/passwd", "-", "1,2,x", ",", "all", "0"]
OUTPUT_NAMES = {"out", "output", "save", "predictions", "o"}


SPEC_MODULES = specs.modules()
SPECS = [s for m in SPEC_MODULES.values() for s in m.SPECS]
BY_COMMAND = {s.command: s for s in SPECS}


def _commands() -> dict[str, object]:
    """"slug cmd" -> the click command, for every paper with a CLI."""
    from typer.main import get_command
    out = {}
    for p in registry.PAPERS:
        if p.has_cli:
            group = get_command(importlib.import_module(f"iclr25.{p.slug}.cli").app)
            for name, cmd in getattr(group, "commands", {}).items():
                out[f"{p.slug} {name}"] = cmd
    return out


COMMANDS = _commands()


def test_every_command_has_a_fuzz_spec():
    """A new command without a spec in tests/fuzz/specs/<slug>.py would escape the fuzzer."""
    assert sorted(set(COMMANDS) - set(BY_COMMAND)) == []
    assert sorted(set(BY_COMMAND) - set(COMMANDS)) == []


def test_every_spec_names_real_options():
    """A renamed option left in a spec would silently drop out of its base call (and of the fuzz)."""
    unknown = {c: sorted(set(s.base) - {p.name for p in COMMANDS[c].params}) for c, s in BY_COMMAND.items()}
    assert {c: u for c, u in unknown.items() if u} == {}


def _argv(cmd, values: dict) -> list[str]:
    args, opts = [], []
    for p in cmd.params:
        if p.name not in values or p.name == "help":
            continue
        v = values[p.name]
        if p.param_type_name == "argument":
            args += v if isinstance(v, list) else [v]
        elif getattr(p, "is_flag", False):
            if v:
                opts.append(p.opts[0])
        else:
            for item in v if isinstance(v, list) else [v]:
                opts += [p.opts[0], item]
    return opts + args  # options first: grep-style argument lists may begin with '-'


def _pool(param, nasty: dict) -> list:
    kind = param.type.name  # click's type name: "path", "int", "int range", "float", "boolean", "text"
    many = param.nargs == -1 or param.multiple
    if getattr(param, "is_flag", False) or kind == "boolean":
        return [True, False]
    if kind == "path" or param.name in OUTPUT_NAMES:
        paths = [str(p) for p in nasty.values()]
        if param.name in OUTPUT_NAMES:  # outputs also go to devices (reading /dev/full would never end)
            paths += list(DEVICES)
        return [[p] for p in paths] if many else paths
    if "int" in kind:
        return [[x] for x in INTS] if many else INTS
    if "float" in kind:
        return FLOATS
    return STRS


def _fill(values: dict, files: dict, tmp: str) -> dict:
    """The spec's placeholders filled: {name} by a valid input file, {tmp} by this call's own folder."""
    def one(v):
        if isinstance(v, str) and v.startswith("{") and v.endswith("}") or "{tmp}" in str(v):
            return str(v).replace("{tmp}", tmp).format(**files) if "{tmp}" in str(v) else v.format(**files)
        return v
    return {k: [one(x) for x in v] if isinstance(v, list) else one(v) for k, v in values.items()}


@pytest.mark.parametrize("command", sorted(BY_COMMAND))
@settings(settings.get_profile("fuzz"))
@given(data=st.data())
def test_cli_survives_hostile_input(command, data, valid, nasty, tmp_path, monkeypatch):
    spec, cmd = BY_COMMAND[command], COMMANDS.get(command)
    if cmd is None:
        pytest.skip(f"{command} is not a command (test_every_command_has_a_fuzz_spec says why)")
    monkeypatch.chdir(tmp_path)  # default outputs land here, not in the repository
    mutable = [p for p in cmd.params if p.name != "help" and p.name not in spec.fixed]
    values = dict(spec.base)
    if mutable:
        pick = st.lists(st.sampled_from(mutable), min_size=1, max_size=2, unique_by=lambda p: p.name)
        chosen = data.draw(pick)
        for p in chosen:
            values[p.name] = data.draw(st.sampled_from(_pool(p, nasty)), label=p.name)
    with tempfile.TemporaryDirectory(prefix="fuzz-", dir=tmp_path) as tmp:  # 1e5 calls leave no folders
        argv = command.split() + _argv(cmd, _fill(values, valid[spec.slug], tmp))
        outcome = invoke(argv, timeout=120)
    assert not problems(outcome, spec.grep_like), (problems(outcome, spec.grep_like), argv,
                                                   outcome.err[-1500:])


@pytest.mark.parametrize("command", sorted(BY_COMMAND))
def test_base_invocation_is_valid(command, valid, tmp_path, monkeypatch):
    """The base the fuzzer mutates must itself succeed, or the fuzz only tests an early error."""
    spec, cmd = BY_COMMAND[command], COMMANDS.get(command)
    if cmd is None:
        pytest.skip(f"{command} is not a command")
    if spec.needs:
        shared_data(spec.needs)  # skips, naming the folder, when the shared data is absent
    monkeypatch.chdir(tmp_path)
    argv = command.split() + _argv(cmd, _fill(dict(spec.base), valid[spec.slug], str(tmp_path)))
    outcome = invoke(argv, timeout=300)
    assert outcome.code == 0, (argv, outcome.err[-1500:])
    assert Path(tmp_path).is_dir()


# every command under `make fuzz`; the first command of each paper otherwise (each call is a process)
CLOSED_STDIN = sorted(BY_COMMAND) if os.environ.get("ICLR25_FUZZ_EXAMPLES") else sorted(
    {c.split()[0]: c for c in sorted(BY_COMMAND, reverse=True)}.values())


@pytest.mark.parametrize("command", CLOSED_STDIN)
def test_closed_standard_input_is_an_error_not_a_crash(command, valid, tmp_path):
    """The base invocation with standard input closed (`<&-`): it succeeds or says so in one line."""
    import shlex
    import subprocess
    import sys
    spec, cmd = BY_COMMAND[command], COMMANDS.get(command)
    if cmd is None:
        pytest.skip(f"{command} is not a command")
    if spec.needs:
        shared_data(spec.needs)
    argv = command.split() + _argv(cmd, _fill(dict(spec.base), valid[spec.slug], str(tmp_path)))
    iclr25 = Path(sys.executable).parent / "iclr25"
    proc = subprocess.run(f"{shlex.quote(str(iclr25))} {shlex.join(argv)} <&-", shell=True, cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    lines = [li for li in proc.stderr.splitlines() if li.strip() and not li.startswith("iclr25: warning:")]
    assert proc.returncode == 0 or (proc.returncode == 2 and len(lines) == 1), (argv, proc.stderr[-1500:])
    assert "Traceback" not in proc.stderr
