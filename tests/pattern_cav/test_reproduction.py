"""The smoke profile of the reproduction: every claim gets one finding with a valid verdict, finite
measured numbers, and the figures it lists exist."""

import math

from iclr25.core.claims import Verdict
from iclr25.core.registry import load
from iclr25.core.runtime import RunContext


def test_smoke_profile_reports_every_claim(tmp_path):
    paper = load("pattern_cav")
    findings = paper.check(paper.run("smoke", RunContext(profile="smoke", out_dir=tmp_path)))
    assert [f.claim for f in findings] == [c.key for c in paper.claims]
    for f in findings:
        assert f.verdict in set(Verdict) - {Verdict.ERROR, Verdict.NOT_TESTABLE}
        assert f.summary.strip()
        nums = [v for v in f.measured.values() if not isinstance(v, str)]
        assert nums and all(math.isfinite(v) for v in nums), f.claim
        for fig in f.figures:
            assert (tmp_path / fig).stat().st_size > 1000
    by = {f.claim: f for f in findings}
    assert by["toy_alignment"].measured["pattern_cos_min"] > 0.98  # true at any size
    assert set(by["shortcut_removal"].figures) == {"correction_curve.png"}
    assert set(by["toy_alignment"].figures) == {"toy_sweep.png"}
