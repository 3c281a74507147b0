"""Load test of the served SoftMatcha API: `iclr25 serve` in its own process on 127.0.0.1, and 1, 8 and 32
concurrent clients firing searches at /api/softmatcha/search over loopback, first alone and then while
`--abusive` more clients send worst-case queries (alpha = 0: every word matches, ~1e6 hits each) in a
loop. Every level is bounded in request count and in time, and stops by itself. Reports p50 / p99
latency of the ordinary queries, throughput, errors, and lost responses (a response that never came, or
whose hit count differs from the library's for that query); the goal is p99 < 200 ms at 32 clients
with 4 abusive ones, 0 errors. Broad queries are answered (200) or refused with 429/503 by the
server's heavy lane; they are counted, not timed.

    .venv/bin/python benchmarks/softmatcha/load.py [--requests 200] [--seconds 20] [--clients 1 8 32]
        [--abusive 4] [--workers 1 2]

Each `--workers` count is one server (`iclr25 serve --workers N`, processes sharing the memory-mapped
index), measured in turn in the same run so the rows compare.

Corpus: the KJV demo index (GloVe 6B 50-d), built into the cache on first use."""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

QUERIES = [  # (pattern, threshold): rare, medium and frequent classes, soft and exact
    ("a still small voice", 0.8), ("sackcloth and ashes", 0.8), ("the king of israel", 0.8),
    ("the son of man", 0.8), ("the land of egypt", 0.9), ("the king of israel", 1.0),
    ("and he said", 0.9), ("unto them", 0.85),
]
ABUSIVE = [("the king of israel", 0.0), ("and he said unto them", 0.0), ("the", 0.0)]
HOST = "127.0.0.1"  # loopback only


