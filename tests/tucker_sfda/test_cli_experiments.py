"""The CLI end to end on the user's own .npz files, its one-line errors, the verdict rules on fixed
measurements, and a smoke run of the reproduction."""

import numpy as np
import pytest

from iclr25.core.claims import Verdict
from iclr25.core.cli import main
from iclr25.core.registry import load
from iclr25.core.runtime import RunContext
from iclr25.tucker_sfda.experiments import (
    CLAIMS,
    decide_host_f1,
    decide_implicit_regularization,
    decide_mac_reduction,
    decide_maintains_f1,
    decide_param_reduction,
    decide_sample_efficiency,
    implicit_finding,
    maintains_finding,
    sample_finding,
)


def _cli(capsys, *args) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as e:
        main(["iclr25", "tucker_sfda", *args])
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("sfda")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(48, 3, 32)).astype(np.float32)
    y = np.arange(48) % 2 + 1  # the user's labels are 1 and 2
    X[y == 2] += 1.0
    np.savez(d / "src.npz", X=X, y=y)
    np.savez(d / "user.npz", X=X[:24] * 1.3 + 0.2, y=y[:24])
    np.savez(d / "flat.npz", X=X[:, 0])
    Xn = X.copy()
    Xn[1, 2, 3] = np.nan
    np.savez(d / "nan.npz", X=Xn)
    np.savez(d / "ch4.npz", X=np.zeros((4, 4, 32), np.float32))
    np.savez(d / "user_y3.npz", X=X[:8], y=np.full(8, 3))
    np.savez(d / "user_nolabels.npz", X=X[:8])
    (d / "garbage.pt").write_bytes(bytes(range(256)) * 4)
    return d


@pytest.fixture(scope="module")
def checkpoints(files):
    """train-source → decompose, through the real CLI."""
    with pytest.raises(SystemExit) as e:
        main(["iclr25", "tucker_sfda", "train-source", "--source", str(files / "src.npz"), "-o",
              str(files / "src.pt"), "--epochs", "2", "--mid", "8", "--final", "16", "--imputer"])
    assert e.value.code == 0
    with pytest.raises(SystemExit) as e:
        main(["iclr25", "tucker_sfda", "decompose", "--ckpt", str(files / "src.pt"), "--rf", "4", "--source",
              str(files / "src.npz"), "-o", str(files / "dec.pt"), "--finetune-epochs", "1"])
    assert e.value.code == 0
    return files / "src.pt", files / "dec.pt"


def test_cli_adapts_the_users_npz_and_writes_predictions(files, checkpoints, capsys):
    _, dec = checkpoints
    pred, out = files / "pred.csv", files / "user.pt"
    code, stdout, err = _cli(capsys, "adapt", "--ckpt", str(dec), "--target", str(files / "user.npz"),
                             "--method", "shot", "--tune", "core", "--epochs", "2",
                             "--predictions", str(pred),
                             "-o", str(out))
    assert code == 0, err
    assert "macro-F1 on user.npz" in stdout and "‖ΔW‖_F" in stdout
    import pandas as pd
    p = pd.read_csv(pred)
    assert len(p) == 24 and set(p["label"]) <= {1, 2} and p["confidence"].between(0, 1).all()
    # the adapted checkpoint loads and adapts again (MAPU: the imputer travelled with it)
    code, stdout, err = _cli(capsys, "adapt", "--ckpt", str(out), "--target", str(files / "user.npz"),
                             "--method", "mapu", "--epochs", "1")
    assert code == 0, err


def test_cli_bench_prints_ratios(checkpoints, capsys):
    src, _ = checkpoints
    code, stdout, err = _cli(capsys, "bench", "--ckpt", str(src), "--rf", "2,8", "--no-latency")
    assert code == 0, err
    rows = [ln.split() for ln in stdout.splitlines() if ln[:1].isdigit()]
    assert [r[0] for r in rows] == ["2", "8"]
    assert float(rows[1][2]) < float(rows[0][2])  # % of dense parameters falls with RF


