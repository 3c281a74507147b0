"""The CLI end to end on the user's own .npz files, its one-line errors, the verdict rules on fixed
measurements, and a smoke run of the reproduction."""

import re

import numpy as np
import pytest

from iclr25.core.claims import Verdict
from iclr25.core.cli import main
from iclr25.core.registry import load
from iclr25.core.runtime import RunContext
from iclr25.tucker_sfda.claims import CLAIMS
from iclr25.tucker_sfda.experiments import implicit_finding, maintains_finding, sample_finding

R, P, N = Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED
RULE = {c.key: c.rule for c in CLAIMS}


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


def test_cli_adapt_prints_the_source_only_baseline_and_warns_when_it_hurts(files, capsys, monkeypatch):
    import importlib

    import torch

    from iclr25.tucker_sfda.adapt import AdaptResult

    adapt_module = importlib.import_module("iclr25.tucker_sfda.adapt")

    src = files / "good_src.pt"  # a source model that is right on the user's series
    code, _, err = _cli(capsys, "train-source", "--source", str(files / "src.npz"), "-o", str(src),
                        "--epochs", "15", "--mid", "8", "--final", "16")
    assert code == 0, err

    def swap_classes(model, *args, **kwargs):  # an "adaptation" that flips the two classes
        m = adapt_module.clone(model)
        with torch.no_grad():
            m.classifier.weight.copy_(m.classifier.weight.flip(0))
            m.classifier.bias.copy_(m.classifier.bias.flip(0))
        return AdaptResult(m, 1, [1.0, 2.0])

    monkeypatch.setattr(adapt_module, "adapt", swap_classes)
    code, stdout, err = _cli(capsys, "adapt", "--ckpt", str(src), "--target", str(files / "user.npz"),
                             "--tune", "all")
    assert code == 0, err
    assert "information-maximisation score (lower is better): source-only" in stdout
    line = next(ln for ln in stdout.splitlines() if ln.startswith("macro-F1 on user.npz"))
    before, after = (float(v) for v in re.findall(r"source-only ([\d.]+), adapted ([\d.]+)", line)[0])
    assert "one class for all: 0.333" in line  # 12 of each class
    assert before > 0.8 > after and "warning: adaptation lowered macro-F1" in err
    monkeypatch.undo()
    # without labels the label-free score is the reference, and nothing claims an F1
    code, stdout, err = _cli(capsys, "adapt", "--ckpt", str(src), "--target",
                             str(files / "user_nolabels.npz"), "--tune", "all", "--epochs", "1")
    assert code == 0 and "macro-F1" not in stdout and "source-only" in stdout


@pytest.mark.parametrize("tune", ["lora", "subset"])
def test_cli_adapts_a_dense_checkpoint_with_a_matched_update_and_exports_it_dense(files, checkpoints,
                                                                                  capsys, tune, tmp_path):
    from iclr25.tucker_sfda.checkpoint import load_checkpoint
    from iclr25.tucker_sfda.tucker import tucker_reparameterize

    src, dec = checkpoints
    out = tmp_path / "adapted.pt"
    code, stdout, err = _cli(capsys, "adapt", "--ckpt", str(src), "--target", str(files / "user.npz"),
                             "--tune", tune, "--rf", "4", "--epochs", "2", "--lr", "1e-2", "-o", str(out))
    assert code == 0, err
    cores = sum(m.core.weight.numel() for m in tucker_reparameterize(load_checkpoint(src).model, 4).modules()
                if hasattr(m, "core"))
    n = int(re.search(r"adapted ([\d,]+) parameters", stdout).group(1).replace(",", ""))
    assert n == cores if tune == "subset" else abs(n - cores) / cores < 0.35
    merged = load_checkpoint(out).model  # a plain dense AdaTimeCNN: loads with the source's structure
    assert all(type(m).__name__ in ("Conv1d",) for m in merged.modules() if "Conv" in type(m).__name__)
    code, _, err = _cli(capsys, "adapt", "--ckpt", str(dec), "--target", str(files / "user.npz"),
                        "--tune", tune)
    assert code == 2 and "adapts a dense checkpoint" in err


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


# ---- the claims' rules on fixed measurements ----------------------------------------------------------

