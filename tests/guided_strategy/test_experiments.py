"""The claims' rules on fixed measurements (a rule change that flips a verdict fails here), the
aggregation of runs into per-seed and per-run measurements, and a smoke run of the reproduction."""

import math

import numpy as np
import pytest

from iclr25.core.claims import Verdict
from iclr25.core.registry import load
from iclr25.core.runtime import RunContext
from iclr25.guided_strategy.claims import CLAIMS, ENVS
from iclr25.guided_strategy.experiments import code_order, novel_measured, performant_measured

R, P, N = Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED
RULE = {c.key: c.rule for c in CLAIMS}
BASES = ("infogail", "infogail_m", "infogail_m_sn")


def novel(gsd, base, envs=ENVS, split="interp"):
    """VL10-test per seed: GSD's and every baseline's (the same list for all three)."""
    m = {}
    for env in envs:
        m[f"{env}_{split}_vl10_test_gsd"] = list(gsd)
        for b in BASES:
            m[f"{env}_{split}_vl10_test_{b}"] = list(base)
    return m


def test_novel_rule_is_per_environment_against_every_baseline():
    rule = RULE["novel_discovery_interp"]
    assert rule.decide(novel([0.070, 0.072, 0.069], [0.101, 0.100, 0.102])) is R  # ratio ~0.70, tight
    assert rule.decide(novel([0.090, 0.091, 0.092], [0.101, 0.100, 0.102])) is P  # < 1, not <= 0.85
    assert rule.decide(novel([0.110, 0.111, 0.112], [0.101, 0.100, 0.102])) is N
    assert rule.decide(novel([0.07, 0.12, 0.05], [0.101, 0.100, 0.102])) is P  # ratio 0.77 but wide interval
    one_bad = novel([0.070, 0.072, 0.069], [0.101, 0.100, 0.102])
    one_bad["pendulum_interp_vl10_test_infogail_m"] = [0.060, 0.061, 0.062]  # one baseline beats GSD there
    assert rule.decide(one_bad) is P  # pendulum is not even partly reproduced, the lanes are
    with pytest.raises(KeyError):  # every environment must be measured
        rule.decide(novel([0.07] * 3, [0.1] * 3, envs=("point-lane",)))


def test_extrap_rule_reads_the_extrap_keys():
    m = novel([0.070, 0.072, 0.069], [0.101, 0.100, 0.102], split="extrap")
    assert RULE["novel_discovery_extrap"].decide(m) is R


def success(ig, gsd, sel, envs=ENVS):
    m = {}
    for env in envs:
        m |= {f"{env}_success_vl10_test_infogail": list(ig), f"{env}_success_vl10_test_gsd": list(gsd),
              f"{env}_gsd_selected_return_over_demo": list(sel)}
    return m


def test_successful_rule():
    rule = RULE["successful_novel"]
    ig, gsd = [0.30, 0.31, 0.29, 0.30, 0.32, 0.28], [0.15, 0.16, 0.14, 0.15, 0.16, 0.15]
    ok_sel = [1.0, 1.01, 0.99, 1.0, 1.02, 0.98]
    assert rule.decide(success(ig, gsd, ok_sel)) is R
    assert rule.decide(success(ig, ig, ok_sel)) is P  # returns hold, IG is not worse
    assert rule.decide(success(ig, ig, [0.5] * 6)) is N
    assert rule.decide(success(ig, gsd, [0.88, 0.95, 0.90, 0.92, 0.93, 0.89])) is P  # interval reaches < 0.9


def perf(gsd, ig):
    m = {}
    for env in ENVS:
        m |= {f"{env}_return_over_demo_gsd": list(gsd), f"{env}_return_over_demo_infogail": list(ig)}
    return m


def test_performant_rule_a_tie_at_a_ceiling_is_not_a_loss():
    rule = RULE["performant_diversity"]
    ceiling = [1.0] * 6
    assert rule.decide(perf([0.9998, 1.0, 0.9999, 1.0, 0.9997, 1.0], ceiling)) is R  # the old 199.96 vs 200
    assert rule.decide(perf([1.10, 1.12, 1.11, 1.09, 1.13, 1.10], ceiling)) is R
    assert rule.decide(perf([0.95, 0.96, 0.94, 0.95, 0.97, 0.95], ceiling)) is N  # 5% below IG
    assert rule.decide(perf([0.99, 1.01, 0.98, 1.02, 0.97, 1.03], ceiling)) is N  # interval reaches −2%


def relevance(auc, ratio_gsd, ratio_ig):
    m = {}
    for env in ENVS:
        m |= {f"{env}_auc": list(auc), f"{env}_ratio_gsd": list(ratio_gsd),
              f"{env}_ratio_infogail": list(ratio_ig)}
    return m


