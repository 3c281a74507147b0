"""The smoke profile of the reproduction: one finding per claim, valid verdicts, finite numbers."""

import math

from iclr25.core.claims import Verdict
from iclr25.core.registry import load
from iclr25.core.runtime import RunContext


def test_smoke_profile_reports_every_claim(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR25_CACHE", str(tmp_path / "cache"))
    paper = load("topograph")
    ctx = RunContext(profile="smoke", out_dir=tmp_path / "run")
    findings = paper.check(paper.run("smoke", ctx))
    assert [f.claim for f in findings] == [c.key for c in paper.claims]
    for f in findings:
        assert f.verdict in set(Verdict) - {Verdict.ERROR}
        assert f.summary
        for k, v in f.measured.items():
            if not isinstance(v, str):
                assert math.isfinite(v), (f.claim, k)
        for fig in f.figures:
            assert (ctx.out_dir / fig).is_file()
    strict = findings[-1]
    assert strict.measured["constructed_correct"] == strict.measured["constructed_cases"]
