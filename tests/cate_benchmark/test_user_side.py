"""What a user of `cate_benchmark` gets beside Q̂ (issues #48, #52): the zero-effect and constant-ATE
references in `eval` with warnings, a forest plot, the Qini coefficient, a calibration check, the plug-in
τ-risk, boosting tuned by cross-validation, and progress in `run`."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from iclr25.cate_benchmark.learners import LEARNERS, TUNED_GRID, learner_names, make_learner
from iclr25.cate_benchmark.q_hat import q_hat
from iclr25.cate_benchmark.uplift import calibration, plugin_risk, plugin_tau, uplift_curve


def _trial(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    w = rng.integers(0, 2, n)
    y = x + w * (1 + x) + rng.normal(size=n)
    return x, w, y


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("eval")
    x, w, y = _trial(3000)
    pd.DataFrame({"W": w, "Y": y, "x": x}).to_csv(d / "trial.csv", index=False)
    pd.DataFrame({"good": 1 + 0.9 * x, "wrong": 1 - x, "flat": np.ones_like(x)}).to_csv(d / "preds.csv",
                                                                                          index=False)
    return d


# ---- uplift (Qini) -----------------------------------------------------------------------------------

def test_qini_is_zero_for_a_constant_model_and_antisymmetric_under_reversal():
    x, w, y = _trial()
    assert uplift_curve(np.full_like(x, 3.0), y, w, 0.5, n_boot=20).qini == 0.0
    good, rev = uplift_curve(1 + x, y, w, 0.5, n_boot=50), uplift_curve(-(1 + x), y, w, 0.5, n_boot=0)
    assert good.qini > 3 * good.qini_se > 0  # τ = 1 + x orders units well
    assert rev.qini == pytest.approx(-good.qini, abs=1e-12)
    assert good.gain[0] == 0 and good.gain[-1] == pytest.approx(good.random[-1])  # both end at the ATE


def test_qini_averages_over_ties_so_row_order_does_not_matter():
    x, w, y = _trial(1000)
    tau = np.round(x)  # few distinct values: large tie groups
    perm = np.random.default_rng(1).permutation(len(x))
    a = uplift_curve(tau, y, w, 0.5, n_boot=0).qini
    b = uplift_curve(tau[perm], y[perm], w[perm], 0.5, n_boot=0).qini
    assert a == pytest.approx(b, rel=1e-12)


# ---- calibration -------------------------------------------------------------------------------------

def test_calibration_slope_is_one_for_the_truth_and_half_for_a_doubled_spread():
    x, w, y = _trial(20_000)
    c = calibration(1 + x, y, w, 0.5)
    assert abs(c.a - 1) < 3 * c.a_se and abs(c.b - 1) < 3 * c.b_se
    doubled = calibration(1 + 2 * x, y, w, 0.5)  # twice the true spread: the BLP halves it
    assert abs(doubled.b - 0.5) < 3 * doubled.b_se
    flat = calibration(np.full_like(x, 1.0), y, w, 0.5)
    assert np.isnan(flat.b) and abs(flat.a - 1) < 3 * flat.a_se
    effects = [g["effect"] for g in c.groups]
    assert len(c.groups) == 5 and effects == sorted(effects)  # GATES rise with τ̂


def test_plugin_risk_prefers_the_truth_and_is_zero_against_itself():
    x, w, y = _trial(4000)
    tt = plugin_tau(x[:, None], w, y, "lasso", 2, 0)
    assert plugin_risk(1 + x, tt).value < plugin_risk(1 - x, tt).value
    assert plugin_risk(tt, tt).value == 0.0


# ---- eval -------------------------------------------------------------------------------------------

def test_eval_prints_the_references_and_directions_and_warns(files, cli, tmp_path):
    out = tmp_path / "s.csv"
    code, stdout, err = cli("eval", "--rct", str(files / "trial.csv"), "--treatment", "W", "--outcome", "Y",
                            "--pred", str(files / "preds.csv"), "-o", str(out))
    assert code == 0, err
    assert "lower is better" in stdout and "Qini: higher is better" in stdout
    lines = stdout.splitlines()
    zero = next(ln for ln in lines if ln.startswith("zero effect (reference)"))
    const = next(ln for ln in lines if ln.startswith("constant ATE (reference)"))
    assert zero.split()[3] == "0" and float(const.split()[3]) < 0  # Q̂ = 0 exactly; the ATE model's −ATE²
    assert "do not beat the zero-effect model (Q̂ ≥ 0, degenerate): wrong" in err
    assert "score worse than the constant-ATE model: flat, wrong" in err
    s = pd.read_csv(out).set_index("model")
    assert s.loc["good", "qini"] > 0 > s.loc["wrong", "qini"] and s.loc["flat", "qini"] == 0
    assert s.loc["good", "blp_slope"] == pytest.approx(1 / 0.9, abs=0.3)


def test_eval_forest_plot_and_plugin_risk(files, cli, tmp_path):
    png = tmp_path / "forest.png"
    code, stdout, err = cli("eval", "--rct", str(files / "trial.csv"), "--treatment", "W", "--outcome", "Y",
                            "--pred", str(files / "preds.csv"), "--plot", str(png), "--plugin", "lasso")
    assert code == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    assert "plug-in τ-risk: lower is better" in stdout
    good = next(ln for ln in stdout.splitlines() if ln.startswith("good")).split()
    wrong = next(ln for ln in stdout.splitlines() if ln.startswith("wrong")).split()
    assert float(good[-2]) < float(wrong[-2])  # plug-in risk column


@pytest.mark.parametrize(("args", "needle"), [
    (["--plot", "forest.txt"], "--plot must end in .png or .pdf or .svg"),
    (["--plugin", "xgb"], "--plugin must be lasso or gbm"),
])
def test_eval_new_options_bad_input_exit_2(files, cli, tmp_path, args, needle):
    code, _, err = cli("eval", "--rct", str(files / "trial.csv"), "--treatment", "W", "--outcome", "Y",
                       "--pred", str(files / "preds.csv"), *[str(tmp_path / a) if a.endswith(".txt") else a
                                                             for a in args])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and needle in lines[0], err


def test_eval_plugin_needs_covariates(tmp_path, cli):
    x, w, y = _trial(200)
    pd.DataFrame({"W": w, "Y": y}).to_csv(tmp_path / "t.csv", index=False)
    pd.DataFrame({"m": 1 + x}).to_csv(tmp_path / "p.csv", index=False)
    code, _, err = cli("eval", "--rct", str(tmp_path / "t.csv"), "--treatment", "W", "--outcome", "Y",
                       "--pred", str(tmp_path / "p.csv"), "--plugin", "lasso")
    assert code == 2 and "need covariates" in err


# ---- tuned boosting ----------------------------------------------------------------------------------

def test_tuned_learners_stand_beside_the_roster_and_tune_by_cross_validation():
    tuned = learner_names("tuned")
    assert len(tuned) == 6 and not set(tuned) & set(learner_names("all")) and len(LEARNERS) == 16
    assert learner_names("fast,tuned") == learner_names("fast") + tuned  # groups combine in a list
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1200, 3))
    w = rng.integers(0, 2, 1200)
    tau = 1 + np.maximum(X[:, 1], 0)
    y = X[:, 0] + w * tau + rng.normal(size=1200)
    m = make_learner("t.hgb.tuned").fit(X[:800], w[:800], y[:800])
    best = m.mu1_.best_params_
    assert best["max_depth"] in TUNED_GRID["max_depth"]
    assert best["learning_rate"] in TUNED_GRID["learning_rate"]
    assert q_hat(m.effect(X[800:]), y[800:], w[800:], 0.5).value < -1.0  # E[τ²] ≈ 2.3: it finds the effect
    assert make_learner("r.hgb.tuned").orthogonal and not make_learner("s.hgb.tuned").orthogonal


# ---- run --------------------------------------------------------------------------------------------

def test_run_shows_progress_per_variant_and_beats_zero_per_learner(tmp_path, cli, monkeypatch):
    import iclr25.core.executors as executors
    calls = []

    def spy(items, description="", total=None, disable=None):
        calls.append((description, total))
        yield from items
    monkeypatch.setattr(executors, "progress", spy)
    x, w, y = _trial(600)
    pd.DataFrame({"W": w, "Y": y, "x": x}).to_csv(tmp_path / "t.csv", index=False)
    code, stdout, err = cli("run", "--trial", str(tmp_path / "t.csv"), "--treatment", "W", "--outcome", "Y",
                            "--learners", "t.lasso,s.hgb.tuned,zero", "--backend", "serial",
                            "-o", str(tmp_path / "o.csv"))
    assert code == 0, err
    assert calls == [("benchmark variants", 2)]
    assert "fitting 3 learners on 2 variants" in err
    assert "beats zero" in stdout and "zero-effect model has Q̂ = 0" in stdout
    t = pd.read_csv(tmp_path / "o.csv")
    assert set(t["learner"]) == {"t.lasso", "s.hgb.tuned", "zero"} and t["error"].isna().all()
    assert (t.loc[t["learner"] == "s.hgb.tuned", "family"] == "s").all()
