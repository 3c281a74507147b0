"""Map a function over items: serially, over a local process pool, or on Ray (an existing cluster via
`ray_address`, or a local one). Same items, same results, whatever the backend."""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iclr25.core.errors import UserError
from iclr25.core.runtime import pin_threads, progress

BACKENDS = ("serial", "process", "ray")


def _init_worker() -> None:
    pin_threads()


@dataclass
class SerialExecutor:
    def map(self, fn: Callable, items: Sequence, description: str = "") -> list:
        return [fn(x) for x in progress(items, description, total=len(items))]


@dataclass
class ProcessExecutor:
    workers: int | None = None

    def map(self, fn: Callable, items: Sequence, description: str = "") -> list:
        n = max(1, min(self.workers or os.cpu_count() or 1, len(items) or 1))
        # fork: workers inherit imported modules, so start-up costs no re-import of torch
        ctx = mp.get_context("fork")
        with ProcessPoolExecutor(n, mp_context=ctx, initializer=_init_worker) as pool:
            futures = [pool.submit(fn, x) for x in items]
            return [f.result() for f in progress(futures, description, total=len(futures))]


@dataclass
class RayExecutor:
    address: str | None = None
    workers: int | None = None

    def map(self, fn: Callable, items: Sequence, description: str = "") -> list:
        ray = ray_init(self.address, self.workers)
        remote = ray.remote(num_cpus=1)(_ray_call)
        refs = [remote.remote(fn, x) for x in items]
        return [ray.get(r) for r in progress(refs, description, total=len(refs))]


def ray_token() -> str | None:
    """Where Ray's token authentication finds the cluster token, in Ray's own order: $RAY_AUTH_TOKEN,
    the file $RAY_AUTH_TOKEN_PATH, then ~/.ray/auth_token (what `ray start --head` writes)."""
    if os.environ.get("RAY_AUTH_TOKEN"):
        return "RAY_AUTH_TOKEN"
    path = Path(os.environ.get("RAY_AUTH_TOKEN_PATH", Path.home() / ".ray" / "auth_token"))
    return str(path) if path.is_file() and path.stat().st_size > 0 else None


def _reachable(address: str, timeout_s: float = 5.0) -> None:
    """A HOST:PORT that nothing answers on is refused at once (Ray itself retries for minutes)."""
    import socket
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or address.startswith(("ray://", "auto")):
        return
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=timeout_s).close()
    except OSError as e:
        raise UserError(f"no Ray cluster answers at {address} ({e.strerror or e}); start one with "
                        "'ray start --head' or pass --ray-address auto") from None


def ray_init(address: str | None = None, workers: int | None = None) -> Any:
    """Connect to the Ray cluster at `address` ("auto" or HOST:PORT), or start a local one with
    `workers` CPUs; no dashboard, quiet logs. Returns the `ray` module; a no-op when already initialised.

    Ray >= 2.59 protects clusters with a token, which a driver joining by explicit address presents only
    when RAY_AUTH_MODE=token: we set it whenever a token is available (Ray documents this), and a cluster
    that rejects us gets a one-line error naming the fix."""
    if address and ray_token():  # before `import ray`: Ray reads its auth mode at import
        os.environ.setdefault("RAY_AUTH_MODE", "token")
    try:
        import ray
    except ImportError:
        raise UserError("the ray backend needs the 'ray' extra: pip install 'iclr25[ray]'") from None
    if ray.is_initialized():
        return ray
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                              "configure_logging": False}
    if not address:  # "local": a new instance, never a cluster that `ray start` left on this machine
        ray.init(address="local", num_cpus=workers or os.cpu_count() or 1, **kwargs)
        return ray
    _reachable(address)
    try:
        ray.init(address=address, **kwargs)
    except Exception as e:
        if _caused_by_auth(e):
            raise UserError(f"the Ray cluster at {address} requires its token and none was found: copy "
                            "the head's ~/.ray/auth_token here (or set RAY_AUTH_TOKEN / RAY_AUTH_TOKEN_PATH; "
                            "'ray get-auth-token' prints it)") from None
        why = " ".join(str(e).split())[:200]
        raise UserError(f"cannot join the Ray cluster at {address}: {why}") from None
    return ray


def _ray_call(fn: Callable, x: Any) -> Any:
    pin_threads()
    return fn(x)


def _caused_by_auth(e: BaseException | None) -> bool:
    """Ray wraps a rejected token in ConnectionError <- RuntimeError <- AuthenticationError."""
    seen = 0
    while e is not None and seen < 10:
        if "Authentication" in type(e).__name__ or "InvalidAuthToken" in str(e):
            return True
        e, seen = e.__cause__ or e.__context__, seen + 1
    return False


def get_executor(backend: str, workers: int | None = None, ray_address: str | None = None):
    if backend == "serial":
        return SerialExecutor()
    if backend == "process":
        return ProcessExecutor(workers)
    if backend == "ray":
        return RayExecutor(ray_address, workers)
    raise ValueError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
