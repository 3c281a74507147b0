"""The estimator (fit / predict / score, every loss, bad input) and the data generators and loaders."""

import os
from pathlib import Path

import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.hetero_covariance.data import (
    UCI_FILES,
    load_diabetes_matrix,
    load_uci,
    multivariate,
    sinusoid,
    uci_protocol,
)
from iclr25.hetero_covariance.estimator import LOSSES, HeteroscedasticRegressor
from iclr25.hetero_covariance.metrics import tac

SHARED = Path(os.environ.get("ICLR25_SHARED", Path(__file__).resolve().parents[2] / ".." / "shared"))
UCI_DIR = SHARED / "data" / "14-heteroscedastic" / "uci"


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 2))
    Y = X @ rng.normal(size=(2, 3)) + rng.normal(size=(120, 3))
    return X, Y


@pytest.mark.parametrize("loss", list(LOSSES))
def test_every_loss_fits_and_predicts_spd_covariances(small, loss):
    X, Y = small
    reg = HeteroscedasticRegressor(loss=loss, epochs=1, batch_size=64).fit(X, Y)
    mu, cov = reg.predict(X[:7])
    assert mu.shape == (7, 3) and cov.shape == (7, 3, 3)
    assert np.isfinite(mu).all() and (np.linalg.eigvalsh(cov) > 0).all()
    assert len(reg.history_.epoch_s) == 1


def test_w2_pseudo_learns_correlated_noise():
    # homoscedastic noise with correlation 0.9: the predicted covariance should find a strong correlation
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(800, 1))
    noise = rng.multivariate_normal([0, 0], [[1.0, 0.9], [0.9, 1.0]], size=800)
    Y = np.column_stack([X[:, 0], -X[:, 0]]) + noise
    reg = HeteroscedasticRegressor(loss="w2_pseudo", epochs=6, lr=3e-3, random_state=0).fit(X, Y)
    mu, cov = reg.predict(X)
    corr = cov[:, 0, 1] / np.sqrt(cov[:, 0, 0] * cov[:, 1, 1])
    assert corr.mean() > 0.6
    # TAC uses that correlation: better than treating the targets as independent
    assert tac(mu, cov, Y) < tac(mu, np.tile(np.eye(2), (800, 1, 1)), Y)


@pytest.mark.parametrize("loss", ["w2_pseudo", "nll", "nll_diag"])
def test_predicted_covariance_respects_the_eigenvalue_floor(small, loss):
    X, Y = small
    floor = 0.05
    reg = HeteroscedasticRegressor(loss=loss, epochs=1, cov_floor=floor, standardize=False).fit(X, Y)
    lam = np.linalg.eigvalsh(reg.predict(X)[1])
    assert lam.min() >= floor * (1 - 1e-6)
    with pytest.raises(UserError, match="cov_floor"):
        HeteroscedasticRegressor(cov_floor=float("nan")).fit(X, Y)


def test_predict_back_transforms_to_target_units(small):
    X, Y = small
    reg = HeteroscedasticRegressor(loss="nll", epochs=1).fit(X, Y * 100.0 + 7.0)
    mu, cov = reg.predict(X)
    assert abs(mu.mean() - (Y * 100 + 7).mean()) < 100  # same units as the targets, not standardised
    assert np.median(cov[:, 0, 0]) > 10.0


def test_score_and_history(small):
    X, Y = small
    reg = HeteroscedasticRegressor(epochs=2).fit(X, Y, eval_set=(X, Y))
    assert len(reg.history_.val_mse) == len(reg.history_.val_tac) == 2 and reg.history_.pseudo_label_s > 0
    assert reg.history_.val_tac[-1] == pytest.approx(reg.score(X, Y, "neg_tac") * -1)
    assert np.isfinite(reg.score(X, Y)) and reg.score(X, Y, "neg_tac") < 0
    with pytest.raises(UserError, match="metric"):
        reg.score(X, Y, "r2")


def test_bad_input_gives_one_line_user_errors(small):
    X, Y = small
    bad = Y.copy()
    bad[3, 1] = np.nan
    cases = [
        (lambda: HeteroscedasticRegressor(epochs=1).fit(X, bad), "non-finite"),
        (lambda: HeteroscedasticRegressor(epochs=1).fit(X[:2], np.ones((2, 3))), "more targets"),
        (lambda: HeteroscedasticRegressor(loss="kl2").fit(X, Y), "unknown loss"),
        (lambda: HeteroscedasticRegressor(epochs=0).fit(X, Y), "epochs"),
        (lambda: HeteroscedasticRegressor(epochs=1).fit(X, Y[:5]), "one row per row"),
        (lambda: HeteroscedasticRegressor().predict(X), "not fitted"),
    ]
    for fn, match in cases:
        with pytest.raises(UserError, match=match) as e:
            fn()
        assert "\n" not in str(e.value)


