"""How many samples do I need? The test's power against the user's own API sample as a function of N,
estimated by subsampling the user's two files (issue #48): the reference sample and the null come from
the reference file, the API sample from the API file, with n completions per prompt each (N = n m)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from iclr25.core.errors import UserError
from iclr25.model_equality.encoding import CompletionSample, concat
from iclr25.model_equality.pvalues import NullSimulator, PoolSampler, empirical_pvalue
from iclr25.model_equality.statistics import Statistic, get_statistic


@dataclass(frozen=True)
class PowerPoint:
    n_per_prompt: int
    N: int  # noqa: N815 - the paper's name
    power: float
    stderr: float
    sims: int


def largest_n(ref: CompletionSample, api: CompletionSample) -> int:
    """The most completions per prompt the files allow: the null needs 2n per prompt from the reference
    file (two disjoint samples), the API sample n per prompt from the API file."""
    return int(min((ref.counts() // 2).min(), api.counts().min()))


def default_ns(n_max: int, points: int = 8) -> list[int]:
    """About `points` per-prompt counts from 1 to n_max, spaced geometrically.

    >>> default_ns(40)
    [1, 2, 3, 5, 8, 14, 24, 40]
    """
    if n_max < 1:
        return []
    grid = np.unique(np.round(np.geomspace(1, n_max, min(points, n_max))).astype(int))
    return [int(x) for x in grid]


def power_curve(ref: CompletionSample, api: CompletionSample, statistic: str | Statistic = "hamming",
                ns: list[int] | None = None, sims: int = 100, b: int = 500, alpha: float = 0.05,
                seed: int = 0, progress: bool = True) -> list[PowerPoint]:
    """Power (rejection rate at level alpha, with its Monte-Carlo standard error) at each n per prompt.

    >>> from iclr25.model_equality.encoding import encode_chars
    >>> ref = CompletionSample(np.repeat([0, 1], 30), encode_chars(["ab", "ba"] * 30, 2), 2)
    >>> api = CompletionSample(np.repeat([0, 1], 15), encode_chars(["ab"] * 30, 2), 2)
    >>> [round(p.power, 1) for p in power_curve(ref, api, ns=[1, 10], sims=40, b=100, progress=False)]
    [0.0, 1.0]
    """
    from iclr25.core.runtime import progress as bar
    if ref.m != api.m:
        raise UserError(f"the two files cover different prompt sets (m = {ref.m} vs {api.m})")
    stat = get_statistic(statistic)
    n_max = largest_n(ref, api)
    if n_max < 1:
        raise UserError("the files are too small: each prompt needs at least 2 reference and 1 API "
                        "completions")
    ns = default_ns(n_max) if ns is None else sorted(set(int(n) for n in ns))
    too_big = [n for n in ns if n > n_max or n < 1]
    if too_big:
        raise UserError(f"n = {too_big[0]} per prompt is not possible with these files: at most {n_max} (the "
                        "null needs 2n reference completions per prompt, the API sample n)")
    prep = stat.prepare(concat(ref, api))
    null = NullSimulator(ref, stat, b=b, seed=seed)
    sp, sq = PoolSampler(ref), PoolSampler(api)
    rng = np.random.default_rng([seed, 13])
    out = []
    for n in bar(ns, f"power at {len(ns)} sample sizes", disable=None if progress else True):
        counts = np.full(ref.m, n, dtype=np.int64)
        null_stats = null.null_fixed(counts, counts)
        rejects = 0
        for _ in range(sims):
            (ip,) = sp.draw([counts], rng)
            (iq,) = sq.draw([counts], rng)
            rejects += empirical_pvalue(stat.value(prep, ip, ref.N + iq), null_stats) <= alpha
        p = rejects / sims
        out.append(PowerPoint(n, n * ref.m, p, float(np.sqrt(p * (1 - p) / sims)), sims))
    return out


def needed(points: list[PowerPoint], target: float) -> PowerPoint | None:
    """The smallest N whose estimated power reaches `target` (None: not reached)."""
    return next((p for p in points if p.power >= target), None)


def plot(points: list[PowerPoint], path: Path, alpha: float, target: float, title: str) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5.6, 3.8))
    x = [p.N for p in points]
    y = np.array([p.power for p in points])
    se = np.array([p.stderr for p in points])
    err = np.stack([np.minimum(1.96 * se, y), np.minimum(1.96 * se, 1 - y)])  # clipped to [0, 1]
    ax.errorbar(x, y, yerr=err, fmt="o-", capsize=3, label="power (± 1.96 SE)")
    ax.axhline(alpha, color="grey", ls="--", lw=1, label=f"alpha = {alpha:g} (no difference)")
    ax.axhline(target, color="C2", ls=":", lw=1, label=f"target {target:.0%}")
    ax.set(xscale="log", xlabel="N (completions per side, all prompts)", ylabel="power", ylim=(-0.02, 1.02),
           title=title)
    ax.set_xticks(x, [str(v) for v in x])
    ax.minorticks_off()
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
