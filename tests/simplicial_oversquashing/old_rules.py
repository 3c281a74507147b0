"""The criteria this paper used before rules were data (commit 89e0144, `decide_*` in experiments.py),
written as rules so that their false-pass rate under no effect can be measured beside the new ones."""

from __future__ import annotations

import math

import numpy as np

from iclr25.core.claims import Verdict
from iclr25.core.rules import All, Custom, Mean, Rule, Test

MODELS = ("rgcn", "sin")
SETTINGS = [(li, rw) for li in ("none", "clique", "ring") for rw in ("none", "fosr", "sdrf")]


def _old_mutag(m) -> Verdict:
    """Old mutag_lift_rewire: for each of RGCN and SIN, REPRODUCED if plain ≥ 0.80 and the largest mean
    paired gain over the 8 lifted/rewired settings of that model exceeds 2 paired SE; the best of the two
    models' verdicts counts."""
    best = Verdict.NOT_REPRODUCED
    for mo in MODELS:
        plain = np.asarray(m[f"acc_{mo}_none_none"], float)
        gains = []
        for li, rw in SETTINGS[1:]:
            d = np.asarray(m[f"acc_{mo}_{li}_{rw}"], float) - plain
            gains.append((d.mean(), d.std(ddof=1) / math.sqrt(len(d))))
        gain, se = max(gains, key=lambda g: g[0])
        if plain.mean() >= 0.80 and gain > 0:
            v = Verdict.REPRODUCED if gain > 2 * se else Verdict.PARTIAL
            if v is Verdict.REPRODUCED or best is Verdict.NOT_REPRODUCED:
                best = v
    return best


def _old_mutag_null(rng: np.random.Generator, record) -> dict:
    """No effect: every cell of the grid from one distribution, at 0.90 (the 0.80 gate on the plain model
    is a precondition, not the effect, so the null has it passed); per split a shared split effect plus
    each cell's own noise, both at the record's spread (the paired-difference spread splits the two)."""
    cells = {k: np.asarray(v, float) for k, v in record.items() if k.startswith("acc_")}
    n = len(next(iter(cells.values())))
    level = 0.90
    total = float(np.sqrt(np.mean([v.var(ddof=1) for v in cells.values()])))
    pairs = [cells[f"acc_{mo}_{li}_{rw}"] - cells[f"acc_{mo}_none_none"] for mo in MODELS
             for li, rw in SETTINGS[1:]]
    own = min(total, float(np.sqrt(np.mean([d.var(ddof=1) for d in pairs]) / 2)))
    shared = math.sqrt(max(0.0, total**2 - own**2))
    split = rng.normal(0.0, shared, n)
    return {f"acc_{mo}_{li}_{rw}": list(level + split + rng.normal(0.0, own, n))
            for mo in MODELS for li, rw in SETTINGS}


OLD_MUTAG = Custom(_old_mutag, _old_mutag_null)

# Old lifting_shortcut: mean ring-lift accuracy ≥ 0.95 and mean graph accuracy ≤ 0.40 at n = 16 (points).
OLD_LIFTING = Rule(All(Test(Mean("acc_ring_n16_L3"), ">=", 0.95, by="point"),
                       Test(Mean("acc_none_n16_L8"), "<=", 0.40, by="point")))


def _old_rewiring(m) -> Verdict:
    """Old relational_rewiring: for SDRF or FoSR, REPRODUCED if the best mean accuracy over 1–10 pairs is
    ≥ no rewiring + 0.2 and Spearman(pairs, mean accuracy) ≥ 0.5; PARTIAL if one of the two holds."""
    from scipy.stats import spearmanr
    one = False
    for mth in ("sdrf", "fosr"):
        acc = [float(np.mean(m["acc_none_k0"]))]
        acc += [float(np.mean(m[f"acc_{mth}_k{k}"])) for k in range(1, 11)]
        gain = max(acc) >= acc[0] + 0.2
        rho = float(spearmanr(range(11), acc).statistic) if len(set(acc)) > 1 else 0.0
        if gain and rho >= 0.5:
            return Verdict.REPRODUCED
        one |= gain or rho >= 0.5
    return Verdict.PARTIAL if one else Verdict.NOT_REPRODUCED


def _old_rewiring_null(rng: np.random.Generator, record) -> dict:
    """No effect: accuracy at every pair count from one distribution (3 seeds, the record's spread)."""
    sd = 0.05
    if record:
        sd = float(np.std(record.get("acc_none_k0", [0.2, 0.25, 0.15]), ddof=1)) or 0.05
    base = rng.normal(0.2, sd, 3)
    out = {"acc_none_k0": list(base)}
    for mth in ("sdrf", "fosr"):
        for k in range(1, 11):
            out[f"acc_{mth}_k{k}"] = list(0.2 + rng.normal(0.0, sd, 3))
    return out


OLD_REWIRING = Custom(_old_rewiring, _old_rewiring_null)
