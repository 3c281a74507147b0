"""What a user of `hetero_covariance` gets (issues #48, #49, #52): a fitted model saved and applied to new
rows (API and CLI), the trivial baselines beside every score, one target, the coverage of the predicted
ellipsoids, and progress over epochs."""

from __future__ import annotations

import contextlib
import io
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import torch

from iclr25.core.cli import main
from iclr25.core.errors import UserError
from iclr25.hetero_covariance import HeteroscedasticRegressor
from iclr25.hetero_covariance.metrics import calibration_error, coverage, evaluate, mahalanobis_sq


def _cli(*args) -> SimpleNamespace:
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["iclr25", "hetero_covariance", *args])
        except SystemExit as e:
            code = e.code or 0
    return SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


def _hetero(n=400, seed=0):
    """y1, y2 whose noise correlation is 0.9·a and whose scale grows with |b|."""
    rng = np.random.default_rng(seed)
    a, b = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
    z1, z2 = rng.normal(size=(2, n))
    rho, s = 0.9 * a, 0.3 + np.abs(b)
    return pd.DataFrame({"a": a, "b": b, "y1": a + s * z1,
                         "y2": b + s * (rho * z1 + np.sqrt(1 - rho**2) * z2)})


@pytest.fixture(scope="module")
def fitted():
    df = _hetero()
    reg = HeteroscedasticRegressor(epochs=3, k_neighbours=10).fit(df[["a", "b"]], df[["y1", "y2"]])
    return reg, df


# ---- coverage and calibration ----------------------------------------------------------------------

def test_coverage_is_nominal_for_the_true_covariance_and_off_for_a_wrong_one():
    rng = np.random.default_rng(0)
    n, k = 20_000, 3
    B = rng.normal(size=(k, k))
    S = B @ B.T + 0.5 * np.eye(k)
    y = rng.multivariate_normal(np.zeros(k), S, size=n)
    mu = np.zeros((n, k))
    true = coverage(mu, np.broadcast_to(S, (n, k, k)), y)
    assert all(abs(share - p) < 0.01 for p, share in true.items())
    wide = coverage(mu, np.broadcast_to(4 * S, (n, k, k)), y)  # 2x the scale: too many inside
    narrow = coverage(mu, np.broadcast_to(S / 4, (n, k, k)), y)
    assert all(wide[p] > p and narrow[p] < p for p in true)
    assert wide[0.5] > 0.95 and narrow[0.5] < 0.12  # P(χ²₃ ≤ 4·2.37) = 0.976, P(χ²₃ ≤ 2.37 / 4) = 0.102
    assert calibration_error(mu, np.broadcast_to(S, (n, k, k)), y) < 0.01
    assert calibration_error(mu, np.broadcast_to(4 * S, (n, k, k)), y) > 0.1


def test_mahalanobis_distance_matches_the_explicit_inverse():
    rng = np.random.default_rng(1)
    B = rng.normal(size=(5, 2, 2))
    cov = B @ np.swapaxes(B, 1, 2) + 0.1 * np.eye(2)
    mu, y = rng.normal(size=(5, 2)), rng.normal(size=(5, 2))
    r = y - mu
    explicit = np.einsum("ni,nij,nj->n", r, np.linalg.inv(cov), r)
    np.testing.assert_allclose(mahalanobis_sq(mu, cov, y), explicit, rtol=1e-10)


def test_coverage_refuses_levels_outside_0_1():
    with pytest.raises(UserError, match="levels"):
        coverage(np.zeros((2, 1)), np.ones((2, 1, 1)), np.zeros((2, 1)), levels=(0.5, 1.0))


# ---- baselines --------------------------------------------------------------------------------------

