"""Run the `iclr25` CLI in-process and judge the outcome. The only acceptable outcomes: success (0),
grep's "no match" (1, grep-like commands only), or exactly one line on stderr and exit code 2 that is
not an internal error. Anything else - a traceback, a hang, an internal error - is a finding."""

from __future__ import annotations

import collections
import contextlib
import io
import os
import resource
import signal
import stat
import time
from dataclasses import dataclass

from iclr25.core.cli import main


class Hang(BaseException):
    """Raised by the alarm; a BaseException so that no handler in the code under test swallows it."""


@dataclass
class Outcome:
    argv: list[str]
    code: int
    out: str
    err: str
    seconds: float
    hung: bool = False


_GIB = 1 << 30
DEVICES = ("/dev/null", "/dev/full")  # offered as output paths: written through, never replaced
CALLS: collections.Counter = collections.Counter()  # outcome kind -> calls this session (make fuzz prints it)


@contextlib.contextmanager
def memory_cap() -> object:
    """A hostile size must become an error, not a machine out of memory: during one call, this process
    may map at most ICLR25_FUZZ_MEM_GIB (8) GiB more than it already has; restored afterwards, so the
    rest of the test session is not limited."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as f:
        mapped = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    cap = mapped + int(os.environ.get("ICLR25_FUZZ_MEM_GIB", "8")) * _GIB
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def invoke(argv: list[str], timeout: float = 60.0) -> Outcome:
    """`iclr25 *argv` in this process, stdout/stderr captured, stopped after `timeout` seconds."""
    out, err = io.StringIO(), io.StringIO()
    fired = []  # the CLI's last-resort handler reports any exception, a Hang too: remember the alarm

    def alarm(signum, frame):
        fired.append(True)
        raise Hang()

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    t0 = time.perf_counter()
    code = 0
    try:
        with memory_cap(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main(["iclr25", *argv])
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    except Hang:
        code = -1
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    o = Outcome(list(argv), code, out.getvalue(), err.getvalue(), time.perf_counter() - t0, bool(fired))
    CALLS["hang" if o.hung else "exit 0" if code == 0 else "exit 1" if code == 1 else
          "exit 2" if code == 2 else "other"] += 1
    return o


def problems(o: Outcome, grep_like: bool = False) -> list[str]:
    """What is wrong with an outcome (empty list: acceptable)."""
    found = []
    lines = [li for li in o.err.splitlines() if li.strip() and not li.startswith("iclr25: warning:")]
    if o.hung:
        found.append(f"hung for {o.seconds:.0f} s")
    elif o.code == 0 or (o.code == 1 and grep_like):
        pass
    elif o.code == 2:
        if len(lines) != 1:
            found.append(f"exit 2 with {len(lines)} stderr lines")
        if lines and "internal error" in lines[0]:
            found.append("internal error (an exception nobody validated)")
    else:
        found.append(f"exit code {o.code}")
    if "Traceback (most recent call last)" in o.err + o.out:
        found.append("traceback printed")
    for device in DEVICES:  # an output onto a device must write through it, never replace it with a file
        if not stat.S_ISCHR(os.stat(device).st_mode):
            found.append(f"{device} is no longer a character device")
    return found
