"""The run context handed to every experiment: seeds, threads, timers, progress bars, the run folder,
the cache folder (atomic writes) and `ctx.map` over the chosen executor."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


def n_threads() -> int:
    """Threads per worker: 1 unless ICLR25_THREADS says otherwise (more was 25-45x slower here)."""
    raw = os.environ.get("ICLR25_THREADS", "1")
    try:
        n = int(raw)
    except ValueError:
        raise ValueError(f"ICLR25_THREADS must be a positive integer, got {raw!r}") from None
    if n < 1:
        raise ValueError(f"ICLR25_THREADS must be a positive integer, got {raw!r}")
    return n


def pin_threads(n: int | None = None) -> int:
    """Pin BLAS/OpenMP (env, and live pools via threadpoolctl) and torch to `n` threads."""
    n = n or n_threads()
    for var in _THREAD_VARS:
        os.environ[var] = str(n)
    with contextlib.suppress(ImportError):
        from threadpoolctl import threadpool_limits
        threadpool_limits(n)
    if "torch" in sys.modules:
        torch = sys.modules["torch"]
        torch.set_num_threads(n)
        with contextlib.suppress(RuntimeError):  # only settable before first parallel work
            torch.set_num_interop_threads(n)
    return n


def seed_everything(seed: int) -> None:
    """Seed python, numpy and (if imported) torch."""
    random.seed(seed)
    import numpy as np
    np.random.seed(seed % 2**32)
    if "torch" in sys.modules:
        sys.modules["torch"].manual_seed(seed)


def child_seeds(seed: int, n: int) -> list[int]:
    """`n` independent, reproducible seeds derived from `seed` (numpy SeedSequence)."""
    import numpy as np
    return [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(n)]


def cache_dir() -> Path:
    d = Path(os.environ.get("ICLR25_CACHE", Path.home() / ".cache" / "iclr25"))
    d.mkdir(parents=True, exist_ok=True)
    return d


def config_hash(config: Any) -> str:
    """Stable short hash of a JSON-able config (dataclasses via their __dict__)."""
    blob = json.dumps(config, sort_keys=True, default=lambda o: getattr(o, "__dict__", str(o)))
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def umask() -> int:
    """This process's umask, read without changing it (Linux), else by setting and restoring it."""
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status") as f:
        for line in f:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "wb") -> Iterator[Any]:
    """Write to a temp file beside `path`, fsync, then rename: readers never see a half file,
    and an exception or Ctrl-C leaves the old file (or none) in place. The file gets the umask's mode.

    Only a regular file (or nothing) is ever replaced: "-" writes to standard output, a character device
    or a FIFO (`-o /dev/null`, a named pipe) is written through, a symlink's target is replaced (the link
    stays), and anything else (a folder, a socket, a block device) is refused with a UserError."""
    import stat

    from iclr25.core.errors import UserError
    if str(path) == "-":
        stream = sys.stdout.buffer if "b" in mode else sys.stdout
        yield stream
        stream.flush()
        return
    path = Path(path)
    try:
        st = os.stat(path)  # follows symlinks: what would be written is the target
    except FileNotFoundError:
        st = None
    except NotADirectoryError:
        raise UserError(f"{path}: a parent of this path is not a folder") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        if stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode):
            with open(path, mode) as f:
                yield f
            return
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise UserError(f"{path} is {kind}; give a file name to write")
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, 0o666 & ~umask())  # mkstemp makes 0600; the file gets what open() would give it
        with os.fdopen(fd, mode) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def timer() -> Iterator[dict[str, float]]:
    """`with timer() as t: ...; t["s"]` is the wall time in seconds."""
    out: dict[str, float] = {}
    t0 = time.perf_counter()
    try:
        yield out
    finally:
        out["s"] = time.perf_counter() - t0


def progress(items: Iterable[T], description: str = "", total: int | None = None,
             disable: bool | None = None) -> Iterator[T]:
    """A rich progress bar over `items`; silent when stderr is not a terminal (tests, CI, pipes)."""
    if disable is None:
        disable = not sys.stderr.isatty() or os.environ.get("ICLR25_NO_PROGRESS") == "1"
    if disable:
        yield from items
        return
    from rich.progress import track
    yield from track(items, description=description or "working", total=total, transient=True)


@dataclass
class RunContext:
    """What an experiment receives. `out_dir` is this run's folder (figures go there)."""

    seed: int = 0
    profile: str = "smoke"
    out_dir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="iclr25-run-")))
    backend: str = "serial"
    ray_address: str | None = None
    workers: int | None = None

    def __post_init__(self) -> None:
        from iclr25.core.paper import PROFILES
        if self.profile not in PROFILES:
            raise ValueError(f"unknown profile {self.profile!r}; choose from {', '.join(PROFILES)}")
        self.out_dir = Path(self.out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        pin_threads()
        seed_everything(self.seed)

    @property
    def cache_dir(self) -> Path:
        return cache_dir()

    def rng(self, offset: int = 0):
        """A numpy Generator seeded from the run seed (+ offset for independent streams)."""
        import numpy as np
        return np.random.default_rng([self.seed, offset])

    def map(self, fn: Callable[[T], R], items: Sequence[T], description: str = "") -> list[R]:
        """`[fn(x) for x in items]` on the run's backend, in order. `fn` must be a module-level
        function (picklable) that derives any randomness from its item."""
        from iclr25.core.executors import get_executor
        ex = get_executor(self.backend, workers=self.workers, ray_address=self.ray_address)
        return ex.map(fn, list(items), description=description or "tasks")

    def figure_path(self, name: str) -> Path:
        return self.out_dir / name

    def pick(self, smoke: T, quick: T, full: T) -> T:
        """The size for this profile: profiles change sizes, not code paths."""
        return {"smoke": smoke, "quick": quick, "full": full}[self.profile]
