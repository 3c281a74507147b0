"""How the decision threshold is chosen: on synthetic data only, by one stated rule, so that the real data
sets it is then scored on stay held out (issue #46: the old 0.33 was read off the real sets themselves).

Rule: among all thresholds t, take those maximising the balanced accuracy on labelled calibration
statistics, ½·(share of causal sets with s < t) + ½·(share of anticausal sets with s ≥ t); the maximisers
form gaps between consecutive sorted statistics; take the midpoint of the widest such gap (the lowest one
on a tie). The same rule chooses the threshold of any statistic (the normalised slope, the no-injection
agreement beyond chance)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from iclr25.core.errors import UserError

# the synthetic calibration grid: (family, d, C); the anticausal family needs C <= d
CALIBRATION_DIMS = (2, 4, 16, 64)
CALIBRATION_CLASSES = (2, 4)
CALIBRATION_GRID = tuple((fam, d, C) for fam in ("causal", "anticausal") for d in CALIBRATION_DIMS
                         for C in CALIBRATION_CLASSES if fam == "causal" or d >= C)


def balanced_accuracy(causal: Sequence[float], anticausal: Sequence[float], t: float) -> float:
    """½·P(causal statistic < t) + ½·P(anticausal statistic ≥ t)."""
    c, a = np.asarray(causal, float), np.asarray(anticausal, float)
    return 0.5 * float(np.mean(c < t)) + 0.5 * float(np.mean(a >= t))


def choose_threshold(causal: Sequence[float], anticausal: Sequence[float]) -> float:
    """The module's rule: the midpoint of the widest gap between consecutive sorted statistics that
    maximises balanced accuracy (ties: the lowest).

    >>> choose_threshold([0.0, 0.1, 0.2], [0.5, 0.6, 0.9])
    0.35
    >>> choose_threshold([0.0, 0.1, 0.6], [0.5, 0.7, 0.9])   # two maximising gaps: the wider one
    0.3
    """
    c, a = np.asarray(causal, float), np.asarray(anticausal, float)
    if c.size == 0 or a.size == 0 or not (np.isfinite(c).all() and np.isfinite(a).all()):
        raise UserError("the threshold needs finite statistics of both kinds (causal and anticausal)")
    v = np.unique(np.concatenate([c, a]))  # sorted, distinct
    # candidate thresholds: one per gap, at its midpoint; below the smallest and above the largest value
    lows = np.concatenate([[v[0] - 1.0], v])
    highs = np.concatenate([v, [v[-1] + 1.0]])
    mids = (lows + highs) / 2
    scores = np.array([balanced_accuracy(c, a, t) for t in mids])
    best = np.flatnonzero(np.isclose(scores, scores.max()))
    widths = (highs - lows)[best]
    widths[(best == 0) | (best == len(mids) - 1)] = 0.0  # the open ends have no width to speak of
    return float(round(mids[best[int(np.argmax(widths))]], 6))


def agreement_beyond_chance(agreement: float, n_classes: int) -> float:
    """(agreement − 1/C)/(1 − 1/C): 0 for chance, 1 for clusters equal to the labels; under symmetric
    injection this is exactly RoCA's normalised slope (roca's module docstring)."""
    return (agreement - 1.0 / n_classes) / (1.0 - 1.0 / n_classes)
