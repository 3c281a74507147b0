"""The claims' rules on fixed measurements (a rule change that flips one of these verdicts fails here), and
the smoke profile: every claim gets one finding with its measurements, no verdict."""

import math

import pytest

from iclr25.advantage_alignment.claims import CLAIMS
from iclr25.core.claims import Verdict
from iclr25.core.registry import load
from iclr25.core.runtime import RunContext

R, P, N = Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED
RULE = {c.key: c.rule for c in CLAIMS}


def ipd(aa=(-1.44, -1.47, -1.48), naive=(-1.99, -2.0, -2.0), cd=(0.02, 0.03, 0.01)):
    return {"adalign_reward": list(aa), "naive_reward": list(naive), "adalign_p_coop_CD": list(cd)}


def test_ipd_reciprocity_rule_reads_intervals_over_seeds():
    rule = RULE["ipd_reciprocity"]
    assert rule.decide(ipd()) is R
    assert rule.decide(ipd(aa=(-1.39, -1.62, -1.45))) is P  # mean -1.49 >= -1.6, interval reaches -1.8
    assert rule.decide(ipd(cd=(0.05, 0.4, 0.1))) is P  # P(C|CD) interval reaches above 0.2
    assert rule.decide(ipd(aa=(-2.0, -2.0, -1.99), naive=(-1.5, -1.6, -1.55), cd=(0.5, 0.6, 0.55))) is N


def test_not_exploitable_rule():
    rule = RULE["not_exploitable"]
    assert rule.decide({"selfplay_frozen_vs_defect": [-2.065, -2.067, -2.066]}) is R
    assert rule.decide({"selfplay_frozen_vs_defect": [-2.0, -2.2, -2.05]}) is P  # only the mean clears -2.1
    assert rule.decide({"selfplay_frozen_vs_defect": [-2.5, -2.4, -2.45]}) is N


def test_coin_rule():
    rule = RULE["coin_game"]
    # the committed record before this round: 0.74/0.51, 0.76/0.50, 0.80/0.50
    m = {"adalign_own_coin_fraction": [0.738, 0.765, 0.799], "naive_own_coin_fraction": [0.512, 0.505, 0.505]}
    assert rule.decide(m) is P
    assert rule.decide(m | {"adalign_own_coin_fraction": [0.85, 0.86, 0.84]}) is R
    assert rule.decide(m | {"adalign_own_coin_fraction": [0.73, 0.5, 0.52]}) is N


def negotiation(welfare=(13.27, 13.14, 13.50), ppo=(9.006, 9.011, 9.016), vs_ad=(2.7, 2.9, 2.83)):
    return {"adap_welfare": list(welfare), "ppo_welfare": list(ppo), "adap_vs_defect": list(vs_ad)}


def test_negotiation_rule_needs_both_halves():
    rule = RULE["negotiation"]
    # issue #47: the old rule said REPRODUCED here, ignoring that always-defect exploits AdAP (2.81 < 4.3)
    assert rule.decide(negotiation()) is P
    assert rule.decide(negotiation(vs_ad=(4.45, 4.47, 4.44))) is R
    assert rule.decide(negotiation(welfare=(10.5, 10.6, 10.4), vs_ad=(4.45, 4.47, 4.44))) is P
    assert rule.decide(negotiation(welfare=(9.0, 9.1, 8.9))) is N


def test_cheaper_rule_is_decided_per_batch_over_repeats():
    rule = RULE["cheaper_than_lola"]
    fast = [4.0, 3.8, 4.1, 3.9, 4.0]
    assert rule.decide({"ratio_b64": fast, "ratio_b256": fast}) is R  # quick measures two batches
    assert rule.decide({"ratio_b64": fast, "ratio_b256": [3.1, 2.9, 3.0, 3.2, 2.8]}) is P
    assert rule.decide({"ratio_b64": [0.9, 1.1, 1.0, 0.95, 1.05]}) is N


@pytest.mark.slow
def test_smoke_profile(tmp_path):
    paper = load("advantage_alignment")
    findings = paper.reproduce("smoke", RunContext(profile="smoke", out_dir=tmp_path))
    by = {f.claim: f for f in findings}
    assert set(by) == {c.key for c in paper.claims}
    assert by["melting_pot"].verdict is Verdict.NOT_TESTABLE
    assert all(f.verdict is Verdict.SMOKE for k, f in by.items() if k != "melting_pot")
    for f in findings:
        assert f.summary.strip()
        for k, v in f.measured.items():
            for x in v if isinstance(v, list) else [v]:
                assert isinstance(x, str) or math.isfinite(x), (f.claim, k, x)
        for fig in f.figures:
            assert (tmp_path / fig).is_file()
    # every rule's keys are measured, one value per seed (or repeat)
    assert len(by["ipd_reciprocity"].measured["adalign_reward"]) == 5
    assert len(by["not_exploitable"].measured["selfplay_frozen_vs_defect"]) == 5
    assert {"trained_vs_defect_discounted", "trained_vs_defect_mean"} <= set(by["not_exploitable"].measured)
    assert {"adap_welfare", "ppo_welfare", "adap_vs_defect"} <= set(by["negotiation"].measured)
    assert len(by["cheaper_than_lola"].measured["ratio_b64"]) == 2
    assert by["not_exploitable"].figures == ["vs_always_defect.png"]
