"""Verdict rules on fixed measurements, the CLI end to end on a user's CSV (and its one-line errors), and
a smoke run of the reproduction."""

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
import torch

from iclr25.core.claims import Verdict
from iclr25.core.cli import main
from iclr25.core.registry import load
from iclr25.core.runtime import RunContext
from iclr25.ssm_selection.claims import CLAIMS
from iclr25.ssm_selection.experiments import learnt_sizes, loglog_slope
from iclr25.ssm_selection.plots import copy_accuracy

R, P, N = Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED
RULE = {c.key: c.rule for c in CLAIMS}


def ar(ssmfnn=(1.0, 1.0, 1.0), single=(0.21, 0.24, 0.18), tf=(1.0, 0.99, 1.0)):
    return {"acc_ssmfnn3": list(ssmfnn), "acc_ssm1": list(single), "acc_tf2-causal": list(tf)}


def test_associative_recall_rule_reads_the_interval_over_seeds():
    rule = RULE["associative_recall"]
    assert rule.decide(ar()) is R
    assert rule.decide(ar(single=(0.21, 0.35, 0.18))) is P  # mean 0.247, but the interval reaches 0.30
    assert rule.decide(ar(ssmfnn=(0.95, 0.80, 0.99))) is P  # mean 0.913 ≥ 0.90, interval below it
    assert rule.decide(ar(ssmfnn=(0.5, 0.5, 0.5), single=(0.5, 0.5, 0.5), tf=(0.5, 0.5, 0.5))) is N


def copy(ssmfnn, single):
    return {"acc_ssmfnn3_L24": list(ssmfnn), "acc_ssm1_L24": list(single)}


def test_input_copying_is_decided_at_L24():
    rule = RULE["input_copying"]
    assert rule.decide(copy((0.93, 0.92, 0.94), (0.41, 0.42, 0.41))) is R
    assert rule.decide(copy((0.93, 0.85, 0.94), (0.41, 0.42, 0.41))) is P  # interval below 0.90, gap ≥ 0.3
    assert rule.decide(copy((0.93, 0.92, 0.94), (0.55, 0.55, 0.55))) is P  # the old L = 16 single-SSM level
    assert rule.decide(copy((0.60, 0.62, 0.61), (0.41, 0.42, 0.41))) is N
    with pytest.raises(KeyError, match="acc_ssmfnn3_L24"):
        rule.decide({"acc_ssmfnn3_L16": [0.97] * 3, "acc_ssm1_L16": [0.55] * 3})


def ladder(n4=(0.98, 0.98, 0.98), n16_32=(0.97, 0.96, 0.98), n16_64=(0.99, 0.99, 0.99), r32=1.15, r64=3.6):
    return {"acc_ssmfnn3_N4_d32": list(n4), "acc_ssmfnn3_N16_d32": list(n16_32),
            "acc_ssmfnn3_N16_d64": list(n16_64), "params_ratio_N16_d32_over_N4_d32": r32,
            "params_ratio_N16_d64_over_N4_d32": r64}


def test_efficient_in_size_needs_every_seed_of_the_small_width():
    rule = RULE["efficient_in_size"]
    assert rule.decide(ladder()) is R
    assert rule.decide(ladder(n16_32=(0.977, 0.16, 0.98))) is P  # one seed stuck: d = 64 solves, ratio ≤ 4
    assert rule.decide(ladder(n16_32=(0.977, 0.16, 0.98), r64=4.2)) is N
    assert rule.decide(ladder(n16_32=(0.16, 0.16, 0.16), n16_64=(0.16, 0.15, 0.16))) is N


def regression(ssm=(0.10, 0.11, 0.12), single=(0.54, 0.55, 0.55), mlp=(0.55, 0.56, 0.55)):
    return {"excess_risk_ssmfnn3_n128000": list(ssm), "excess_risk_ssm1_n128000": list(single),
            "excess_risk_mlp4_n128000": list(mlp)}


