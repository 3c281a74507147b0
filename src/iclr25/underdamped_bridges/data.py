"""The paper's real-data targets, read from the shared data folder 15-underdamped-bridges (UCI files
copied from the authors' MIT repository) with the paper's preprocessing:

- Ionosphere (d = 35), Sonar (d = 61): y01 = (y + 1)/2, X standardised per column (std 0 -> 1),
  intercept prepended, prior N(0, I).
- Credit (German, numeric; d = 25): X / std (no centring), intercept, label = col 24 - 1, prior N(0, 10²).
- Cancer (WDBC; d = 31): X / std, intercept, label = col 1, prior N(0, 10²); without the folder it is
  read from scikit-learn (the same data; flipping every label maps w -> -w and leaves log Z unchanged).
- LGCP: the 126 Finnish pines on a G × G grid (d = G²)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from iclr25.core.data import shared_data
from iclr25.core.errors import UserError
from iclr25.underdamped_bridges.targets import LGCP, LogisticRegression, Target, builtin

FOLDER = "15-underdamped-bridges"
BLR_SETS = ("ionosphere", "sonar", "credit", "cancer")
FILES = {"ionosphere": "ionosphere.csv", "sonar": "sonar.csv", "credit": "german.data-numeric",
         "cancer": "breast_cancer.data", "lgcp": "pines.csv"}


def data_folder(folder: str | Path | None = None) -> Path | None:
    """The given folder, or $ICLR25_SHARED/data/15-underdamped-bridges when it exists, else None."""
    return Path(folder) if folder is not None else shared_data(FOLDER)


def _file(name: str, folder: str | Path | None) -> Path:
    root = data_folder(folder)
    if root is None:
        raise UserError(f"target {name!r} needs the shared data folder data/{FOLDER} (set ICLR25_SHARED), "
                        f"which is absent here")
    path = root / FILES[name]
    if not path.is_file():
        raise UserError(f"target {name!r}: file not found: {path}")
    return path


def _standardise(X: np.ndarray, centre: bool) -> np.ndarray:
    sd = X.std(0)
    sd[sd == 0] = 1.0
    return ((X - X.mean(0)) if centre else X) / sd


def load_blr(name: str, folder: str | Path | None = None) -> LogisticRegression:
    """A Bayesian logistic-regression target of the paper by name, preprocessed as the paper does."""
    if name not in BLR_SETS:
        raise UserError(f"unknown logistic-regression set {name!r}; choose from {', '.join(BLR_SETS)}")
    if name == "cancer" and data_folder(folder) is None:
        from sklearn.datasets import load_breast_cancer
        d = load_breast_cancer()
        return LogisticRegression(_standardise(d.data, centre=False), d.target, 10.0, name="cancer")
    path = _file(name, folder)
    if name in ("ionosphere", "sonar"):
        raw = np.loadtxt(path, delimiter=",", skiprows=1)
        X, y, prior_std, centre = raw[:, :-1], raw[:, -1], 1.0, True
    elif name == "credit":
        raw = np.loadtxt(path)
        X, y, prior_std, centre = raw[:, :24], raw[:, 24] - 1, 10.0, False
    else:
        raw = np.loadtxt(path)
        X, y, prior_std, centre = raw[:, 2:32], raw[:, 1], 10.0, False
    return LogisticRegression(_standardise(X, centre), y, prior_std, name=name)


def load_pines(folder: str | Path | None = None) -> np.ndarray:
    """The Finnish pines locations, (126, 2) in [0, 1]²."""
    import pandas as pd
    df = pd.read_csv(_file("lgcp", folder))
    return df[["data_x", "data_y"]].to_numpy(dtype=np.float64)


def lgcp(folder: str | Path | None = None, grid: int = 40) -> LGCP:
    """The paper's LGCP target (d = grid², 1600 at the paper's 40)."""
    return LGCP(load_pines(folder), grid)


TARGETS = ("funnel", "many_well", "gmm40", "seeds", "student_t_mixture") + BLR_SETS + ("lgcp",)


def target_by_name(name: str, folder: str | Path | None = None) -> Target:
    """Any named target: the synthetic ones, the four logistic regressions, LGCP."""
    if name in BLR_SETS:
        return load_blr(name, folder)
    if name == "lgcp":
        return lgcp(folder)
    if name not in TARGETS:
        raise UserError(f"unknown target {name!r}; choose from {', '.join(TARGETS)}")
    return builtin(name)
