"""The paper's 2-D toy (official animation notebook): two classes separated along x, plus a distractor
signal along d = (sin r, cos r) added to every point. Filters rotate with r; the pattern does not."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ToyConfig:
    """Defaults from the official notebook."""

    n_per_class: int = 500
    mean0: tuple[float, float] = (1.0, 0.0)
    mean1: tuple[float, float] = (4.0, 0.0)
    noise_sd: float = 0.4  # isotropic class noise
    distractor_sd: float = 0.7  # e ~ N(0, 0.7^2), added as e * d
    x_scale: float = 1.0  # optional scaling of the first axis


def toy_data(angle_deg: float, rng: np.random.Generator,
             cfg: ToyConfig = ToyConfig()) -> tuple[np.ndarray, np.ndarray]:
    """(acts (2n, 2), labels (2n,)) for rotation angle r of the distractor direction."""
    n = cfg.n_per_class
    t = np.repeat([0.0, 1.0], n)
    mu = np.where(t[:, None] == 1, np.array(cfg.mean1), np.array(cfg.mean0))
    r = np.deg2rad(angle_deg)
    d = np.array([np.sin(r), np.cos(r)])
    e = rng.normal(0.0, cfg.distractor_sd, size=2 * n)
    a = mu + rng.normal(0.0, cfg.noise_sd, size=(2 * n, 2)) + e[:, None] * d
    a[:, 0] *= cfg.x_scale
    return a, t


def true_direction(cfg: ToyConfig = ToyConfig()) -> np.ndarray:
    """The concept's direction: mu_1 - mu_0 (scaled like the data), normalised."""
    h = (np.array(cfg.mean1) - np.array(cfg.mean0)) * np.array([cfg.x_scale, 1.0])
    return h / np.linalg.norm(h)


def analytic_filter_cos(angle_deg: float | np.ndarray, cfg: ToyConfig = ToyConfig()) -> np.ndarray:
    """cos(filter, e1) of the population least-squares filter Sigma_w^{-1} (mu_1 - mu_0).

    With Sigma_w = s_n^2 I + s_d^2 d d^T, c = s_d^2 / (s_n^2 + s_d^2) and s = sin r:
    cos = (1 - c s^2) / sqrt((1 - c s^2)^2 + c^2 s^2 (1 - s^2))   (1.0 at 0 deg, 0.856 at 45 deg).
    """
    c = cfg.distractor_sd ** 2 / (cfg.noise_sd ** 2 + cfg.distractor_sd ** 2)
    s = np.sin(np.deg2rad(np.asarray(angle_deg, dtype=np.float64)))
    num = 1 - c * s ** 2
    return num / np.sqrt(num ** 2 + c ** 2 * s ** 2 * (1 - s ** 2))
