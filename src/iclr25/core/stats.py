"""Intervals for verdicts decided over several seeds or repetitions: a mean, a paired difference and a
proportion, each with its confidence interval. A verdict compares an interval's end with a bound."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Interval:
    """A point estimate with a two-sided confidence interval [lo, hi] from n observations."""

    mean: float
    lo: float
    hi: float
    n: int
    level: float = 0.95

    def above(self, bound: float) -> bool:
        """The whole interval lies above `bound` (the difference is significant at `level`)."""
        return self.lo > bound

    def below(self, bound: float) -> bool:
        return self.hi < bound

    def excludes(self, value: float) -> bool:
        return self.above(value) or self.below(value)

    def __str__(self) -> str:
        return f"{self.mean:.4g} [{self.lo:.4g}, {self.hi:.4g}] (n={self.n})"

    def to_measured(self, name: str) -> dict[str, float | int]:
        """`{name: mean, name_lo: lo, name_hi: hi, name_n: n}` for a Finding's `measured`."""
        return {name: self.mean, f"{name}_lo": self.lo, f"{name}_hi": self.hi, f"{name}_n": self.n}


def _clean(xs: Sequence[float]) -> list[float]:
    vals = [float(x) for x in xs]
    if any(not math.isfinite(v) for v in vals):
        raise ValueError(f"interval of non-finite values: {vals}")
    return vals


def mean_ci(xs: Sequence[float], level: float = 0.95) -> Interval:
    """Student-t interval for the mean. With fewer than 2 values the interval is (-inf, inf): a single
    seed can never decide a verdict.

    >>> iv = mean_ci([1.0, 2.0, 3.0])
    >>> iv.mean, round(iv.lo, 3), round(iv.hi, 3)
    (2.0, -0.484, 4.484)
    """
    from scipy import stats
    vals = _clean(xs)
    n = len(vals)
    if n == 0:
        raise ValueError("mean_ci needs at least one value")
    m = sum(vals) / n
    if n < 2:
        return Interval(m, -math.inf, math.inf, n, level)
    sd = math.sqrt(sum((v - m) ** 2 for v in vals) / (n - 1))
    half = float(stats.t.ppf(0.5 + level / 2, n - 1)) * sd / math.sqrt(n)
    return Interval(m, m - half, m + half, n, level)


def paired_ci(a: Sequence[float], b: Sequence[float], level: float = 0.95) -> Interval:
    """Interval for the mean of a_i - b_i (the same seeds, splits or prompts on both arms).

    >>> paired_ci([3.0, 4.0, 5.0], [1.0, 2.0, 3.5]).mean
    1.8333333333333333
    """
    if len(a) != len(b):
        raise ValueError(f"paired_ci needs equal lengths, got {len(a)} and {len(b)}")
    return mean_ci([x - y for x, y in zip(_clean(a), _clean(b), strict=True)], level)


def proportion_ci(k: int, n: int, level: float = 0.95) -> Interval:
    """Wilson score interval for a proportion k/n (a power, a false-positive rate, an accuracy).

    >>> iv = proportion_ci(50, 100)
    >>> round(iv.lo, 3), round(iv.hi, 3)
    (0.404, 0.596)
    """
    from scipy import stats
    if n <= 0 or not 0 <= k <= n:
        raise ValueError(f"proportion_ci needs 0 <= k <= n and n > 0, got k={k}, n={n}")
    z = float(stats.norm.ppf(0.5 + level / 2))
    p = k / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half), n, level)


def binomial_pass_rate(n: int, p_chance: float, k_needed: int) -> float:
    """P(at least k_needed successes of n) for an outcome that succeeds by chance with p_chance: how
    often a random result would pass a rule "k of n". A rule with this above 0.10 is not a test.

    >>> round(binomial_pass_rate(3, 0.5, 2), 3)
    0.5
    """
    from scipy import stats
    return float(stats.binom.sf(k_needed - 1, n, p_chance))
