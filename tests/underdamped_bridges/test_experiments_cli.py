"""Each verdict rule on fixed measurements, a smoke run of the reproduction (with and without the shared
data), and the CLI end to end on a user's CSV and own log-density, with its one-line errors."""

import math

import numpy as np
import pandas as pd
import pytest

from iclr25.core.claims import Verdict
from iclr25.core.cli import main
from iclr25.core.runtime import RunContext
from iclr25.underdamped_bridges import PAPER
from iclr25.underdamped_bridges.experiments import (
    decide_fewer_steps,
    decide_integrators,
    decide_no_tuning,
    decide_score_matching,
    decide_state_of_the_art,
    decide_ud_beats_od,
    paired_gap,
)

R, P, N = Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED


def test_score_matching_rule():
    assert decide_score_matching([1.0, 0.95, 1.08], [0.99, 0.985, 0.999]) is R
    assert decide_score_matching([1.0, 0.89, 1.0], [0.99] * 3) is N  # one slope outside [0.9, 1.1]
    assert decide_score_matching([1.0] * 3, [0.99, 0.97, 0.99]) is N  # one R² below 0.98


def test_ud_beats_od_rule():
    assert decide_ud_beats_od(1.0, 2 / 3) is R
    assert decide_ud_beats_od(0.9, 1.0) is P  # Ionosphere gain below 1 nat
    assert decide_ud_beats_od(5.0, 0.6) is P  # 0.6 of the cells: > 1/2 but < 2/3
    assert decide_ud_beats_od(5.0, 0.5) is N
    assert decide_ud_beats_od(-3.0, 0.3) is N


def test_fewer_steps_state_of_the_art_integrators_no_tuning_rules():
    assert decide_fewer_steps({"dis_funnel": (-2.0, -1.5), "dbs_ionosphere": (-150.0, -151.0)}) is R
    assert decide_fewer_steps({"dis_funnel": (-2.0, -1.5)}) is N
    assert decide_state_of_the_art({"funnel": "DBS-UD", "ionosphere": "DIS-UD"}) is R
    assert decide_state_of_the_art({"funnel": "DBS-UD", "ionosphere": "CMCD"}) is P
    assert decide_state_of_the_art({"funnel": "ULA-UD", "ionosphere": "CMCD"}) is N
    assert decide_integrators(1.0, 0.5) is R and decide_integrators(1.0, 0.51) is N
    assert decide_integrators(-math.inf, 0.1) is N
    assert decide_no_tuning(1.0, None) is R and decide_no_tuning(0.99, None) is N
    assert decide_no_tuning(3.0, 1.0) is R and decide_no_tuning(3.0, 1.01) is N


def test_paired_gap_adds_seed_spread_and_monte_carlo_error():
    gap, se = paired_gap([1.0, 2.0, 3.0], [0.0] * 3, [0.0, 0.0, 0.0], [0.0] * 3)
    assert gap == 2.0 and se == pytest.approx(math.sqrt(1.0 / 3))
    gap, se = paired_gap([1.0] * 3, [0.3] * 3, [0.0] * 3, [0.4] * 3)
    assert se == pytest.approx(math.sqrt((3 * 0.09 + 3 * 0.16) / 9))


@pytest.mark.slow
def test_smoke_run_gives_one_finding_per_claim_with_figures(tmp_path):
    findings = PAPER.check(PAPER.run("smoke", RunContext(seed=0, profile="smoke", out_dir=tmp_path)))
    by = {f.claim: f for f in findings}
    assert by["lgcp_scale"].verdict is Verdict.NOT_TESTABLE
    assert by["elbo_score_matching"].verdict in (R, N)
    for f in findings:
        for fig in f.figures:
            assert (tmp_path / fig).is_file()


def test_without_the_shared_data_the_real_data_claims_name_the_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR25_SHARED", str(tmp_path / "nowhere"))
    findings = PAPER.check(PAPER.run("smoke", RunContext(seed=0, profile="smoke", out_dir=tmp_path)))
    gone = [f for f in findings if f.claim not in ("elbo_score_matching", "lgcp_scale")]
    assert all(f.verdict is Verdict.NOT_TESTABLE and "15-underdamped-bridges" in f.summary for f in gone)


# ---- CLI -----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("udb-cli")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X @ [1.0, -1.0, 0.5] + rng.normal(size=60) > 0).astype(int)
    pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": X[:, 2], "y": y}).to_csv(d / "data.csv", index=False)
    pd.DataFrame({"a": X[:, 0], "y": np.arange(60) % 3}).to_csv(d / "three.csv", index=False)
    (d / "mymodel.py").write_text("import torch\n\ndef log_prob(x):\n"
                                  "    return -0.5 * ((x - 1) ** 2).sum(-1)\n\n"
                                  "def broken(x):\n    return torch.log(x[:, 0])\n")
    return d


TINY = ["--steps", "2", "--iters", "2", "--batch", "8", "--hidden", "4", "--no-tune-dt"]


def _run(args, capsys):
    with pytest.raises(SystemExit) as e:
        main(["iclr25", "underdamped_bridges", *args])
    return e.value.code, capsys.readouterr()


