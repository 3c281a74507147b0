import os

import numpy as np
import pytest

from iclr25.core.runtime import (
    RunContext,
    atomic_write,
    child_seeds,
    config_hash,
    n_threads,
    timer,
)


def test_seeded_rng_is_reproducible(tmp_path):
    a = RunContext(seed=7, out_dir=tmp_path / "a").rng(1).normal(size=3)
    b = RunContext(seed=7, out_dir=tmp_path / "b").rng(1).normal(size=3)
    c = RunContext(seed=8, out_dir=tmp_path / "c").rng(1).normal(size=3)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_child_seeds_distinct_and_stable():
    s = child_seeds(0, 5)
    assert s == child_seeds(0, 5) and len(set(s)) == 5


def test_pick_and_bad_profile(tmp_path):
    assert RunContext(profile="quick", out_dir=tmp_path).pick(1, 2, 3) == 2
    with pytest.raises(ValueError, match="unknown profile"):
        RunContext(profile="huge", out_dir=tmp_path)


def test_threads_default_and_override(monkeypatch):
    monkeypatch.delenv("ICLR25_THREADS", raising=False)
    assert n_threads() == 1
    monkeypatch.setenv("ICLR25_THREADS", "3")
    assert n_threads() == 3
    monkeypatch.setenv("ICLR25_THREADS", "zero")
    with pytest.raises(ValueError, match="ICLR25_THREADS"):
        n_threads()


def test_atomic_write_leaves_old_file_on_error(tmp_path):
    p = tmp_path / "x.txt"
    with atomic_write(p, "w") as f:
        f.write("old")
    with pytest.raises(RuntimeError), atomic_write(p, "w") as f:
        f.write("half")
        raise RuntimeError("crash")
    assert p.read_text() == "old"
    assert os.listdir(tmp_path) == ["x.txt"]  # no temp file left behind


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_atomic_write_gives_the_umask_mode(tmp_path, mask):
    """Files written atomically are as readable as open() would make them (mkstemp alone gives 0600)."""
    old = os.umask(mask)
    try:
        with atomic_write(tmp_path / "x.txt", "w") as f:
            f.write("x")
    finally:
        os.umask(old)
    assert (tmp_path / "x.txt").stat().st_mode & 0o777 == 0o666 & ~mask


def test_config_hash_stable_and_sensitive():
    assert config_hash({"a": 1, "b": 2}) == config_hash({"b": 2, "a": 1})
    assert config_hash({"a": 1}) != config_hash({"a": 2})


def test_timer_measures():
    with timer() as t:
        sum(range(1000))
    assert t["s"] >= 0


def test_atomic_write_never_replaces_what_is_not_a_regular_file(tmp_path):
    """`-o /dev/null` writes through (as root, replacing it would break the machine's /dev/null); a FIFO
    is written through; a folder is refused; a symlink keeps pointing at its target, which is replaced."""
    import os
    import stat
    import threading

    from iclr25.core.errors import UserError
    from iclr25.core.runtime import atomic_write
    with atomic_write("/dev/null", "w") as f:
        f.write("gone")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    with pytest.raises(OSError, match="No space left"), atomic_write("/dev/full", "w") as f:
        f.write("x" * 100_000)
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    with atomic_write(fifo, "w") as f:
        f.write("through the pipe")
    reader.join(10)
    assert got == ["through the pipe"] and stat.S_ISFIFO(os.stat(fifo).st_mode)
    with pytest.raises(UserError, match="is a folder"), atomic_write(tmp_path, "w") as f:
        f.write("x")
    target = tmp_path / "real.txt"
    target.write_text("old")
    (tmp_path / "link.txt").symlink_to(target)
    with atomic_write(tmp_path / "link.txt", "w") as f:
        f.write("new")
    assert (tmp_path / "link.txt").is_symlink() and target.read_text() == "new"


def test_atomic_write_dash_is_standard_output(capsysbinary):
    from iclr25.core.runtime import atomic_write
    with atomic_write("-") as f:
        f.write(b"to stdout")
    assert capsysbinary.readouterr().out == b"to stdout"