def test_param_and_mac_rules_per_backbone():
    ok = {"ratio_rf8_synthetic": 3192 / 198208, "ratio_rf8_BasicMotions": 3112 / 199168}
    assert RULE["param_reduction"].decide(ok) is R
    assert RULE["param_reduction"].decide({**ok, "ratio_rf8_BasicMotions": 20000 / 199168}) is P
    assert RULE["param_reduction"].decide({**ok, "ratio_rf8_synthetic": 0.10}) is R  # exact: ≤ 10% passes
    mac = {f"{k}_{b}": v for b in ("synthetic", "BasicMotions") for k, v in
           (("mac_ratio_rf8", 0.059), ("bytes_ratio_rf8", 0.062), ("macs_formula_minus_hooks_abs", 0))}
    assert RULE["mac_reduction"].decide(mac) is R
    assert RULE["mac_reduction"].decide({**mac, "macs_formula_minus_hooks_abs_synthetic": 1}) is P
    assert RULE["mac_reduction"].decide({**mac, "bytes_ratio_rf8_BasicMotions": 1.0}) is P


def kept(host_sft, host_ft):
    return {f"{h}_f1_sft_rf8": list(host_sft[h]) for h in host_sft} | {
        f"{h}_f1_ft": list(host_ft[h]) for h in host_ft}


def test_f1_is_kept_or_not_per_host():
    ft = [0.80, 0.70, 0.90, 0.75]
    close = [0.79, 0.70, 0.89, 0.75]  # −0.5 points, tight
    far = [0.60, 0.50, 0.70, 0.55]  # −20 points
    loose = [0.82, 0.60, 0.95, 0.68]  # −2.5 points on average, the interval reaches −3
    hosts = ("shot", "nrc", "aad", "mapu")
    rule = RULE["maintains_f1"]
    assert rule.decide(kept(dict.fromkeys(hosts, close), dict.fromkeys(hosts, ft))) is R
    all_ft = dict.fromkeys(hosts, ft)
    assert rule.decide(kept({"shot": loose, "nrc": far, "aad": far, "mapu": far}, all_ft)) is P
    assert rule.decide(kept({"shot": close, "nrc": far, "aad": far, "mapu": far}, all_ft)) is P
    assert rule.decide(kept(dict.fromkeys(hosts, far), dict.fromkeys(hosts, ft))) is N
    with pytest.raises(KeyError, match="mapu_f1"):  # every host the paper names must be measured
        rule.decide(kept({"shot": close}, {"shot": ft}) | kept(dict.fromkeys(hosts[1:3], close),
                                                                dict.fromkeys(hosts[1:3], ft)))


def matched(sft, random, lora, bn, sft16=None):
    return {"f1_sft_vs_random": sft, "f1_random": random, "f1_sft_vs_lora": sft, "f1_lora": lora,
            "f1_sft_vs_bn": sft16 or sft, "f1_bn": bn}


def test_implicit_regularization_is_judged_against_matched_capacity():
    rule = RULE["implicit_regularization"]
    sft = [0.90, 0.85, 0.80, 0.95]
    worse = [0.85, 0.80, 0.76, 0.90]
    assert rule.decide(matched(sft, worse, worse, worse)) is R
    same = [0.90, 0.84, 0.81, 0.95]  # a tie: non-inferior, not better
    assert rule.decide(matched(sft, same, same, same)) is P
    better = [0.97, 0.93, 0.89, 0.99]
    assert rule.decide(matched(sft, better, better, better)) is N
    # ‖ΔW‖ is not read: a guaranteed "moves less" can no longer decide the claim
    assert "delta" not in str(rule.spec())


def gaps(ds, g100, g5):
    return {f"gap_100pct_{ds}": g100, f"gap_5pct_{ds}": g5}


def test_sample_efficiency_is_the_interaction_per_data_set():
    rule = RULE["sample_efficiency"]
    flat = [0.02, 0.01, 0.03, 0.02]  # SFT − FT ≈ +0.02 at every fraction: the old record's pattern
    grows = [0.08, 0.07, 0.09, 0.10]
    assert rule.decide(gaps("A", flat, grows) | gaps("B", flat, grows)) is R
    assert rule.decide(gaps("A", flat, flat) | gaps("B", flat, flat)) is P  # SFT ahead at 5%, no growth
    assert rule.decide(gaps("A", flat, grows) | gaps("B", flat, [-0.1, -0.2, -0.1, -0.15])) is P
    behind = [-0.01, -0.03, 0.0, -0.02]
    assert rule.decide(gaps("A", grows, behind) | gaps("B", [0.0] * 4, [-0.1, -0.2, -0.1, -0.15])) is N


