"""Verdict rules on fixed measurements (a rule change that flips a verdict fails here) and a smoke run."""

from __future__ import annotations

from tests.conftest import shared_data

from iclr25.core.claims import Verdict
from iclr25.core.runtime import RunContext
from iclr25.llm_unlearning import PAPER
from iclr25.llm_unlearning.experiments import (
    ap_holds,
    decide_continual,
    decide_hallucination,
    decide_splits,
    me_holds,
    pick_lr,
)

R, P, N = Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED


def test_hallucination_rule():
    assert decide_hallucination(0.41, 0.74) == R
    assert decide_hallucination(0.41, 0.5) == R
    assert decide_hallucination(0.41, 0.3) == P
    assert decide_hallucination(0.41, 0.29) == N
    assert decide_hallucination(0.24, 0.9) == N  # the model must still answer in the right form


def test_me_rule():
    fe = {"me+gd": 0.70, "ga+gd": 0.71, "npo+gd": 0.60}
    mu = {"me+gd": 0.45, "ga+gd": 0.2}
    assert me_holds(fe, mu, 0.5)  # within 0.02 of the best FE, 0.9 of initial MU
    assert not me_holds({**fe, "ga+gd": 0.73}, mu, 0.5)  # 0.03 behind
    assert not me_holds(fe, {**mu, "me+gd": 0.42}, 0.5)  # < 0.85 x initial
    assert not me_holds(fe, {"me+gd": 0.45, "ga+gd": 0.45}, 0.5)  # not above GA+GD


def test_ap_rule():
    fr = {"idk+ap": 0.9, "idk+gd": 0.95}
    rr = {"idk+ap": 0.05, "idk+gd": 0.3}
    mu = {"idk+ap": 0.5, "idk+gd": 0.3}
    assert ap_holds(fr, rr, mu)
    assert not ap_holds({**fr, "idk+ap": 0.79}, rr, mu)
    assert not ap_holds(fr, {**rr, "idk+ap": 0.11}, mu)
    assert not ap_holds(fr, {"idk+ap": 0.05, "idk+gd": 0.09}, mu)  # IDK+GD leaks < 10%
    assert not ap_holds(fr, {"idk+ap": 0.08, "idk+gd": 0.15}, mu)  # < 2 x AP's
    assert not ap_holds(fr, rr, {"idk+ap": 0.3, "idk+gd": 0.3})


def test_lr_rule_is_the_smallest_grid_lr_that_halves_forget_rouge():
    assert pick_lr([1.0, 0.504, 0.074, 0.031], 1.0)[0] == 1e-3  # the quick run's trace: 0.504 > 0.5
    assert pick_lr([1.0, 0.5, 0.074, 0.031], 1.0)[0] == 3e-4  # halved exactly
    assert pick_lr([0.9, 0.8, 0.7, 0.6], 1.0)[0] == 3e-3  # none halves: the largest
    assert pick_lr([0.3, 0.2, 0.1, 0.0], 0.5)[1] == "0.0001:0.300, 0.0003:0.200, 0.001:0.100, 0.003:0.000"


def test_split_and_continual_rules():
    assert decide_splits([True]) == R and decide_splits([False]) == N
    assert decide_splits([True, True, False]) == P and decide_splits([True, False, False]) == N
    mu = {"me+gd": 0.4, "idk+ap": 0.45, "ga+gd": 0.0, "npo+gd": 0.1, "idk+gd": 0.3, "dpo+gd": 0.2}
    assert decide_continual(mu, 0.3, 0.1) == R
    assert decide_continual(mu, 0.1, 0.3) == P
    assert decide_continual({**mu, "idk+gd": 0.41}, 0.3, 0.1) == P
    assert decide_continual({**mu, "idk+gd": 0.41}, 0.1, 0.3) == N


def test_smoke_run_gives_one_finding_per_claim(tmp_path, monkeypatch):
    shared_data("16-llm-unlearning")
    monkeypatch.setenv("ICLR25_CACHE", str(tmp_path / "cache"))
    findings = PAPER.check(PAPER.run("smoke", RunContext(profile="smoke", out_dir=tmp_path)))
    by = {f.claim: f for f in findings}
    assert by["real_world"].verdict == Verdict.NOT_TESTABLE
    assert by["continual"].verdict == Verdict.DEFERRED
    for key in ("retain_model_hallucinates", "me_untargeted", "ap_targeted"):
        assert by[key].verdict in (R, P, N)
        assert "lr" in by[key].measured
    for name in by["me_untargeted"].figures + by["ap_targeted"].figures:
        assert (tmp_path / name).is_file()
