"""Planner time per MuSE query (pyperplan, LAPKT 1-BFWS, Fast Downward via unified-planning) as a share of
the executors' time, measured in one run; also every shipped action alone with every planner (plans must
agree on length). The paper's trace: 0.91 s problem+plan vs 6.89 s execution; target: planner < 1 %.

    .venv/bin/python benchmarks/hive/bench_hive.py [--queries 8]

Needs ../shared/data/07-hive (MuSE, the PDDL domains); prints n/a without it.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from iclr25.core.runtime import pin_threads

PLANNERS = ("pyperplan", "lapkt-bfws", "fast-downward")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=8, help="multi-task MuSE queries with real executors")
    args = ap.parse_args()
    pin_threads()
    from iclr25.hive.backends import MiniLM
    from iclr25.hive.executors import REAL, local_cards
    from iclr25.hive.hive import Hive, HiveConfig
    from iclr25.hive.muse import data_root, load_domains, load_queries
    from iclr25.hive.planners import plan
    from iclr25.hive.registry import Registry
    from iclr25.hive.tasks import problem_for
    root = data_root()
    if root is None:
        print("n/a: ../shared/data/07-hive is absent")
        return
    domains, queries = load_domains(), load_queries()

    lengths = {}
    for p in PLANNERS:
        plan(*_one(domains, "audio", "audio_to_text", problem_for), p)  # warm-up (imports, first binary load)
        lengths[p] = [len(plan(d, problem_for(d, [a.name]), p).steps)
                      for d in domains.values() for a in d.actions]
    agree = all(lengths[p] == lengths["pyperplan"] for p in PLANNERS)
    print(f"28 single actions: every planner returns 1-step plans: "
          f"{all(x == 1 for v in lengths.values() for x in v)}; planners agree on length: {agree}")

    reg = Registry(local_cards())
    hive = Hive(MiniLM(), reg, domains, config=HiveConfig(planner="pyperplan", max_seconds=5.0))
    base = root / "MuSE_Benchmark"
    picked = [q for q in queries if len(q.tasks) > 1 and q.idx not in (30, 91)
              and any(a in REAL for a in q.actions)][:args.queries]
    rows = []
    with tempfile.TemporaryDirectory() as out:
        for q in picked:
            res = hive.run(q.text, base_dir=base, out_dir=out, actions=q.actions)
            dom = _merged(domains, q)
            prob = problem_for(dom, q.actions)
            times = {}
            for p in PLANNERS:
                t0 = time.perf_counter()
                plan(dom, prob, p)
                times[p] = time.perf_counter() - t0
            rows.append((q.idx, res.timings["execution_s"], times))
    print(f"{'idx':>4} {'exec s':>7} " + " ".join(f"{p:>14}" for p in PLANNERS) + "  (planner share of exec)")
    for idx, ex, times in rows:
        cells = " ".join(f"{times[p]:>7.3f}s {times[p] / ex:>5.1%}" for p in PLANNERS)
        print(f"{idx:>4} {ex:>7.2f} {cells}")
    med = {p: statistics.median(t[p] / ex for _, ex, t in rows) for p in PLANNERS}
    print("median planner/executor ratio: " + ", ".join(f"{p} {v:.2%}" for p, v in med.items())
          + f" (paper trace: problem+plan/execution = {0.91 / 6.89:.1%}, planning alone ~0.1 ms)")


def _one(domains, dname, action, problem_for):
    d = domains[dname]
    return d, problem_for(d, [action])


def _merged(domains, q):
    from iclr25.hive.pddl import merge_domains
    from iclr25.hive.tasks import domains_of
    return merge_domains([domains[d] for d in domains_of(q.actions, domains)])


if __name__ == "__main__":
    main()
