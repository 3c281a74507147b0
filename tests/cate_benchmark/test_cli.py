"""`iclr25 cate_benchmark eval|run|datasets` end to end through the top-level CLI."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest


def _subprocess_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "iclr25.core.cli", "cate_benchmark", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def trial(tmp_path_factory):
    d = tmp_path_factory.mktemp("trial")
    rng = np.random.default_rng(0)
    n = 3000
    x = rng.normal(size=n)
    w = rng.integers(0, 2, n)
    y = x + w * (1 + x) + rng.normal(size=n)
    pd.DataFrame({"W": w, "Y": y, "x": x}).to_csv(d / "trial.csv", index=False)
    pd.DataFrame({"good": 1 + 0.9 * x, "wrong": 1 - x}).to_csv(d / "preds.csv", index=False)
    pd.DataFrame({"good": (1 + x)[:10]}).to_csv(d / "short.csv", index=False)
    bad = pd.DataFrame({"W": np.where(w == 1, 2, 0), "Y": y})
    bad.to_csv(d / "nonbinary.csv", index=False)
    return d


def test_eval_scores_the_users_predictions(trial, tmp_path):
    out = tmp_path / "scores.csv"
    r = _subprocess_cli("eval", "--rct", str(trial / "trial.csv"), "--treatment", "W", "--outcome", "Y",
             "--propensity", "0.5", "--pred", str(trial / "preds.csv"), "--out", str(out))
    assert r.returncode == 0, r.stderr
    s = pd.read_csv(out).set_index("model")
    assert s.loc["good", "q_hat"] < 0 < s.loc["wrong", "q_hat"]
    assert not s.loc["good", "degenerate"] and s.loc["wrong", "degenerate"]
    assert "good" in r.stdout


def test_eval_dr_kind_runs_with_covariates(trial, cli):
    code, out, err = cli("eval", "--rct", str(trial / "trial.csv"), "--treatment", "W", "--outcome", "Y",
             "--pred", str(trial / "preds.csv"), "--kind", "dr", "--covariates", "x")
    assert code == 0, err
    assert "Q̂ (dr)" in out


@pytest.mark.parametrize("args,needle", [
    (["--propensity", "1.5"], "propensity"),
    (["--propensity", "0"], "propensity"),
    (["--treatment", "T"], "column 'T' not found"),
    (["--pred", "short.csv"], "rows"),
    (["--rct", "nonbinary.csv"], "binary"),
    (["--rct", "missing.csv"], "not found"),
    (["--kind", "qini"], "kind"),
])
def test_eval_bad_input_exits_2_with_one_line(trial, cli, args, needle):
    base = {"--rct": "trial.csv", "--treatment": "W", "--outcome": "Y", "--propensity": "0.5",
            "--pred": "preds.csv"}
    for k, v in zip(args[::2], args[1::2], strict=True):
        base[k] = v
    argv = []
    for k, v in base.items():
        argv += [k, str(trial / v) if k in ("--rct", "--pred") else v]
    code, _, err = cli("eval", *argv)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("iclr25: error:") and needle in lines[0]


@pytest.mark.skipif(importlib.util.find_spec("causaldata") is None, reason="needs the causaldata package")
def test_run_writes_a_table_and_prints_the_summaries(tmp_path, cli):
    out = tmp_path / "t.csv"
    code, stdout, err = cli("run", "--datasets", "social_insure", "--learners", "t.lasso,dml.lasso,zero",
                            "--backend", "serial", "--out", str(out))
    assert code == 0, err
    t = pd.read_csv(out)
    assert set(t["learner"]) == {"t.lasso", "dml.lasso", "zero"} and t["variant"].nunique() == 2
    assert "degenerate rate" in stdout and "paper 62%" in stdout


def test_run_bad_names_exit_2(cli):
    code, _, err = cli("run", "--datasets", "hillstrom")
    assert code == 2 and "unknown dataset" in err


def test_run_on_the_users_own_trial(trial, tmp_path, cli):
    out = tmp_path / "mine.csv"
    code, stdout, err = cli("run", "--trial", str(trial / "trial.csv"), "--treatment", "W", "--outcome", "Y",
                            "--learners", "t.lasso,dml.lasso,zero", "--backend", "serial", "--out", str(out))
    assert code == 0, err
    t = pd.read_csv(out)
    assert set(t["dataset"]) == {"trial"} and t["variant"].nunique() == 2 and (t["error"].isna()).all()
    # τ(x) = 1 + x is learnable: the T-learner beats zero (negative Q̂) in every variant
    assert (t[t["learner"] == "t.lasso"]["q_hat"] < 0).all()


@pytest.mark.parametrize(("args", "needle"), [
    (("--outcome", "Y"), "--trial needs --treatment and --outcome"),
    (("--treatment", "W", "--outcome", "nope"), "column 'nope' not found"),
    (("--treatment", "W", "--outcome", "Y", "--propensity", "1.5"), "strictly inside (0, 1)"),
])
def test_run_trial_bad_input_exits_2(trial, cli, args, needle):
    code, _, err = cli("run", "--trial", str(trial / "trial.csv"), *args)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and needle in lines[0]
