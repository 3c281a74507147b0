"""RoCA (spec §2): is the relation between features X and noisy labels Ỹ causal (X→Y) or anticausal
(Y→X)? Inject more label noise and watch how far the pseudo-labels Y′ (clusters of X) drift from it.

    D(ρ) = mean 1[Y′ ≠ Ŷ_ρ],   Ŷ_ρ = Ỹ with injected noise at rate ρ            (step 3)

Anticausal: the clusters of X track Y, so every injected flip of a row where Y′ = Ỹ adds a disagreement
and D rises with ρ. Causal: P(X) says nothing about P(Y|X), Y′ agrees with Ỹ only by chance, and D stays
flat near 1 − 1/C. The slope of D is divided by the slope of the same injections measured against
Ỹ itself (Y′ = Ỹ, slope ≈ 1), which gives a scale-free effect size in [0, 1] (step 4)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from iclr25.causal_direction.noise import check_kind, check_rate, inject_label_noise
from iclr25.causal_direction.pseudo_labels import (
    Clusterer,
    Embed,
    align_clusters,
    cluster,
    embed_features,
    parse_embed,
)
from iclr25.core.errors import UserError

DECISIONS = ("effect", "ttest")
# The default threshold on the normalised slope: `calibration.choose_threshold` on the synthetic calibration
# sets of the reproduction (seed 0: 0.4686, the record's synthetic_direction.threshold), to 2 decimals;
# never on real data.
DEFAULT_THRESHOLD = 0.47
MAX_CLASSES = 1000  # more distinct labels than this is a continuous or ID column, not classes


@dataclass(frozen=True)
class RoCAConfig:
    """RoCA's settings; defaults are the spec's (noise rates 0..0.4, IDN, 3 reps, k-means n_init ≥ 10) and
    the effect-size threshold chosen on synthetic data (normalised slope ≥ DEFAULT_THRESHOLD ⇒ anticausal)."""

    noise_rates: tuple[float, ...] = (0.0, 0.1, 0.2, 0.3, 0.4)
    noise: str = "idn"  # kind of injected noise: idn | sym | pair
    reps: int = 3  # injections per rate
    decision: str = "effect"  # effect: normalised slope ≥ threshold; ttest: one-sided p < alpha
    threshold: float = DEFAULT_THRESHOLD
    alpha: float = 0.05
    n_init: int = 10  # k-means restarts
    random_state: int = 0

    def __post_init__(self) -> None:
        rates = tuple(check_rate(r, "noise rates") for r in self.noise_rates)
        object.__setattr__(self, "noise_rates", rates)
        if len(set(rates)) < 2:
            raise UserError(f"noise_rates needs at least 2 distinct rates to fit a slope, got {rates}")
        check_kind(self.noise)
        if int(self.reps) < 1:
            raise UserError(f"reps must be >= 1, got {self.reps}")
        if self.decision not in DECISIONS:
            raise UserError(f"unknown decision {self.decision!r}; choose from {', '.join(DECISIONS)}")
        if not np.isfinite(self.threshold):
            raise UserError(f"threshold must be finite, got {self.threshold}")
        if not 0.0 < self.alpha < 1.0:
            raise UserError(f"alpha must be in (0, 1), got {self.alpha}")
        if int(self.n_init) < 1:
            raise UserError(f"n_init must be >= 1, got {self.n_init}")


@dataclass
class DirectionResult:
    """What RoCA concludes and the evidence behind it."""

    direction: str  # "causal" (X→Y) or "anticausal" (Y→X)
    normalized_slope: float  # slope of D(ρ) / slope with Y′ = Ỹ; ≈ 0 causal, ≈ agreement beyond chance
    p_value: float  # one-sided test of slope > 0 on all (ρ, rep) points (reported; see `decision`)
    curve: pd.DataFrame = field(repr=False)  # columns rate, rep, disagreement, reference
    pseudo_labels: np.ndarray = field(repr=False)  # Y′ in the caller's label values
    slope: float = float("nan")  # raw slope of D(ρ)
    reference_slope: float = float("nan")  # slope with Y′ = Ỹ (the realised flip rate per unit ρ)
    agreement: float = float("nan")  # mean 1[Y′ = Ỹ] before injection
    n_classes: int = 0
    config: RoCAConfig = field(default_factory=RoCAConfig, repr=False)
    null_slope: float = float("nan")  # the same clusters against permuted labels: the noise floor
    null_agreement: float = float("nan")  # agreement of the clusters with permuted labels (chance)

    def __str__(self) -> str:
        t = self.config.threshold if self.config.decision == "effect" else None
        slope = fmt_slope(self.normalized_slope, t)
        return f"{self.direction} (normalised slope {slope}, p = {self.p_value:.2g})"

    def to_dict(self) -> dict:
        """JSON-able summary (the curve as records, without the per-row pseudo-labels)."""
        return {"direction": self.direction, "normalized_slope": self.normalized_slope,
                "p_value": self.p_value, "slope": self.slope, "reference_slope": self.reference_slope,
                "agreement": self.agreement, "null_slope": self.null_slope,
                "null_agreement": self.null_agreement, "n_classes": self.n_classes,
                "config": asdict(self.config), "curve": self.curve.to_dict(orient="records")}


def fmt_slope(x: float, threshold: float | None = None, digits: int = 3) -> str:
    """`x` with `digits` decimals, or as many more as it takes to show on which side of `threshold` it
    lies (0.32996 beside a threshold of 0.33 prints 0.32996, not 0.330).

    >>> fmt_slope(0.75123), fmt_slope(0.3294, 0.33), fmt_slope(0.32996, 0.33), fmt_slope(0.33, 0.33)
    ('0.751', '0.329', '0.32996', '0.330')
    """
    if not np.isfinite(x):
        return str(x)
    if threshold is not None and np.isfinite(threshold):
        while digits < 10 and x != threshold:
            shown = round(x, digits)
            if (shown >= threshold) == (x >= threshold) and shown != threshold:
                break
            digits += 1
    return f"{x:.{digits}f}"


# ---- validation at the door ---------------------------------------------------------------------

def check_xy(X, y, n_classes: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X as float (n, d), integer codes of y, the class values). Images (n, h, w, ...) are flattened.
    With `n_classes`, y must hold integers in 0..n_classes−1 (classes absent from y still count)."""
    X = np.asarray(X)
    y = np.asarray(y)
    if X.ndim < 2:
        raise UserError(f"X must be 2-D (rows × features), got shape {X.shape}")
    if y.ndim != 1:
        raise UserError(f"y must be 1-D (one label per row), got shape {y.shape}")
    if len(X) != len(y):
        raise UserError(f"X has {len(X)} rows but y has {len(y)} labels")
    if len(y) == 0:
        raise UserError("no rows: X and y are empty")
    try:
        X = X.reshape(len(X), -1).astype(float)
    except (TypeError, ValueError):
        raise UserError("X must be numeric (encode categorical columns first, e.g. one-hot)") from None
    if X.shape[1] == 0:
        raise UserError("X has no feature columns")
    bad = ~np.isfinite(X)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise UserError(f"X holds NaN or infinite values (first at row {r}, column {c})")
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise UserError(f"y holds NaN or infinite labels (first at row {int(np.argmax(~np.isfinite(y)))})")
    if y.dtype.kind == "O" and any(v is None or (isinstance(v, float) and v != v) for v in y):
        raise UserError("y holds missing labels")
    if n_classes is None:
        classes, codes = np.unique(y, return_inverse=True)
    else:
        if not 2 <= int(n_classes) <= MAX_CLASSES:
            raise UserError(f"n_classes must be in 2..{MAX_CLASSES}, got {n_classes}")
        if y.dtype.kind not in "iu" or y.min() < 0 or y.max() >= n_classes:
            raise UserError(f"with n_classes={n_classes}, y must hold integers in 0..{n_classes - 1}")
        classes, codes = np.arange(int(n_classes)), y
    if len(classes) < 2:
        raise UserError(f"y has a single class ({classes[0]!r}); a direction needs at least 2 classes")
    if len(classes) > MAX_CLASSES:
        raise UserError(f"y has {len(classes)} distinct labels (at most {MAX_CLASSES} classes); is the label "
                        "column continuous or an ID?")
    if len(y) < len(classes):
        raise UserError(f"fewer rows ({len(y)}) than classes ({len(classes)})")
    return X, codes.astype(np.int64), classes