def test_relevance_rule():
    rule = RULE["task_relevance"]
    auc_hi, auc_lo = [0.97, 0.96, 0.98, 0.97, 0.95, 0.96], [0.80, 0.85, 0.82, 0.81, 0.86, 0.83]
    g, i = [0.20, 0.25, 0.22, 0.21, 0.24, 0.23], [0.60, 0.55, 0.62, 0.58, 0.61, 0.57]
    assert rule.decide(relevance(auc_hi, g, i)) is R
    assert rule.decide(relevance(auc_lo, g, i)) is N
    assert rule.decide(relevance(auc_hi, i, g)) is N
    assert rule.decide(relevance(auc_hi, g, g)) is N


@pytest.mark.parametrize("claim", ["novel_discovery_interp", "novel_discovery_extrap", "successful_novel",
                                   "performant_diversity", "task_relevance"])
def test_claims_state_the_paper_number_and_a_rule(claim):
    c = next(c for c in CLAIMS if c.key == claim)
    assert c.paper and c.setup and c.rule is not None and c.rule.prose() in c.criterion


def _res(method, seed, vl10_test, split="interp", mean_return=5.0):
    return {"task": {"env": "point-lane", "split": split, "method": method, "seed": seed},
            "levels": [1, 2, 3, 4, 5], "test_levels": [2, 4], "train_levels": [1, 3, 5],
            "vl": {10: [9.0, vl10_test, 9.0, vl10_test, 9.0], 50: [0.0] * 5}, "code_order": 1.0,
            "mean_return": mean_return, "demo_return": 5.0}


def test_measurements_are_per_seed_and_paired_by_seed():
    results = [_res("gsd", s, v) for s, v in ((7, 0.10), (3, 0.08))]  # out of order on purpose
    results += [_res("infogail", s, v) for s, v in ((3, 0.12), (7, 0.14))]
    m = novel_measured(results, "interp")
    assert m["point-lane_interp_vl10_test_gsd"] == [0.08, 0.10]  # seeds 3, 7
    assert m["point-lane_interp_vl10_test_infogail"] == [0.12, 0.14]
    assert m["point-lane_interp_seeds"] == [3, 7]
    assert "point-lane_interp_vl10_test_infogail_m" not in m
    runs = [_res("gsd", 0, 0.1, sp, r) for sp, r in (("interp", 4.0), ("extrap", 6.0))]
    p = performant_measured(runs)
    assert p["point-lane_return_over_demo_gsd"] == [1.2, 0.8]  # extrap sorts before interp


def test_code_order_is_one_for_codes_monotone_in_the_level():
    levels = np.repeat(np.arange(1, 6), 3)
    rng = np.random.default_rng(0)
    codes = np.c_[-2.0 * levels, 0.5 * levels]  # all on one axis, tied exactly as the levels
    assert math.isclose(code_order(codes, levels), 1.0, rel_tol=1e-9)
    assert code_order(rng.normal(size=(15, 2)), levels) < 0.9


def test_smoke_reproduction_measures_every_claim_and_the_full_path_decides(tmp_path, monkeypatch,
                                                                             pendulum_h5):
    import iclr25.guided_strategy.experiments as ex
    runs = []
    decide = ex.findings_from
    monkeypatch.setattr(ex, "findings_from",
                        lambda results, *a, **k: runs.append(results) or decide(results, *a, **k))
    paper = load("guided_strategy")
    findings = paper.reproduce("smoke", RunContext(profile="smoke", out_dir=tmp_path))
    assert [f.claim for f in findings] == [c.key for c in CLAIMS]
    by = {f.claim: f for f in findings}
    assert by["table_tennis"].verdict is Verdict.NOT_TESTABLE
    assert by["mujoco_scale"].verdict is Verdict.NOT_TESTABLE
    for key in ("novel_discovery_interp", "novel_discovery_extrap", "successful_novel",
                "performant_diversity", "task_relevance"):
        assert by[key].verdict is Verdict.SMOKE, key
        assert any(k.startswith("hazard-lane_") for k in by[key].measured), key
        assert any(k.startswith("pendulum_") for k in by[key].measured), key
    assert len(by["performant_diversity"].measured["hazard-lane_return_over_demo_gsd"]) == 2  # 2 splits
    for f in findings:
        assert f.summary
        for name in f.figures:
            assert (tmp_path / name).is_file()
    # the same runs through the full profile's path: measurements the rules can decide
    full = paper.decide(decide(runs[0], "full", tmp_path, pendulum_missing=False), "full")
    decided = {Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED}
    assert all(f.verdict in decided for f in full[:5])


def test_full_profile_without_pendulum_data_is_not_testable_and_names_the_folder():
    from iclr25.guided_strategy.experiments import _wrap
    why = "the pendulum demonstrations ../shared/data/09-gsd/InvertedPendulumDetCustom_v2.h5 are absent"
    f = _wrap("successful_novel", {"x": 1.0}, "numbers", "full", why, "full profile", [])
    assert f.verdict is Verdict.NOT_TESTABLE and "shared/data/09-gsd" in f.summary
    assert f.measured == {"x": 1.0}
    assert _wrap("successful_novel", {"x": 1.0}, "n", "full", None, "full", []).verdict is None  # the rule's
    assert _wrap("successful_novel", {"x": 1.0}, "n", "quick", None, "quick", []).verdict is Verdict.DEFERRED
