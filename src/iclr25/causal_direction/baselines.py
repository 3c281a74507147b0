"""Baselines the paper compares with (spec §6), each answering "causal", "anticausal" or "undecided":

- CDNL (Yao et al., ICML 2023): P(Ỹ|Y′) from clusters vs a transition matrix estimated from the noisy
  posterior (anchor points, Patrini et al. 2017); close (≤ 0.05) ⇒ anticausal.
- cluster/label agreement without injection: χ² test of independence of Y′ and Ỹ (the ablation).
- RECI (Blöbaum et al. 2018), IGCI (Daniušis et al. 2010), ANM (Hoyer et al. 2008, causal-learn):
  bivariate methods, run on a 1-D projection of X (first linear discriminant) against Ỹ.
- PC (causal-learn) on [X, Ỹ] with at most 20 feature columns (principal components beyond that).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from iclr25.causal_direction.pseudo_labels import pseudo_labels, standardise
from iclr25.causal_direction.roca import check_xy

CDNL_THRESHOLD = 0.05  # spec §2: distance ≤ 0.05 ⇒ anticausal
ANCHOR_PERCENTILE = 97  # Patrini et al.: the 97th-percentile row per class, robust to outliers
ANM_MAX_ROWS = 1000  # GP regression is O(n³)
PC_MAX_DIMS = 20


@dataclass(frozen=True)
class BaselineResult:
    method: str
    direction: str  # "causal" | "anticausal" | "undecided"
    score: float  # the statistic the decision thresholds (see `detail`)
    detail: str

    def __str__(self) -> str:
        return f"{self.method}: {self.direction} ({self.detail})"


def _causal_if(cond: bool) -> str:
    return "causal" if cond else "anticausal"


# ---- CDNL and the agreement ablation -------------------------------------------------------------

def transition_from_pseudo_labels(y_prime: np.ndarray, y_noisy: np.ndarray, C: int) -> np.ndarray:
    """T_clu[i, j] = P(Ỹ = j | Y′ = i), rows of empty clusters uniform. (C, C)"""
    T = np.zeros((C, C))
    np.add.at(T, (y_prime, y_noisy), 1.0)
    rows = T.sum(axis=1, keepdims=True)
    return np.where(rows > 0, T / np.where(rows > 0, rows, 1.0), 1.0 / C)


def anchor_transition(Z: np.ndarray, y_noisy: np.ndarray, C: int, random_state: int = 0) -> np.ndarray:
    """T̂[i, :] = P(Ỹ | x_i*) at the anchor x_i* of class i: the row whose P(Ỹ = i | x) is at the 97th
    percentile, with P(Ỹ | x) a multinomial logistic regression fitted to the noisy labels and evaluated
    out of fold (5 folds; in-sample posteriors are over-confident and push T̂ towards the identity). (C, C)"""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    folds = min(5, int(np.bincount(y_noisy).min()))
    model = LogisticRegression(max_iter=1000, random_state=random_state)
    if folds >= 2:
        cv = StratifiedKFold(folds, shuffle=True, random_state=random_state)
        proba = cross_val_predict(model, Z, y_noisy, cv=cv, method="predict_proba")
    else:  # a class with a single row: no held-out estimate possible
        proba = model.fit(Z, y_noisy).predict_proba(Z)
    T = np.empty((C, C))
    for i in range(C):
        target = np.percentile(proba[:, i], ANCHOR_PERCENTILE, method="higher")
        T[i] = proba[np.argmin(np.abs(proba[:, i] - target))]
    return T


def cdnl(X, y_noisy, random_state: int = 0) -> BaselineResult:
    """CDNL: mean |T_clu − T̂| over the C×C entries; ≤ 0.05 ⇒ anticausal."""
    X, y, classes = check_xy(X, y_noisy)
    C = len(classes)
    Z = standardise(X)
    y_prime = pseudo_labels(Z, y, C, random_state=random_state)
    dist = float(np.abs(transition_from_pseudo_labels(y_prime, y, C)
                        - anchor_transition(Z, y, C, random_state)).mean())
    return BaselineResult("CDNL", _causal_if(dist > CDNL_THRESHOLD), dist,
                          f"transition-matrix distance {dist:.3f}, anticausal if <= {CDNL_THRESHOLD}")


def agreement_test(X, y_noisy, alpha: float = 0.05, random_state: int = 0) -> BaselineResult:
    """Ablation without injection: is Y′ (clusters) dependent on Ỹ at all? χ² test of independence on
    the Y′ × Ỹ table; dependent (p < alpha) ⇒ anticausal. Also reports the agreement beyond chance."""
    from scipy.stats import chi2_contingency

    X, y, classes = check_xy(X, y_noisy)
    C = len(classes)
    y_prime = pseudo_labels(X, y, C, random_state=random_state)
    table = np.zeros((C, C))
    np.add.at(table, (y_prime, y), 1.0)
    table = table[table.sum(1) > 0][:, table.sum(0) > 0]
    p = float(chi2_contingency(table).pvalue) if min(table.shape) > 1 else 1.0
    chance = float(np.bincount(y_prime, minlength=C) @ np.bincount(y, minlength=C)) / len(y) ** 2
    kappa = (float(np.mean(y_prime == y)) - chance) / (1 - chance)
    return BaselineResult("agreement", _causal_if(p >= alpha), p,
                          f"chi-square p = {p:.2g}, agreement beyond chance (kappa) {kappa:.2f}")


# ---- bivariate methods on a projection ----------------------------------------------------------

def projection(X, y_noisy) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) as two numeric columns: x the first linear discriminant of standardised X, y the class
    rank by the class mean of x (so that the relation is monotone)."""
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    X, y, classes = check_xy(X, y_noisy)
    Z = standardise(X)
    x = LinearDiscriminantAnalysis(n_components=1).fit(Z, y).transform(Z)[:, 0]
    means = np.array([x[y == c].mean() for c in range(len(classes))])
    rank = np.empty(len(classes))
    rank[np.argsort(means)] = np.arange(len(classes))
    return x, rank[y]


