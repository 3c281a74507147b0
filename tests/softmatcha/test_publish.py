"""Publishing an index is race-free and crash-safe: concurrent fresh builds of one folder all exit cleanly
with one complete index left (the last writer's), a build killed at any moment leaves the old index or
the new one (never neither, never a damaged one), the next build removes a killed build's staging
folder, and the published folder has the umask's mode."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from iclr25.softmatcha.embeddings import Embeddings
from iclr25.softmatcha.index import Index
from iclr25.softmatcha.publish import remove_stale

WORDS = ["the", "king", "queen", "of", "israel", "syria"]

BUILD = textwrap.dedent("""
    import sys, numpy as np
    from iclr25.softmatcha.embeddings import Embeddings
    from iclr25.softmatcha.index import Index
    words = {words!r}
    emb = Embeddings.from_arrays(words, np.eye(len(words), dtype=np.float32), name="pub")
    tag, n = sys.argv[2], int(sys.argv[3])
    lines = [f"the king of israel {{tag}} " + str(i) for i in range(n)]
    Index.from_lines(lines, sys.argv[1], embeddings=emb, overwrite=True)
""").format(words=WORDS)


def _emb() -> Embeddings:
    return Embeddings.from_arrays(WORDS, np.eye(len(WORDS), dtype=np.float32), name="pub")


def _build(out, tag: str, n: int) -> subprocess.Popen:
    env = dict(os.environ, ICLR25_NO_PROGRESS="1", OMP_NUM_THREADS="1")
    return subprocess.Popen([sys.executable, "-c", BUILD, str(out), tag, str(n)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _tag(out) -> str:
    idx = Index.load(out, embeddings=_emb(), verify="full")
    return idx.line_text(0).split()[4]


def _leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_concurrent_fresh_builds_all_exit_cleanly_and_one_index_remains(tmp_path):
    out = tmp_path / "idx"
    procs = [_build(out, f"w{k}", 2000) for k in range(4)]
    results = [p.communicate(timeout=240) for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, [err for _, err in results]
    assert _tag(out) in {f"w{k}" for k in range(4)}
    assert _leftovers(tmp_path) == []


def test_a_killed_build_leaves_the_old_or_the_new_index_and_is_cleaned_up(tmp_path):
    out = tmp_path / "idx"
    Index.from_lines([f"the king of israel old {i}" for i in range(10)], out, embeddings=_emb())
    rng = np.random.default_rng(0)
    seen = set()
    for k in range(6):
        p = _build(out, f"new{k}", 30_000)
        time.sleep(float(rng.uniform(0.5, 3.0)))  # import + tokenize + sort + publish take ~1-4 s
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=60)
        seen.add(_tag(out))  # loads and verifies every file: never missing, never damaged
    assert seen <= {"old"} | {f"new{k}" for k in range(6)}
    Index.from_lines(["the king of israel last 0"], out, embeddings=_emb(), overwrite=True)
    assert _tag(out) == "last" and _leftovers(tmp_path) == []  # the next build removed killed stagings


def test_only_the_staging_folders_of_dead_processes_are_removed(tmp_path):
    out = tmp_path / "idx"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    stale = tmp_path / f".idx.building-{int(dead.stdout)}-abc"
    live = tmp_path / f".idx.building-{os.getpid()}-xyz"
    other = tmp_path / f".other.building-{int(dead.stdout)}-abc"
    for d in (stale, live, other):
        d.mkdir()
    assert remove_stale(out) == [stale]
    assert live.exists() and other.exists() and not stale.exists()


@pytest.mark.parametrize("mask", [0o022, 0o077])
def test_published_folder_has_the_umask_mode(tmp_path, mask):
    old = os.umask(mask)
    try:
        idx = Index.from_lines(["the king"], tmp_path / "idx", embeddings=_emb())
    finally:
        os.umask(old)
    assert idx.path.stat().st_mode & 0o777 == 0o777 & ~mask
    assert (idx.path / "meta.json").stat().st_mode & 0o777 == 0o666 & ~mask
