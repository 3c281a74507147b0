"""The claims' rules on fixed measurements (a rule change that flips a verdict fails here), the item-level
intervals they read, and a smoke run."""

import pytest

from iclr25.core.claims import Verdict
from iclr25.core.registry import load
from iclr25.core.runtime import RunContext
from iclr25.rm_bench.claims import CLAIMS
from iclr25.rm_bench.data import load_rmbench
from iclr25.rm_bench.experiments import lm_items, subsample

R, P, N = Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED
RULE = {c.key: c.rule for c in CLAIMS}


def probe(gap=44.4, hard=12.7, md=(44.5, 19.7), random_dev=1.0, se=0.8):
    m = {"length_easy_minus_hard": gap, "length_hard": hard, "markdown_easy_minus_normal": md[0],
         "markdown_normal_minus_hard": md[1], "random_max_dev_pts": random_dev}
    return m | {f"{k}_se": se for k in list(m) if k != "random_max_dev_pts"}


def test_style_probe_rule():
    assert RULE["style_probe"].decide(probe(gap=71.0)) is R
    assert RULE["style_probe"].decide(probe(gap=61.0, se=0.4)) is R  # 61 − 0.78 ≥ 60
    assert RULE["style_probe"].decide(probe(gap=61.0, se=0.6)) is P  # 61 − 1.18 < 60: only M holds
    assert RULE["style_probe"].decide(probe(gap=71.0, hard=49.5)) is P  # Hard's interval reaches 50
    assert RULE["style_probe"].decide(probe(gap=71.0, random_dev=4.1)) is P  # the control failed
    assert RULE["style_probe"].decide(probe(gap=10.0, md=(1.0, -3.0))) is N


def subtle(chat, code, safety):
    return {"tfidf_normal_chat": chat, "tfidf_normal_code": code, "tfidf_normal_safety": safety}


def test_subtle_rule_per_feature_set_over_fold_seeds():
    rule = RULE["subtle_content_hard"]
    assert rule.decide(subtle([53.9, 54.1, 53.7], [52.1, 52.4, 51.9], [83.7, 83.9, 83.5])) is R
    assert rule.decide(subtle([74.0, 74.1, 73.9], [52.1, 52.4, 51.9], [83.7, 83.9, 83.5])) is N  # gap 9.7
    assert rule.decide(subtle([50.0, 50.2, 49.8], [40.1, 40.3, 39.6], [83.7, 83.9, 83.5])) is N  # code ~40
    both = subtle([53.9, 54.1, 53.7], [52.1, 52.4, 51.9], [83.7, 83.9, 83.5]) | {
        "minilm_normal_chat": [74.0] * 3, "minilm_normal_code": [52.0] * 3,
        "minilm_normal_safety": [80.0] * 3}
    assert rule.decide(both) is P  # decided per feature set, not pooled


def test_real_lm_rule():
    rule = RULE["style_bias_real_lm"]
    m = {"avg_easy_minus_normal": 14.3, "avg_normal_minus_hard": 28.1, "avg_hard": 46.6}
    assert rule.decide(m | {f"{k}_se": 1.0 for k in m}) is R
    assert rule.decide(m | {f"{k}_se": 2.0 for k in m}) is P  # Hard's interval reaches 50
    assert rule.decide(m | {f"{k}_se": 8.0 for k in m}) is N  # 36 items: the order is not shown either


def test_fixed_item_choices(rmbench_dir):
    items = load_rmbench(rmbench_dir)
    chosen = lm_items(items, 12)
    assert [sum(it.group == g for it in chosen) for g in ("chat", "code", "safety")] == [12, 12, 12]
    assert {it.domain for it in chosen if it.group == "safety"} == {"safety-refuse", "safety-response"}
    assert lm_items(items[::-1], 12) == chosen  # fixed ids, not file order
    assert len(subsample(items, 5)) == 20 and subsample(items, None) == items


def test_smoke_run_gives_one_finding_per_claim(rmbench_dir, tmp_path):
    paper = load("rm_bench")
    findings = paper.reproduce("smoke", RunContext(seed=0, profile="smoke", out_dir=tmp_path))
    by = {f.claim: f for f in findings}
    assert set(by) == {c.key for c in CLAIMS}
    assert by["style_bias_real_lm"].verdict is Verdict.SMOKE
    assert by["leaderboard"].verdict is Verdict.NOT_TESTABLE
    assert by["style_probe"].measured["items"] == 48
    for f in by["style_probe"].figures + by["subtle_content_hard"].figures:
        assert (tmp_path / f).is_file()


def test_without_data_every_claim_names_the_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR25_SHARED", str(tmp_path))
    findings = load("rm_bench").run("quick", RunContext(seed=0, profile="quick", out_dir=tmp_path))
    assert all(f.verdict is Verdict.NOT_TESTABLE and "03-rm-bench" in f.summary for f in findings)


@pytest.mark.parametrize("claim", ["style_probe", "subtle_content_hard", "style_bias_real_lm"])
def test_claims_state_the_paper_number_and_a_rule(claim):
    c = next(c for c in CLAIMS if c.key == claim)
    assert c.paper and c.setup and c.rule is not None and c.rule.prose() in c.criterion
