"""The CLI end to end on a user's CSV, its one-line errors, and a smoke run of the reproduction."""

import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from iclr25.core.claims import Verdict
from iclr25.core.cli import main
from iclr25.core.registry import load
from iclr25.core.runtime import RunContext
from iclr25.hetero_covariance.experiments import CLAIMS, bound_check, epochs_to_reach


@pytest.fixture(scope="module")
def csv_path(tmp_path_factory):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(150, 2))
    noise = rng.multivariate_normal([0, 0, 0], [[1, .5, 0], [.5, 1, 0], [0, 0, 1]], size=150)
    df = pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "y1": x[:, 0] + noise[:, 0],
                       "y2": x[:, 1] + noise[:, 1], "y3": noise[:, 2], "label": ["u"] * 150})
    p = tmp_path_factory.mktemp("cli") / "data.csv"
    df.to_csv(p, index=False)
    return p


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "iclr25.core.cli", "hetero_covariance", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_cli_fit_on_a_csv_writes_metrics_and_predictions(csv_path, tmp_path):
    out = tmp_path / "pred.csv"
    r = _cli("fit", "--csv", str(csv_path), "--targets", "y1,y2,y3", "--inputs", "a,b",
             "--loss", "w2_pseudo", "--epochs", "2", "--predictions", str(out))
    assert r.returncode == 0, r.stderr
    assert "TAC=" in r.stdout and "LL=" in r.stdout
    pred = pd.read_csv(out)
    assert len(pred) == 150 and {"mean_y1", "cov_y2_y1", "cov_y3_y3"} <= set(pred.columns)
    assert (pred["cov_y1_y1"] > 0).all()


@pytest.mark.parametrize("args, needle", [
    (["--targets", "y1"], "at least 2 target"),
    (["--targets", "y1,nope"], "'nope'"),
    (["--targets", "y1,y2", "--loss", "kl9"], "unknown loss"),
    (["--targets", "y1,y2", "--inputs", "label"], "not numeric"),
    (["--targets", "y1,y2", "--epochs", "0"], "epochs"),  # non-numeric 'label' is skipped by default
])
def test_cli_bad_input_exits_2_with_one_line(csv_path, args, needle, capsys):
    with pytest.raises(SystemExit) as e:
        main(["iclr25", "hetero_covariance", "fit", "--csv", str(csv_path), *args])
    assert e.value.code == 2
    lines = [ln for ln in capsys.readouterr().err.strip().splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("iclr25: error:") and needle in lines[0], lines


def test_cli_non_finite_targets_exit_2(tmp_path):
    p = tmp_path / "nan.csv"
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "y1": [1.0, np.nan, 2.0], "y2": [0.0, 1.0, 2.0]})
    df.to_csv(p, index=False)
    r = _cli("fit", "--csv", str(p), "--targets", "y1,y2", "--test-fraction", "0")
    assert r.returncode == 2 and "non-finite" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_cli_dropna_keeps_the_clean_rows(csv_path, tmp_path, capsys):
    df = pd.read_csv(csv_path)
    df.loc[5, "y2"] = np.nan
    p = tmp_path / "holes.csv"
    df.to_csv(p, index=False)
    out = tmp_path / "pred.csv"
    with pytest.raises(SystemExit) as e:
        main(["iclr25", "hetero_covariance", "fit", "--csv", str(p), "--targets", "y1,y2", "--epochs", "1",
              "--dropna", "--loss", "nll", "--predictions", str(out)])
    assert e.value.code == 0, capsys.readouterr().err
    pred = pd.read_csv(out)
    assert len(pred) == 149 and 5 not in set(pred["row"])


def test_cli_missing_file_exits_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["iclr25", "hetero_covariance", "fit", "--csv", str(tmp_path / "none.csv"), "--targets", "a,b"])
    assert e.value.code == 2 and "not found" in capsys.readouterr().err


def test_bound_check_small():
    m = bound_check(50, seed=1)
    assert m["violations"] == 0 and m["max_abs_gap_commuting"] < 1e-8 and m["min_rel_gap"] > -1e-9


def test_epochs_to_reach():
    assert epochs_to_reach([5.0, 3.0, 1.0], 3.0) == 2
    assert epochs_to_reach([5.0, 4.0], 1.0) is None


@pytest.mark.slow
def test_smoke_reproduction_gives_one_valid_finding_per_claim(tmp_path):
    paper = load("hetero_covariance")
    findings = paper.check(paper.run("smoke", RunContext(profile="smoke", out_dir=tmp_path)))
    assert [f.claim for f in findings] == [c.key for c in CLAIMS]
    for f in findings:
        assert f.verdict in set(Verdict) - {Verdict.ERROR}
        assert f.summary
        for key, v in f.measured.items():
            if isinstance(v, float):
                assert math.isfinite(v), (f.claim, key, v)
    assert findings[0].verdict is Verdict.REPRODUCED  # Theorem 1 holds on every pair
