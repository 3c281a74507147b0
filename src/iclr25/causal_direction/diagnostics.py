"""Checks a user needs before trusting a call, and the label-noise diagnostic (issues #46, #52):

- `stability(X, y, ...)`: RoCA again under other clustering seeds and with each feature group left out
  (a one-hot categorical column is one group): does the call hold, and which group flips it? One
  unrelated categorical column can dominate k-means on standardised features; then the clusters follow
  that column, agreement with the labels falls to chance and "anticausal" becomes "causal".
- `near_chance(result)`: the clusters agree with the labels hardly more than permuted labels do; then
  RoCA cannot tell "X does not cluster by class" (causal) from "the clustering found other structure".
- `label_noise(X, y)`: confident learning (Northcutt et al. 2021) on out-of-fold logistic-regression
  probabilities: the estimated share of wrong labels, and the rows whose label looks wrong (suspects),
  with the classifier's accuracy beside the majority-class baseline.

Identifiability limit (documented, not fixable here): if X is clustered *and* the label is computed from
X along those clusters (X → Y with a label that follows P(X)'s clusters), the clusters track the label
exactly as in the anticausal case and RoCA calls it anticausal. Only labels that cut across the clusters
of X look causal.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from iclr25.causal_direction.pseudo_labels import Clusterer, align_clusters, cluster, standardise
from iclr25.causal_direction.roca import (
    DirectionResult,
    RoCAConfig,
    check_xy,
    direction_from_pseudo_labels,
)
from iclr25.core.errors import UserError

NEAR_CHANCE = 0.10  # agreement beyond the permuted-label agreement, as a share of what is left above it
MAX_GROUPS_LEFT_OUT = 8  # more feature groups than this: random halves of the groups instead
STABILITY_SEEDS = 3


def feature_groups(names: list[str]) -> list[list[int]]:
    """Column indices grouped by source column: one-hot columns "colour=red", "colour=blue" form one
    group (as `data.encode_features` names them); every other column is its own group."""
    groups: dict[str, list[int]] = {}
    for i, n in enumerate(names):
        groups.setdefault(n.split("=", 1)[0] if "=" in n else n, []).append(i)
    return list(groups.values())


def agreement_beyond_null(result: DirectionResult) -> float:
    """(agreement − permuted-label agreement) / (1 − permuted-label agreement): 0 at chance, 1 when the
    clusters equal the labels."""
    a, a0 = result.agreement, result.null_agreement
    return (a - a0) / (1 - a0) if a0 < 1 else 0.0


def near_chance(result: DirectionResult, bound: float = NEAR_CHANCE) -> bool:
    return agreement_beyond_null(result) < bound


@dataclass
class Stability:
    """RoCA's call under variations of the clustering: (what changed, normalised slope, call)."""

    call: str
    variants: list[tuple[str, float, str]] = field(default_factory=list)

    @property
    def agreeing(self) -> int:
        return sum(c == self.call for _, _, c in self.variants)

    @property
    def flips(self) -> list[tuple[str, float, str]]:
        return [v for v in self.variants if v[2] != self.call]

    @property
    def stable(self) -> bool:
        return not self.flips

    def __str__(self) -> str:
        if not self.variants:
            return "stability: not checked"
        text = f"stability: the same call in {self.agreeing} of {len(self.variants)} re-runs (other " \
               "k-means " \
               "seeds, feature groups left out)"
        if self.flips:
            text += "; it changes with " + "; ".join(f"{w} ({c}, slope {s:.3f})"
                                                      for w, s, c in self.flips[:4])
        return text


