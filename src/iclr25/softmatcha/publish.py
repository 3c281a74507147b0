"""Publishing a finished index folder: it is built under a staging name beside the target and swapped in
by one atomic rename, so a reader sees the old index or the new one and never neither. Concurrent builds
of one target need no lock: each publishes with a no-replace rename or, when the target exists, an
atomic exchange, so the last complete writer wins and the others exit cleanly. Staging folders left by
killed builds are removed by the next build into the same folder; published folders get the umask's
mode (a temporary folder is created 0700)."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import glob
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from iclr25.core.errors import UserError
from iclr25.core.runtime import umask
from iclr25.softmatcha.index_format import fsync_dir

_AT_FDCWD = -100
_RENAME_NOREPLACE, _RENAME_EXCHANGE = 1, 2


def _renameat2(src: Path, dst: Path, flags: int) -> bool:
    """renameat2(2) with `flags`; False when this system has no renameat2 (then the caller falls back)."""
    libc = ctypes.CDLL(None, use_errno=True)
    fn = getattr(libc, "renameat2", None)
    if fn is None:
        return False
    if fn(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), flags) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL):  # kernel or filesystem without it
        return False
    raise OSError(err, os.strerror(err), str(dst))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _staging_prefix(out: Path) -> str:
    return f".{out.name}.building-"


def remove_stale(out: Path) -> list[Path]:
    """Remove the staging folders of builds of `out` whose process is gone; returns what was removed."""
    removed = []
    for p in out.parent.glob(glob.escape(_staging_prefix(out)) + "*"):
        pid = p.name[len(_staging_prefix(out)):].split("-", 1)[0]
        if pid.isdigit() and not _pid_alive(int(pid)):
            shutil.rmtree(p, ignore_errors=True)
            removed.append(p)
    return removed


@contextlib.contextmanager
def staging(out: Path) -> Iterator[Path]:
    """A fresh staging folder beside `out` (named with this process id), removed afterwards whatever
    happens; stale ones of killed builds are removed first."""
    out.parent.mkdir(parents=True, exist_ok=True)
    remove_stale(out)
    tmp = Path(tempfile.mkdtemp(prefix=f"{_staging_prefix(out)}{os.getpid()}-", dir=out.parent))
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def publish(tmp: Path, out: Path, is_index: Callable[[Path], bool]) -> None:
    """Move the finished folder `tmp` to `out` atomically and durably (the parent folder is fsynced). An
    index at `out` (an older one, or one a concurrent build published meanwhile) is replaced; anything
    else there is refused."""
    os.chmod(tmp, 0o777 & ~umask())
    _swap_in(tmp, out, is_index)
    fsync_dir(out.parent)


def _swap_in(tmp: Path, out: Path, is_index: Callable[[Path], bool]) -> None:
    for _ in range(8):  # a concurrent writer may publish or remove `out` between our attempts
        if not (out.exists() or out.is_symlink()):
            try:
                if not _renameat2(tmp, out, _RENAME_NOREPLACE):
                    os.rename(tmp, out)  # no renameat2: rename refuses a non-empty target, cannot clobber
                return
            except OSError as e:
                if e.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                    raise
                continue
        if out.is_symlink() or not out.is_dir() or (not is_index(out) and any(out.iterdir())):
            raise UserError(f"{out} exists and is not a SoftMatcha index; refusing to replace it")
        try:
            if _renameat2(tmp, out, _RENAME_EXCHANGE):  # tmp now holds the old index
                shutil.rmtree(tmp, ignore_errors=True)
                return
        except FileNotFoundError:
            continue
        old = out.with_name(f"{_staging_prefix(out)}{os.getpid()}-old")  # removed if we are killed
        try:
            os.replace(out, old)
        except FileNotFoundError:
            continue
        os.replace(tmp, out)
        shutil.rmtree(old, ignore_errors=True)
        return
    raise UserError(f"could not publish {out}: other builds keep replacing it")