# ---- steps 2-4 ---------------------------------------------------------------------------------

def disagreement_curve(Z: np.ndarray, y_noisy: np.ndarray, y_prime: np.ndarray, n_classes: int,
                       config: RoCAConfig) -> pd.DataFrame:
    """D(ρ, r) = mean 1[Y′ ≠ Ŷ_ρ] for every rate ρ and repetition r, beside the reference
    mean 1[Ỹ ≠ Ŷ_ρ] (the same injection measured against Ỹ). Repetition r uses one seed at every rate
    (the same W, flip rates and draws), so its curve is one coupled path (spec §8)."""
    rows = []
    for r in range(config.reps):
        for rate in config.noise_rates:
            rng = np.random.default_rng([config.random_state, 7919, r])
            y_hat = inject_label_noise(Z, y_noisy, rate, config.noise, rng, n_classes)  # Ŷ_ρ
            rows.append((rate, r, float(np.mean(y_prime != y_hat)), float(np.mean(y_noisy != y_hat))))
    return pd.DataFrame(rows, columns=["rate", "rep", "disagreement", "reference"])


def ols_slope(x: np.ndarray, y: np.ndarray) -> float:
    """Least-squares slope of y on x."""
    xc = x - x.mean()
    return float(xc @ (y - y.mean()) / (xc @ xc))


