"""The CLI end to end (score, synth, eval against a mock server), its one-line errors, each verdict rule
on fixed measurements, and a smoke run of the reproduction."""

from __future__ import annotations

import contextlib
import io
import json
from types import SimpleNamespace

import pytest

from iclr25.core.claims import Verdict
from iclr25.core.cli import main
from iclr25.core.runtime import RunContext
from iclr25.physbench import PAPER
from iclr25.physbench.experiments import (
    CLAIMS,
    decide_embodied,
    decide_physagent_synth,
    decide_priors,
    independent_accuracy,
)
from iclr25.physbench.scoring import score


def cli(*args) -> SimpleNamespace:
    """`iclr25 physbench *args` in this process: exit code and stdout + stderr."""
    out = io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            main(["iclr25", "physbench", *map(str, args)])
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 0
    return SimpleNamespace(exit_code=code, output=out.getvalue())


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("pb")
    r = cli("synth", "--n", 8, "--out", d / "syn", "--seed", 1)
    assert r.exit_code == 0, r.output
    gt = json.loads((d / "syn" / "val_answer.json").read_text())
    (d / "pred.json").write_text(json.dumps([{"idx": a["idx"], "answer": a["answer"]} for a in gt]))
    return d


def test_score_command(data):
    r = cli(
        "score",
        "--pred",
        data / "pred.json",
        "--gt",
        data / "syn" / "val_answer.json",
        "--json",
        data / "rep.json",
    )
    assert r.exit_code == 0 and "overall  100.00" in r.output
    assert json.loads((data / "rep.json").read_text())["rows"] == 8


def test_eval_command_against_a_served_vlm(data, server):
    r = cli("eval", "--data", data / "syn", "--base-url", server, "--model", "m", "--out", data / "sub.json")
    assert r.exit_code == 0, r.output
    assert "asked 8 questions (8 model calls)" in r.output
    assert len(json.loads((data / "sub.json").read_text())) == 8


@pytest.mark.parametrize(
    "args, needle",
    [
        (("score", "--pred", "{d}/dup.json", "--gt", "{d}/syn/val_answer.json"), "duplicate idx"),
        (
            ("score", "--pred", "{d}/unknown.json", "--gt", "{d}/syn/val_answer.json"),
            "not in the answer file",
        ),
        (("score", "--pred", "{d}/pred.json", "--gt", "{d}/badgt.json"), "lacks field"),
        (("eval", "--data", "{d}", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"), "no test.json"),
        (
            ("eval", "--data", "{d}/syn", "--split", "dev", "--base-url", "http://x/v1", "--model", "m"),
            "unknown split",
        ),
        (
            ("eval", "--data", "{d}/syn", "--mode", "video", "--base-url", "http://x/v1", "--model", "m"),
            "unknown mode",
        ),
        (
            (
                "eval",
                "--data",
                "{d}/syn",
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--model",
                "m",
                "--timeout",
                "2",
            ),
            "cannot reach",
        ),
        (("synth", "--n", "0", "--out", "{d}/x"), "--n"),
    ],
)
def test_bad_input_is_one_line_exit_2(data, args, needle):
    (data / "dup.json").write_text(json.dumps([{"idx": 0, "answer": "A"}] * 2))
    (data / "unknown.json").write_text(json.dumps([{"idx": 99999, "answer": "A"}]))
    (data / "badgt.json").write_text(json.dumps([{"idx": 0, "answer": "A"}]))
    r = cli(*[a.replace("{d}", str(data)) for a in args])
    assert r.exit_code == 2 and needle in r.output
    assert "Traceback" not in r.output


def test_independent_scorer_agrees_with_ours():
    gt = [
        {
            "idx": i,
            "answer": "ABCD"[i % 4] if i != 3 else "",
            "task_type": "scene",
            "sub_type": "light",
            "ability_type": "perception",
            "mode": "general",
        }
        for i in range(8)
    ]
    preds = [
        {"idx": i, "answer": a}
        for i, a in enumerate(["A", "ABCD", "c", "x", "D", "The answer is B", "C", ""])
    ]
    assert score(preds, gt).overall == independent_accuracy(preds, gt)["overall"] == 37.5  # idx 0, 3, 6


def test_verdict_rules():
    assert decide_physagent_synth(60.0, 40.0) is Verdict.REPRODUCED
    assert decide_physagent_synth(80.0, 69.0) is Verdict.PARTIAL  # +11 points but only +15.9 % relative
    assert decide_physagent_synth(45.0, 40.0) is Verdict.PARTIAL
    assert decide_physagent_synth(42.0, 40.0) is Verdict.NOT_REPRODUCED
    assert (
        decide_priors(5.0, 20.0) is Verdict.REPRODUCED and decide_priors(20.0, 5.0) is Verdict.NOT_REPRODUCED
    )
    assert (
        decide_embodied(70.0, 60.0) is Verdict.REPRODUCED
        and decide_embodied(69.0, 60.0) is Verdict.NOT_REPRODUCED
    )


def test_smoke_run_gives_one_finding_per_claim(tmp_path):
    findings = PAPER.check(PAPER.run("smoke", RunContext(profile="smoke", out_dir=tmp_path)))
    assert [f.claim for f in findings] == [c.key for c in CLAIMS]
    by = {f.claim: f for f in findings}
    assert by["vlms_struggle"].verdict is Verdict.NOT_TESTABLE
    assert by["priors_not_scale"].verdict is Verdict.DEFERRED
    assert by["physagent_synth"].verdict in (Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED)
    assert all((tmp_path / f).exists() for f in by["physagent_synth"].figures)
