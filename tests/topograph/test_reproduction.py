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


FAMS = ("curvilinear", "membranes", "blobs")


def _arms(dice_diu, topo_diu, ph_diu=(5.0, 5.2, 4.8), topo_dice=0.8):
    """Per-seed measurements of one family (three seeds) for the verdict rules."""
    def arm(diu, dice=0.8):
        n = len(diu)
        return {"diu": list(diu), "diu_none": list(diu), "dice": [dice] * n, "betti0_err": [0.0] * n,
                "betti1_err": [0.0] * n, "cldice": [0.9] * n}
    return {"warm": {"warm_steps": [600.0] * 3, "warm_val_dice": [0.8] * 3},
            "dice": arm(dice_diu), "dice+topograph": arm(topo_diu, topo_dice),
            "dice+cldice": arm(dice_diu), "dice+ph": arm(ph_diu)}


BETTER = ((4.0, 4.2, 3.8), (3.0, 3.1, 2.9))      # -25%, consistent over seeds
SMALL = ((4.0, 4.2, 3.8), (3.8, 4.0, 3.6))       # -5%, consistent: significant but < 15%
NOISY = ((4.0, 4.2, 3.8), (2.0, 5.5, 2.5))       # -17% on average, interval includes 0
WORSE = ((4.0, 4.2, 3.8), (4.4, 4.6, 4.2))       # +10%


def _verdict(fn, *families):
    return fn(dict(zip(FAMS, families, strict=True))).verdict


def test_topology_improves_needs_two_families_with_a_significant_15_percent_drop():
    from iclr25.topograph.experiments import _topology_improves as rule
    assert _verdict(rule, _arms(*BETTER), _arms(*BETTER), _arms(*WORSE)) is Verdict.REPRODUCED
    assert _verdict(rule, _arms(*BETTER), _arms(*SMALL), _arms(*NOISY)) is Verdict.PARTIAL
    assert _verdict(rule, _arms(*NOISY), _arms(*NOISY), _arms(*NOISY)) is Verdict.PARTIAL
    # worse in a majority of families: NOT_REPRODUCED even when the third improves
    assert _verdict(rule, _arms(*WORSE), _arms(*WORSE), _arms(*BETTER)) is Verdict.NOT_REPRODUCED
    # topology better, but at a Dice cost beyond 0.02: that family does not count
    costly = _arms(*BETTER, topo_dice=0.75)
    assert _verdict(rule, costly, costly, _arms(*BETTER)) is Verdict.PARTIAL


def test_training_claims_defer_with_fewer_than_three_seeds():
    from iclr25.topograph.experiments import _beats_ph, _topology_improves
    one = {f: {arm: {k: v[:1] for k, v in m.items()} for arm, m in _arms(*BETTER).items()} for f in FAMS}
    assert _topology_improves(one).verdict is Verdict.DEFERRED
    assert _beats_ph(one).verdict is Verdict.DEFERRED
    assert "1 seed(s) cannot decide" in _topology_improves(one).summary


def test_beats_ph_is_an_ordering_with_the_same_shape_of_rule():
    from iclr25.topograph.experiments import _beats_ph as rule
    lower = _arms(BETTER[0], (3.0, 3.1, 2.9), ph_diu=(3.3, 3.4, 3.2))  # -9%, significant: counts
    higher = _arms(BETTER[0], (3.0, 3.1, 2.9), ph_diu=(2.8, 2.9, 2.7))
    tie = _arms(BETTER[0], (3.0, 3.1, 2.9), ph_diu=(2.0, 4.5, 2.7))
    assert _verdict(rule, lower, lower, higher) is Verdict.REPRODUCED
    assert _verdict(rule, lower, tie, tie) is Verdict.PARTIAL
    assert _verdict(rule, higher, higher, lower) is Verdict.NOT_REPRODUCED
