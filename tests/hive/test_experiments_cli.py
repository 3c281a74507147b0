"""Verdict rules on fixed measurements, the smoke reproduction, and the CLI (one line, exit 2)."""

from __future__ import annotations

import json

import pytest

from iclr25.core.claims import Verdict
from iclr25.core.runtime import RunContext
from iclr25.hive.experiments import decide_chains, decide_constraints, decide_execution, decide_ts


def test_constraint_rule():
    assert decide_constraints(0, 1.0, 0, [0.3, 0.2]) is Verdict.REPRODUCED
    assert decide_constraints(1, 1.0, 0, [0.3, 0.2]) is not Verdict.REPRODUCED  # one violation fails
    assert decide_constraints(0, 0.999, 0, [0.3, 0.2]) is not Verdict.REPRODUCED
    assert decide_constraints(0, 1.0, 1, [0.3, 0.2]) is not Verdict.REPRODUCED
    assert decide_constraints(0, 1.0, 0, [0.0, 0.2]) is not Verdict.REPRODUCED  # baselines must violate


def test_chain_rule():
    assert decide_chains({"pyperplan": 1.0, "lapkt-bfws": 1.0}) is Verdict.REPRODUCED
    assert decide_chains({"pyperplan": 1.0, "lapkt-bfws": 0.99}) is Verdict.NOT_REPRODUCED  # every planner
    assert decide_chains({"pyperplan": 0.96}) is Verdict.NOT_REPRODUCED  # no partial credit below 100 %


def test_task_selection_rule():
    assert decide_ts(0.30, [0.30, 0.20]) is Verdict.REPRODUCED
    assert decide_ts(0.26, [0.30, 0.20]) is Verdict.PARTIAL
    assert decide_ts(0.24, [0.30, 0.20]) is Verdict.NOT_REPRODUCED


def test_execution_rule():
    assert decide_execution(95, 95) is Verdict.REPRODUCED
    assert decide_execution(94, 95) is Verdict.NOT_REPRODUCED
    assert decide_execution(0, 0) is Verdict.NOT_REPRODUCED


@pytest.mark.slow
def test_smoke_run_gives_one_finding_per_claim(tmp_path):
    from iclr25.hive import PAPER
    findings = PAPER.check(PAPER.run("smoke", RunContext(seed=0, profile="smoke", out_dir=tmp_path)))
    by = {f.claim: f for f in findings}
    assert by["constraint_adherence"].verdict is Verdict.REPRODUCED
    assert by["output_quality"].verdict is Verdict.NOT_TESTABLE
    for f in findings:
        for fig in f.figures:
            assert (tmp_path / fig).is_file()


@pytest.fixture
def cli(iclr25_cli):
    """`iclr25 hive *args` in this process: (exit code, stdout + stderr)."""
    def run(*args):
        code, out, err = iclr25_cli("hive", *args)
        return code, out + err
    return run


def test_plan_command_and_its_errors(tmp_path, cli):
    (tmp_path / "audio.pddl").write_text("""(define (domain audio) (:requirements :strips :typing)
      (:types text audio) (:predicates (IsAudio ?a - audio) (SpeechRecognition ?a - audio))
      (:action audio_to_text ; transcribe
        :parameters (?a - audio) :precondition (IsAudio ?a) :effect (SpeechRecognition ?a)))""")
    code, out = cli("plan", "--domain-dir", str(tmp_path), "--domains", "audio",
                     "--goal", "(SpeechRecognition input_audio)")
    assert code == 0 and "(audio_to_text input_audio)" in out
    for args, msg in ((["--domains", "nope", "--goal", "(x a)"], "unknown domain"),
                      (["--domains", "audio", "--goal", "(Nope a)"], "unknown predicate"),
                      (["--domains", "audio", "--goal", "(SpeechRecognition a"], "never closed"),
                      (["--domains", "audio", "--goal", "(SpeechRecognition a)", "--planner", "x"],
                       "planner")):
        code, out = cli("plan", "--domain-dir", str(tmp_path), *args)
        assert code == 2 and msg in out and "Traceback" not in out
    (tmp_path / "audio.pddl").write_text("(define (domain audio)\n (:types text)\n (:predicates (P x)))")
    code, out = cli("plan", "--domain-dir", str(tmp_path), "--domains", "audio", "--goal", "(P a)")
    assert code == 2 and "audio.pddl:3" in out


def test_run_command_bad_input(tmp_path, cli):
    prefs = tmp_path / "p.json"
    prefs.write_text(json.dumps({"size": "-1"}))
    for args, msg in (([" "], "empty"),
                      (["hi", "--prefs", str(prefs)], "size"),
                      (["hi", "--registry", str(tmp_path / "none.jsonl")], "not found"),
                      (["hi", "--backend", "gpt9"], "--backend"),
                      (["hi", "--report", str(tmp_path / "r.txt")], ".md")):
        code, out = cli("run", *args, "--domain-dir", str(tmp_path), "--out-dir", str(tmp_path / "o"))
        assert code == 2 and msg in out, out
