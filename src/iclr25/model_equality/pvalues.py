"""p-values for one-sided two-sample tests (paper App. A.2), both with the (1 + #>=) / (1 + B) correction:
simulating the statistic under the null from reference samples (a cached null, reused across every
alternative with the same task and sample sizes), or permuting the pooled rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from iclr25.core.errors import UserError
from iclr25.model_equality.encoding import CompletionSample, concat
from iclr25.model_equality.statistics import Statistic, get_statistic

PVALUE_METHODS = ("permutation", "null")


def empirical_pvalue(observed: float, null: np.ndarray) -> float:
    """(1 + #{null >= observed}) / (1 + B); ties within float noise count as >=, so a statistic that
    is constant under the null (one-hot with no repeats) gets p = 1.

    >>> empirical_pvalue(3.0, np.array([1.0, 2.0, 3.0, 4.0]))
    0.6
    """
    null = np.asarray(null, dtype=np.float64)
    tol = 1e-12 * max(1.0, abs(observed))
    return float((1 + np.count_nonzero(null >= observed - tol)) / (1 + null.size))


def permutation_null(stat: Statistic, p: CompletionSample, q: CompletionSample, b: int,
                     rng: np.random.Generator, stratified: bool = True) -> tuple[float, np.ndarray]:
    """Observed statistic and B statistics of random relabellings of the pooled rows.

    `stratified=True` (default) shuffles the P/Q labels within each prompt, keeping every prompt's
    counts: under H0 rows of one prompt are exchangeable, and Eq. 4's N(N-1) denominators make the
    statistic depend on how balanced the counts are, so a global shuffle (the reference code's, which
    lets the prompt id travel with its row) would make a balanced design look too similar (p near 1).
    """
    pooled = concat(p, q)
    prep = stat.prepare(pooled)
    n = pooled.N
    obs = stat.value(prep, np.arange(p.N), p.N + np.arange(q.N))
    x = pooled.prompt_ids
    if stratified:
        xs = np.sort(x)
        starts = np.concatenate([[0], np.cumsum(np.bincount(x, minlength=p.m))[:-1]])
        to_p = (np.arange(n) - starts[xs]) < p.counts()[xs]  # first c_P(x) rows of each prompt go to P
    null = np.empty(b)
    for i in range(b):
        if stratified:
            order = np.argsort(x + rng.random(n), kind="stable")  # grouped by prompt, shuffled within
            null[i] = stat.value(prep, order[to_p], order[~to_p])
        else:
            perm = rng.permutation(n)
            null[i] = stat.value(prep, perm[: p.N], perm[p.N:])
    return obs, null


class PoolSampler:
    """Draws samples from a pool of completions, per prompt and without replacement, so that two
    draws in one call never share a row (a shared row would be a spurious exact repeat)."""

    def __init__(self, pool: CompletionSample) -> None:
        self.pool = pool
        self.sizes = pool.counts()
        k_max = max(int(self.sizes.max()), 1) if pool.m else 1
        self.table = np.full((pool.m, k_max), -1, dtype=np.int64)  # (m, K_max) pool rows per prompt
        order = np.argsort(pool.prompt_ids, kind="stable")
        starts = np.concatenate([[0], np.cumsum(self.sizes)[:-1]])
        col = np.arange(pool.N) - starts[pool.prompt_ids[order]]
        self.table[pool.prompt_ids[order], col] = order

    def draw(self, counts: list[np.ndarray], rng: np.random.Generator) -> list[np.ndarray]:
        """For each count vector (m,), indices into the pool, disjoint across the vectors."""
        return self.draw_batch(np.stack([np.asarray(c, dtype=np.int64) for c in counts])[None], rng)[0]

    def draw_batch(self, counts: np.ndarray, rng: np.random.Generator) -> list[list[np.ndarray]]:
        """`draw` for S independent simulations at once: counts (S, k, m) -> S lists of k index arrays."""
        counts = np.asarray(counts, dtype=np.int64)
        S, k, m = counts.shape  # noqa: N806
        total = counts.sum(axis=1)  # (S, m)
        short = np.argwhere(total > self.sizes[None, :])
        if short.size:
            x = int(short[0][1])
            raise UserError(f"prompt {x}: the pool has {self.sizes[x]} completions but "
                            f"{total[short[0][0], x]} are needed; give more reference samples or a smaller N")
        t = int(total.max()) if total.size else 0
        if t == 0:
            return [[np.zeros(0, dtype=np.int64) for _ in range(k)] for _ in range(S)]
        # The t smallest of i.i.d. uniform keys, in key order, are a uniformly random ordered subset.
        keys = rng.random((S, *self.table.shape))
        keys[:, self.table < 0] = 2.0
        k_max = keys.shape[-1]
        part = np.argpartition(keys, t - 1, axis=-1)[..., :t] if t < k_max else \
            np.broadcast_to(np.arange(k_max), keys.shape)
        part = np.take_along_axis(part, np.argsort(np.take_along_axis(keys, part, -1), axis=-1), -1)
        rows = self.table[np.arange(m)[None, :, None], part]  # (S, m, t)
        hi = np.cumsum(counts, axis=1)  # (S, k, m)
        lo = hi - counts
        rank = np.arange(t)[None, :]
        return [[rows[s][(rank >= lo[s, j][:, None]) & (rank < hi[s, j][:, None])] for j in range(k)]
                for s in range(S)]


def iid_counts(n: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Prompt counts of n pairs whose prompts are drawn i.i.d. from the uniform task distribution."""
    return rng.multinomial(n, np.full(m, 1.0 / m))


@dataclass
class NullSimulator:
    """The statistic's null distribution, simulated by drawing both samples from the reference pool.

    Cached per sample-size design: `design="iid"` redraws prompts i.i.d. each time (the paper's
    simulation; key = (N, M)), `design="fixed"` keeps the given per-prompt counts (key = the counts).

    >>> from iclr25.model_equality.encoding import encode_chars
    >>> pool = CompletionSample(np.repeat([0, 1], 20), encode_chars(["ab", "ba"] * 20, 2), 2)
    >>> sim = NullSimulator(pool, "hamming", b=50, seed=0)
    >>> sim.null_fixed(np.array([3, 3]), np.array([3, 3])).shape
    (50,)
    """

    pool: CompletionSample
    statistic: str | Statistic = "hamming"
    b: int = 1000
    seed: int = 0
    _cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.stat = get_statistic(self.statistic)
        self.sampler = PoolSampler(self.pool)
        self._prep = None

    @property
    def prep(self):
        if self._prep is None:
            self._prep = self.stat.prepare(self.pool)
        return self._prep

    def null_iid(self, n_p: int, n_q: int) -> np.ndarray:
        key = ("iid", n_p, n_q)
        if key not in self._cache:
            rng = np.random.default_rng([self.seed, 1, n_p, n_q])
            m = self.pool.m
            self._cache[key] = self._simulate(lambda: [iid_counts(n_p, m, rng), iid_counts(n_q, m, rng)], rng)
        return self._cache[key]

    def null_fixed(self, counts_p: np.ndarray, counts_q: np.ndarray) -> np.ndarray:
        key = ("fixed", tuple(int(c) for c in counts_p), tuple(int(c) for c in counts_q))
        if key not in self._cache:
            rng = np.random.default_rng([self.seed, 2, *key[1], *key[2]])
            self._cache[key] = self._simulate(lambda: [counts_p, counts_q], rng)
        return self._cache[key]

    def _simulate(self, make_counts, rng: np.random.Generator, chunk: int = 100) -> np.ndarray:
        out = np.empty(self.b)
        for start in range(0, self.b, chunk):
            counts = np.stack([np.stack(make_counts()) for _ in range(min(chunk, self.b - start))])
            for i, (idx_p, idx_q) in enumerate(self.sampler.draw_batch(counts, rng)):
                out[start + i] = self.stat.value(self.prep, idx_p, idx_q)
        return out


@dataclass(frozen=True)
class TestResult:
    """One test's outcome: the statistic, its p-value and the decision at level alpha."""

    statistic: float
    pvalue: float
    alpha: float
    method: str
    b: int

    @property
    def reject(self) -> bool:
        return self.pvalue <= self.alpha


def two_sample_test(p: CompletionSample, q: CompletionSample, statistic: str | Statistic = "hamming",
                    pvalue: str = "permutation", b: int = 1000, alpha: float = 0.05, seed: int = 0,
                    null: NullSimulator | None = None, stratified: bool = True) -> TestResult:
    """Test H0: P(.|x) = Q(.|x) for every prompt x, from samples p (reference) and q (API).

    `pvalue="null"` needs `null`, a NullSimulator over a reference pool (separate from, or a superset of,
    p) with at least p's + q's per-prompt counts available for every prompt. `stratified` permutes
    labels within prompts (see `permutation_null`); False reproduces the reference code's global shuffle.

    >>> from iclr25.model_equality.encoding import encode_chars
    >>> p = CompletionSample(np.zeros(8, int), encode_chars(["aa"] * 8, 2), 1)
    >>> q = CompletionSample(np.zeros(8, int), encode_chars(["bb"] * 8, 2), 1)
    >>> r = two_sample_test(p, q, b=200)
    >>> r.reject, r.pvalue < 0.01
    (True, True)
    """
    _validate(p, q, b, alpha)
    stat = get_statistic(statistic)
    if pvalue == "permutation":
        obs, null_stats = permutation_null(stat, p, q, b, np.random.default_rng(seed), stratified)
    elif pvalue == "null":
        if null is None:
            raise UserError("pvalue='null' needs a NullSimulator over reference samples (null=...)")
        obs = stat(p, q)
        null_stats = null.null_fixed(p.counts(), q.counts())
        b = null.b
    else:
        raise UserError(f"unknown p-value method {pvalue!r}; choose from {', '.join(PVALUE_METHODS)}")
    return TestResult(float(obs), empirical_pvalue(obs, null_stats), alpha, pvalue, b)


def pool_test(ref_pool: CompletionSample, q: CompletionSample, statistic: str | Statistic = "hamming",
              b: int = 1000, alpha: float = 0.05, seed: int = 0) -> TestResult:
    """Null-simulation test when all you have is one pool of reference completions: the reference
    sample is a random draw from the pool with q's per-prompt counts, and the null is simulated by
    drawing disjoint pairs of such samples from the pool (needs >= 2x q's count for every prompt).
    """
    _validate(ref_pool, q, b, alpha)
    rng = np.random.default_rng([seed, 9])
    counts = q.counts()
    (idx,) = PoolSampler(ref_pool).draw([counts], rng)
    null = NullSimulator(ref_pool, statistic, b=b, seed=seed)
    PoolSampler(ref_pool).draw([counts, counts], rng)  # fail early, naming the prompt, if the pool is short
    return two_sample_test(ref_pool.subset(idx), q, statistic, "null", b, alpha, seed, null)


def composite_test(refs: list[CompletionSample], q: CompletionSample, statistic: str | Statistic = "hamming",
                   pvalue: str = "permutation", b: int = 1000, alpha: float = 0.05, seed: int = 0,
                   nulls: list[NullSimulator] | None = None) -> tuple[TestResult, list[TestResult]]:
    """Composite null H0: Q equals one of P_1..P_k (e.g. fp32 or fp16 weights; paper §5). Reject only if
    every reference is rejected; the composite p-value max_j p_j keeps level alpha.
    """
    if not refs:
        raise UserError("composite_test needs at least one reference sample")
    results = [two_sample_test(r, q, statistic, pvalue, b, alpha, seed,
                               None if nulls is None else nulls[j]) for j, r in enumerate(refs)]
    worst = max(results, key=lambda r: r.pvalue)
    return TestResult(worst.statistic, worst.pvalue, alpha, f"composite({pvalue})", b), results


def _validate(p: CompletionSample, q: CompletionSample, b: int, alpha: float) -> None:
    if p.m != q.m:
        raise UserError(f"samples cover different prompt sets (m = {p.m} vs {q.m})")
    if p.L != q.L:
        raise UserError(f"samples are padded to different lengths (L = {p.L} vs {q.L})")
    if p.N < 2 or q.N < 2:
        raise UserError(f"each sample needs at least 2 completions, got N = {p.N} and {q.N}")
    if b < 1:
        raise UserError(f"b (number of simulations) must be >= 1, got {b}")
    if not 0 < alpha < 1:
        raise UserError(f"alpha must lie in (0, 1), got {alpha}")