@pytest.mark.parametrize("args, needle", [
    (["adapt", "--target", "{d}/flat.npz"], "3-D"),
    (["adapt", "--target", "{d}/nan.npz"], "NaN"),
    (["adapt", "--target", "{d}/ch4.npz"], "4 channels, the checkpoint expects 3"),
    (["adapt", "--target", "{d}/user.npz", "--method", "tent"], "unknown method 'tent'"),
    (["adapt", "--target", "{d}/user.npz", "--tune", "everything"], "unknown mode 'everything'"),
    (["adapt", "--target", "{d}/missing.npz"], "file not found"),
    (["adapt", "--target", "{d}/user.npz", "--epochs", "1000000000"], "--epochs"),
    (["adapt", "--target", "{d}/user.npz", "--lr", "nan"], "--lr must be a finite number"),
    (["adapt", "--target", "{d}/user.npz", "--predictions", "{d}/p.txt"], "must end in .csv"),
    (["adapt", "--target", "{d}/garbage.pt"], "cannot read"),
    (["adapt", "--target", "{d}/user.npz", "--seed", "-1"], "--seed"),
    (["decompose", "--source", "{d}/src.npz", "-o", "{d}/x.pt", "--rf", "0"], "--rf"),
    (["decompose", "--source", "{d}/src.npz", "-o", "{d}"], "must end in .pt"),
    (["decompose", "--source", "{d}/src.npz", "-o", "{d}/src.npz/x.pt"], "cannot create the folder"),
    (["decompose", "--source", "{d}/src.npz", "-o", "{d}/x.npz"], "must end in .pt"),
    (["decompose", "--source", "{d}/user_y3.npz", "-o", "{d}/x.pt"],
     "label 3 is not among the source labels"),
    (["train-source", "--source", "{d}/src.npz", "-o", "{d}/s.pt", "--mid", "1000000000"], "--mid"),
    (["train-source", "--source", "{d}/src.npz", "-o", "{d}/s.pt", "--dropout", "inf"], "--dropout"),
    (["train-source", "--source", "{d}/user_nolabels.npz", "-o", "{d}/s.pt"], "labels 'y' are required"),
    (["bench", "--rf", "4,x"], "comma-separated integers"),
    (["bench", "--rf", "4,0"], "rank factors must be integers in [1,"),
])
def test_cli_bad_input_exits_2_with_one_line(files, checkpoints, capsys, args, needle):
    src, dec = checkpoints
    ck = [] if args[0] == "train-source" else ["--ckpt", str(dec if args[0] == "adapt" else src)]
    code, _, err = _cli(capsys, *[a.format(d=files) for a in args], *ck)
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1, lines
    assert lines[0].startswith("iclr25: error:") and needle in lines[0], lines


def test_cli_core_tuning_needs_a_decomposed_checkpoint(files, checkpoints, capsys):
    src, _ = checkpoints
    code, _, err = _cli(capsys, "adapt", "--ckpt", str(src), "--target", str(files / "user.npz"))
    assert code == 2 and "needs a decomposed model" in err


@pytest.mark.parametrize("blob, needle", [
    ("garbage", "cannot read"),
    ("empty", "cannot read"),
    ({"weights": 1}, "not a tucker_sfda checkpoint"),
    ({"format": "iclr25.tucker_sfda/1", "config": {"C": 3}}, "damaged"),
])
def test_cli_refuses_files_that_are_not_checkpoints(files, capsys, tmp_path, blob, needle):
    import torch
    p = tmp_path / "bad.pt"
    if blob in ("garbage", "empty"):
        p.write_bytes(b"\x00" * 64 if blob == "garbage" else b"")
    else:
        torch.save(blob, p)
    code, _, err = _cli(capsys, "adapt", "--ckpt", str(p), "--target", str(files / "user.npz"))
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1, err


# ---- verdict rules on fixed measurements -----------------------------------------------------------

def test_param_and_mac_rules():
    assert decide_param_reduction({"a": (3192, 198208), "b": (3112, 199168)}) is Verdict.REPRODUCED
    assert decide_param_reduction({"a": (3192, 198208), "b": (20000, 199168)}) is Verdict.PARTIAL
    assert decide_param_reduction({"a": (19820, 198208)}) is Verdict.REPRODUCED  # 9.9996%: allowed
    assert decide_param_reduction({"a": (19821, 198208)}) is Verdict.NOT_REPRODUCED  # 10.0001%
    row = {"macs_dec": 531712, "macs_dense": 9036416, "hooks_dec": 531712, "hooks_dense": 9036416,
           "bytes_dec": 49200, "bytes_dense": 797996}
    assert decide_mac_reduction({"a": row}) is Verdict.REPRODUCED
    assert decide_mac_reduction({"a": {**row, "hooks_dec": 531713}}) is Verdict.PARTIAL  # formula ≠ hooks
    assert decide_mac_reduction({"a": {**row, "macs_dec": 1_000_000}}) is Verdict.PARTIAL
    assert decide_mac_reduction({"a": {**row, "bytes_dec": 797996}}) is Verdict.PARTIAL