def test_selection_regression_rule():
    rule = RULE["selection_regression"]
    assert rule.decide(regression()) is R
    assert rule.decide(regression(ssm=(0.14, 0.10, 0.16))) is P  # mean 0.133, interval reaches 0.15
    assert rule.decide(regression(ssm=(0.52,) * 3, single=(0.40,) * 3, mlp=(0.4,) * 3)) is N


def rate(ssm, tf, tf_risk=(0.10, 0.11, 0.09)):
    return {"slope_ssmfnn3": list(ssm), "slope_tf2": list(tf), "excess_risk_tf2_n128000": list(tf_risk)}


def test_same_rate_is_an_equivalence_test_on_per_seed_slopes():
    rule = RULE["same_rate_as_transformer"]
    assert rule.decide(rate((-0.50, -0.52, -0.48), (-0.55, -0.53, -0.57))) is R
    assert rule.decide(rate((-0.50, -0.52, -0.48), (-0.80, -0.78, -0.82))) is N  # gap 0.30
    assert rule.decide(rate((-0.50, -0.20, -0.80), (-0.55, -0.53, -0.57))) is N  # gap's interval too wide
    assert rule.decide(rate((-0.50, -0.52, -0.48), (-0.55, -0.53, -0.57), (0.26, 0.25, 0.27))) is N
    assert rule.decide(rate([float("nan")] * 3, (-0.55, -0.53, -0.57))) is N  # fewer than 2 sizes learnt


def dna(inside=(0.80, 0.78, 0.82), untrained=(0.28, 0.03, 0.01), std=(55.0, 57.0, 54.0), motif_acc=0.99,
        splice_acc=0.94):
    return {"motif_argmax_in_motif": list(inside), "motif_argmax_in_motif_untrained": list(untrained),
            "motif_argmax_std": list(std), "motif_test_acc": [motif_acc] * 3,
            "splice_test_acc": [splice_acc] * 3}


def test_importance_is_judged_by_its_location():
    rule = RULE["sparse_dynamic_importance"]
    assert rule.decide(dna()) is R
    assert rule.decide(dna(splice_acc=0.80)) is P  # located, but real DNA not learnt
    assert rule.decide(dna(std=(5.9, 6.0, 5.8))) is P  # located but does not move (fixed positions)
    assert rule.decide(dna(inside=(0.45, 0.40, 0.50))) is N
    assert rule.decide(dna(inside=(0.60, 0.62, 0.58), untrained=(0.61, 0.60, 0.62))) is P  # = untrained


def test_loglog_slope_recovers_a_power_law():
    ns = [500, 1000, 2000, 4000, 8000]
    assert loglog_slope(ns, [3.0 * n ** -0.4 for n in ns]) == pytest.approx(-0.4)
    assert math.isnan(loglog_slope([1000], [0.1])) and math.isnan(loglog_slope([1, 2], [0.1, float("nan")]))


def test_sizes_enter_the_rate_fit_only_where_both_models_learn():
    val = {"ssm": {2000: [0.56] * 3, 8000: [0.30] * 3, 32000: [0.15] * 3, 128000: [0.08] * 3},
           "tf": {2000: [0.40] * 3, 8000: [0.20] * 3, 32000: [0.10] * 3, 128000: [0.05] * 3}}
    # bound: 0.5 × 0.55 = 0.275 on validation MSE − 0.01
    assert learnt_sizes(val, var_f=0.55) == [32000, 128000]
    assert learnt_sizes({"a": {1: [0.6]}, "b": {1: [0.1]}}, var_f=0.55) == []


# ---- CLI ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def dna_csv(tmp_path_factory):
    """The README's example: 30-nt DNA, label 1 when 'GATTACA' is planted somewhere."""
    rng = np.random.default_rng(0)
    seqs, labels = [], []
    for i in range(400):
        s = list(rng.choice(list("ACGT"), 30))
        if i % 2:
            p = rng.integers(0, 24)
            s[p:p + 7] = "GATTACA"
        seqs.append("".join(s))
        labels.append("motif" if i % 2 else "none")
    p = tmp_path_factory.mktemp("cli") / "seqs.csv"
    pd.DataFrame({"seq": seqs, "y": labels}).to_csv(p, index=False)
    return p


