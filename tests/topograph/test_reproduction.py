"""The claims' rules on fixed measurements (a rule change that flips one of these verdicts fails here), the
per-image pairing, and the smoke profile: one finding per claim, measurements, no verdicts."""

import math

import numpy as np

from iclr25.core.claims import Verdict
from iclr25.core.registry import load
from iclr25.core.runtime import RunContext
from iclr25.topograph.claims import CLAIMS, FAMILIES

R, P, N = Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED
RULE = {c.key: c.rule for c in CLAIMS}


def per_image(mean, spread=1.0, n=600):
    """n per-image values with exactly this mean and a fixed spread (deterministic)."""
    return list(mean + spread * np.tile([-1.0, 0.0, 1.0], n // 3))


def family(f, dice_diu, topo_diu, dice_change=0.0):
    """One family's per-image measurements for arms whose mean DIU are `dice_diu` and `topo_diu`."""
    return {f"{f}_diu_excess": per_image(topo_diu - 0.85 * dice_diu),
            f"{f}_diu_dice_minus_topograph": per_image(dice_diu - topo_diu),
            f"{f}_dice_change": per_image(dice_change, 0.01)}


BETTER, SMALL, WORSE = (1.2, 0.8), (1.2, 1.15), (1.2, 1.4)


def improves(*arms, dice_change=0.0):
    m = {}
    for f, (d, t) in zip(FAMILIES, arms, strict=True):
        m |= family(f, d, t, dice_change)
    return m


def test_topology_improves_needs_two_families_with_a_15_percent_drop():
    rule = RULE["topology_improves"]
    assert rule.decide(improves(BETTER, BETTER, WORSE)) is R
    assert rule.decide(improves(BETTER, SMALL, SMALL)) is P  # -4% is not -15%, but not worse either
    assert rule.decide(improves(WORSE, WORSE, BETTER)) is N  # higher DIU in a majority of families
    assert rule.decide(improves(BETTER, BETTER, BETTER, dice_change=-0.05)) is P  # at a Dice cost
    # -17% on average but images disagree too much for the interval to clear 0
    noisy = improves(BETTER, BETTER, BETTER) | {"curvilinear_diu_excess": per_image(-0.1, 5.0),
                                                "membranes_diu_excess": per_image(-0.1, 5.0)}
    assert rule.decide(noisy) is P


def test_the_record_before_per_image_pairing_is_partial():
    """The committed 3-seed record: curvilinear +13% (worse), membranes -23%, blobs -1%."""
    rule = RULE["topology_improves"]
    assert rule.decide(improves((2.19, 2.47), (1.16, 0.89), (0.32, 0.315))) is P


def ph(*pairs):
    return {f"{f}_diu_ph_minus_topograph": per_image(p - t)
            for f, (p, t) in zip(FAMILIES, pairs, strict=True)}


def test_beats_ph_is_an_ordering_per_family():
    rule = RULE["beats_ph_loss"]
    assert rule.decide(ph((3.0, 2.5), (1.0, 0.8), (0.3, 0.3))) is R
    assert rule.decide(ph((3.0, 2.5), (0.9, 0.9), (0.35, 0.35))) is P
    assert rule.decide(ph((2.5, 3.0), (0.8, 1.0), (0.3, 0.3))) is N


def test_faster_rule_reads_alternated_repeats():
    rule = RULE["faster_than_ph"]
    assert rule.decide({"ratio_gudhi": [5.6, 5.8, 5.7, 5.5, 5.9]}) is R
    assert rule.decide({"ratio_gudhi": [2.0, 2.2, 2.1, 1.9, 2.0]}) is P
    assert rule.decide({"ratio_gudhi": [0.9, 1.0, 1.1, 0.95, 1.0]}) is N


def test_strict_metric_needs_every_item_right():
    rule = RULE["strict_metric"]
    ok = {"constructed_correct": [1] * 10, "reference_agrees": [1] * 200, "diu0_implies_betti0": [1] * 200}
    assert rule.decide(ok) is R
    assert rule.decide(ok | {"reference_agrees": [1] * 199 + [0]}) is P
    assert rule.decide({k: [0] * len(v) for k, v in ok.items()}) is N


def test_smoke_profile_reports_every_claim(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR25_CACHE", str(tmp_path / "cache"))
    paper = load("topograph")
    ctx = RunContext(profile="smoke", out_dir=tmp_path / "run")
    findings = paper.reproduce("smoke", ctx)
    assert [f.claim for f in findings] == [c.key for c in paper.claims]
    by = {f.claim: f for f in findings}
    for f in findings:
        assert f.verdict is Verdict.SMOKE and f.summary
        for fig in f.figures:
            assert (ctx.out_dir / fig).is_file()
    m = by["topology_improves"].measured
    for f in FAMILIES:  # one paired value per test image (smoke: 4 images, 1 seed)
        assert len(m[f"{f}_diu_excess"]) == len(m[f"{f}_dice_change"]) == 4
        assert all(math.isfinite(x) for x in m[f"{f}_diu_excess"])
        assert f"{f}_diu_topograph_jitter" in m
        assert len(by["beats_ph_loss"].measured[f"{f}_diu_ph_minus_topograph"]) == 4
    assert "curvilinear32_diu_topograph_jitter" in m  # the larger-image run's code path (32² in smoke)
    s = by["strict_metric"].measured
    assert sum(s["constructed_correct"]) == s["constructed_cases"] == 10
    assert len(by["faster_than_ph"].measured["ratio_gudhi"]) == 1