def slope_p_value(x: np.ndarray, y: np.ndarray) -> float:
    """One-sided p-value of H0: slope ≤ 0 against slope > 0 (t-test of the OLS slope)."""
    if np.ptp(y) == 0:
        return 1.0
    from scipy.stats import linregress

    p = float(linregress(x, y, alternative="greater").pvalue)
    return p if np.isfinite(p) else (0.0 if ols_slope(x, y) > 0 else 1.0)


def decide(normalized_slope: float, p_value: float, config: RoCAConfig) -> str:
    """Step 4: "anticausal" when the trend is large enough (effect) or significant (ttest)."""
    if config.decision == "effect":
        return "anticausal" if normalized_slope >= config.threshold else "causal"
    return "anticausal" if p_value < config.alpha else "causal"


def direction_from_pseudo_labels(Z: np.ndarray, y_noisy: np.ndarray, y_prime: np.ndarray,
                                 classes: Sequence, config: RoCAConfig) -> DirectionResult:
    """Steps 2-4 given Y′: inject, measure D(ρ), normalise its slope and decide."""
    C = len(classes)
    curve = disagreement_curve(Z, y_noisy, y_prime, C, config)
    rates = curve["rate"].to_numpy()
    slope = ols_slope(rates, curve["disagreement"].to_numpy())
    ref = ols_slope(rates, curve["reference"].to_numpy())
    if ref <= 0:
        raise UserError(f"the injected noise flipped no label ({len(y_noisy)} rows); use more rows or "
                        "higher noise rates")
    normalized = slope / ref
    p = slope_p_value(rates, curve["disagreement"].to_numpy())
    return DirectionResult(decide(normalized, p, config), normalized, p, curve, np.asarray(classes)[y_prime],
                           slope, ref, float(np.mean(y_prime == y_noisy)), C, config)


def detect_direction(X, y_noisy, embed: Embed = None, clusterer: Clusterer = "kmeans",
                     noise_rates: Sequence[float] = (0.0, 0.1, 0.2, 0.3, 0.4), noise: str = "idn",
                     reps: int = 3, decision: str = "effect", threshold: float = DEFAULT_THRESHOLD,
                     alpha: float = 0.05,
                     n_init: int = 10, random_state: int = 0,
                     n_classes: int | None = None) -> DirectionResult:
    """Tell whether noisy labels `y_noisy` are caused by the features `X` (causal) or cause them
    (anticausal). Semi-supervised learning can help only in the anticausal case.

    X: (n, d) numeric features (images (n, h, w) are flattened); y_noisy: (n,) labels of any type.
    embed: None (standardised X), "pca:k", or a callable X -> (n, k) embedding.
    clusterer: "kmeans", "minibatch-kmeans", "gmm", "agglomerative" (Ward), or a callable
    (Z, n_clusters) -> cluster ids.
    The result also holds the same clusters scored against permuted labels (`null_slope`,
    `null_agreement`): the noise floor the slope and the agreement are read against.
    n_classes: the number of classes C when some never occur in y (y then holds integers 0..C−1);
    by default the distinct values of y.

    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 600)
    >>> X = rng.normal(size=(600, 5)) + 4 * np.eye(3, 5)[y]     # Y → X: classes shape the features
    >>> detect_direction(X, y).direction
    'anticausal'
    >>> X = rng.normal(size=(600, 5))
    >>> y = (X[:, 0] + 0.3 * rng.normal(size=600) > 0).astype(int)  # X → Y
    >>> detect_direction(X, y).direction
    'causal'
    """
    config = RoCAConfig(tuple(noise_rates), noise, reps, decision, threshold, alpha, n_init, random_state)
    parse_embed(embed)
    X, codes, classes = check_xy(X, y_noisy, n_classes)
    Z = embed_features(X, embed, random_state)  # (n, k)
    ids = cluster(Z, len(classes), clusterer, n_init, random_state)
    y_prime = align_clusters(ids, codes, len(classes))  # Y′ (step 1)
    result = direction_from_pseudo_labels(Z, codes, y_prime, classes, config)
    perm = np.random.default_rng([random_state, 202]).permutation(codes)  # no cluster can track these
    null = direction_from_pseudo_labels(Z, perm, align_clusters(ids, perm, len(classes)), classes, config)
    result.null_slope, result.null_agreement = null.normalized_slope, null.agreement
    return result