def test_baselines_are_the_training_residual_and_target_covariances(fitted):
    reg, df = fitted
    X, Y = df[["a", "b"]].to_numpy(), df[["y1", "y2"]].to_numpy()
    floor = reg.cov_floor * np.diag(Y.std(0) ** 2)
    res = Y - reg.predict(X, return_cov=False)
    np.testing.assert_allclose(reg.residual_cov_, np.cov(res, rowvar=False, bias=True) + floor, rtol=1e-9)
    np.testing.assert_allclose(reg.target_cov_, np.cov(Y, rowvar=False, bias=True) + floor, rtol=1e-9)
    base = reg.baselines(X[:7])
    assert base["homoscedastic"][1].shape == (7, 2, 2) and np.allclose(base["constant"][0], Y.mean(0))
    scores = reg.evaluate(X, Y)
    assert set(scores) == {"model", "homoscedastic", "constant"}
    # the homoscedastic baseline shares the model's mean: the same MSE, only the covariance differs
    assert scores["homoscedastic"]["mse"] == pytest.approx(scores["model"]["mse"])
    assert scores["constant"] == evaluate(*base_all(reg, X), Y)


def base_all(reg, X):
    return reg.baselines(X)["constant"]


def test_cli_warns_when_the_model_loses_to_a_baseline(tmp_path):
    p = tmp_path / "d.csv"
    _hetero(200).to_csv(p, index=False)
    r = _cli("fit", "--csv", str(p), "--targets", "y1,y2", "--epochs", "1", "--neighbours", "5")
    assert r.returncode == 0, r.stderr
    assert "homoscedastic baseline" in r.stdout and "constant-mean baseline" in r.stdout
    assert "TAC and MSE: lower is better; LL: higher is better" in r.stdout
    assert "warning: the predicted covariance does not beat the homoscedastic baseline" in r.stderr


# ---- save / load / predict ------------------------------------------------------------------------

def test_save_and_load_give_the_same_predictions_names_and_baselines(fitted, tmp_path):
    reg, df = fitted
    reg.save(tmp_path / "m.pt")
    back = HeteroscedasticRegressor.load(tmp_path / "m.pt")
    X = df[["a", "b"]].to_numpy()[:20]
    for a, b in zip(reg.predict(X), back.predict(X), strict=True):
        np.testing.assert_array_equal(a, b)
    assert back.feature_names_in_ == ["a", "b"] and back.target_names_ == ["y1", "y2"]
    assert back.get_params() == reg.get_params()
    np.testing.assert_array_equal(back.residual_cov_, reg.residual_cov_)


@pytest.mark.parametrize("content", [b"not a model", "torch"])
def test_load_refuses_foreign_files_with_the_expected_format(tmp_path, content):
    p = tmp_path / "m.pt"
    if content == "torch":
        torch.save({"format": "something else", "weights": {}}, p)
    else:
        p.write_bytes(content)
    with pytest.raises(UserError, match="expected a model saved by `hetero_covariance fit -o`"):
        HeteroscedasticRegressor.load(p)


def test_load_refuses_a_model_whose_weights_do_not_fit_its_shape(fitted, tmp_path):
    reg, _ = fitted
    reg.save(tmp_path / "m.pt")
    d = torch.load(tmp_path / "m.pt", weights_only=True)
    d["feature_names"] = ["a", "b", "c"]  # 3 inputs, weights for 2
    torch.save(d, tmp_path / "bad.pt")
    with pytest.raises(UserError, match="damaged model file"):
        HeteroscedasticRegressor.load(tmp_path / "bad.pt")


