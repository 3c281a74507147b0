"""Data: the paper's synthetic generators (univariate sinusoid, multivariate with known covariance),
loaders for the UCI CSV files the paper used (from a folder the user gives) and offline sets, plus the
TIC-TAC/ToSS UCI protocol (standardise ×10, permute columns, first 25% are inputs)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.stats import norm

from iclr25.core.errors import UserError


@dataclass
class Dataset:
    """Inputs X (n, d) and targets Y (n, k); for synthetic data also the true mean and covariance."""

    name: str
    X: np.ndarray
    Y: np.ndarray
    mean: np.ndarray | None = None
    cov: np.ndarray | None = None


# ---- synthetic ----------------------------------------------------------------------------------

def sinusoid(n: int, amplitude: str = "constant", rng: np.random.Generator | None = None,
             frequency: float = 1.0) -> Dataset:
    """Univariate study (§3): x ~ U(−5, 5), y = A(x) sin(2π f x) + N(0, |x|²) with A = 5 ("constant")
    or A = |x| ("varying"); the paper's f = 1 gives 10 periods, which a small MLP needs ~10⁵ steps to fit.

    >>> d = sinusoid(100, rng=np.random.default_rng(0)); d.X.shape, d.Y.shape
    ((100, 1), (100, 1))
    """
    rng = rng or np.random.default_rng(0)
    if amplitude not in ("constant", "varying"):
        raise UserError(f"amplitude must be 'constant' or 'varying', got {amplitude!r}")
    x = rng.uniform(-5.0, 5.0, size=n)
    a = np.full_like(x, 5.0) if amplitude == "constant" else np.abs(x)
    mean = a * np.sin(2 * np.pi * frequency * x)
    y = mean + np.abs(x) * rng.standard_normal(n)
    return Dataset(f"sinusoid-{amplitude}", x[:, None], y[:, None], mean[:, None], (x ** 2)[:, None, None])


def random_correlation(k: int, rng: np.random.Generator) -> np.ndarray:
    """A random k×k correlation matrix (normalised Wishart with 2k degrees of freedom)."""
    B = rng.standard_normal((k, 2 * k))
    S = B @ B.T
    d = np.sqrt(np.diag(S))
    return S / np.outer(d, d)


def multivariate(k: int, n: int | None = None, rng: np.random.Generator | None = None) -> Dataset:
    """Multivariate synthetic (§3, our reading): in_dim = out_dim = k, n = 1000·k by default.

    A joint Gaussian over (z, y) with a random correlation matrix C; x = 10(Φ(z) − ½) is a correlated
    uniform on (−5, 5) (Gaussian copula); E[y|x] = C_yx C_xx⁻¹ x is the Gaussian conditional mean, and
    Cov(y|x) = Σ_cond + R + diag(√|x − m|) with Σ_cond the Gaussian conditional covariance, R another random
    correlation matrix and m the mean of x, so the covariance depends on x (heteroscedastic)."""
    rng = rng or np.random.default_rng(0)
    n = n or 1000 * k
    C = random_correlation(2 * k, rng)
    Cxx, Cxy, Cyy = C[:k, :k], C[:k, k:], C[k:, k:]
    z = rng.multivariate_normal(np.zeros(k), Cxx, size=n)
    x = 10.0 * (norm.cdf(z) - 0.5)
    gain = np.linalg.solve(Cxx, Cxy).T  # C_yx C_xx⁻¹, (k, k)
    mean = x @ gain.T
    cond = Cyy - Cxy.T @ np.linalg.solve(Cxx, Cxy)
    R = random_correlation(k, rng)
    cov = (cond + R)[None] + np.einsum("ni,ij->nij", np.sqrt(np.abs(x - x.mean(0))), np.eye(k))
    L = np.linalg.cholesky(cov)
    y = mean + np.einsum("nij,nj->ni", L, rng.standard_normal((n, k)))
    return Dataset(f"multivariate-k{k}", x, y, mean, cov)


# ---- real data ----------------------------------------------------------------------------------

UCI_FILES = {  # name -> file(s) in shared/data/14-heteroscedastic/uci (TIC-TAC snapshot)
    "abalone": ("abalone-abalone.csv",),
    "air_quality": ("air_quality-airqualityuci.csv",),
    "concrete": ("concrete-concrete_data.csv",),
    "naval": ("condition_naval_propulsion-data.txt",),
    "electrical": ("electrical-electricaldata.csv",),
    "energy": ("energy-enb2012_data.csv",),
    "gas_turbine": tuple(f"gas_turbine-gt_{y}.csv" for y in range(2011, 2016)),
    "parkinson": ("parkinson-train_data.csv", "parkinson-test_data.csv"),
    "red_wine": ("wine_quality-winequality-red.csv",),
    "white_wine": ("wine_quality-winequality-white.csv",),
}


def default_uci_dir() -> Path:
    """$ICLR25_SHARED/data/14-heteroscedastic/uci, ICLR25_SHARED defaulting to the repo's sibling shared/."""
    shared = os.environ.get("ICLR25_SHARED")
    root = Path(shared) if shared else Path(__file__).resolve().parents[3] / ".." / "shared"
    return (root / "data" / "14-heteroscedastic" / "uci").resolve()


