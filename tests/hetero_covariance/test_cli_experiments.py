"""The CLI end to end on a user's CSV, its one-line errors, and a smoke run of the reproduction."""

import contextlib
import io
import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from iclr25.core.claims import Verdict
from iclr25.core.cli import main
from iclr25.core.registry import load
from iclr25.core.runtime import RunContext
from iclr25.core.stats import Interval
from iclr25.hetero_covariance.experiments import (
    CLAIMS,
    NEVER,
    bound_check,
    convergence_verdict,
    epochs_to_reach,
    three_way,
    uci_verdict,
)


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


def _cli(*args) -> SimpleNamespace:
    """`iclr25 hetero_covariance *args` in this process: exit code and captured output."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["iclr25", "hetero_covariance", *args])
        except SystemExit as e:
            code = e.code or 0
    return SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


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


def test_cli_non_finite_targets_exit_2_and_the_error_explains_dropna(tmp_path):
    p = tmp_path / "nan.csv"
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "y1": [1.0, np.nan, 2.0], "y2": [0.0, 1.0, 2.0]})
    df.to_csv(p, index=False)
    r = _cli("fit", "--csv", str(p), "--targets", "y1,y2", "--test-fraction", "0")
    assert r.returncode == 2 and "non-finite" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "1 of 3 rows" in r.stderr and "line 3" in r.stderr
    assert "--dropna to fit on the other rows" in r.stderr


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


def test_cli_reads_semicolon_files_and_normalises_column_names(tmp_path, capsys):
    rng = np.random.default_rng(1)
    rows = ["x;fixed  acidity;  pH ;alcohol"] + [";".join(f"{v:.3f}" for v in rng.normal(size=4))
                                                 for _ in range(40)]
    p = tmp_path / "wine.csv"
    p.write_text("\n".join(rows) + "\n")
    args = ["iclr25", "hetero_covariance", "fit", "--csv", str(p), "--targets", "fixed acidity,pH, alcohol",
            "--epochs", "1", "--neighbours", "5", "--test-fraction", "0"]
    with pytest.raises(SystemExit) as e:
        main(args)
    assert e.value.code == 2 and "try --sep ';'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main([*args, "--sep", ";"])
    assert e.value.code == 0 and "targets=3" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:
        main([*args, "--sep", ";;"])
    assert e.value.code == 2 and "--sep must be one character" in capsys.readouterr().err


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


def _iv(lo, hi):
    return Interval((lo + hi) / 2, lo, hi, 3)


def test_tac_comparison_is_three_way_on_the_paired_interval():
    assert three_way(_iv(-0.3, -0.01)) is Verdict.REPRODUCED      # W₂+PL lower on every plausible value
    assert three_way(_iv(-0.3, 0.05)) is Verdict.PARTIAL          # a tie at this resolution
    assert three_way(_iv(0.02, 0.4)) is Verdict.NOT_REPRODUCED


def test_convergence_rule_judges_the_interval_of_the_mean_share():
    assert convergence_verdict([0.20, 0.22, 0.18])[0] is Verdict.REPRODUCED
    assert convergence_verdict([0.54, 0.64, 0.60])[0] is Verdict.PARTIAL   # ahead of NLL, not 2x faster
    assert convergence_verdict([0.3, 0.5, 0.7])[0] is Verdict.PARTIAL      # mean 0.5, interval too wide
    assert convergence_verdict([NEVER] * 3)[0] is Verdict.NOT_REPRODUCED
    assert convergence_verdict([0.4])[0] is Verdict.PARTIAL                # one trial never decides


def test_uci_rule_needs_both_metrics_on_a_majority_of_sets():
    assert uci_verdict(3, 4, 5) is Verdict.REPRODUCED
    assert uci_verdict(0, 5, 5) is Verdict.PARTIAL      # MSE holds, TAC does not
    assert uci_verdict(3, 2, 5) is Verdict.PARTIAL
    assert uci_verdict(2, 2, 5) is Verdict.NOT_REPRODUCED


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