def _main(*args):
    with pytest.raises(SystemExit) as e:
        main(["iclr25", "ssm_selection", *args])
    return e.value.code


@pytest.mark.slow
def test_cli_fit_predict_saliency_on_a_users_csv(dna_csv, tmp_path, capsys):
    renamed = tmp_path / "renamed.csv"
    pd.read_csv(dna_csv).rename(columns={"seq": "dna", "y": "label"}).to_csv(renamed, index=False)
    model = tmp_path / "model.pt"
    assert _main("fit", "--csv", str(renamed), "--seq-col", "dna", "--label-col", "label", "--model",
                 "ssmfnn2", "--compare", "ssm1", "--steps", "60", "--width", "16", "-o", str(model)) == 0
    out = capsys.readouterr().out
    assert re.search(r"majority-class baseline \(always '(motif|none)'\): test accuracy 0\.\d{4}\n", out)
    assert "ssmfnn2: test accuracy" in out and "vs majority baseline" in out and model.is_file()
    preds = tmp_path / "preds.csv"
    assert _main("predict", "--model", str(model), "--csv", str(renamed), "-o", str(preds)) == 0
    out = capsys.readouterr().out
    df = pd.read_csv(preds)
    assert list(df.columns) == ["row", "predicted", "probability", "p_motif", "p_none"] and len(df) == 400
    assert np.allclose(df["p_motif"] + df["p_none"], 1, atol=1e-5)
    assert "accuracy on the 400 labelled rows" in out and "majority-class baseline 0.5000" in out  # 200/200
    sal, png = tmp_path / "sal.csv", tmp_path / "sal.png"
    assert _main("saliency", "--model", str(model), "--csv", str(renamed), "-o", str(sal),  # fit's column
                 "--plot", str(png)) == 0
    df = pd.read_csv(sal)
    assert len(df) == 400 * 30
    assert set(df.columns) == {"sequence", "position", "token", "saliency", "predicted"}
    assert (df["saliency"] >= 0).all() and png.stat().st_size > 0
    assert "top-6 saliency share" in capsys.readouterr().out


def test_fit_pools_over_tokens_by_default_and_warns_below_the_majority_baseline(tmp_path, capsys):
    """A user's task whose evidence sits anywhere: the default readout must not be the last (padded)
    token. One step learns nothing, and the command says so beside the baseline."""
    import torch

    p = tmp_path / "ch.csv"
    rng = np.random.default_rng(1)
    rows = []
    for i in range(60):
        s = list(rng.choice(list("ABDEFG"), int(rng.integers(8, 20))))
        if i % 3 == 0:  # C … H four apart, anywhere
            k = int(rng.integers(0, len(s) - 4))
            s[k], s[k + 4] = "C", "H"
        rows.append({"seq": "".join(s), "y": "ch" if i % 3 == 0 else "no"})
    pd.DataFrame(rows).to_csv(p, index=False)
    model = tmp_path / "m.pt"
    assert _main("fit", "--csv", str(p), "--model", "ssm1", "--steps", "1", "-o", str(model)) == 0
    captured = capsys.readouterr()
    assert torch.load(model, weights_only=True)["kwargs"]["pool"] == "mean"
    assert "majority-class baseline (always 'no')" in captured.out
    assert "does not beat the majority-class baseline" in captured.err


@pytest.mark.parametrize("args, needle", [
    (["--model", "ssmfnn99999999"], "number of layers must be in [1, 64]"),
    (["--model", "tf100"], "number of layers must be in [1, 64]"),
    (["--model", "mlp99999999999"], "mlp<k> reads k positions"),
])
def test_absurd_model_sizes_are_refused_before_any_work(dna_csv, tmp_path, args, needle, capsys):
    assert _main("fit", "--csv", str(dna_csv), "-o", str(tmp_path / "m.pt"), *args) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1, err


