"""The smoke profile of the reproduction: one finding per claim, measurements (never verdicts) in the
form the rules read, finite numbers."""

import math
import shutil

import pytest

from iclr25.core.claims import Verdict
from iclr25.core.registry import load
from iclr25.core.runtime import RunContext


@pytest.mark.skipif(shutil.which("bible") is None, reason="needs the KJV (apt-get install bible-kjv)")
def test_smoke_profile_reports_every_claim(tmp_path):
    paper = load("model_equality")
    findings = paper.check(paper.run("smoke", RunContext(profile="smoke", out_dir=tmp_path)))
    assert [f.claim for f in findings] == [c.key for c in paper.claims]
    for f in findings:
        assert f.verdict in (None, Verdict.NOT_TESTABLE)  # measurements: the claims' rules decide
        assert f.summary.strip()
        for k, v in f.measured.items():
            if isinstance(v, float | int):
                assert math.isfinite(v), (f.claim, k, v)
    by = {f.claim: f for f in findings}
    assert by["real_api_audit"].verdict is Verdict.NOT_TESTABLE
    assert 0 <= by["real_api_audit"].measured["simulated_failing"] <= by["real_api_audit"].measured[
        "simulated_endpoints"]
    assert (tmp_path / "power.png").is_file()
    level = by["level_control"]  # the same-model false-positive rate at every N, printed
    want = {"fpr_hamming_n2", "fpr_hamming_n10", "fpr_chi2_n2", "fpr_crosspool_hamming_n10"}
    assert want <= set(level.measured)
    assert len(level.measured["fpr_hamming_n10"]) == 20  # one 0/1 outcome per simulation
    assert "N = 2m" in level.summary and "N = 10m" in level.summary
    assert "tv_per_token_fp16" in by["hamming_power_small_n"].measured
    for f in findings:  # every rule reads what its finding carries
        claim = paper.claim(f.claim)
        if claim.rule is not None and f.verdict is None:
            claim.rule.decide(f.measured)
    decided = paper.decide(findings, "smoke")
    assert {f.verdict for f in decided} <= {Verdict.SMOKE, Verdict.NOT_TESTABLE}
