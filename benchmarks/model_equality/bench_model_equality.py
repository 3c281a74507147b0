"""Model equality testing benchmarks, measured in one run and printed as ratios.

1. Time per statistic at N = 250 per side (m = 25 prompts x 10) and L in {50, 200, 1000}: Hamming in
   counting form vs Gram form vs all-substrings.
2. The cost of a p-value: null simulation (B = 1000, fresh and cached) vs permutation (B = 1000).
3. Peer: the official `model-equality-testing` package (PyPI 0.0.2) on the same samples. The statistics
   must agree (we use its normalisation, denominator="pairs"), and we time both.

Run: .venv/bin/python benchmarks/model_equality/bench_model_equality.py [--quick]
"""

from __future__ import annotations

import sys
import time

import numpy as np

from iclr25.core.runtime import pin_threads
from iclr25.model_equality import (
    AllSubstringsMMD,
    Chi2Stat,
    CompletionSample,
    HammingMMD,
    HammingMMDGram,
    L1Stat,
    NullSimulator,
    empirical_pvalue,
    permutation_null,
)
from iclr25.model_equality.encoding import concat

M, PER_PROMPT = 25, 10


def synthetic(rng: np.random.Generator, n_per_prompt: int, L: int, vocab: int = 30, shift: float = 0.0):  # noqa: N803
    """Completions from a per-prompt first-order Markov chain; lengths vary (padded), some repeat."""
    rows, prompts = [], []
    for x in range(M):
        prng = np.random.default_rng([x, 99])
        trans = prng.dirichlet(np.full(vocab, 0.3), size=vocab)
        trans = (1 - shift) * trans + shift * np.roll(trans, 1, axis=1)
        for _ in range(n_per_prompt):
            length = int(rng.integers(L // 2, L + 1))
            s = [int(rng.integers(vocab))]
            u = rng.random(length)
            for t in range(1, length):
                s.append(int(np.searchsorted(np.cumsum(trans[s[-1]]), u[t] * 0.999999)))
            row = np.full(L, -1)
            row[:length] = s
            rows.append(row)
            prompts.append(x)
    return CompletionSample(np.array(prompts), np.array(rows), M)


def best_of(fn, repeat: int = 3) -> tuple[float, float]:
    """(value, min seconds over `repeat` calls)."""
    times, val = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        val = fn()
        times.append(time.perf_counter() - t0)
    return val, min(times)


def _load_official():
    """The official package's modules, or None. Its __init__ imports `transformers` (for its dataset
    loader, an undeclared dependency we do not need), so we register the package without running
    __init__ and import only the modules with the statistics and p-values."""
    import importlib
    import importlib.util
    import types
    if "model_equality_testing" not in sys.modules:
        spec = importlib.util.find_spec("model_equality_testing")
        if spec is None:
            return None
        pkg = types.ModuleType("model_equality_testing")
        pkg.__path__ = list(spec.submodule_search_locations)
        sys.modules["model_equality_testing"] = pkg
    return (importlib.import_module("model_equality_testing.distribution"),
            importlib.import_module("model_equality_testing.tests"),
            importlib.import_module("model_equality_testing.pvalue"))


def official(p: CompletionSample, q: CompletionSample):
    mods = _load_official()
    if mods is None:
        return None
    ocs = mods[0].CompletionSample
    return ocs(p.prompt_ids, p.completions, M), ocs(q.prompt_ids, q.completions, M), mods[1].IMPLEMENTED_TESTS


def main(quick: bool) -> None:
    pin_threads()
    rng = np.random.default_rng(0)
    lengths = (50, 200) if quick else (50, 200, 1000)
    print(f"== 1. time per statistic, N = {M * PER_PROMPT} per side (m = {M}), one thread")
    print(f"{'L':>5} {'hamming count':>14} {'hamming Gram':>13} {'all-substr':>11} {'official ham':>13}"
          f" {'Gram/count':>11} {'allsub/count':>13} {'official/ours':>14} {'|diff| vs official':>19}")
    for L in lengths:  # noqa: N806
        p, q = synthetic(rng, PER_PROMPT, L), synthetic(rng, PER_PROMPT, L, shift=0.2)
        v_count, t_count = best_of(lambda p=p, q=q: HammingMMD("pairs")(p, q))
        v_gram, t_gram = best_of(lambda p=p, q=q: HammingMMDGram("pairs")(p, q), repeat=1)
        assert abs(v_count - v_gram) <= 1e-12, (v_count, v_gram)
        _, t_all = best_of(lambda p=p, q=q: AllSubstringsMMD("pairs")(p, q), repeat=1)
        off = official(p, q)
        if off:
            op, oq, tests = off
            v_off, t_off = best_of(lambda op=op, oq=oq, tests=tests: tests["mmd_hamming"](op, oq), repeat=1)
            diff, ratio = abs(v_off - v_count), t_off / t_count
        else:
            t_off, diff, ratio = float("nan"), float("nan"), float("nan")
        print(f"{L:>5} {t_count * 1e3:>12.2f}ms {t_gram * 1e3:>11.1f}ms {t_all:>10.2f}s "
              f"{t_off * 1e3:>11.1f}ms {t_gram / t_count:>10.0f}x {t_all / t_count:>12.0f}x "
              f"{ratio:>13.0f}x {diff:>19.2e}")

    print("\n== 1b. memory: Gram matrix of the pooled rows vs the counting form's key table")
    for L in lengths:  # noqa: N806
        p, q = synthetic(rng, PER_PROMPT, L), synthetic(rng, PER_PROMPT, L, shift=0.2)
        prep = HammingMMD().prepare(concat(p, q))
        rows = p.N + q.N
        gram_b, count_b = rows * rows * 8, prep.keys.nbytes + prep.n_keys * 8 * 2
        print(f"L = {L:>4}: Gram {gram_b / 1e6:.2f} MB (grows as N^2), counts {count_b / 1e6:.2f} MB "
              f"(grows as N L) -> {gram_b / count_b:.1f}x")

    print("\n== 2. cost of one p-value, Hamming, N = 250 per side, L = 50, B = 1000")
    pool = synthetic(rng, 60, 50)
    q = synthetic(rng, PER_PROMPT, 50, shift=0.1)
    p = pool.subset(np.flatnonzero(np.arange(pool.N) % 60 < PER_PROMPT))
    stat = HammingMMD()
    (obs, null_perm), t_perm = best_of(
        lambda: permutation_null(stat, p, q, 1000, np.random.default_rng(1)), 1)
    sim = NullSimulator(pool, stat, b=1000, seed=0)
    null_sim, t_null = best_of(lambda: sim.null_fixed(p.counts(), q.counts()), 1)  # fresh: simulates
    _, t_cached = best_of(lambda: empirical_pvalue(stat(p, q), sim.null_fixed(p.counts(), q.counts())))
    print(f"permutation {t_perm:.3f}s  null simulation (fresh) {t_null:.3f}s  cached null + statistic "
          f"{t_cached * 1e3:.2f}ms")
    print(f"permutation / fresh null = {t_perm / t_null:.2f}x; permutation / cached null = "
          f"{t_perm / t_cached:.0f}x  (p: permutation {empirical_pvalue(obs, null_perm):.4f}, "
          f"null {empirical_pvalue(obs, null_sim):.4f})")

    off = official(p, q)
    print("\n== 3. peer: model-equality-testing 0.0.2 on the same samples (L = 50)")
    if off is None:
        print("model-equality-testing is not installed (pip install model-equality-testing==0.0.2); skipped")
        return
    op, oq, tests = off
    pairs = [("hamming", HammingMMD("pairs"), "mmd_hamming"), ("l1", L1Stat(), "two_sample_L1"),
             ("chi2", Chi2Stat(), "two_sample_chi_squared"),
             ("all_substrings", AllSubstringsMMD("pairs"), "mmd_all_subsequences")]
    print(f"{'statistic':>15} {'ours':>12} {'official':>12} {'|diff|':>9} {'ours s':>9} {'official s':>11}"
          f" {'speed-up':>9}")
    for name, ours, theirs in pairs:
        v1, t1 = best_of(lambda ours=ours: ours(p, q), repeat=1)
        v2, t2 = best_of(lambda theirs=theirs: tests[theirs](op, oq), repeat=1)
        rel = abs(v1 - v2) / max(1.0, abs(v2))
        assert rel < 1e-9, (name, v1, v2)
        print(f"{name:>15} {v1:>12.6g} {v2:>12.6g} {abs(v1 - v2):>9.1e} {t1:>9.4f} {t2:>11.4f} "
              f"{t2 / t1:>8.0f}x")
    two_sample_permutation_pvalue = _load_official()[2].two_sample_permutation_pvalue
    b_off = 50
    _, t_offp = best_of(lambda: two_sample_permutation_pvalue(op, oq, b=b_off, stat_type="mmd_hamming"), 1)
    per_ours, per_off = t_perm / 1000, t_offp / b_off
    print(f"permutation p-value, per permutation: ours {per_ours * 1e3:.2f}ms, official "
          f"{per_off * 1e3:.1f}ms (b = {b_off}) -> {per_off / per_ours:.0f}x")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
