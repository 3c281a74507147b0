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
from iclr25.hetero_covariance.claims import CLAIMS
from iclr25.hetero_covariance.experiments import NEVER, bound_check, epochs_to_reach


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
    assert "TAC" in r.stdout and "LL" in r.stdout and "homoscedastic baseline" in r.stdout
    pred = pd.read_csv(out)
    assert len(pred) == 150 and {"mean_y1", "cov_y2_y1", "cov_y3_y3"} <= set(pred.columns)
    assert (pred["cov_y1_y1"] > 0).all()


@pytest.mark.parametrize("args, needle", [
    (["--targets", "y1,y1"], "'y1' is named twice"),  # issue #49: one line, not a silent refit
    (["--targets", "y1,y2", "--inputs", "a,a"], "'a' is named twice"),
    (["--targets", "y1,y2", "--inputs", "a,y1"], "'y1' is both an input and a target"),
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


RULE = {c.key: c.rule for c in CLAIMS}
R, P, N = Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED


def _tac(w2, nll, tic):
    """Quick's measurements: TIC at k = 4 only (the TIC part decides the ks it has)."""
    return {f"tac_w2_pseudo_k{k}": w2 for k in (4, 8)} | {f"tac_nll_k{k}": nll for k in (4, 8)} | {
        "tac_tic_x1.1_k4": tic}


def test_tac_comparison_is_three_way_on_the_paired_interval():
    rule = RULE["tac_competitive"]
    assert rule.decide(_tac([1.0, 1.1, 0.9], [1.5, 1.6, 1.4], [2.0, 2.1, 1.9])) is R  # lower on every trial
    assert rule.decide(_tac([1.0, 1.1, 0.9], [1.0, 1.3, 0.8], [2.0, 2.1, 1.9])) is P  # a tie with NLL
    assert rule.decide(_tac([1.5, 1.6, 1.4], [1.0, 1.1, 0.9], [1.0, 1.1, 0.9])) is N
    assert rule.decide(_tac([1.0, 1.1, 0.9], [1.5, 1.6, 1.4], [0.5, 0.6, 0.4])) is P  # TIC wins, NLL loses


def test_convergence_rule_judges_the_interval_of_the_mean_share():
    rule = RULE["faster_convergence"]

    def shares(x):
        return {"epoch_share_constant_f1": x, "epoch_share_varying_f1": x}
    assert rule.decide(shares([0.20, 0.22, 0.18])) is R
    assert rule.decide(shares([0.54, 0.64, 0.60])) is P  # ahead of NLL, not 2x faster
    assert rule.decide(shares([0.3, 0.5, 0.7])) is P  # mean 0.5, interval too wide
    assert rule.decide(shares([NEVER] * 3)) is N
    assert rule.decide(shares([0.4])) is P  # one trial never decides


def test_uci_rule_needs_tac_won_on_3_of_5_sets_by_its_interval():
    rule = RULE["uci"]
    win, tie = ([1.0, 1.1, 0.9], [1.5, 1.6, 1.4]), ([1.0, 1.2, 0.8], [1.0, 1.1, 0.9])
    sets = ("concrete", "energy", "red_wine", "abalone", "parkinson")

    def m(n_wins):
        pairs = [win] * n_wins + [tie] * (5 - n_wins)
        return {k: v for s, (a, b) in zip(sets, pairs, strict=True)
                for k, v in ((f"tac_w2_pseudo_{s}", a), (f"tac_nll_{s}", b))}
    assert rule.decide(m(3)) is R and rule.decide(m(2)) is N


def test_cheaper_than_tic_is_a_ratio_of_cpu_times():
    rule = RULE["cheaper_than_tic"]
    tic = {"cpu_s_per_epoch_tic_k8": [1.0, 1.1, 0.9]}
    assert rule.decide({"cpu_s_per_epoch_w2_k8": [0.1, 0.11, 0.09]} | tic) is R
    assert rule.decide({"cpu_s_per_epoch_w2_k8": [0.5, 0.5, 0.5]} | tic) is N


@pytest.mark.slow
def test_smoke_reproduction_gives_one_valid_finding_per_claim(tmp_path):
    paper = load("hetero_covariance")
    findings = paper.reproduce("smoke", RunContext(profile="smoke", out_dir=tmp_path))
    assert [f.claim for f in findings] == [c.key for c in CLAIMS]
    for f in findings:
        assert f.verdict is Verdict.SMOKE and f.summary
        for key, v in f.measured.items():
            if isinstance(v, float):
                assert math.isfinite(v), (f.claim, key, v)
    assert RULE["bound_holds"].decide(findings[0].measured) is R  # Theorem 1 holds on every pair
    tac = findings[1].measured  # scored on a held-out draw, the training rows' TAC reported beside
    assert len(tac["tac_w2_pseudo_k4"]) == 2 and "tac_train_rows_w2_pseudo_k4_mean" in tac
