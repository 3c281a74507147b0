import subprocess
import sys
import time
from pathlib import Path

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


def test_paper_group_runs_alone_with_its_paper_title(capsys):
    """`iclr25 <slug>` runs only that paper's group: its help names the paper, a bare call shows the help and
    exits 2 with no empty error line, and usage errors name the full command path."""
    with pytest.raises(SystemExit) as e:
        main(["iclr25", "softmatcha", "--help"])
    out = capsys.readouterr().out
    assert e.value.code == 0 and "paper 11: SoftMatcha" in out and "iclr25 softmatcha" in out
    with pytest.raises(SystemExit) as e:
        main(["iclr25", "softmatcha"])
    captured = capsys.readouterr()
    assert e.value.code == 2 and "search" in captured.out and "error" not in captured.err
    with pytest.raises(SystemExit) as e:
        main(["iclr25", "softmatcha", "nope"])
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and err.splitlines() == [err] and "iclr25 softmatcha --help" in err


def test_unknown_option_exit_2():
    assert run_cli("reproduce", "--bogus").returncode == 2


def test_report_command_builds_html(tmp_path):
    (tmp_path / "r").mkdir()
    out = run_cli("report", "--out", str(tmp_path / "r"))
    assert out.returncode == 0 and (tmp_path / "r" / "index.html").is_file()


def test_papers_piped_is_plain_whole_lines():
    out = run_cli("papers")  # stdout is a pipe here
    line = next(li for li in out.stdout.splitlines() if "simplicial_oversquashing" in li)
    assert "│" not in out.stdout and "Demystifying Topological Message-Passing" in line
    assert len(out.stdout.splitlines()) == 19


def test_papers_json():
    import json
    rows = json.loads(run_cli("papers", "--json").stdout)
    assert len(rows) == 19 and rows[10]["slug"] == "softmatcha"
    assert rows[10]["readme"].endswith("softmatcha/README.md") and isinstance(rows[10]["full_record"], dict)


def test_internal_error_is_one_line_exit_2(capsys, monkeypatch):
    from iclr25.core.cli import run_guarded

    def boom():
        raise RuntimeError("disk\nexploded")

    monkeypatch.delenv("ICLR25_DEBUG", raising=False)
    with pytest.raises(SystemExit) as e:
        run_guarded(boom)
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and len(err.splitlines()) == 1
    assert "internal error: RuntimeError: disk exploded, please report" in err and "ICLR25_DEBUG=1" in err
    monkeypatch.setenv("ICLR25_DEBUG", "1")
    with pytest.raises(RuntimeError):
        run_guarded(boom)


def test_os_errors_are_one_line_exit_2(capsys):
    from iclr25.core.cli import run_guarded

    def full_disk():
        raise OSError(28, "No space left on device", "/cache/x")

    with pytest.raises(SystemExit) as e:
        run_guarded(full_disk)
    assert e.value.code == 2
    assert capsys.readouterr().err.strip() == "iclr25: error: No space left on device: /cache/x"


@pytest.mark.parametrize("args, message", [
    (["reproduce", "--seed", "-1"], "--seed must be >= 0"),
    (["reproduce", "--record"], "--record writes full-profile records"),
    (["reproduce", "--profile", "full", "--record", "nope"], "unknown paper"),
    (["reproduce", "--budget", "0"], "--budget must be in (0, 10000] minutes"),
])
def test_reproduce_rejects_bad_options(args, message, capsys):
    with pytest.raises(SystemExit) as e:
        main(["iclr25", *args])
    assert e.value.code == 2 and message in capsys.readouterr().err


def test_reproduce_exits_1_when_a_paper_fails(tmp_path, monkeypatch, capsys):

    from .fake_paper import broken, fake_paper, install
    monkeypatch.setenv("ICLR25_RECORDS", str(tmp_path / "none"))
    install(monkeypatch, default=lambda slug: fake_paper(slug, broken))
    with pytest.raises(SystemExit) as e:
        main(["iclr25", "reproduce", "softmatcha", "--profile", "smoke", "--out", str(tmp_path / "r")])
    assert e.value.code == 1 and "1 paper(s) failed: softmatcha" in capsys.readouterr().out