def test_cli_fit_saves_and_predict_applies_it_to_new_rows(tmp_path):
    train, new = tmp_path / "train.csv", tmp_path / "new.csv"
    _hetero(300, seed=0).to_csv(train, index=False)
    fresh = _hetero(50, seed=1)
    fresh.to_csv(new, index=False)
    model, out = tmp_path / "model.pt", tmp_path / "pred.csv"
    r = _cli("fit", "--csv", str(train), "--targets", "y1,y2", "--epochs", "2", "--neighbours", "5",
             "-o", str(model))
    assert r.returncode == 0 and model.is_file(), r.stderr
    r = _cli("predict", "--model", str(model), "--csv", str(new), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "on 50 rows of new.csv with targets" in r.stdout and "homoscedastic baseline" in r.stdout
    pred = pd.read_csv(out)
    mu, cov = HeteroscedasticRegressor.load(model).predict(fresh[["a", "b"]].to_numpy())
    np.testing.assert_allclose(pred[["mean_y1", "mean_y2"]].to_numpy(), mu, rtol=1e-12)
    np.testing.assert_allclose(pred["cov_y2_y1"], cov[:, 1, 0], rtol=1e-12)
    # inputs only: predictions, no scores
    fresh[["b", "a"]].to_csv(new, index=False)
    r = _cli("predict", "--model", str(model), "--csv", str(new), "-o", "-")
    assert r.returncode == 0 and r.stdout.startswith("row,mean_y1,mean_y2,cov_y1_y1")
    assert "baseline" not in r.stdout + r.stderr


def test_cli_predict_bad_input_is_one_line(tmp_path, fitted):
    reg, df = fitted
    reg.save(tmp_path / "m.pt")
    df[["a", "y1"]].to_csv(tmp_path / "no_b.csv", index=False)
    (tmp_path / "junk.pt").write_text("junk")
    for args, needle in [(["--model", str(tmp_path / "m.pt"), "--csv", str(tmp_path / "no_b.csv")],
                          "column 'b' not in no_b.csv"),
                         (["--model", str(tmp_path / "junk.pt"), "--csv", str(tmp_path / "no_b.csv")],
                          "expected a model saved by"),
                         (["--model", str(tmp_path / "none.pt"), "--csv", str(tmp_path / "no_b.csv")],
                          "model file not found")]:
        r = _cli("predict", *args, "-o", str(tmp_path / "o.csv"))
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 2 and len(lines) == 1 and needle in lines[0], r.stderr


# ---- one target -----------------------------------------------------------------------------------

def test_one_target_fits_a_heteroscedastic_variance(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, size=(600, 1))
    y = x[:, 0] + (0.1 + np.abs(x[:, 0])) * rng.normal(size=600)
    reg = HeteroscedasticRegressor(loss="nll", epochs=30, lr=3e-3, k_neighbours=20).fit(x, y)
    mu, cov = reg.predict(np.array([[0.0], [0.9]]))
    assert mu.shape == (2, 1) and cov.shape == (2, 1, 1)
    assert cov[1, 0, 0] > 4 * cov[0, 0, 0]  # true variances 0.01 and 1.0: the variance follows |x|
    s = reg.evaluate(x, y[:, None])
    assert s["model"]["ll"] > s["homoscedastic"]["ll"]
    assert s["model"]["tac"] == pytest.approx(np.abs(y - reg.predict(x, return_cov=False)[:, 0]).mean())
    p = tmp_path / "one.csv"
    pd.DataFrame({"x": x[:, 0], "y": y}).to_csv(p, index=False)
    r = _cli("fit", "--csv", str(p), "--targets", "y", "--epochs", "1", "--neighbours", "5")
    assert r.returncode == 0, r.stderr
    assert "targets=1" in r.stdout and "one target: TAC is the MAE of the mean" in r.stdout


# ---- progress -------------------------------------------------------------------------------------

def test_fit_reports_progress_over_its_epochs(monkeypatch):
    import iclr25.core.runtime as runtime
    calls = []

    def spy(items, description="", total=None, disable=None):
        calls.append((description, total))
        yield from items
    monkeypatch.setattr(runtime, "progress", spy)
    df = _hetero(60)
    HeteroscedasticRegressor(epochs=2, k_neighbours=5).fit(df[["a", "b"]], df[["y1", "y2"]])
    assert calls == [("fitting w2_pseudo on 60 rows", 2)]