def test_cli_fit_eval_sample_on_a_csv(files, tmp_path, capsys):
    run = tmp_path / "run"
    code, out = _run(["fit", "--logreg", str(files / "data.csv"), "--label", "y", "--method", "dbs", *TINY,
                      "-o", str(run)], capsys)
    assert code == 0 and "ELBO" in out.out and (run / "sampler.pt").is_file()
    code, out = _run(["eval", str(run), "--n", "50"], capsys)
    assert code == 0 and "log Z-hat" in out.out and "ESS" in out.out
    code, out = _run(["sample", str(run), "--n", "5", "-o", str(tmp_path / "s.csv")], capsys)
    df = pd.read_csv(tmp_path / "s.csv")
    assert code == 0 and list(df.columns) == ["x0", "x1", "x2", "x3", "log_w"] and len(df) == 5


def test_cli_fit_on_the_users_own_log_density(files, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(files)
    code, out = _run(["fit", "--log-prob", "mymodel.py:log_prob", "--dim", "3", "--method", "ula", *TINY,
                      "-o", str(tmp_path / "r")], capsys)
    assert code == 0, out.err
    code, out = _run(["eval", str(tmp_path / "r"), "--n", "20"], capsys)
    assert code == 0 and "(20 samples)" in out.out


@pytest.mark.parametrize("args, needle", [
    (["--target", "funnel", "--method", "hmc"], "unknown method 'hmc'"),
    (["--target", "funnel", "--steps", "0"], "Invalid value for '--steps'"),
    (["--target", "funnel", "--friction", "nan"], "--friction must be a finite number"),
    (["--logreg", "data.csv", "--label", "y", "--prior-std", "0"], "--prior-std must be a finite number"),
    (["--target", "funnel", "--dt", "2.0"], "≥ 1 at step 0"),
    (["--target", "nowhere"], "unknown target 'nowhere'"),
    (["--log-prob", "mymodel.py:broken", "--dim", "2"], "not finite at draws from the prior"),
    (["--log-prob", "mymodel.py:nope", "--dim", "2"], "no function 'nope'"),
    (["--logreg", "three.csv", "--label", "y"], "labels must be binary"),
    (["--logreg", "data.csv", "--label", "z"], "column 'z' not in"),
    (["--target", "funnel", "--log-prob", "mymodel.py:log_prob"], "exactly one of"),
])
def test_cli_bad_input_exits_2_with_one_line(files, tmp_path, capsys, monkeypatch, args, needle):
    monkeypatch.chdir(files)
    steps = [] if "--steps" in args else ["--steps", "2"]
    code, out = _run(["fit", *args, *steps, "--iters", "1", "-o", str(tmp_path / "r")], capsys)
    lines = [ln for ln in out.err.strip().splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1 and needle in lines[0], lines


def test_cli_wrong_dimension_and_missing_run(files, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(files)
    (files / "fixed.py").write_text("import torch\nW = torch.ones(5)\n\n"
                                    "def log_prob(x):\n    return -(x @ W)\n")
    code, out = _run(["fit", "--log-prob", "fixed.py:log_prob", "--dim", "10", *TINY,
                      "-o", str(tmp_path / "r")], capsys)
    assert code == 2 and "is the dimension 10 right?" in out.err
    code, out = _run(["eval", str(tmp_path / "missing")], capsys)
    assert code == 2 and "not a fitted run" in out.err


def test_full_profile_findings_on_fabricated_results(tmp_path):
    """The full profile's plan and finding builders, without training: UD wins everywhere but one
    cell, DBS-UD is best, OBABO beats EM by 3 nats, learning gains 5 nats, dt inits spread 0.5."""
    from iclr25.underdamped_bridges import experiments as ex

    ctx = RunContext(seed=0, profile="full", out_dir=tmp_path)
    plan = ex._plan(ctx, real=True)
    assert len(plan["cells"]) == 36 and len(plan["others"]) == 8 and len(plan["tuning"]) == 4
    base = {"ula": -10.0, "mcd": -9.0, "cmcd": -8.0, "dis": -7.0, "dbs": -6.0}

    def fake(r):
        e = base[r.method] + (2.0 if r.underdamped else 0.0) + 0.01 * r.K
        if r.method == "ula" and r.target == "funnel" and r.K == 8:
            e -= 5.0 if r.underdamped else 0.0  # the one cell OD wins
        if r in plan["integrators"]:
            e += {"obabo": 3.0, "obab": 2.0, "baoab": 2.0, "em": 0.0}[r.integrator]
        if r.frozen:
            e -= 5.0
        if not r.tune:
            e += 0.5 * (r.dt_scale > 1)
        return {"elbo": [e, e + 0.1, e - 0.1], "elbo_se": [0.05] * 3, "dt0": [0.1] * 3, "dt": [0.1] * 3}

    res = {r: fake(r) for g in plan.values() for r in g}
    refs = {"funnel": 0.0, "ionosphere": -111.6}
    ud = ex._ud_beats_od(plan, res, refs, ctx)
    assert ud.verdict is R and ud.measured["cells_ud_better"] == 17 and ud.measured["cells"] == 18
    fewer = ex._fewer_steps(plan, res, ctx)
    assert fewer.verdict is R and fewer.measured["step_ratio_dbs_funnel"] == 4.0
    sota = ex._state_of_the_art(plan, res, ctx)
    assert sota.verdict is R and sota.measured["best_ionosphere"] == "DBS-UD"
    integ = ex._integrators(plan, res, refs, ctx)
    assert integ.verdict is R and integ.measured["gap_obabo_minus_em"] == pytest.approx(3.0)
    tuning = ex._no_tuning(plan, res, refs, ctx)
    assert tuning.verdict is R and tuning.measured["spread"] == pytest.approx(0.5)
