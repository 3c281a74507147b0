"""The CLI on a user's own CSV and arrays, its one-line errors (exit 2), every verdict rule on fixed
measurements, and a smoke run of the reproduction."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from iclr25.causal_direction.experiments import (
    CLAIMS,
    decide_baselines,
    decide_gap,
    decide_real,
    decide_robust,
    decide_scales,
    decide_synthetic,
    loglog_slope,
    modal_call,
)
from iclr25.core.claims import Verdict
from iclr25.core.cli import main
from iclr25.core.registry import load
from iclr25.core.runtime import RunContext
from iclr25.core.stats import binomial_pass_rate

R, P, N = Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED


@pytest.fixture(scope="module")
def csv_path(tmp_path_factory):
    # a user's table: the class shapes three numeric measurements, plus one categorical column
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 600)
    X = rng.normal(size=(600, 3)) + 4 * np.eye(3)[y]
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    df["site"] = np.where(y == 0, "north", "south")
    df["label"] = np.array(["oak", "pine", "birch"])[y]
    p = tmp_path_factory.mktemp("cli") / "trees.csv"
    df.to_csv(p, index=False)
    return p


def _run(args, capsys):
    with pytest.raises(SystemExit) as e:
        main(["iclr25", "causal_direction", "detect", *map(str, args)])
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


def test_detect_on_a_csv_prints_the_direction_and_writes_the_plot(csv_path, tmp_path, capsys):
    png = tmp_path / "curve.png"
    code, out, err = _run([csv_path, "--label", "label", "--reps", "2", "--plot", png, "--baselines"], capsys)
    assert code == 0, err
    first = out.splitlines()[0]
    assert first.startswith("anticausal (normalised slope ") and ", p = " in first
    assert "CDNL:" in out and "RECI:" in out and png.stat().st_size > 1000


def test_detect_json_on_image_arrays(tmp_path, capsys):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 300)
    images = rng.normal(size=(300, 4, 4)) + 3 * y[:, None, None]
    np.save(tmp_path / "X.npy", images)
    np.save(tmp_path / "y.npy", y)
    code, out, err = _run(["--X", tmp_path / "X.npy", "--y", tmp_path / "y.npy", "--embed", "pca:4",
                           "--reps", "1", "--json"], capsys)
    assert code == 0, err
    d = json.loads(out)
    assert d["direction"] == "anticausal" and d["n_features"] == 16 and len(d["curve"]) == 5


@pytest.mark.parametrize("setup, args, needle", [
    ("one_class", ["--label", "label"], "single class"),
    ("nan", ["--label", "label"], "missing values"),
    (None, ["--label", "nope"], "'nope' not in"),
    (None, ["--label", "label", "--rates", "0,0.5,1"], "[0, 1)"),
    (None, ["--label", "label", "--rates", "0,x"], "--rates"),
    (None, ["--label", "label", "--noise", "gauss"], "unknown noise kind"),
    (None, ["--label", "label", "--embed", "tsne:2"], "embed"),
    (None, ["--label", "label", "--n-classes", "4"], "with n_classes=4, y must hold integers"),
    (None, [], "--label"),
    (None, ["--label", "label", "--plot", "curve.txt"], "must end in .png"),
    (None, ["--label", "label", "--reps", "0"], "--reps"),
    (None, ["--label", "label", "--reps", "1000000000"], "--reps"),
    (None, ["--label", "label", "--seed", "-1"], "--seed"),
    (None, ["--label", "label", "--threshold", "nan"], "--threshold"),
    (None, ["--label", "label", "--alpha", "0"], "--alpha"),
    (None, ["--label", "label", "--n-classes", "9223372036854775808"], "--n-classes"),
    (None, ["--label", "label", "--rates", ",".join(["0.1"] * 60)], "at most 50 rates"),
])
def test_bad_input_exits_2_with_one_line(csv_path, tmp_path, capsys, setup, args, needle):
    path = csv_path
    if setup:
        df = pd.read_csv(csv_path)
        if setup == "one_class":
            df["label"] = "oak"
        else:
            df.loc[3, "a"] = np.nan
        path = tmp_path / f"{setup}.csv"
        df.to_csv(path, index=False)
    code, _, err = _run([path, *args], capsys)
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("iclr25: error:") and needle in lines[0], err


def test_array_errors_exit_2(tmp_path, capsys):
    np.save(tmp_path / "X.npy", np.ones((10, 3)))
    np.save(tmp_path / "y.npy", np.arange(9) % 2)
    code, _, err = _run(["--X", tmp_path / "X.npy", "--y", tmp_path / "y.npy"], capsys)
    assert code == 2 and "10 rows but y has 9" in err
    code, _, err = _run(["--X", tmp_path / "missing.npy", "--y", tmp_path / "y.npy"], capsys)
    assert code == 2 and "not found" in err
    code, _, err = _run([], capsys)
    assert code == 2 and "no data" in err
    np.save(tmp_path / "X3.npy", np.ones((3, 2)))
    np.save(tmp_path / "y3.npy", np.arange(3))
    code, _, err = _run(["--X", tmp_path / "X3.npy", "--y", tmp_path / "y3.npy", "--n-classes", "5"], capsys)
    assert code == 2 and "fewer rows (3) than classes (5)" in err
    np.save(tmp_path / "Xc.npy", np.array([1 + 2j, 3j]))
    code, _, err = _run(["--X", tmp_path / "Xc.npy", "--y", tmp_path / "y3.npy"], capsys)
    assert code == 2 and "real numbers" in err
    (tmp_path / "d.png").mkdir()
    xy = ["--X", tmp_path / "X3.npy", "--y", tmp_path / "y3.npy"]
    code, _, err = _run([*xy, "--plot", tmp_path / "d.png"], capsys)
    assert code == 2 and "is a folder" in err


def test_string_labels_from_npy(tmp_path, capsys):
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 200)
    np.save(tmp_path / "X.npy", rng.normal(size=(200, 3)) + 4 * y[:, None])
    np.save(tmp_path / "y.npy", np.array(["cat", "dog"])[y])
    code, out, err = _run(["--X", tmp_path / "X.npy", "--y", tmp_path / "y.npy", "--reps", "1"], capsys)
    assert code == 0 and out.startswith("anticausal"), err


# ---- verdict rules on fixed measurements -----------------------------------------------------------

def test_rules_are_not_passed_by_coin_flips():
    assert binomial_pass_rate(24, 0.5, 23) < 0.10  # synthetic: ≥ 95% of 24
    assert binomial_pass_rate(5, 0.5, 5) < 0.10  # real, quick: 5/5
    assert binomial_pass_rate(10, 0.5, 9) < 0.10  # real, full: ≥ 9/10
    assert binomial_pass_rate(270, 0.5, math.ceil(0.85 * 270)) < 0.10  # robustness


def test_decide_synthetic():
    assert decide_synthetic([True] * 23 + [False]) is R
    assert decide_synthetic([True] * 22 + [False] * 2) is N


@pytest.mark.parametrize("correct, full, partial, verdict", [
    (5, 5, 4, R), (4, 5, 4, P), (3, 5, 4, N),  # quick
    (10, 9, 8, R), (9, 9, 8, R), (8, 9, 8, P), (7, 9, 8, N),  # full
])
def test_decide_real(correct, full, partial, verdict):
    assert decide_real(correct, full, partial) is verdict


def test_decide_robust():
    assert decide_robust([True] * 85 + [False] * 15) is R
    assert decide_robust([True] * 84 + [False] * 16) is N


def test_decide_gap_is_strict():
    assert decide_gap(0.45, 0.30) is R
    assert decide_gap(0.60, 0.50) is N  # a gap of 0.1 is not more than 0.1
    assert decide_gap(0.30, 0.35) is N
    assert decide_gap(float("nan"), 0.3) is N


def test_decide_baselines():
    assert decide_baselines(10, {"CDNL": 3, "RECI": 7, "IGCI": 7, "ANM": 7, "PC": 4}) is R
    assert decide_baselines(7, {"CDNL": 3, "RECI": 7, "IGCI": 6, "ANM": 7, "PC": 4}) is P  # ties fail
    assert decide_baselines(3, {"CDNL": 3, "RECI": 7}) is N


def test_decide_scales_and_loglog_slope():
    assert loglog_slope([1000, 4000, 16000], [0.1, 0.4, 1.6]) == pytest.approx(1.0)
    assert decide_scales(True, [1.1]) is R
    assert decide_scales(True, [1.3]) is P
    assert decide_scales(False, [1.0]) is P
    assert decide_scales(False, [1.5]) is N


# ---- the reproduction --------------------------------------------------------------------------------

def test_smoke_reproduction_gives_one_valid_finding_per_claim(tmp_path):
    paper = load("causal_direction")
    findings = paper.check(paper.run("smoke", RunContext(profile="smoke", out_dir=tmp_path)))
    assert [f.claim for f in findings] == [c.key for c in CLAIMS]
    by_key = {f.claim: f for f in findings}
    for f in findings:
        assert f.verdict is not Verdict.ERROR and f.summary
        for key, v in f.measured.items():
            if isinstance(v, float):
                assert math.isfinite(v), (f.claim, key, v)
        for fig in f.figures:
            assert (tmp_path / fig).stat().st_size > 1000
    assert by_key["image_benchmarks"].verdict is Verdict.NOT_TESTABLE
    figures = {fig for f in findings for fig in f.figures}
    assert figures == {"curves.png", "normalized_slopes.png", "robustness.png", "scaling.png"}
    # the permuted-label control shows the noise floor the verdicts are read against
    assert by_key["real_direction"].measured["null_slope_abs_max"] < 0.33


def test_modal_call_breaks_ties_by_seed_order_not_by_hash_order():
    assert modal_call(["undecided", "causal"]) == "undecided"
    assert modal_call(["causal", "undecided"]) == "causal"
    assert modal_call(["causal", "anticausal", "anticausal"]) == "anticausal"
    assert modal_call(["anticausal", "causal", "undecided"]) == "anticausal"
