"""Side-by-side timings for rm_bench, measured in one run and printed as ratios (spec §7).

    .venv/bin/python benchmarks/rm_bench/bench_rm_bench.py

1. The style-substance matrix at 10,000 items: vectorised (numpy broadcast) vs a per-item Python loop
   (what rewardbench-style scripts do); also checks they agree.
2. MiniLM vectors of 128 texts: recompute vs cache hit.
3. Scorer throughput (responses/s, CPU seconds): length, markdown, TF-IDF BT (5-fold CV incl. training),
   MiniLM relevance (uncached) and SmolLM2 token log-probs (uncached; 256-token cut).
"""

from __future__ import annotations

import os
import tempfile
import time

import numpy as np

from iclr25.core.runtime import pin_threads


def cpu(fn) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def loop_matrix(ch: np.ndarray, rej: np.ndarray) -> np.ndarray:
    m = np.zeros((3, 3))
    for c, r in zip(ch.tolist(), rej.tolist(), strict=True):
        for i in range(3):
            for j in range(3):
                m[i, j] += c[i] > r[j]
    return 100 * m / len(ch)


def bench_matrix(n: int = 10_000) -> None:
    from iclr25.rm_bench.metric import style_matrix
    rng = np.random.default_rng(0)
    ch, rej = rng.normal(size=(n, 3)), rng.normal(size=(n, 3))
    assert np.allclose(style_matrix(ch, rej), loop_matrix(ch, rej))
    t_vec = min(cpu(lambda: style_matrix(ch, rej)) for _ in range(5))
    t_loop = min(cpu(lambda: loop_matrix(ch, rej)) for _ in range(2))
    print(f"matrix, {n:,} items: vectorised {t_vec * 1e3:.2f} ms, per-item loop {t_loop * 1e3:.1f} ms "
          f"-> loop/vectorised = {t_loop / max(t_vec, 1e-9):.0f}x")


def bench_cache(items) -> None:
    from iclr25.rm_bench.embed import minilm_vectors
    texts = [it.chosen[2] for it in items[:128]]
    old = os.environ.get("ICLR25_CACHE")
    os.environ["ICLR25_CACHE"] = tempfile.mkdtemp(prefix="rmb-bench-")  # a cold cache for this test only
    try:
        minilm_vectors(texts[:2])  # load the encoder once outside the timing
        t_miss = cpu(lambda: minilm_vectors(texts))
        t_hit = cpu(lambda: minilm_vectors(texts))
    finally:
        if old is None:
            os.environ.pop("ICLR25_CACHE")
        else:
            os.environ["ICLR25_CACHE"] = old
    print(f"MiniLM, 128 markdown answers at 128 word pieces: recompute {t_miss:.2f} s, cache hit "
          f"{t_hit * 1e3:.1f} ms -> recompute/hit = {t_miss / max(t_hit, 1e-6):.0f}x")


def bench_scorers(items) -> None:
    from iclr25.rm_bench.bt import BTRewardModel
    from iclr25.rm_bench.implicit import DPOImplicitScorer, _smollm2, _smollm2_shard
    from iclr25.rm_bench.metric import item_scores
    from iclr25.rm_bench.scorers import Length, Markdown, MiniLMRelevance
    small = items[:4]
    rows = {
        "length": (Length(), items),
        "markdown": (Markdown(), items),
        "bt-tfidf (5-fold CV, training included)": (BTRewardModel("tfidf"), items),
        "minilm relevance (uncached)": (MiniLMRelevance(128), items[:24]),
        "smollm2 log-probs (uncached)": (DPOImplicitScorer(lambda p, r: _smollm2_shard((p, r, 256))), small),
    }
    _smollm2()
    MiniLMRelevance(128)(["warm"], ["up"])
    base = None
    for name, (scorer, its) in rows.items():
        t = cpu(lambda s=scorer, i=its: item_scores(s, i))
        rate = 6 * len(its) / max(t, 1e-9)
        base = base or rate
        print(f"{name:<42} {6 * len(its):>6} responses {t:8.2f} s CPU {rate:10.1f} responses/s "
              f"(length/this = {base / rate:,.0f}x)")


def main() -> None:
    pin_threads()
    from iclr25.core.data import shared_data
    from iclr25.rm_bench.data import load_rmbench
    bench_matrix()
    folder = shared_data("03-rm-bench")
    if folder is None:
        print("scorer timings: n/a (needs shared/data/03-rm-bench)")
        return
    items = load_rmbench(folder, ["chat", "code", "safety"])
    bench_cache(items)
    bench_scorers(items)


if __name__ == "__main__":
    main()