def test_single_target_fits_and_tac_is_the_mae_of_the_mean(small):
    X, Y = small
    reg = HeteroscedasticRegressor(loss="w2_pseudo", epochs=1).fit(X, Y[:, 0])
    mu, cov = reg.predict(X)
    assert cov.shape == (120, 1, 1)
    assert -reg.score(X, Y[:, :1], "neg_tac") == pytest.approx(np.abs(Y[:, :1] - mu).mean())


def test_sinusoid_matches_its_definition():
    d = sinusoid(5000, "varying", np.random.default_rng(0))
    x = d.X[:, 0]
    assert (np.abs(x) <= 5).all()
    assert np.allclose(d.mean[:, 0], np.abs(x) * np.sin(2 * np.pi * x))
    r = (d.Y - d.mean)[:, 0] / np.abs(x)
    assert r.std() == pytest.approx(1.0, abs=0.05)  # noise sd = |x|
    with pytest.raises(UserError):
        sinusoid(10, "quadratic")


def test_multivariate_generator_is_heteroscedastic_with_valid_covariance():
    d = multivariate(4, rng=np.random.default_rng(0))
    assert d.X.shape == (4000, 4) and d.Y.shape == (4000, 4)
    assert (np.abs(d.X) < 5).all()
    assert (np.linalg.eigvalsh(d.cov) > 0).all()
    assert d.cov[:, 0, 0].std() > 0.1  # the covariance depends on x
    whitened = np.linalg.solve(np.linalg.cholesky(d.cov), (d.Y - d.mean)[..., None])[..., 0]
    assert np.cov(whitened.T) == pytest.approx(np.eye(4), abs=0.08)


def test_uci_protocol_splits_quarter_of_columns_into_inputs():
    data = np.random.default_rng(0).normal(size=(50, 8)) * 3 + 1
    d = uci_protocol(data, np.random.default_rng(1))
    assert d.X.shape == (50, 2) and d.Y.shape == (50, 6)
    Z = np.column_stack([d.X, d.Y])
    assert np.allclose(Z.mean(0), 0) and np.allclose(Z.std(0), 10.0)


def test_diabetes_loads_offline():
    M = load_diabetes_matrix()
    assert M.shape == (442, 11) and np.isfinite(M).all()


def test_load_uci_reports_missing_files(tmp_path):
    with pytest.raises(UserError, match="not found"):
        load_uci("concrete", tmp_path)
    with pytest.raises(UserError, match="unknown UCI"):
        load_uci("iris", tmp_path)


EXPECTED_COLS = {"abalone": 8, "concrete": 9, "energy": 10, "red_wine": 12, "white_wine": 12,
                 "parkinson": 26, "naval": 18, "electrical": 14, "gas_turbine": 11, "air_quality": 15}


@pytest.mark.parametrize("name", sorted(UCI_FILES))
def test_load_uci_sets_from_shared_data(name):
    if not (UCI_DIR / UCI_FILES[name][0]).is_file():
        pytest.skip(f"UCI data not found at {UCI_DIR} (set ICLR25_SHARED)")
    M = load_uci(name, UCI_DIR)
    assert M.shape[1] == EXPECTED_COLS[name] and len(M) > 500 and np.isfinite(M).all()


def test_estimator_follows_scikit_learn_conventions(small):
    from sklearn.base import clone

    reg = HeteroscedasticRegressor(loss="nll", epochs=3, k_neighbours=7)
    twin = clone(reg)
    assert twin.get_params() == reg.get_params() and not hasattr(twin, "net_")
    X, Y = small
    a = HeteroscedasticRegressor(epochs=1, random_state=3).fit(X, Y).predict(X[:4])
    b = HeteroscedasticRegressor(epochs=1, random_state=3).fit(X, Y).predict(X[:4])
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])  # same seed, same model


def test_true_covariance_gives_lower_tac_than_wrong_ones():
    d = multivariate(4, rng=np.random.default_rng(2))
    right = tac(d.mean, d.cov, d.Y)
    assert right < tac(d.mean, np.tile(np.eye(4), (len(d.Y), 1, 1)), d.Y)
    flip = np.diag([1.0, 1.0, 1.0, -1.0])  # the last target's correlations get the wrong sign
    assert right < tac(d.mean, flip @ d.cov @ flip, d.Y)
