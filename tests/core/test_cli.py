import subprocess
import sys

import pytest

from iclr25.core.cli import main


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "iclr25.core.cli", *args], capture_output=True,
                          text=True, timeout=120)


def test_help_lists_commands():
    out = run_cli("--help")
    assert out.returncode == 0
    for cmd in ("papers", "reproduce", "report", "serve"):
        assert cmd in out.stdout


def test_papers_lists_all():
    out = run_cli("papers")
    assert out.returncode == 0 and "softmatcha" in out.stdout and "causal_direction" in out.stdout


@pytest.mark.parametrize("args, message", [
    (["reproduce", "nope"], "unknown paper 'nope'"),
    (["reproduce", "--profile", "huge"], "unknown profile 'huge'"),
    (["reproduce", "--backend", "mpi"], "unknown backend 'mpi'"),
    (["report", "--out", "/nonexistent/reports"], "no report folder"),
])
def test_user_errors_are_one_line_exit_2(args, message, capsys):
    with pytest.raises(SystemExit) as e:
        main(["iclr25", *args])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_unknown_option_exit_2():
    assert run_cli("reproduce", "--bogus").returncode == 2


def test_unimplemented_paper_exit_2(capsys):
    from iclr25.core import registry
    missing = [p.slug for p in registry.PAPERS if not p.implemented]
    if not missing:
        pytest.skip("every paper is implemented")
    with pytest.raises(SystemExit) as e:
        main(["iclr25", "reproduce", missing[0]])
    assert e.value.code == 2 and "not implemented yet" in capsys.readouterr().err


def test_report_command_builds_html(tmp_path):
    (tmp_path / "r").mkdir()
    out = run_cli("report", "--out", str(tmp_path / "r"))
    assert out.returncode == 0 and (tmp_path / "r" / "index.html").is_file()
