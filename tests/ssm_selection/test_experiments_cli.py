"""Verdict rules on fixed measurements, the CLI end to end on a user's CSV (and its one-line errors), and
a smoke run of the reproduction."""

import math

import numpy as np
import pandas as pd
import pytest

from iclr25.core.claims import Verdict
from iclr25.core.cli import main
from iclr25.core.registry import load
from iclr25.core.runtime import RunContext
from iclr25.ssm_selection.experiments import (
    CLAIMS,
    decide_associative_recall,
    decide_efficient_in_size,
    decide_input_copying,
    decide_same_rate,
    decide_selection_regression,
    decide_sparse_importance,
    loglog_slope,
)

R, P, N = Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED


@pytest.mark.parametrize("args, verdict", [
    ((0.95, 0.20, 0.99), R), ((0.89, 0.20, 0.99), P), ((0.95, 0.31, 0.99), P), ((0.95, 0.2, 0.94), P),
    ((0.5, 0.5, 0.5), N), ((0.90, 0.30, 0.95), R),
])
def test_associative_recall_rule(args, verdict):
    assert decide_associative_recall(*args) is verdict


@pytest.mark.parametrize("args, verdict", [
    ((0.95, 0.40), R), ((0.90, 0.50), R), ((0.85, 0.40), P), ((0.95, 0.60), P), ((0.60, 0.40), N),
    ((0.95, 0.70), N),
])
def test_input_copying_rule(args, verdict):
    assert decide_input_copying(*args) is verdict


@pytest.mark.parametrize("args, verdict", [
    ((10_000, 20_000), R), ((10_000, 20_001), P), ((10_000, 40_000), P), ((10_000, 40_001), N),
    ((10_000, None), N), ((None, 10_000), N),
])
def test_efficient_in_size_rule(args, verdict):
    assert decide_efficient_in_size(*args) is verdict


@pytest.mark.parametrize("args, verdict", [
    ((0.10, 0.50, 0.55), R), ((0.16, 0.50, 0.55), P), ((0.10, 0.44, 0.55), P), ((0.10, 0.50, 0.40), P),
    ((0.30, 0.50, 0.50), P), ((0.30, 0.40, 0.40), N),
])
def test_selection_regression_rule(args, verdict):
    assert decide_selection_regression(*args) is verdict


@pytest.mark.parametrize("args, verdict", [
    ((-0.60, -0.50, 0.10), R), ((-0.60, -0.40, 0.10), P), ((-0.60, -0.50, 0.2), P),
    ((-0.1, -0.8, 0.3), N),
])
def test_same_rate_rule(args, verdict):
    assert decide_same_rate(*args) is verdict


@pytest.mark.parametrize("args, verdict", [
    ((0.95, 0.55, 0.7, 50.0), R), ((0.84, 0.55, 0.7, 50.0), P), ((0.95, 0.45, 0.7, 50.0), P),
    ((0.95, 0.55, 0.4, 50.0), P), ((0.95, 0.55, 0.7, 20.0), P), ((0.5, 0.2, 0.1, 5.0), N),
])
def test_sparse_importance_rule(args, verdict):
    assert decide_sparse_importance(*args) is verdict


def test_loglog_slope_recovers_a_power_law():
    ns = [500, 1000, 2000, 4000, 8000]
    assert loglog_slope(ns, [3.0 * n ** -0.4 for n in ns]) == pytest.approx(-0.4)


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
def test_cli_fit_then_saliency_on_a_users_csv(dna_csv, tmp_path, capsys):
    model = tmp_path / "model.pt"
    assert _main("fit", "--csv", str(dna_csv), "--model", "ssmfnn2", "--compare", "ssm1", "--steps", "60",
                 "--d", "16", "-o", str(model)) == 0
    out = capsys.readouterr().out
    assert "ssmfnn2: test accuracy" in out and "ssm1: test accuracy" in out and model.is_file()
    sal, png = tmp_path / "sal.csv", tmp_path / "sal.png"
    assert _main("saliency", "--model", str(model), "--csv", str(dna_csv), "-o", str(sal),
                 "--plot", str(png)) == 0
    df = pd.read_csv(sal)
    assert len(df) == 400 * 30
    assert set(df.columns) == {"sequence", "position", "token", "saliency", "predicted"}
    assert (df["saliency"] >= 0).all() and png.stat().st_size > 0
    assert "top-6 saliency share" in capsys.readouterr().out