def test_papers_side_by_side_give_the_serial_findings(tmp_path, monkeypatch):
    import json

    from iclr25.core import runner

    from .fake_paper import install
    install(monkeypatch)
    slugs = ["hive", "physbench", "imagefolder"]
    serial = runner.reproduce(slugs, "smoke", tmp_path / "a", seed=4)
    parallel = runner.reproduce(slugs, "smoke", tmp_path / "b", backend="process", seed=4, jobs=2)
    assert [r.slug for r in parallel] == slugs and [r.counts for r in parallel] == [r.counts for r in serial]
    for s in slugs:
        a = json.loads((tmp_path / "a" / s / "smoke" / "findings.json").read_text())["findings"]
        b = json.loads((tmp_path / "b" / s / "smoke" / "findings.json").read_text())["findings"]
        assert a == b


def test_a_budget_stops_unfinished_papers_without_failing_them(tmp_path, monkeypatch, capfd):
    from iclr25.core import runner

    from .fake_paper import fake_paper, install, run, slow
    install(monkeypatch, default=lambda slug: fake_paper(slug, run if slug == "hive" else slow))
    slugs = ["hive", "physbench", "imagefolder", "topograph", "psr_sci"]  # more papers than the pool holds
    res = runner.reproduce(slugs, "smoke", tmp_path, backend="process", jobs=2, budget_s=30.0)
    assert [(r.slug, r.stopped, r.error) for r in res] == [("hive", False, None)] + [
        (s, True, None) for s in slugs[1:]]
    assert (tmp_path / "hive" / "smoke" / "findings.json").is_file()
    # the stopped papers' workers were killed, not waited for: they never wrote findings
    assert not any((tmp_path / s / "smoke" / "findings.json").exists() for s in slugs[1:])
    time.sleep(0.5)  # the pool's manager thread reports the killed workers after the call returns
    assert "Traceback" not in capfd.readouterr().err  # (it failed on a cancelled, never started paper)
    # one process: no paper starts once the budget is spent
    res = runner.reproduce(slugs, "smoke", tmp_path / "serial", budget_s=0.0)
    assert all(r.stopped for r in res) and not (tmp_path / "serial" / "hive").exists()


def _iclr25() -> str:
    return str(Path(sys.executable).parent / "iclr25")


def test_closed_standard_streams_are_one_line_errors():
    out = subprocess.run(f"{_iclr25()} papers >&-", shell=True, capture_output=True, text=True)
    assert out.returncode == 2 and out.stderr.strip() == (
        "iclr25: error: standard output is closed; redirect it to a file or /dev/null")
    out = subprocess.run(f"{_iclr25()} softmatcha grep king - <&-", shell=True, capture_output=True,
                         text=True)
    assert out.returncode == 2 and "standard input is closed" in out.stderr and "Traceback" not in out.stderr


def test_a_reader_that_stops_early_is_success():
    out = subprocess.run(f"{_iclr25()} papers | head -1; exit ${{PIPESTATUS[0]}}", shell=True,
                         executable="/bin/bash", capture_output=True, text=True)
    assert out.returncode == 0 and len(out.stdout.splitlines()) == 1 and not out.stderr


def test_serve_on_a_port_in_use_is_exit_2():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        out = run_cli("serve", "--port", str(port))
    assert out.returncode == 2 and f"cannot serve on 127.0.0.1:{port}" in out.stderr


def test_an_unreachable_ray_address_fails_fast():
    import time
    t0 = time.perf_counter()
    out = run_cli("reproduce", "rm_bench", "--backend", "ray", "--ray-address", "127.0.0.1:1")
    assert out.returncode == 2 and "no Ray cluster answers at 127.0.0.1:1" in out.stderr
    assert time.perf_counter() - t0 < 30


def test_serve_runs_worker_processes(tmp_path):
    import socket
    import urllib.request
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([_iclr25(), "serve", "--port", str(port), "--workers", "2", "--reports",
                             str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(100):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as r:
                    assert r.status == 200 and "Scoreboard" in r.read().decode()
                break
            except OSError:
                time.sleep(0.2)
        else:
            raise AssertionError("the server did not answer")
        children = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout
        assert len(children.split()) >= 2
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=20)
    assert "2 worker processes" in out