def test_a_huge_field_is_refused_with_the_limit(tmp_path, capsys):
    from iclr25.ssm_selection.cli import MAX_TOKENS

    p = tmp_path / "big.csv"
    p.write_text("seq,y\nACGT,a\n" + "A" * 5_000_000 + ",b\n")
    assert _main("fit", "--csv", str(p), "-o", str(tmp_path / "m.pt")) == 2
    err = capsys.readouterr().err
    assert f"row 3 holds a sequence of 5,000,000 tokens; the limit is {MAX_TOKENS:,}" in err
    assert len(err.strip().splitlines()) == 1


def test_saliency_map_labels_tokens_and_has_a_colour_bar(tmp_path):
    import torch

    from iclr25.ssm_selection.cli import saliency_map

    png = tmp_path / "map.png"
    s = torch.rand(3, 5)
    saliency_map(png, s, [list("ACGTA"), list("CCGTA"), list("ACG")], ["x", "y", "x"])
    from PIL import Image
    w, h = Image.open(png).size
    assert w > 600 and h > 150  # legible, not a 5×3-pixel image


@pytest.mark.slow
def test_cli_run_writes_results_and_a_plot(tmp_path, capsys):
    assert _main("run", "--task", "regression", "--models", "mlp2,ssm1", "--sizes", "64", "--steps", "3",
                 "--n-test", "32", "--n-seeds", "1", "-o", str(tmp_path)) == 0
    df = pd.read_csv(tmp_path / "results.csv")
    assert set(df["model"]) == {"mlp2", "ssm1"} and "excess_risk" in df.columns
    assert (tmp_path / "regression.png").is_file()


@pytest.mark.parametrize("args, needle", [
    (["--seq-col", "sequence"], "column 'sequence' not in"),
    (["--label-col", "label"], "column 'label' not in"),
    (["--model", "lstm3"], "unknown model 'lstm3'"),
    (["--model", "ssmfnn2", "--compare", "rnn"], "unknown model 'rnn'"),
    (["--steps", "0"], "--steps"),
    (["--split", "words"], "--split"),
    (["--window", "0"], "--window"),
    (["--test-fraction", "nan"], "--test-fraction must be a finite number"),
    (["--test-fraction", "1"], "--test-fraction must be below 1"),
])
def test_cli_fit_bad_input_exits_2_with_one_line(dna_csv, tmp_path, args, needle, capsys):
    assert _main("fit", "--csv", str(dna_csv), "-o", str(tmp_path / "m.pt"), *args) == 2
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("iclr25: error:") and needle in lines[0], lines


def test_cli_fit_empty_sequence_and_missing_file(tmp_path, capsys):
    p = tmp_path / "holes.csv"
    pd.DataFrame({"seq": ["ACGT", "", "GGCA"], "y": ["a", "b", "a"]}).to_csv(p, index=False)
    assert _main("fit", "--csv", str(p), "-o", str(tmp_path / "m.pt")) == 2
    assert "empty sequence in row 3" in capsys.readouterr().err
    assert _main("fit", "--csv", str(tmp_path / "none.csv"), "-o", str(tmp_path / "m.pt")) == 2
    assert "not found" in capsys.readouterr().err


@pytest.mark.parametrize("args, needle", [
    (["--task", "sort"], "unknown task"),
    (["--task", "ar", "--sizes", "40"], "n_pairs = 40 > n_keys = 32"),
    (["--task", "ar", "--models", "gru"], "unknown model"),
    (["--task", "copy", "--sizes", "x"], "--sizes"),
    (["--task", "ar", "--steps", "0"], "--steps"),
    (["--task", "copy", "--sizes", "100000"], "copy sizes go up to 128"),
])
def test_cli_run_bad_input_exits_2(tmp_path, args, needle, capsys):
    assert _main("run", *args, "--out", str(tmp_path)) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1, err


