"""The smoke profile of the reproduction: every claim gets one finding, valid verdicts, finite numbers."""

import math

import pytest

from iclr25.core.claims import Verdict
from iclr25.core.registry import load
from iclr25.core.runtime import RunContext


@pytest.mark.slow
def test_smoke_profile(tmp_path):
    paper = load("advantage_alignment")
    findings = paper.check(paper.run("smoke", RunContext(profile="smoke", out_dir=tmp_path)))
    by = {f.claim: f for f in findings}
    assert set(by) == {c.key for c in paper.claims}
    for f in findings:
        assert f.verdict in set(Verdict) and f.verdict is not Verdict.ERROR
        assert f.summary.strip()
        for k, v in f.measured.items():
            assert isinstance(v, str) or math.isfinite(v), (f.claim, k, v)
        for fig in f.figures:
            assert (tmp_path / fig).is_file()
    assert by["melting_pot"].verdict is Verdict.NOT_TESTABLE
    # full-profile claims are deferred at smoke scale, but their code path ran and was measured
    assert by["coin_game"].verdict is Verdict.DEFERRED and "own-coin" in by["coin_game"].summary
    assert by["negotiation"].verdict is Verdict.DEFERRED and "welfare" in by["negotiation"].summary
    assert by["cheaper_than_lola"].measured["lola_dice_s_per_update_b8"] > 0
    # the paper's protocol on 3 seeds, and the AD-trained learner under both past-term forms
    m = by["not_exploitable"].measured
    assert m["selfplay_frozen_vs_defect_n"] == 3
    assert {"trained_vs_defect_discounted", "trained_vs_defect_mean"} <= set(m)
    assert len(by["ipd_reciprocity"].figures) == 2


# ---- verdict rules on fixed measurements: a rule change that flips one of these fails CI ----------

def test_not_exploitable_rule_uses_the_interval():
    from iclr25.advantage_alignment.experiments import EXPLOIT_BOUND, interval_verdict
    from iclr25.core.stats import mean_ci
    assert interval_verdict(mean_ci([-2.07, -2.06, -2.07]), EXPLOIT_BOUND) is Verdict.REPRODUCED
    assert interval_verdict(mean_ci([-2.0, -2.2, -2.05]), EXPLOIT_BOUND) is Verdict.PARTIAL
    assert interval_verdict(mean_ci([-2.5, -2.4, -2.45]), EXPLOIT_BOUND) is Verdict.NOT_REPRODUCED


def test_game_rules():
    from iclr25.advantage_alignment.experiments import _game_verdict
    # coin: full needs mean AdAlign >= 0.8 and naive <= 0.65; PARTIAL needs the paired gap above 0.1
    assert _game_verdict([0.85, 0.82, 0.8], [0.5, 0.5, 0.52], 0.8, 0.1, 0.65) is Verdict.REPRODUCED
    assert _game_verdict([0.73, 0.75, 0.72], [0.5, 0.51, 0.5], 0.8, 0.1, 0.65) is Verdict.PARTIAL
    assert _game_verdict([0.73, 0.5, 0.52], [0.5, 0.51, 0.5], 0.8, 0.1, 0.65) is Verdict.NOT_REPRODUCED
    assert _game_verdict([10.0, 10.1, 9.9], [9.0, 9.0, 9.0], 12.0, 1.0, 10.0) is Verdict.NOT_REPRODUCED
    assert _game_verdict([10.5, 10.6, 10.4], [9.0, 9.0, 9.1], 12.0, 1.0, 10.0) is Verdict.PARTIAL


def test_cheaper_rule_is_the_geometric_mean_of_the_ratios():
    from iclr25.advantage_alignment.experiments import _cheaper
    t = {64: {"adalign": 1.0, "lola_dice": 4.0}, 256: {"adalign": 1.0, "lola_dice": 2.5}}
    f = _cheaper(t, 5)
    assert f.measured["lola_dice_over_adalign_geomean"] == pytest.approx(10 ** 0.5)
    assert f.verdict is Verdict.REPRODUCED
    t[256]["lola_dice"] = 2.0  # geometric mean sqrt(8) = 2.83
    assert _cheaper(t, 5).verdict is Verdict.PARTIAL
    assert _cheaper({64: {"adalign": 1.0, "lola_dice": 0.9}}, 5).verdict is Verdict.NOT_REPRODUCED
