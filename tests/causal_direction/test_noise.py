"""Label-noise generators: the realised rate is the asked rate, a flip never lands on the own class,
symmetric injection follows its closed form, and only IDN's flip target depends on x."""

import numpy as np
import pytest

from iclr25.causal_direction.noise import inject_label_noise
from iclr25.core.errors import UserError

N = 20_000


def _data(C=4, d=5, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((N, d)), rng.integers(0, C, N)


@pytest.mark.parametrize("kind", ["sym", "pair", "idn"])
@pytest.mark.parametrize("rate", [0.2, 0.4, 0.9])
def test_realised_rate_is_the_asked_rate_and_flips_never_keep_the_class(kind, rate):
    # were a flip allowed to land on the own class, sym would change only rate·(C−1)/C of the labels
    X, y = _data()
    y2 = inject_label_noise(X, y, rate, kind, np.random.default_rng(1), n_classes=4)
    changed = float(np.mean(y2 != y))
    expected = rate
    if kind == "idn" and rate == 0.9:  # q_i ~ N(0.9, 0.1²) clipped at 1 has mean < 0.9
        from scipy.stats import norm
        z = 1.0  # (1 − 0.9) / 0.1
        expected = 0.9 * norm.cdf(z) - 0.1 * norm.pdf(z) + (1 - norm.cdf(z))  # E[min(q, 1)]
    se = np.sqrt(expected * (1 - expected) / N)
    assert abs(changed - expected) < 5 * se + 2e-3, (kind, rate, changed, expected)


@pytest.mark.parametrize("kind", ["sym", "pair", "idn"])
def test_rate_zero_changes_nothing(kind):
    X, y = _data()
    assert np.array_equal(inject_label_noise(X, y, 0.0, kind, np.random.default_rng(0), 4), y)


def test_pair_flips_to_the_next_class():
    X, y = _data(C=3)
    y2 = inject_label_noise(X, y, 0.5, "pair", np.random.default_rng(0), 3)
    flipped = y2 != y
    assert np.array_equal(y2[flipped], (y[flipped] + 1) % 3)


def test_symmetric_injection_follows_the_closed_form():
    # D(ρ) = D0 + ρ(1 − D0·C/(C−1)) for a fixed Y′ that disagrees with Ỹ on a share D0
    C, rho = 4, 0.3
    X, y = _data(C)
    rng = np.random.default_rng(2)
    y_prime = np.where(rng.random(N) < 0.35, (y + rng.integers(1, C, N)) % C, y)
    d0 = np.mean(y_prime != y)
    ds = [np.mean(y_prime != inject_label_noise(X, y, rho, "sym", np.random.default_rng(s), C))
          for s in range(20)]
    expected = d0 + rho * (1 - d0 * C / (C - 1))
    assert abs(np.mean(ds) - expected) < 4 * np.std(ds) / np.sqrt(len(ds)) + 1e-3


def test_idn_flip_target_depends_on_x_and_sym_does_not():
    # two groups of rows with the same label and opposite features: IDN sends them to different classes
    C = 3
    X = np.repeat([[5.0, 0.0], [-5.0, 0.0]], N // 2, axis=0)
    y = np.zeros(N, dtype=int)
    for kind, dependent in (("idn", True), ("sym", False)):
        y2 = inject_label_noise(X, y, 0.5, kind, np.random.default_rng(3), C)
        a, b = y2[: N // 2], y2[N // 2:]
        pa = np.bincount(a[a != 0], minlength=C) / max(1, (a != 0).sum())
        pb = np.bincount(b[b != 0], minlength=C) / max(1, (b != 0).sum())
        tv = 0.5 * np.abs(pa - pb).sum()
        assert (tv > 0.5) if dependent else (tv < 0.05), (kind, tv)


def test_same_rng_same_labels():
    X, y = _data()
    a = inject_label_noise(X, y, 0.3, "idn", np.random.default_rng(7), 4)
    b = inject_label_noise(X, y, 0.3, "idn", np.random.default_rng(7), 4)
    assert np.array_equal(a, b)


@pytest.mark.parametrize("rate", [-0.1, 1.0, 1.5, float("nan")])
def test_rates_outside_0_1_are_refused(rate):
    X, y = _data()
    with pytest.raises(UserError, match="rate"):
        inject_label_noise(X, y, rate, "sym", np.random.default_rng(0), 4)


def test_bad_kind_labels_and_missing_features_are_refused():
    X, y = _data()
    with pytest.raises(UserError, match="unknown noise kind"):
        inject_label_noise(X, y, 0.2, "uniform", np.random.default_rng(0), 4)
    with pytest.raises(UserError, match="needs the features"):
        inject_label_noise(None, y, 0.2, "idn", np.random.default_rng(0), 4)
    with pytest.raises(UserError, match="at least 2 classes"):
        inject_label_noise(X, np.zeros(N, dtype=int), 0.2, "sym", np.random.default_rng(0))
    with pytest.raises(UserError, match="integer"):
        inject_label_noise(X, y.astype(float), 0.2, "sym", np.random.default_rng(0), 4)
