"""Map a function over items: serially, over a local process pool, or on Ray (an existing cluster via
`ray_address`, or a local one). Same items, same results, whatever the backend."""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
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


def ray_init(address: str | None = None, workers: int | None = None) -> Any:
    """Connect to the Ray cluster at `address` (e.g. "auto"), or start a local one with `workers` CPUs;
    no dashboard, quiet logs. Returns the `ray` module. A no-op when Ray is already initialised."""
    try:
        import ray
    except ImportError:
        raise UserError("the ray backend needs the 'ray' extra: pip install 'iclr25[ray]'") from None
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                  "configure_logging": False}
        if address:
            kwargs["address"] = address
        else:
            kwargs["num_cpus"] = workers or os.cpu_count() or 1
        ray.init(**kwargs)
    return ray


def _ray_call(fn: Callable, x: Any) -> Any:
    pin_threads()
    return fn(x)


def get_executor(backend: str, workers: int | None = None, ray_address: str | None = None):
    if backend == "serial":
        return SerialExecutor()
    if backend == "process":
        return ProcessExecutor(workers)
    if backend == "ray":
        return RayExecutor(ray_address, workers)
    raise ValueError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
