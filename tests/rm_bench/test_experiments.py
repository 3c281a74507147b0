"""Verdict rules on fixed measurements (a rule change that flips a verdict fails here) and a smoke run."""

import pytest

from iclr25.core.claims import Verdict
from iclr25.core.registry import load
from iclr25.core.runtime import RunContext
from iclr25.rm_bench.data import load_rmbench
from iclr25.rm_bench.experiments import (
    CLAIMS,
    decide_real_lm,
    decide_style_probe,
    decide_subtle,
    lm_items,
    subsample,
)


def lv(e, n, h):
    return {"easy": e, "normal": n, "hard": h, "avg": (e + n + h) / 3}


def test_style_probe_rule():
    length, md, rnd = lv(83.7, 39.4, 12.7), lv(68.0, 23.5, 3.8), lv(49.0, 49.8, 50.5)
    assert decide_style_probe(length, md, rnd)[0] is Verdict.REPRODUCED
    assert decide_style_probe(lv(70, 40, 10.0), md, rnd)[0] is Verdict.REPRODUCED  # E − H = 60: passes
    v, checks = decide_style_probe(lv(69.9, 40, 10.0), md, rnd)  # E − H = 59.9 < 60
    assert v is Verdict.PARTIAL and checks == {"length": False, "markdown": True, "random": True}
    assert decide_style_probe(lv(90, 50, 50.0), md, rnd)[1]["length"] is False  # Hard must be < 50
    assert decide_style_probe(length, lv(60, 60, 3), rnd)[1]["markdown"] is False  # strict order
    assert decide_style_probe(length, md, lv(50, 54.1, 50))[1]["random"] is False
    assert decide_style_probe(lv(50, 50, 50), lv(1, 2, 3), lv(60, 40, 50))[0] is Verdict.NOT_REPRODUCED


def test_subtle_rule():
    assert decide_subtle({"chat": 53.9, "code": 52.1, "safety": 83.7}) is Verdict.REPRODUCED
    assert decide_subtle({"chat": 74.0, "code": 52.1, "safety": 83.7}) is Verdict.NOT_REPRODUCED  # gap 9.7
    assert decide_subtle({"chat": 50.0, "code": 39.9, "safety": 83.7}) is Verdict.NOT_REPRODUCED  # code 39.9
    assert decide_subtle({"chat": 50.0, "code": 60.0, "safety": 70.0}) is Verdict.REPRODUCED  # edges included


def test_real_lm_rule():
    assert decide_real_lm(lv(89.0, 74.7, 46.6)) is Verdict.REPRODUCED
    assert decide_real_lm(lv(89.0, 74.7, 50.0)) is Verdict.PARTIAL
    assert decide_real_lm(lv(60.0, 70.0, 40.0)) is Verdict.NOT_REPRODUCED


def test_fixed_item_choices(rmbench_dir):
    items = load_rmbench(rmbench_dir)
    chosen = lm_items(items, 12)
    assert [sum(it.group == g for it in chosen) for g in ("chat", "code", "safety")] == [12, 12, 12]
    assert {it.domain for it in chosen if it.group == "safety"} == {"safety-refuse", "safety-response"}
    assert lm_items(items[::-1], 12) == chosen  # fixed ids, not file order
    assert len(subsample(items, 5)) == 20 and subsample(items, None) == items


def test_smoke_run_gives_one_finding_per_claim(rmbench_dir, tmp_path):
    paper = load("rm_bench")
    findings = paper.check(paper.run("smoke", RunContext(seed=0, profile="smoke", out_dir=tmp_path)))
    by = {f.claim: f for f in findings}
    assert set(by) == {c.key for c in CLAIMS}
    assert by["style_bias_real_lm"].verdict is Verdict.DEFERRED
    assert by["leaderboard"].verdict is Verdict.NOT_TESTABLE
    assert by["style_probe"].measured["items"] == 48
    for f in by["style_probe"].figures + by["subtle_content_hard"].figures:
        assert (tmp_path / f).is_file()


def test_without_data_every_claim_names_the_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR25_SHARED", str(tmp_path))
    findings = load("rm_bench").run("quick", RunContext(seed=0, profile="quick", out_dir=tmp_path))
    assert all(f.verdict is Verdict.NOT_TESTABLE and "03-rm-bench" in f.summary for f in findings)


@pytest.mark.parametrize("claim", ["style_probe", "subtle_content_hard", "style_bias_real_lm"])
def test_claims_state_the_paper_number_and_criterion(claim):
    c = next(c for c in CLAIMS if c.key == claim)
    assert c.paper and c.criterion