@dataclass
class Level:
    clients: int
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    lost: int = 0
    sent: int = 0
    seconds: float = 0.0
    abusive: dict[int, int] = field(default_factory=dict)  # status code -> count of broad queries


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def start_server(index_dir: str, port: int, workers: int = 1) -> subprocess.Popen:
    env = dict(os.environ, ICLR25_NO_PROGRESS="1")
    cmd = [sys.executable, "-m", "iclr25.core.cli", "serve", "--host", HOST, "--port", str(port),
           "--indexes", index_dir, "--workers", str(workers)]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def wait_ready(base: str, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    import httpx
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {proc.stderr.read().decode() if proc.stderr else ''}")
        try:
            if httpx.get(base + "/api/softmatcha/indexes", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError("server did not become ready")


def run_level(base: str, index: str, clients: int, n_requests: int, seconds: float,
              expected: dict[tuple[str, float], int], abusive: int = 0) -> Level:
    import httpx
    lv = Level(clients)
    stop = threading.Event()

    def abuser(k: int) -> None:
        with httpx.Client(base_url=base, timeout=60) as c:
            i = k
            while not stop.is_set():
                pattern, a = ABUSIVE[i % len(ABUSIVE)]
                i += 1
                try:
                    code = c.get("/api/softmatcha/search", params={"index": index, "pattern": pattern,
                                                                    "threshold": a, "limit": 50}).status_code
                except httpx.HTTPError:
                    code = -1
                with lock:
                    lv.abusive[code] = lv.abusive.get(code, 0) + 1
                if code in (429, 503):
                    time.sleep(0.05)  # a client honouring "retry shortly", not a busy loop
    lock = threading.Lock()
    counter = iter(range(n_requests))
    deadline = time.perf_counter() + seconds

    def worker() -> None:
        with httpx.Client(base_url=base, timeout=30) as c:
            while time.perf_counter() < deadline:
                with lock:
                    i = next(counter, None)
                    if i is None:
                        return
                    lv.sent += 1
                pattern, a = QUERIES[i % len(QUERIES)]
                t0 = time.perf_counter()
                try:
                    r = c.get("/api/softmatcha/search", params={"index": index, "pattern": pattern,
                                                                 "threshold": a, "limit": 50})
                except httpx.HTTPError:
                    with lock:
                        lv.lost += 1
                    continue
                dt = time.perf_counter() - t0
                with lock:
                    if r.status_code != 200:
                        lv.errors += 1
                    elif r.json()["count"] != expected[(pattern, a)]:
                        lv.lost += 1
                    else:
                        lv.latencies.append(dt)

    abusers = [threading.Thread(target=abuser, args=(k,), daemon=True) for k in range(abusive)]
    for t in abusers:
        t.start()
    if abusive:
        time.sleep(1.0)  # let the broad queries occupy the server first
    t0 = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        for f in [pool.submit(worker) for _ in range(clients)]:
            f.result()
    lv.seconds = time.perf_counter() - t0
    stop.set()
    for t in abusers:
        t.join(timeout=90)
    return lv


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32])
    ap.add_argument("--requests", type=int, default=200, help="requests per level (upper bound)")
    ap.add_argument("--seconds", type=float, default=20.0, help="time limit per level")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="server worker processes (one "
                    "server per count, measured in turn)")
    ap.add_argument("--abusive", type=int, default=4, help="clients sending worst-case queries in the "
                    "second round (0: skip it)")
    args = ap.parse_args(argv)
    if (max(args.clients) > 64 or args.requests > 5000 or args.seconds > 120 or not 0 <= args.abusive <= 16
            or not all(1 <= w <= 16 for w in args.workers)):
        ap.error("bounded load only: at most 64 clients, 16 abusive, 16 workers, 5000 requests and 120 s per "
                 "level")

    from iclr25.softmatcha.demo import kjv_index
    idx = kjv_index()
    expected = {(p, a): idx.count(p, a) for p, a in QUERIES}
    levels: list[tuple[int, Level]] = []
    for workers in args.workers:
        port = free_port()
        base = f"http://{HOST}:{port}"
        proc = start_server(str(idx.path.parent), port, workers)
        try:
            wait_ready(base, proc)
            run_level(base, idx.path.name, 1, len(QUERIES), 30, expected)  # warm-up: open the index, caches
            levels += [(workers, run_level(base, idx.path.name, n, args.requests, args.seconds, expected))
                       for n in args.clients]
            if args.abusive:
                levels += [(workers, run_level(base, idx.path.name, n, args.requests, args.seconds, expected,
                                               args.abusive)) for n in args.clients]
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()

    print(f"SoftMatcha API under load: KJV ({idx.n_tokens:,} tokens), {len(QUERIES)} queries in rotation, "
          f"loopback, server and clients on {os.cpu_count()} cores")
    print(f"{'workers':>7} {'clients':>7} {'abusive':>7} {'requests':>8} {'ok':>6} {'errors':>6} {'lost':>5} "
          f"{'p50 ms':>8} {'p99 ms':>8} {'req/s':>7}  broad queries by status")
    bad = 0
    for workers, lv in levels:
        ok = len(lv.latencies)
        broad = " ".join(f"{code}:{n}" for code, n in sorted(lv.abusive.items())) or "-"
        abusive = sum(lv.abusive.values()) and args.abusive
        print(f"{workers:>7} {lv.clients:>7} {abusive:>7} {lv.sent:>8} {ok:>6} {lv.errors:>6} {lv.lost:>5} "
              f"{1000 * pct(lv.latencies, 0.5):>8.1f} {1000 * pct(lv.latencies, 0.99):>8.1f} "
              f"{ok / lv.seconds if lv.seconds else 0:>7.1f}  {broad}")
        bad += lv.abusive.get(-1, 0) + sum(n for code, n in lv.abusive.items() if code >= 500 and code != 503)
        bad += lv.errors + lv.lost + (lv.sent - ok - lv.errors - lv.lost)
    one = {(lv.clients, bool(lv.abusive)): lv for w, lv in levels if w == args.workers[0]}
    for workers, lv in levels:
        ref = one.get((lv.clients, bool(lv.abusive)))
        if workers != args.workers[0] and ref is not None and ref.latencies and lv.latencies:
            print(f"{lv.clients} clients{' + abusive' if lv.abusive else ''}: p99 with {workers} workers / "
                  f"with {args.workers[0]}: {pct(lv.latencies, 0.99) / pct(ref.latencies, 0.99):.2f}")
    print("no errors, no lost responses" if bad == 0 else f"FAILED: {bad} bad responses")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