def _unit(v: np.ndarray) -> np.ndarray:
    span = np.ptp(v)
    return (v - v.min()) / (span if span > 0 else 1.0)


def reci(X, y_noisy, degree: int = 3) -> BaselineResult:
    """RECI: both variables scaled to [0, 1]; polynomial regression each way; the direction with the
    smaller mean squared error is causal (X→Y if MSE(Y|X) < MSE(X|Y))."""
    x, y = (_unit(v) for v in projection(X, y_noisy))

    def mse(a, b):  # degree capped by the distinct values of the regressor (a class label has C)
        k = min(degree, len(np.unique(a)) - 1)
        return float(np.mean((b - np.polyval(np.polyfit(a, b, k), a)) ** 2))

    fwd, bwd = mse(x, y), mse(y, x)
    return BaselineResult("RECI", _causal_if(fwd < bwd), fwd - bwd,
                          f"MSE(Y|X) {fwd:.4f} vs MSE(X|Y) {bwd:.4f}")


def igci_slope(a: np.ndarray, b: np.ndarray) -> float:
    """Ĉ_{A→B} = mean log |Δb / Δa| over consecutive points sorted by a (uniform reference measure);
    pairs with Δa = 0 or Δb = 0 are skipped."""
    order = np.argsort(a, kind="stable")
    da, db = np.diff(a[order]), np.diff(b[order])
    ok = (da != 0) & (db != 0)
    return float(np.mean(np.log(np.abs(db[ok] / da[ok])))) if ok.any() else 0.0


