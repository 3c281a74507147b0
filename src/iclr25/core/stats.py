"""Intervals for verdicts decided over several seeds or repetitions: a mean, a paired difference and a
proportion, each with its confidence interval. A verdict compares an interval's end with a bound.

The quantiles are computed here (the standard library's normal; Student's t by inverting its CDF through
the regularised incomplete beta function), so deciding a verdict needs no scipy."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist


def normal_quantile(p: float) -> float:
    """The standard normal's quantile.

    >>> round(normal_quantile(0.975), 4)
    1.96
    """
    return NormalDist().inv_cdf(p)


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz), Numerical Recipes §6.4."""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        even = m * (b - m) * x / ((qam + m2) * (a + m2))
        odd = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        for aa in (even, odd):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _beta_inc(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """Student's t distribution function.

    >>> round(t_cdf(2.0, 3), 4)
    0.9303
    """
    tail = 0.5 * _beta_inc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """Student's t quantile by bisection on its CDF (to 1e-12).

    >>> round(t_quantile(0.975, 2), 4), round(t_quantile(0.975, 30), 4)
    (4.3027, 2.0423)
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"t_quantile needs 0 < p < 1, got {p}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if t_cdf(mid, df) < p else (lo, mid)
        if hi - lo < 1e-12:
            break
    return 0.5 * (lo + hi)


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
    vals = _clean(xs)
    n = len(vals)
    if n == 0:
        raise ValueError("mean_ci needs at least one value")
    m = sum(vals) / n
    if n < 2:
        return Interval(m, -math.inf, math.inf, n, level)
    sd = math.sqrt(sum((v - m) ** 2 for v in vals) / (n - 1))
    half = t_quantile(0.5 + level / 2, n - 1) * sd / math.sqrt(n)
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
    if n <= 0 or not 0 <= k <= n:
        raise ValueError(f"proportion_ci needs 0 <= k <= n and n > 0, got k={k}, n={n}")
    z = normal_quantile(0.5 + level / 2)
    p = k / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    lo = 0.0 if k == 0 else max(0.0, centre - half)  # Wilson's ends are exactly 0 and 1 there
    hi = 1.0 if k == n else min(1.0, centre + half)
    return Interval(p, lo, hi, n, level)


def binomial_pass_rate(n: int, p_chance: float, k_needed: int) -> float:
    """P(at least k_needed successes of n) for an outcome that succeeds by chance with p_chance: how
    often a random result would pass a rule "k of n". A rule with this above 0.10 is not a test.

    >>> round(binomial_pass_rate(3, 0.5, 2), 3)
    0.5
    """
    ks = range(max(0, k_needed), n + 1)
    return float(sum(math.comb(n, k) * p_chance**k * (1 - p_chance) ** (n - k) for k in ks))