def test_f1_rule_per_host():
    ft = [0.80, 0.70]
    assert decide_host_f1([0.78, 0.67], [0.5, 0.5], ft) is Verdict.REPRODUCED  # −2.5 points
    assert decide_host_f1([0.70, 0.70], [0.79, 0.69], ft) is Verdict.PARTIAL  # RF 8 −5, RF 4 −1
    assert decide_host_f1([0.70, 0.70], [0.70, 0.70], ft) is Verdict.NOT_REPRODUCED
    assert decide_maintains_f1({"shot": ([0.8], [0.8], [0.8]), "nrc": ([0.5], [0.5], [0.8])}) is \
        Verdict.PARTIAL
    assert decide_maintains_f1({"shot": ([0.8], [0.8], [0.8]), "nrc": ([0.9], [0.5], [0.8])}) is \
        Verdict.REPRODUCED


def test_regularization_and_sample_rules():
    assert decide_implicit_regularization([(0.1, 1.0)] * 9 + [(2.0, 1.0)]) is Verdict.REPRODUCED  # 90%
    assert decide_implicit_regularization([(0.1, 1.0)] * 8 + [(2.0, 1.0)] * 2) is Verdict.NOT_REPRODUCED
    assert decide_implicit_regularization([(1.0, 1.0)] * 10) is Verdict.NOT_REPRODUCED  # ties do not count
    assert decide_sample_efficiency({0.05: ([0.6], [0.5]), 0.1: ([0.6], [0.6])}) is Verdict.REPRODUCED
    assert decide_sample_efficiency({0.05: ([0.6], [0.5]), 0.1: ([0.5], [0.6])}) is Verdict.PARTIAL
    assert decide_sample_efficiency({0.05: ([0.4], [0.5]), 0.1: ([0.5], [0.6])}) is Verdict.NOT_REPRODUCED


def _runs(seeds: int) -> list[dict]:
    """Fake run records: SFT RF 8 two points below FT on every (scenario, seed), ‖ΔW‖ ten times smaller."""
    runs = []
    for scen in ("0->2", "rotation"):
        for seed in range(seeds):
            base = {"dataset": "A", "scenario": scen, "seed": seed, "sub": 0}
            runs.append({**base, "host": "none", "variant": "source_only", "rf": None, "fraction": 1.0,
                         "f1": 0.5, "delta": 0.0, "trainable": 0})
            arms = (("ft", None, 0.8, 2.0), ("sft", 8, 0.78, 0.2), ("sft", 4, 0.79, 0.3))
            for variant, rf, f1, delta in arms:
                runs.append({**base, "host": "shot", "variant": variant, "rf": rf, "fraction": 1.0, "f1": f1,
                             "delta": delta, "trainable": 1})
            for frac in (0.05, 0.1):
                runs.append({**base, "host": "shot", "variant": "ft", "rf": None, "fraction": frac, "f1": 0.6,
                             "delta": 1.0, "trainable": 1})
                runs.append({**base, "host": "shot", "variant": "sft", "rf": 4, "fraction": frac, "f1": 0.62,
                             "delta": 0.1, "trainable": 1})
    return runs


def test_findings_from_fake_runs():
    infos = [{"scenario": "0->2", "seed": 0, "source_f1_on_target": 0.5}]
    f = maintains_finding(_runs(2), infos, 2, [])
    assert f.verdict is Verdict.REPRODUCED and f.measured["shot_f1_ft"] == pytest.approx(0.8)
    assert f.measured["shot_sft8_minus_ft"] == pytest.approx(-0.02)
    assert maintains_finding(_runs(1), infos, 1, []).verdict is Verdict.REPRODUCED  # quick decides it too
    g = implicit_finding(_runs(1), [])
    assert g.verdict is Verdict.REPRODUCED and g.measured["pairs"] == 4  # 2 scenarios × RF 4, 8
    assert g.measured["median_delta_ratio_sft_over_ft"] == pytest.approx(0.125)
    s = sample_finding(_runs(2), 2, [])
    assert s.verdict is Verdict.REPRODUCED and s.measured["runs_5pct"] == 4
    assert sample_finding(_runs(1), 1, []).verdict is Verdict.DEFERRED


def test_smoke_run_gives_one_finding_per_claim(tmp_path):
    paper = load("tucker_sfda")
    findings = paper.check(paper.run("smoke", RunContext(seed=0, profile="smoke", out_dir=tmp_path)))
    assert [f.claim for f in findings] == [c.key for c in CLAIMS]
    by = {f.claim: f for f in findings}
    assert by["param_reduction"].verdict is Verdict.REPRODUCED  # exact counts, whatever the profile
    assert by["param_reduction"].measured["core_params_rf8_synthetic"] == 3192
    assert by["maintains_f1"].verdict is not Verdict.DEFERRED  # decided in every profile (issue #21)
    assert by["sample_efficiency"].verdict is Verdict.DEFERRED  # the subsample study needs 2 seeds
    for f in findings:
        for fig in f.figures:
            assert (tmp_path / fig).is_file()
