"""Joining a Ray cluster started in another process (`ray start --head`), by explicit address."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="the ray extra is not installed")
pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def head(tmp_path_factory):
    """A head node in its own process group, with its own HOME (its token lands in HOME/.ray)."""
    home = tmp_path_factory.mktemp("home")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env["HOME"] = str(home)
    # a head protected the way Ray documents it: a token generated first (HOME/.ray/auth_token)
    subprocess.run([str(BIN / "ray"), "get-auth-token", "--generate"], env=env, check=True,
                   capture_output=True, timeout=60)
    log = home / "head.log"
    # Ray's sockets live under --temp-dir and AF_UNIX paths are capped at 107 bytes: pytest's own
    # temporary folders (/tmp/pytest-of-root/pytest-331/popen-gw1/...) are too deep for them
    ray_tmp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")
    with open(log, "wb") as sink:  # the head's own "started" line is the readiness signal
        proc = subprocess.Popen([str(BIN / "ray"), "start", "--head", "--block", f"--port={port}",
                                 "--num-cpus=1", "--include-dashboard=false", "--disable-usage-stats",
                                 f"--temp-dir={ray_tmp}"],
                                env=env, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)
    token = home / ".ray" / "auth_token"
    deadline = time.time() + 240
    while b"Ray runtime started" not in log.read_bytes():
        if proc.poll() is not None or time.time() > deadline:
            pytest.fail("ray start --head did not come up: " + log.read_text(errors="replace")[-500:])
        time.sleep(0.5)
    assert token.is_file()
    try:
        yield f"127.0.0.1:{port}", home
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
        shutil.rmtree(ray_tmp, ignore_errors=True)


def _reproduce(address: str, home: Path, tmp: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env["HOME"] = str(home)
    return subprocess.run([str(BIN / "python"), "-c", (
        "from iclr25.core.executors import get_executor;"
        "from iclr25.core.runtime import child_seeds;"
        "from functools import partial;"
        f"print(get_executor('ray', ray_address={address!r}).map(partial(child_seeds, n=1), [1, 2]))")],
        env=env, capture_output=True, text=True, timeout=180, cwd=tmp)


def test_explicit_address_with_the_users_token(head, tmp_path):
    address, home = head
    out = _reproduce(address, home, tmp_path)
    from iclr25.core.runtime import child_seeds
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == str([child_seeds(1, 1), child_seeds(2, 1)])


def test_missing_token_is_one_line_naming_the_fix(head, tmp_path):
    address, _ = head
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env["HOME"] = str(tmp_path)  # no ~/.ray/auth_token here
    out = subprocess.run([str(BIN / "iclr25"), "reproduce", "softmatcha", "--profile", "smoke",
                          "--backend", "ray", "--ray-address", address, "--out", str(tmp_path / "r")],
                         env=env, capture_output=True, text=True, timeout=180)
    assert out.returncode in (1, 2)
    errors = [li for li in (out.stderr + out.stdout).splitlines() if "auth_token" in li]
    assert errors and "requires its token" in errors[0]
