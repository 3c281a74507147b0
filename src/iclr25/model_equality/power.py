"""Power by Monte Carlo (paper §4): draw N reference and N API pairs from completion pools (prompts
i.i.d. from the task), test against the cached simulated null, and count rejections."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iclr25.model_equality.encoding import CompletionSample, concat
from iclr25.model_equality.pvalues import NullSimulator, PoolSampler, empirical_pvalue, iid_counts
from iclr25.model_equality.statistics import Statistic, get_statistic


@dataclass(frozen=True)
class PowerResult:
    power: float  # rejection rate at level alpha
    sims: int
    pvalues: np.ndarray
    statistics: np.ndarray | None = None  # the observed statistic of each simulation
    alpha: float = 0.05

    @property
    def rejections(self) -> np.ndarray:
        """0/1 per simulation: what a rule's share reads."""
        return (self.pvalues <= self.alpha).astype(np.int64)

    @property
    def stderr(self) -> float:
        return float(np.sqrt(self.power * (1 - self.power) / max(self.sims, 1)))


def estimate_power(pool_p: CompletionSample, pool_q: CompletionSample, n: int,
                   statistic: str | Statistic = "hamming", sims: int = 100, b: int = 1000,
                   alpha: float = 0.05, seed: int = 0, null: NullSimulator | None = None,
                   prepared=None) -> PowerResult:
    """Rejection rate of the test of P (pool_p) against Q (pool_q) with N = n pairs each side.

    Pass the same `null` for every alternative: it is simulated once and cached. With pool_q an
    independent pool of P itself, the result is the false-positive rate; with finite pools that rate
    holds the level only when the null is two-pool (`NullSimulator(pool_p, pool_q=<another pool of P>)`).
    The draws depend only on (seed, n), so two statistics, or two truncations of the same pools, see the
    same rows in every simulation: their rejections are paired. `prepared`
    may carry `statistic.prepare(concat(pool_p, pool_q))` to reuse it across several n.

    >>> from iclr25.model_equality.encoding import encode_chars
    >>> rng = np.random.default_rng(0)
    >>> a = CompletionSample(np.repeat([0, 1], 60), encode_chars(rng.choice(["ab", "ba"], 120), 2), 2)
    >>> b = CompletionSample(np.repeat([0, 1], 60), encode_chars(["bb"] * 120, 2), 2)
    >>> estimate_power(a, b, n=20, sims=20, b=100).power
    1.0
    """
    stat = get_statistic(statistic)
    null = null or NullSimulator(pool_p, stat, b=b, seed=seed)
    null_stats = null.null_iid(n, n)
    prep = prepared if prepared is not None else stat.prepare(concat(pool_p, pool_q))
    sp, sq = PoolSampler(pool_p), PoolSampler(pool_q)
    rng = np.random.default_rng([seed, 3, n])
    draws_p = sp.draw_batch(rng.multinomial(n, np.full(pool_p.m, 1.0 / pool_p.m), size=(sims, 1)), rng)
    draws_q = sq.draw_batch(rng.multinomial(n, np.full(pool_q.m, 1.0 / pool_q.m), size=(sims, 1)), rng)
    pvals, stats = np.empty(sims), np.empty(sims)
    for s, ((idx_p,), (idx_q,)) in enumerate(zip(draws_p, draws_q, strict=True)):
        stats[s] = stat.value(prep, idx_p, pool_p.N + idx_q)
        pvals[s] = empirical_pvalue(stats[s], null_stats)
    return PowerResult(float(np.mean(pvals <= alpha)), sims, pvals, stats, alpha)


def audit_endpoint(ref_pools: list[CompletionSample], pool_q: CompletionSample, n: int, reps: int,
                   alpha: float, nulls: list[NullSimulator], seed: int = 0) -> float:
    """Share of `reps` audits in which the composite test rejects: each audit draws N pairs from the
    endpoint and N from every reference, and rejects iff every reference's p-value is <= alpha (§5)."""
    stat = nulls[0].stat
    preps = [stat.prepare(concat(r, pool_q)) for r in ref_pools]
    samplers = [PoolSampler(r) for r in ref_pools]
    sq = PoolSampler(pool_q)
    rng = np.random.default_rng([seed, 5, n])
    rejects = 0
    for _ in range(reps):
        (idx_q,) = sq.draw([iid_counts(n, pool_q.m, rng)], rng)
        pvals = []
        for r, prep, sp, null in zip(ref_pools, preps, samplers, nulls, strict=True):
            (idx_p,) = sp.draw([iid_counts(n, r.m, rng)], rng)
            obs = stat.value(prep, idx_p, r.N + idx_q)
            pvals.append(empirical_pvalue(obs, null.null_iid(n, n)))
        rejects += max(pvals) <= alpha
    return rejects / max(reps, 1)