@pytest.mark.slow
def test_cli_run_writes_results_and_a_plot(tmp_path, capsys):
    assert _main("run", "--task", "regression", "--models", "mlp2,ssm1", "--sizes", "64", "--steps", "3",
                 "--n-test", "32", "--out", str(tmp_path)) == 0
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
def test_smoke_reproduction_gives_one_valid_finding_per_claim(tmp_path):
    paper = load("ssm_selection")
    findings = paper.check(paper.run("smoke", RunContext(profile="smoke", out_dir=tmp_path)))
    assert [f.claim for f in findings] == [c.key for c in CLAIMS]
    for f in findings:
        assert f.verdict in set(Verdict) - {Verdict.ERROR, Verdict.DEFERRED, Verdict.NOT_TESTABLE}
        assert f.summary and f.figures and all((tmp_path / fig).is_file() for fig in f.figures)
        for key, v in f.measured.items():
            if isinstance(v, float) and not key.endswith(("_lo", "_hi")):
                assert math.isfinite(v), (f.claim, key, v)


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


class _Ctx:
    """A RunContext stand-in that says `workers` runs go at once and records each ctx.map batch."""

    def __init__(self, workers: int) -> None:
        self.backend, self.workers, self.seed, self.batches = "process", workers, 0, []

    def map(self, fn, items, description=""):
        self.batches.append(list(items))
        return [fn(t) for t in items]


def test_width_ladder_is_the_same_with_fillers_and_runs_ahead(monkeypatch):
    """Scheduling (other runs in the ladder's rounds, next seeds trained ahead by idle workers) changes
    no ladder row, shortens the chain of rounds, and the other runs come back in their order."""
    import zlib

    from iclr25.ssm_selection import experiments

    need = {("ssmfnn3", 4): 32, ("ssmfnn3", 8): 64, ("ssmfnn3", 16): 128}  # every other ladder: 32

    def fake_run(task):  # the accuracy is a fixed function of the run
        if task["task"] == "other":
            return {**task, "accuracy": 0.0}
        noise = zlib.crc32(repr((task["model"], task["n_pairs"], task["d"], task["seed"])).encode()) % 70
        solved = task["d"] >= need.get((task["model"], task["n_pairs"]), 32)
        return {**task, "accuracy": 1.0 if solved else 0.3 + noise / 100, "params": 100 * task["d"]}

    monkeypatch.setattr(experiments, "fit_eval_cached", fake_run)
    sizes = {"seeds": 3, "ladder_pairs": (4, 8, 16), "ladder_widths": (32, 64, 128), "ladder_steps": 10,
             "n_test": 8}
    others = [{"task": "other", "model": "m", "seed": i, "cost": float(c)}
              for i, c in enumerate([5e6, 1e8, 3e7, 2e9, 7e7, 1e6, 4e8, 9e7])]
    key = lambda r: (r["model"], r["n_pairs"], r["d"], r["seed"], r["accuracy"])  # noqa: E731
    chain = lambda c: sum(max(t["cost"] for t in b) for b in c.batches)  # noqa: E731  (rounds' longest)
    serial, ahead, filled = _Ctx(1), _Ctx(2), _Ctx(2)
    one, _ = experiments._size_ladder(serial, sizes)
    two, _ = experiments._size_ladder(ahead, sizes)
    three, other_rows = experiments._size_ladder(filled, sizes, others)
    assert [key(r) for r in two] == [key(r) for r in three] == [key(r) for r in one]
    assert [r["seed"] for r in other_rows] == list(range(len(others)))
    assert chain(ahead) < chain(serial)
    assert {(m, n): experiments._solving(one, m, n, 3)["d"] for m, n in need} == need
