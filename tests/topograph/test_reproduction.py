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


def _arms(dice_diu, topo_diu, dice_dice=0.8, topo_dice=0.8, ph_diu=5.0):
    base = {"betti0_err": 0.0, "betti1_err": 0.0, "cldice": 0.9}
    return {"dice": {**base, "diu": dice_diu, "dice": dice_dice},
            "dice+topograph": {**base, "diu": topo_diu, "dice": topo_dice},
            "dice+cldice": {**base, "diu": dice_diu, "dice": dice_dice},
            "dice+ph": {**base, "diu": ph_diu, "dice": dice_dice}}


def test_topology_improves_verdict_rules():
    from iclr25.topograph.experiments import _beats_ph, _topology_improves
    fams = ("curvilinear", "membranes", "blobs")
    assert _topology_improves({f: _arms(4.0, 3.0) for f in fams}).verdict is Verdict.REPRODUCED
    assert _topology_improves({f: _arms(4.0, 3.8) for f in fams}).verdict is Verdict.PARTIAL
    assert _topology_improves({f: _arms(4.0, 4.4) for f in fams}).verdict is Verdict.NOT_REPRODUCED
    mixed = {"curvilinear": _arms(4.0, 3.0), "membranes": _arms(4.0, 4.4), "blobs": _arms(4.0, 3.0)}
    assert _topology_improves(mixed).verdict is Verdict.PARTIAL
    dice_cost = {f: _arms(4.0, 3.0, topo_dice=0.7) for f in fams}
    assert _topology_improves(dice_cost).verdict is Verdict.PARTIAL
    two_of_three = {"curvilinear": _arms(4, 3, ph_diu=3.5), "membranes": _arms(4, 3, ph_diu=2.0),
                    "blobs": _arms(4, 3, ph_diu=3.0)}
    assert _beats_ph(two_of_three).verdict is Verdict.REPRODUCED
    assert _beats_ph({f: _arms(4, 3, ph_diu=2.0) for f in fams}).verdict is Verdict.NOT_REPRODUCED
