"""Search past one machine, measured on one: latency vs corpus size (1e6 -> 1e7 by default, 1e8 with
--full) for a single index and a ShardedIndex (Step 1 once on the coordinator, Step 2 fanned out), the
speed-up from 1 to 2 local worker processes, and a projection to 1e9 tokens from the measured bytes/token
and the log-log slope of latency vs N. Synthetic Zipf(1.0) token streams over the GloVe 6B vocabulary.

    .venv/bin/python benchmarks/softmatcha/scaling.py [--sizes 1e6 1e7] [--full] [--shards 4] [--ray]

Sharded results are checked equal to the single index's for every query before anything is timed."""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ALPHA = 0.8
N_WORDS = 100_000  # Zipf over the 100k most frequent GloVe words
CLASSES = {  # 2-token patterns by the frequency rank of their words, fixed before measuring
    "rare": (8000, 9000),
    "medium": (800, 900),
    "frequent": (10, 30),
}


def median_latency(search, pattern: str, repeats: int) -> float:
    search(pattern)  # warm: page cache, lazy arrays, worker start-up
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        search(pattern)
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def folder_bytes(p: Path) -> int:
    return sum(f.stat().st_size for f in p.rglob("*") if f.is_file())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=float, nargs="+", default=[1e6, 1e7])
    ap.add_argument("--full", action="store_true", help="add N = 1e8 (about 2 GB of disk, minutes)")
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--ray", action="store_true", help="also time the Ray backend (one actor per shard)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    sizes = sorted({int(s) for s in args.sizes + ([1e8] if args.full else [])})

    from iclr25.softmatcha import Index, load_embeddings, zipf_corpus
    from iclr25.softmatcha.sharded import ShardedIndex
    emb = load_embeddings()
    words = list(emb.words[1:N_WORDS + 1])
    patterns = {c: f"{words[a]} {words[b]}" for c, (a, b) in CLASSES.items()}
    backends = ["serial", "process1", "process2"] + (["ray"] if args.ray else [])
    rows = []
    work = Path(tempfile.mkdtemp(prefix="sm-scaling-"))
    try:
        for n in sizes:
            rng = np.random.default_rng([args.seed, n])
            ids, lens = zipf_corpus(n, N_WORDS, rng)
            t0 = time.perf_counter()
            single = Index.from_token_ids(ids, lens, words, work / f"one-{n}", emb)
            build_s = time.perf_counter() - t0
            sharded = ShardedIndex.from_token_ids(ids, lens, words, work / f"sh-{n}", emb,
                                                  n_shards=args.shards)
            del ids, lens
            bpt = single.bytes_per_token()
            for c, p in patterns.items():
                same = np.array_equal(sharded.search(p, ALPHA).positions, single.search(p, ALPHA).positions)
                assert same, f"sharded != single for the {c} query"
            row = {"n": n, "build_s": build_s, "bytes_per_token": bpt,
                   "disk_mb": folder_bytes(work / f"one-{n}") / 2**20}
            for c, p in patterns.items():
                row[("hits", c)] = single.count(p, ALPHA)
                row[("single", c)] = median_latency(lambda q, ix=single: ix.search(q, ALPHA), p, args.repeats)
            for b in backends:
                kind, workers = ("process", int(b[-1])) if b.startswith("process") else (b, None)
                sh = ShardedIndex.load(sharded.path, embeddings=emb, backend=kind, workers=workers or 1)
                try:
                    for c, p in patterns.items():
                        row[(b, c)] = median_latency(lambda q, sh=sh: sh.search(q, ALPHA), p, args.repeats)
                finally:
                    sh.close()
            rows.append(row)
            shutil.rmtree(work / f"one-{n}")
            shutil.rmtree(work / f"sh-{n}")
            print(f"  measured N = {n:.0e}", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if args.ray:
            import ray
            ray.shutdown()

    print(f"SoftMatcha scaling: Zipf(1.0) over {N_WORDS:,} GloVe words, alpha = {ALPHA}, "
          f"{args.shards} shards, median of {args.repeats} (ms)")
    head = f"{'N':>6} {'class':>9} {'hits':>9} {'single':>8} " + " ".join(f"{b:>9}" for b in backends)
    print(head + f" {'1->2 workers':>13}")
    for r in rows:
        for c in CLASSES:
            lat = " ".join(f"{1000 * r[(b, c)]:>9.2f}" for b in backends)
            speed = r[("process1", c)] / r[("process2", c)]
            print(f"{r['n']:>6.0e} {c:>9} {r[('hits', c)]:>9,} {1000 * r[('single', c)]:>8.2f} {lat} "
                  f"{speed:>12.2f}x")
    print(f"\n{'N':>6} {'build s':>8} {'B/token':>8} {'disk MB':>8}")
    for r in rows:
        print(f"{r['n']:>6.0e} {r['build_s']:>8.1f} {r['bytes_per_token']:>8.2f} {r['disk_mb']:>8.1f}")
    if len(rows) >= 2:
        ns = np.log10([r["n"] for r in rows])
        big = rows[-1]
        print(f"\nprojection to N = 1e9 from N = {big['n']:.0e} "
              "(log-log slope of latency vs N):")
        print(f"  index size ~ {1e9 * big['bytes_per_token'] / 2**30:.1f} GiB "
              f"({big['bytes_per_token']:.2f} B/token)")
        for c in CLASSES:
            for b in ("single", "process2"):
                lat = np.log10([r[(b, c)] for r in rows])
                slope = float(np.polyfit(ns, lat, 1)[0])
                proj = big[(b, c)] * (1e9 / big["n"]) ** slope
                print(f"  {c:>9} {b:>9}: slope {slope:+.2f}, projected latency {1000 * proj:,.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
