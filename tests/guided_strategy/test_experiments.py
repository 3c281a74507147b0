"""Verdict rules on fixed measurements (a rule change that flips a verdict fails here), the aggregation
of runs into the paper's ratios, and a smoke run of the reproduction."""

import math

import numpy as np
import pytest

from iclr25.core.claims import Verdict
from iclr25.core.registry import load
from iclr25.core.runtime import RunContext
from iclr25.guided_strategy.experiments import (
    CLAIMS,
    code_order,
    decide_novel,
    decide_performant,
    decide_relevance,
    decide_successful,
    novel_ratios,
)


@pytest.mark.parametrize("ratios, verdict", [
    ({"pendulum": 0.80, "point-lane": 0.85}, Verdict.REPRODUCED),
    ({"pendulum": 0.60, "point-lane": 1.05}, Verdict.PARTIAL),  # mean 0.825 but one env >= 1
    ({"pendulum": 0.95, "point-lane": 0.90}, Verdict.PARTIAL),  # mean < 1, not <= 0.85
    ({"pendulum": 0.86, "point-lane": 0.85}, Verdict.PARTIAL),
    ({"pendulum": 1.10, "point-lane": 0.95}, Verdict.NOT_REPRODUCED),
    ({"pendulum": float("nan"), "point-lane": 0.5}, Verdict.NOT_REPRODUCED),
    ({}, Verdict.NOT_REPRODUCED),
])
def test_decide_novel(ratios, verdict):
    assert decide_novel(ratios) is verdict


@pytest.mark.parametrize("ig_over, sel, verdict", [
    ({"p": 1.2, "l": 1.5}, {"p": 0.9, "l": 1.0}, Verdict.REPRODUCED),
    ({"p": 1.19, "l": 1.5}, {"p": 0.9, "l": 1.0}, Verdict.PARTIAL),
    ({"p": 1.3, "l": 1.5}, {"p": 0.89, "l": 1.0}, Verdict.PARTIAL),
    ({"p": 1.0, "l": 1.5}, {"p": 0.5, "l": 1.0}, Verdict.NOT_REPRODUCED),
])
def test_decide_successful(ig_over, sel, verdict):
    assert decide_successful(ig_over, sel) is verdict


def test_decide_performant():
    assert decide_performant({"p": 900, "l": 5.0}, {"p": 816, "l": 5.0}) is Verdict.REPRODUCED
    assert decide_performant({"p": 900, "l": 4.9}, {"p": 816, "l": 5.0}) is Verdict.NOT_REPRODUCED


def test_decide_relevance_needs_every_run():
    assert decide_relevance([(0.95, 0.2, 0.5), (0.9, 0.1, 0.4)]) is Verdict.REPRODUCED
    assert decide_relevance([(0.95, 0.2, 0.5), (0.89, 0.1, 0.4)]) is Verdict.NOT_REPRODUCED
    assert decide_relevance([(0.95, 0.5, 0.5)]) is Verdict.NOT_REPRODUCED
    assert decide_relevance([(0.95, float("nan"), 0.5)]) is Verdict.NOT_REPRODUCED
    assert decide_relevance([]) is Verdict.NOT_REPRODUCED


def _res(method, seed, vl10_test):
    return {"task": {"env": "point-lane", "split": "interp", "method": method, "seed": seed},
            "levels": [1, 2, 3, 4, 5], "test_levels": [2, 4], "train_levels": [1, 3, 5],
            "vl": {10: [9.0, vl10_test, 9.0, vl10_test, 9.0], 50: [0.0] * 5}}


def test_novel_ratio_is_gsd_over_the_best_baselines_seed_mean():
    results = [_res("gsd", s, v) for s, v in ((0, 0.08), (1, 0.10))]
    results += [_res("infogail", s, v) for s, v in ((0, 0.12), (1, 0.14))]
    results += [_res("infogail_m", s, v) for s, v in ((0, 0.10), (1, 0.12))]
    results += [_res("infogail_m_sn", s, v) for s, v in ((0, 0.20), (1, 0.20))]
    ratios, measured = novel_ratios(results, "interp", ["point-lane"])
    assert math.isclose(ratios["point-lane"], 0.09 / 0.11)
    assert math.isclose(measured["point-lane_interp_vl10_test_gsd"], 0.09)
    assert measured["point-lane_interp_vl10_test_gsd_n"] == 2


def test_code_order_is_one_for_codes_monotone_in_the_level():
    levels = np.repeat(np.arange(1, 6), 3)
    rng = np.random.default_rng(0)
    codes = np.c_[-2.0 * levels, 0.5 * levels]  # all on one axis, tied exactly as the levels
    assert math.isclose(code_order(codes, levels), 1.0, rel_tol=1e-9)
    assert code_order(rng.normal(size=(15, 2)), levels) < 0.9


def test_smoke_reproduction_gives_one_finding_per_claim(tmp_path, monkeypatch):
    import iclr25.guided_strategy.experiments as ex
    runs = []
    decide = ex.findings_from
    monkeypatch.setattr(ex, "findings_from",
                        lambda results, *a, **k: runs.append(results) or decide(results, *a, **k))
    paper = load("guided_strategy")
    findings = paper.check(paper.run("smoke", RunContext(profile="smoke", out_dir=tmp_path)))
    assert [f.claim for f in findings] == [c.key for c in CLAIMS]
    by = {f.claim: f for f in findings}
    assert by["table_tennis"].verdict is Verdict.NOT_TESTABLE
    assert by["mujoco_scale"].verdict is Verdict.NOT_TESTABLE
    for key in ("novel_discovery_interp", "novel_discovery_extrap", "successful_novel",
                "performant_diversity"):
        assert by[key].verdict is Verdict.DEFERRED and by[key].measured, key
    assert by["task_relevance"].verdict in (Verdict.REPRODUCED, Verdict.NOT_REPRODUCED)
    for f in findings:
        assert f.summary
        for name in f.figures:
            assert (tmp_path / name).is_file()
    # the same measurements through the full profile's verdict path
    full = paper.check(decide(runs[0], "full", tmp_path, pendulum_missing=False))
    decided = {Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED}
    assert all(f.verdict in decided for f in full[:5])



def test_full_profile_without_pendulum_data_is_not_testable_and_names_the_folder():
    from iclr25.guided_strategy.experiments import _wrap
    why = "the pendulum demonstrations ../shared/data/09-gsd/InvertedPendulumDetCustom_v2.h5 are absent"
    f = _wrap("successful_novel", Verdict.REPRODUCED, {"x": 1.0}, "numbers", "full", why, [])
    assert f.verdict is Verdict.NOT_TESTABLE and "shared/data/09-gsd" in f.summary
    assert f.measured == {"x": 1.0}
    for profile, missing, verdict in (("full", None, Verdict.REPRODUCED), ("quick", None, Verdict.DEFERRED)):
        assert _wrap("successful_novel", Verdict.REPRODUCED, {}, "n", profile, missing, []).verdict is verdict
