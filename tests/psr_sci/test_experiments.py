"""Verdict rules on fixed measurements, and a smoke run of the reproduction (one finding per claim)."""

import math

import pytest

from iclr25.core.claims import Verdict
from iclr25.core.runtime import RunContext
from iclr25.core.stats import Interval
from iclr25.psr_sci import PAPER
from iclr25.psr_sci.claims import CLAIMS
from iclr25.psr_sci.experiments import (
    decide_efficiency,
    decide_guidance,
    decide_predictor,
    decide_refine,
    decide_speed,
    decide_ssim,
    decide_urse,
    decide_zero_shot,
)


def iv(mean, lo, hi, n=10):
    return Interval(mean, lo, hi, n)


R, P, N = Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED


def test_predictor_rule():
    assert decide_predictor(iv(3.2, 2.5, 3.9)) is R
    assert decide_predictor(iv(2.9, 2.5, 3.3)) is N  # under 3 dB
    assert decide_predictor(iv(3.5, -0.1, 7.0)) is N  # not significant


def test_urse_rule():
    assert decide_urse(iv(40.1, 39, 41)) is R
    assert decide_urse(iv(39.9, 39, 41)) is N


def test_refine_rule():
    lower = iv(-0.01, -0.02, -0.005)
    assert decide_refine(iv(0.35, 0.1, 0.6), lower) is R
    assert decide_refine(iv(0.35, 0.1, 0.6), iv(0.01, -0.01, 0.03)) is P  # residual not lower
    assert decide_refine(iv(0.2, 0.05, 0.35), lower) is P
    assert decide_refine(iv(0.2, -0.05, 0.45), lower) is N  # a gain indistinguishable from 0


def test_guidance_rule():
    assert decide_guidance(iv(-0.01, -0.02, -0.001), iv(0.2, 0.1, 0.3)) is R
    assert decide_guidance(iv(-0.01, -0.02, -0.001), iv(0.2, -0.1, 0.5)) is P
    assert decide_guidance(iv(0.01, -0.02, 0.03), iv(-0.2, -0.3, 0.1)) is N


def test_ssim_rule():
    assert decide_ssim(iv(-0.005, -0.02, 0.01)) is R
    assert decide_ssim(iv(-0.02, -0.04, 0.0)) is P
    assert decide_ssim(iv(-0.031, -0.05, -0.01)) is N


def test_zero_shot_rule():
    assert decide_zero_shot(iv(0.25, 0.05, 0.45, 5)) is R
    assert decide_zero_shot(iv(0.1, 0.02, 0.18, 5)) is P
    assert decide_zero_shot(iv(0.3, -0.1, 0.7, 5)) is N


def test_efficiency_rule():
    assert decide_efficiency(iv(0.15, 0.05, 0.25)) is R
    assert decide_efficiency(iv(0.15, -0.05, 0.35)) is P
    assert decide_efficiency(iv(0.05, 0.01, 0.09)) is P
    assert decide_efficiency(iv(-0.05, -0.1, 0.0)) is N


def test_speed_rule():
    assert decide_speed(2.1, 1.0) is R
    assert decide_speed(1.9, 1.0) is N


@pytest.mark.slow
def test_smoke_run_gives_one_finding_per_claim(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR25_CACHE", str(tmp_path / "cache"))  # trains from cold, relies on nothing warm
    findings = PAPER.check(PAPER.run("smoke", RunContext(profile="smoke", out_dir=tmp_path / "run")))
    assert [f.claim for f in findings] == [c.key for c in CLAIMS]
    by = {f.claim: f for f in findings}
    assert by["kaist_benchmark"].verdict is Verdict.NOT_TESTABLE
    assert by["subspace_speed"].verdict in (R, N)
    assert by["refine_gain"].verdict is Verdict.DEFERRED
    assert math.isfinite(by["refine_gain"].measured["gain_db"])
    for f in findings:
        for fig in f.figures:
            assert (tmp_path / "run" / fig).is_file()