def test_cli_saliency_refuses_a_file_that_is_not_a_model(dna_csv, tmp_path, capsys):
    bogus = tmp_path / "model.pt"
    bogus.write_text("not a model")
    assert _main("saliency", "--model", str(bogus), "--csv", str(dna_csv), "-o", str(tmp_path / "s.csv")) == 2
    assert "not a model saved by 'fit'" in capsys.readouterr().err


# ---- the reproduction -----------------------------------------------------------------------------

@pytest.mark.slow
def test_smoke_reproduction_gives_one_finding_per_claim_and_no_verdict(tmp_path):
    paper = load("ssm_selection")
    findings = paper.reproduce("smoke", RunContext(profile="smoke", out_dir=tmp_path))
    assert [f.claim for f in findings] == [c.key for c in CLAIMS]
    for f in findings:
        assert f.verdict is Verdict.SMOKE
        assert f.summary and f.figures and all((tmp_path / fig).is_file() for fig in f.figures)
        RULE[f.claim].decide(f.measured)  # the measurements carry every key the rule reads
        for key, v in f.measured.items():
            if isinstance(v, float) and not key.startswith(("slope", "mean_val")):
                assert math.isfinite(v), (f.claim, key, v)
    by = {f.claim: f for f in findings}
    assert len(by["associative_recall"].measured["acc_ssmfnn3"]) == 1  # one value per seed
    assert "motif_argmax_in_motif_untrained" in by["sparse_dynamic_importance"].measured


def test_quick_defers_every_claim_without_training(tmp_path, monkeypatch):
    from iclr25.ssm_selection import experiments

    monkeypatch.setattr(experiments, "fit_eval_cached", lambda t: pytest.fail("quick trained a model"))
    findings = load("ssm_selection").reproduce("quick", RunContext(profile="quick", out_dir=tmp_path))
    assert all(f.verdict is Verdict.DEFERRED and "full profile" in f.summary for f in findings)


def test_runs_are_cached_by_task_and_code_version(monkeypatch):
    from iclr25.ssm_selection import runs

    task = {"task": "ar", "model": "ssm1", "n_pairs": 2, "steps": 2, "seed": 0, "n_test": 16, "cost": 1}
    first = runs.fit_eval_cached(task)
    monkeypatch.setattr(runs, "fit_eval", lambda t: pytest.fail("a cached run was recomputed"))
    again = runs.fit_eval_cached({**task, "cost": 99})  # the ordering hint is not part of the key
    assert again["accuracy"] == first["accuracy"] and again["cost"] == 99
    monkeypatch.setattr(runs, "CODE_VERSION", "changed")
    with pytest.raises(pytest.fail.Exception):
        runs.fit_eval_cached(task)


def test_regression_runs_use_a_fixed_validation_set_and_report_its_mse():
    from iclr25.ssm_selection import runs

    base = {"task": "regression", "model": "mlp2", "steps": 2, "n_test": 16, "n_val": 32, "pool": "mean"}
    a = runs.fit_eval({**base, "n": 64, "seed": 0})
    b = runs.fit_eval({**base, "n": 128, "seed": 1})
    assert a["val_mse"] > 0 and b["val_mse"] > 0
    val = runs.make_selection_regression(32, seed=runs.VAL_SEED)
    assert torch.equal(val.x, runs.make_selection_regression(32, seed=runs.VAL_SEED).x)


def test_copy_figure_plots_a_model_only_at_the_lengths_it_ran(tmp_path):
    """The Transformer runs at the top length only; the figure must not average an empty slice."""
    rows = [{"model": "ssmfnn3", "length": L, "accuracy": 0.9} for L in (16, 24)]
    rows.append({"model": "tf2-causal", "length": 24, "accuracy": 0.99})
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        copy_accuracy(tmp_path / "copy.png", rows, (16, 24))
    assert (tmp_path / "copy.png").stat().st_size > 0
