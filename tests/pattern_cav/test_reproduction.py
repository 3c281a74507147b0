"""The claims' rules on fixed measurements (a rule change that flips one of these verdicts fails here), the
degenerate-baseline path, and the smoke profile: one finding per claim, measurements, no verdicts."""

import math

import numpy as np
import pytest

from iclr25.core.claims import Verdict
from iclr25.core.registry import load
from iclr25.core.runtime import RunContext
from iclr25.pattern_cav.claims import CLAIMS, HIGH_DIM_SETTINGS

R, P, N = Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED
RULE = {c.key: c.rule for c in CLAIMS}


def toy(pattern_min=0.9997, svm45=(0.857, 0.855, 0.859, 0.856, 0.858),
        svm_min=(0.78, 0.77, 0.79, 0.78, 0.78)):
    return {"pattern_cos_min": pattern_min, "svm_cos_45": list(svm45), "svm_cos_min": list(svm_min),
            "ridge_cos_45": list(svm45), "ridge_cos_min": list(svm_min)}


def test_toy_rule():
    rule = RULE["toy_alignment"]
    assert rule.decide(toy()) is R
    assert rule.decide(toy(pattern_min=0.97)) is P  # one of five parts fails
    assert rule.decide(toy(svm45=(0.91, 0.92, 0.93, 0.92, 0.91))) is P  # filters at 45 deg too close
    assert rule.decide(toy(pattern_min=0.5, svm45=(0.99,) * 5, svm_min=(0.99,) * 5)) is N


def high_dim(settings, gap):
    m = {}
    for c in settings:
        m[f"pattern_cos_{c}"] = [0.8, 0.82, 0.79]
        for f in ("svm", "ridge", "lasso", "logistic"):
            m[f"{f}_cos_{c}"] = [0.8 - gap + d for d in (0.01, -0.01, 0.0)]
    return m


def test_high_dim_rule_is_decided_per_setting():
    rule = RULE["high_dim_alignment"]
    assert len(HIGH_DIM_SETTINGS) == 24
    assert rule.decide(high_dim(HIGH_DIM_SETTINGS, 0.2)) is R
    mixed = high_dim(HIGH_DIM_SETTINGS[:21], 0.2) | high_dim(HIGH_DIM_SETTINGS[21:], -0.1)
    assert rule.decide(mixed) is P  # 21 of 24 settings
    assert rule.decide(high_dim(HIGH_DIM_SETTINGS[:4], 0.2)) is R  # quick: the settings it measures
    assert rule.decide(high_dim(HIGH_DIM_SETTINGS, -0.1)) is N


def shortcut(vanilla=0.25, margin=(0.18, 0.14, 0.03, 0.11, 0.21), cut_p=(0.88, 0.95, 0.96, 0.89, 0.8),
             cut_svm=(0.1, 0.05, 0.12, 0.08, 0.09), drop=(0.09, 0.08, 0.1, 0.07, 0.09)):
    return {"vanilla_shortcut_rate": [vanilla + d for d in (0.01, -0.01, 0.02, 0.0, -0.02)],
            "align_margin": list(margin), "cut_pattern_lam1e8": list(cut_p), "cut_svm_lam1e8": list(cut_svm),
            "clean_drop_pattern_lam1e8": list(drop)}


def test_shortcut_rule_at_the_preregistered_lambda():
    rule = RULE["shortcut_removal"]
    # the committed record's margins (0.134 [0.048, 0.219]): significantly above 0, not above 0.10 -> PARTIAL
    assert rule.decide(shortcut()) is P
    assert rule.decide(shortcut(margin=(0.2, 0.21, 0.19, 0.2, 0.22), drop=(0.02,) * 5)) is R
    assert rule.decide(shortcut(vanilla=0.05)) is N  # no usable shortcut: nothing to judge
    assert rule.decide(shortcut(margin=(0.1, -0.1, 0.05, -0.05, 0.0), cut_p=(0.1,) * 5)) is N


def test_tcav_fidelity_rule_reads_sensitivity_correlations():
    rule = RULE["tcav_fidelity"]
    m = {"sens_corr_pattern": [0.9, 0.85, 0.88, 0.92, 0.87],
         "sens_corr_best_filter": [0.6, 0.7, 0.65, 0.62, 0.7],
         "sens_corr_filter_mean": [0.4, 0.5, 0.45, 0.42, 0.5]}
    assert rule.decide(m) is R
    assert rule.decide(m | {"sens_corr_best_filter": [0.92, 0.8, 0.9, 0.9, 0.88]}) is P
    assert rule.decide(m | {"sens_corr_best_filter": [0.95] * 5, "sens_corr_filter_mean": [0.95] * 5}) is N


def test_a_degenerate_baseline_is_a_finding_not_a_crash():
    from iclr25.pattern_cav.cav import FilterConfig
    from iclr25.pattern_cav.experiments import fit_or_none
    rng = np.random.default_rng(0)
    a, t = rng.normal(size=(20, 3)), np.repeat([0, 1], 10)
    assert fit_or_none(a, t, "lasso", FilterConfig(grid=(1e3,))) is None  # lasso's zero vector
    assert fit_or_none(a, t, "pattern", FilterConfig()) is not None


@pytest.mark.parametrize("seed", [0, 1])
def test_smoke_profile_reports_every_claim(tmp_path, seed):
    paper = load("pattern_cav")  # seed 1 made lasso's CAV the zero vector (issue #49): now a finding
    findings = paper.reproduce("smoke", RunContext(seed=seed, profile="smoke", out_dir=tmp_path))
    assert [f.claim for f in findings] == [c.key for c in paper.claims]
    by = {f.claim: f for f in findings}
    for f in findings:
        assert f.verdict is Verdict.SMOKE and f.summary.strip()
        for fig in f.figures:
            assert (tmp_path / fig).stat().st_size > 1000
    for key, names in (("toy_alignment", ("svm_cos_45", "ridge_cos_min")),
                       ("shortcut_removal", ("vanilla_shortcut_rate", "align_margin", "cut_pattern_lam1e8",
                                             "cut_svm_lam1e8", "clean_drop_pattern_lam1e8")),
                       ("tcav_fidelity", ("sens_corr_pattern", "sens_corr_best_filter",
                                          "sens_corr_filter_mean"))):
        for k in names:
            v = by[key].measured[k]
            assert all(math.isfinite(x) for x in (v if isinstance(v, list) else [v])), (key, k, v)
    assert by["toy_alignment"].measured["pattern_cos_min"] > 0.98  # true at any size
    assert "pattern_cos_d32_n50_k2_g2" in by["high_dim_alignment"].measured
    assert by["shortcut_removal"].figures == ["correction_curve.png"]
    assert "vanilla_artifact_relevance" in by["shortcut_removal"].measured