def _runs(seeds: int) -> list[dict]:
    """Fake run records: SFT RF 8 two points below FT on every (scenario, seed); the baselines four points
    below SFT; SFT − FT grows from −1 (100%) to +2 (5%)."""
    runs = []
    for ds, scen in (("A", "0->2"), ("B", "rotation")):
        for seed in range(seeds):
            base = {"dataset": ds, "scenario": scen, "seed": seed, "sub": 0}
            runs.append({**base, "host": "none", "variant": "source_only", "rf": None, "fraction": 1.0,
                         "f1": 0.5, "delta": 0.0, "trainable": 0})
            arms = (("ft", None, 0.8, 2.0, 198208), ("sft", 8, 0.78, 0.2, 3192), ("sft", 4, 0.79, 0.3, 12513),
                    ("sft", 16, 0.77, 0.1, 828), ("random", 8, 0.74, 0.1, 3192), ("lora", 8, 0.74, 0.3, 3181),
                    ("bn", None, 0.73, 0.1, 640))
            for variant, rf, f1, delta, n in arms:
                runs.append({**base, "host": "shot", "variant": variant, "rf": rf, "fraction": 1.0,
                             "f1": f1 + 0.001 * seed, "delta": delta, "trainable": n})
            for frac in (0.05, 0.1):
                for sub in range(2):
                    runs.append({**base, "sub": sub, "host": "shot", "variant": "ft", "rf": None,
                                 "fraction": frac, "f1": 0.6, "delta": 1.0, "trainable": 198208})
                    runs.append({**base, "sub": sub, "host": "shot", "variant": "sft", "rf": 4,
                                 "fraction": frac, "f1": 0.62 + 0.002 * seed, "delta": 0.1,
                                 "trainable": 12513})
    return runs


def test_findings_measure_paired_lists_from_run_records():
    runs = _runs(3)
    infos = [{"scenario": "0->2", "seed": 0, "source_f1_on_target": 0.5}]
    f = maintains_finding(runs, infos, [])
    assert f.verdict is None and f.measured["shot_f1_ft"] == pytest.approx([0.8, 0.801, 0.802] * 2)
    assert f.measured["shot_sft8_minus_ft"] == pytest.approx(-0.02)
    g = implicit_finding(runs, [])
    assert g.measured["f1_random"] == pytest.approx([0.74, 0.741, 0.742] * 2)
    assert g.measured["trainable_random"] == 3192 and g.measured["trainable_sft_rf16"] == 828
    assert RULE["implicit_regularization"].decide(g.measured) is R
    s = sample_finding(runs, [])
    assert s.measured["gap_5pct_A"] == pytest.approx([0.02, 0.022, 0.024])  # mean over subsamples
    assert s.measured["gap_100pct_B"] == pytest.approx([-0.01, -0.01, -0.01])
    assert RULE["sample_efficiency"].decide(s.measured) is R


def test_smoke_run_gives_one_finding_per_claim_and_no_verdict(tmp_path):
    paper = load("tucker_sfda")
    findings = paper.reproduce("smoke", RunContext(seed=0, profile="smoke", out_dir=tmp_path))
    assert [f.claim for f in findings] == [c.key for c in CLAIMS]
    by = {f.claim: f for f in findings}
    assert all(f.verdict is Verdict.SMOKE for f in findings)
    assert by["param_reduction"].measured["core_params_rf8_synthetic"] == 3192
    for f in findings:
        RULE[f.claim].decide(f.measured)  # every key each rule reads is measured
        for fig in f.figures:
            assert (tmp_path / fig).is_file()


def test_quick_decides_the_exact_counts_and_defers_the_trained_claims(tmp_path, monkeypatch):
    from iclr25.tucker_sfda import experiments

    monkeypatch.setattr(experiments, "run_cell", lambda t: pytest.fail("quick trained a model"))
    findings = load("tucker_sfda").reproduce("quick", RunContext(seed=0, profile="quick", out_dir=tmp_path))
    by = {f.claim: f.verdict for f in findings}
    assert by["param_reduction"] is R and by["mac_reduction"] is R  # 98.4% / 94.1% fewer, exact
    assert {by[k] for k in ("maintains_f1", "implicit_regularization", "sample_efficiency")} == {
        Verdict.DEFERRED}
