"""The smoke profile of the reproduction: one finding per claim, valid verdicts, finite numbers."""

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
        assert f.verdict in set(Verdict) - {Verdict.ERROR}
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
    assert {"fpr_hamming_n1", "fpr_hamming_n2", "fpr_chi2_n2"} <= set(level.measured)
    assert "N = 1m" in level.summary and "N = 2m" in level.summary
    assert "tv_per_token_fp16" in by["hamming_power_small_n"].measured