def stability(X, y, result: DirectionResult, names: list[str] | None = None, clusterer: Clusterer = "kmeans",
              seeds: int = STABILITY_SEEDS, random_state: int = 0, progress: bool = False,
              n_classes: int | None = None) -> Stability:
    """Re-run steps 1-4 with `seeds` other clustering seeds and with each feature group left out (at most
    `MAX_GROUPS_LEFT_OUT`; more groups: that many random halves of them), keeping every other setting of
    `result`."""
    X, codes, classes = check_xy(X, y, n_classes)
    Z = standardise(X)
    names = names if names is not None and len(names) == Z.shape[1] else [f"column {i}" for i in
                                                                          range(Z.shape[1])]
    groups = feature_groups(names)
    config: RoCAConfig = result.config
    C = len(classes)
    jobs: list[tuple[str, np.ndarray, int]] = [(f"k-means seed {config.random_state + k}", Z,
                                               config.random_state + k) for k in range(1, seeds + 1)]
    if 1 < len(groups) <= MAX_GROUPS_LEFT_OUT:
        for g in groups:
            keep = np.setdiff1d(np.arange(Z.shape[1]), g)
            label = names[g[0]].split("=", 1)[0] if "=" in names[g[0]] else names[g[0]]
            jobs.append((f"without {label!r}", Z[:, keep], config.random_state))
    elif len(groups) > MAX_GROUPS_LEFT_OUT:
        rng = np.random.default_rng([random_state, 31])
        for k in range(MAX_GROUPS_LEFT_OUT):
            pick = rng.choice(len(groups), len(groups) // 2, replace=False)
            keep = np.sort(np.concatenate([groups[i] for i in pick]))
            jobs.append((f"random half of the columns #{k + 1}", Z[:, keep], config.random_state))
    if progress:
        from iclr25.core.runtime import progress as bar

        jobs_iter = bar(jobs, "stability re-runs")
    else:
        jobs_iter = jobs
    out = Stability(result.direction)
    for what, Zv, seed in jobs_iter:
        ids = cluster(Zv, C, clusterer, config.n_init, seed)
        r = direction_from_pseudo_labels(Zv, codes, align_clusters(ids, codes, C), classes, config)
        out.variants.append((what, r.normalized_slope, r.direction))
    return out


# ---- label noise ---------------------------------------------------------------------------------

@dataclass
class LabelNoise:
    """Confident learning's estimate: the share of wrong labels, the suspect rows (most doubtful first),
    and the classifier it rests on beside the majority-class baseline."""

    noise_rate: float
    suspects: np.ndarray  # row indices, most doubtful first
    given: np.ndarray  # the label each suspect has (class values)
    suggested: np.ndarray  # the class the classifier prefers
    self_confidence: np.ndarray  # out-of-fold P(given label | x)
    accuracy: float  # out-of-fold accuracy of the classifier on the noisy labels
    majority: float  # accuracy of always answering the commonest label
    n_classes: int

    @property
    def informative(self) -> bool:
        return self.accuracy > self.majority

    def slope_cap(self) -> float:
        """With symmetric errors at this rate, the largest normalised slope an anticausal data set can
        show (clusters equal to the clean classes): 1 − ρ·C/(C − 1)."""
        C = self.n_classes
        return 1 - self.noise_rate * C / (C - 1)


def out_of_fold_proba(Z: np.ndarray, y: np.ndarray, C: int, folds: int = 5,
                      random_state: int = 0) -> np.ndarray:
    """P(Ỹ | x) from a multinomial logistic regression, each row predicted by the model of the folds
    that did not see it. (n, C)"""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold

    counts = np.bincount(y, minlength=C)
    k = int(min(folds, counts[counts > 0].min()))
    if k < 2:
        raise UserError("each label needs at least 2 rows for an out-of-fold estimate")
    proba = np.zeros((len(y), C))
    for train, test in StratifiedKFold(k, shuffle=True, random_state=random_state).split(Z, y):
        m = LogisticRegression(max_iter=2000).fit(Z[train], y[train])
        proba[np.ix_(test, m.classes_)] = m.predict_proba(Z[test])
    return proba


def label_noise(X, y, random_state: int = 0) -> LabelNoise:
    """Confident learning on out-of-fold probabilities: per class the threshold t_j = mean P(j | x) over
    rows labelled j; a row labelled i counts as "truly j" when P(j | x) ≥ t_j (the largest such j); the
    confident joint, calibrated to the label counts, gives the noise rate 1 − its trace; the rows off its
    diagonal are the suspects, least self-confident first.

    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 1000); X = rng.normal(size=(1000, 2)) + 3 * y[:, None]
    >>> flip = rng.random(1000) < 0.2; y_noisy = np.where(flip, 1 - y, y)
    >>> r = label_noise(X, y_noisy); round(r.noise_rate, 2), r.informative
    (0.2, True)
    """
    X, codes, classes = check_xy(X, y)
    C = len(classes)
    Z = standardise(X)
    p = out_of_fold_proba(Z, codes, C, random_state=random_state)  # (n, C)
    counts = np.bincount(codes, minlength=C)
    t = np.array([p[codes == j, j].mean() if counts[j] else 1.0 for j in range(C)])  # (C,)
    above = p >= t[None, :]
    masked = np.where(above, p, -np.inf)
    true_j = np.where(above.any(axis=1), masked.argmax(axis=1), -1)
    joint = np.zeros((C, C))
    ok = true_j >= 0
    np.add.at(joint, (codes[ok], true_j[ok]), 1.0)
    rows = joint.sum(axis=1, keepdims=True)
    calibrated = np.where(rows > 0, joint / np.where(rows > 0, rows, 1) * counts[:, None], 0.0)
    q = calibrated / calibrated.sum()
    rate = float(1 - np.trace(q))
    suspect = np.flatnonzero(ok & (true_j != codes))
    conf = p[suspect, codes[suspect]]
    order = suspect[np.argsort(conf, kind="stable")]
    return LabelNoise(rate, order, classes[codes[order]], classes[true_j[order]],
                      p[order, codes[order]], float(np.mean(p.argmax(axis=1) == codes)),
                      float(counts.max() / len(codes)), C)