def igci(X, y_noisy) -> BaselineResult:
    """IGCI (slope estimator, uniform reference): X→Y if Ĉ_{X→Y} < Ĉ_{Y→X}; equal ⇒ undecided."""
    x, y = (_unit(v) for v in projection(X, y_noisy))
    fwd, bwd = igci_slope(x, y), igci_slope(y, x)
    direction = "undecided" if fwd == bwd else _causal_if(fwd < bwd)
    return BaselineResult("IGCI", direction, fwd - bwd, f"C(X→Y) {fwd:.3f} vs C(Y→X) {bwd:.3f}")


def anm(X, y_noisy, max_rows: int = ANM_MAX_ROWS, random_state: int = 0) -> BaselineResult:
    """ANM via causal-learn: GP regression each way, KCI test of residual independence; the direction
    whose residuals look more independent (larger p) wins. At most `max_rows` rows (random subset)."""
    from causallearn.search.FCMBased.ANM.ANM import ANM

    x, y = projection(X, y_noisy)
    if len(x) > max_rows:
        keep = np.random.default_rng(random_state).choice(len(x), max_rows, replace=False)
        x, y = x[keep], y[keep]
    x, y = standardise(x[:, None]), standardise(y[:, None])
    p_fwd, p_bwd = ANM().cause_or_effect(x, y)
    direction = "undecided" if p_fwd == p_bwd else _causal_if(p_fwd > p_bwd)
    return BaselineResult("ANM", direction, float(p_fwd - p_bwd),
                          f"independence p X→Y {p_fwd:.3g} vs Y→X {p_bwd:.3g} on {len(x)} rows")


def pc_data(X, y_noisy, max_dims: int = PC_MAX_DIMS) -> np.ndarray:
    """[Z, Ỹ] as PC sees it: standardised non-constant columns of X (their first `max_dims` principal
    components when wider) and the standardised label codes last. (n, k + 1)"""
    X, y, _ = check_xy(X, y_noisy)
    Z = standardise(X)
    Z = Z[:, Z.std(axis=0) > 0]
    if Z.shape[1] > max_dims:
        from sklearn.decomposition import PCA

        Z = PCA(n_components=max_dims, random_state=0).fit_transform(Z)
    return np.column_stack([Z, standardise(y[:, None].astype(float))])


def pc(X, y_noisy, alpha: float = 0.05, max_dims: int = PC_MAX_DIMS) -> BaselineResult:
    """PC (causal-learn, Fisher-z tests) on [X, Ỹ]; X reduced to its first `max_dims` principal components
    when wider. Edges oriented into Ỹ outnumbering those out of it ⇒ causal, the reverse ⇒ anticausal,
    a tie (including no oriented edge at Ỹ) ⇒ undecided.

    The graph is causal-learn's `pc(data, alpha, indep_test="fisherz")`, computed by `pc_fisherz.pc`: the
    same tests and decisions with the skeleton's tests batched (causal-learn alone needs hours when label
    noise keeps the graph dense, e.g. on twonorm)."""
    from iclr25.causal_direction.pc_fisherz import pc as pc_fisherz

    data = pc_data(X, y_noisy, max_dims)  # (n, k + 1); Ỹ last
    try:
        g = pc_fisherz(data, alpha=alpha).G.graph
    except (np.linalg.LinAlgError, ValueError) as e:
        return BaselineResult("PC", "undecided", 0.0, f"PC failed: {str(e).splitlines()[0]}")
    t = data.shape[1] - 1
    into = int(np.sum((g[t, :t] == 1) & (g[:t, t] == -1)))  # i → Ỹ: graph[Ỹ, i] = 1, graph[i, Ỹ] = −1
    out = int(np.sum((g[:t, t] == 1) & (g[t, :t] == -1)))  # Ỹ → i
    direction = "undecided" if into == out else _causal_if(into > out)
    return BaselineResult("PC", direction, float(into - out),
                          f"{into} edges X→Ỹ, {out} edges Ỹ→X, on {t} feature columns")


BASELINES: dict[str, Callable[..., BaselineResult]] = {
    "CDNL": cdnl, "agreement": agreement_test, "RECI": reci, "IGCI": igci, "ANM": anm, "PC": pc,
}