def load_uci(name: str, folder: str | os.PathLike | None = None) -> np.ndarray:
    """All numeric columns of a UCI set as a float array (n, c), loaded as the TIC-TAC README says."""
    import pandas as pd

    if name not in UCI_FILES:
        raise UserError(f"unknown UCI set {name!r}; choose from {', '.join(UCI_FILES)}")
    folder = Path(folder) if folder is not None else default_uci_dir()
    paths = [folder / f for f in UCI_FILES[name]]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise UserError(f"UCI file not found: {missing[0]}")
    if name == "abalone":
        df = pd.read_csv(paths[0], header=None)
    elif name in ("red_wine", "white_wine"):
        df = pd.read_csv(paths[0], sep=";")
    elif name == "naval":
        df = pd.read_csv(paths[0], sep=r"\s+", header=None).iloc[:, :18]
    elif name == "parkinson":
        tr = pd.read_csv(paths[0], header=None).iloc[:, 1:-2]
        te = pd.read_csv(paths[1], header=None).iloc[:, 1:-1]
        te.columns = tr.columns
        df = pd.concat([tr, te], ignore_index=True)
    elif name == "gas_turbine":
        df = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)
    elif name == "air_quality":
        df = pd.read_csv(paths[0]).dropna(how="all").drop(columns=["NMHC(GT)"])
        date = pd.to_datetime(df.pop("Date"), format="%d/%m/%Y")
        hour = df.pop("Time").str.slice(0, 2).astype(float)
        df = df.assign(day=date.dt.day.astype(float), month=date.dt.month.astype(float), hour=hour)
        df = df[~(df == -200).any(axis=1)]
    else:  # concrete, energy, electrical: plain header (BOM on some)
        df = pd.read_csv(paths[0], encoding="utf-8-sig")
    df = df.apply(pd.to_numeric, errors="coerce").dropna()
    return df.to_numpy(dtype=np.float64)


def load_diabetes_matrix() -> np.ndarray:
    """scikit-learn's diabetes set (installs offline): 10 features + the target, as one matrix."""
    from sklearn.datasets import load_diabetes

    d = load_diabetes()
    return np.column_stack([d.data, d.target])


def uci_protocol(data: np.ndarray, rng: np.random.Generator, name: str = "uci",
                 x_fraction: float = 0.25, scale: float = 10.0) -> Dataset:
    """TIC-TAC/ToSS adaptation: standardise every column, ×10, permute the columns at random, the first
    25% of columns (at least 1) are the inputs and the rest the multivariate target. (The protocol
    trains and evaluates on the same full set.)"""
    data = np.asarray(data, dtype=np.float64)
    sd = data.std(0)
    data = data[:, sd > 0]  # a constant column carries nothing and cannot be standardised
    Z = scale * (data - data.mean(0)) / data.std(0)
    Z = Z[:, rng.permutation(Z.shape[1])]
    d = max(1, int(x_fraction * Z.shape[1]))
    if Z.shape[1] - d < 2:
        raise UserError(f"{name}: needs at least 3 usable columns for a multivariate target")
    return Dataset(name, Z[:, :d], Z[:, d:])
