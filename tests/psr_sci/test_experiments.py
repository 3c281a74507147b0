"""The claims' rules on fixed measurements (a rule change that flips a verdict fails here), and a smoke run
of the reproduction (one finding per claim, measurements, no verdicts)."""

import math

import pytest

from iclr25.core.claims import Verdict
from iclr25.core.runtime import RunContext
from iclr25.psr_sci import PAPER
from iclr25.psr_sci.claims import CLAIMS, MASKS

R, P, N = Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED
RULE = {c.key: c.rule for c in CLAIMS}


def per_mask(prefix_a, prefix_b, a, b, masks=MASKS):
    return {**{f"{prefix_a}_{m}": a for m in masks}, **{f"{prefix_b}_{m}": b for m in masks}}


def refine(gain, res_diff=-0.01, bern_gain=None):
    init = [20.0, 21.0, 19.5, 20.5, 22.0, 18.0, 21.5, 20.0]
    m = {}
    for mk in MASKS:
        g = gain if mk == "kaist" or bern_gain is None else bern_gain
        m[f"init_psnr_{mk}"] = init
        m[f"psr_psnr_{mk}"] = [x + g + 0.05 * (i % 3 - 1) for i, x in enumerate(init)]
        m[f"init_residual_{mk}"] = [0.03] * 8
        m[f"psr_residual_{mk}"] = [0.03 + res_diff + 0.001 * (i % 2) for i in range(8)]
    return m


def test_refine_rule_per_mask_by_interval():
    rule = RULE["refine_gain"]
    assert rule.decide(refine(0.5)) is R
    assert rule.decide(refine(0.32)) is P  # mean ≥ 0.3 but the interval reaches below it: the old rule passed
    assert rule.decide(refine(0.5, res_diff=0.01)) is P  # residual higher: only the gain holds
    assert rule.decide(refine(0.5, bern_gain=-0.4)) is P  # decided per mask, not pooled
    assert rule.decide(refine(-0.2)) is N


def test_urse_rule():
    rule = RULE["urse_reversible"]
    assert rule.decide({"roundtrip_psnr_db": [41.0, 41.5, 40.8, 41.2]}) is R
    assert rule.decide({"roundtrip_psnr_db": [40.2, 39.6, 40.9, 40.1]}) is N  # mean 40.2, interval below 40


def test_guidance_rule():
    rule = RULE["guidance_consistency"]
    base = {"residual_unguided": [0.05, 0.06, 0.04, 0.05], "psnr_unguided": [20.0, 21.0, 19.0, 20.5]}
    assert rule.decide(base | {"residual_guided": [0.03, 0.04, 0.02, 0.03],
                               "psnr_guided": [21.0, 22.1, 19.9, 21.4]}) is R
    assert rule.decide(base | {"residual_guided": [0.03, 0.04, 0.02, 0.03],
                               "psnr_guided": [19.0, 22.1, 18.9, 21.4]}) is P
    assert rule.decide(base | {"residual_guided": [0.06, 0.07, 0.05, 0.06],
                               "psnr_guided": [19.0, 20.1, 18.9, 19.4]}) is N


def test_ssim_rule():
    rule = RULE["ssim_competitive"]
    init = [0.80, 0.82, 0.78, 0.81]

    def m(d):
        return per_mask("init_ssim", "psr_ssim", init, [x + d + 0.001 * i for i, x in enumerate(init)])

    assert rule.decide(m(0.0)) is R
    assert rule.decide(m(-0.02)) is P
    assert rule.decide(m(-0.05)) is N


def test_zero_shot_rule():
    rule = RULE["zero_shot"]
    init = [18.0, 19.0, 17.5, 18.5]

    def m(g):
        return per_mask("zs_init_psnr", "zs_psr_psnr", init, [x + g + 0.02 * i for i, x in enumerate(init)])

    assert rule.decide(m(0.4)) is R
    assert rule.decide(m(0.1)) is P
    assert rule.decide(m(-0.1)) is N


def test_efficiency_and_speed_rules():
    eff = RULE["subspace_data_efficiency"]
    cube = [10.0, 11.0, 9.5, 10.5]
    better = [x + 5 + 0.1 * i for i, x in enumerate(cube)]
    assert eff.decide({"psnr_full_cube": cube, "psnr_subspace": better}) is R
    assert eff.decide({"psnr_full_cube": cube, "psnr_subspace": [x + 0.05 for x in cube]}) is P
    assert eff.decide({"psnr_full_cube": cube, "psnr_subspace": [x - 1 for x in cube]}) is N
    speed = RULE["subspace_speed"]
    assert speed.decide({"ratio_band_group_over_subspace": [2.4, 2.5, 2.45, 2.5, 2.4]}) is R
    assert speed.decide({"ratio_band_group_over_subspace": [1.8, 1.85, 1.82, 1.79, 1.8]}) is N
    wide = [2.1, 1.7, 2.6, 1.9, 2.2]
    assert speed.decide({"ratio_band_group_over_subspace": wide}) is N  # mean 2.1, interval reaches < 2


def test_untestable_claims_have_no_rule():
    assert {c.key for c in CLAIMS if c.not_testable} == {"predictor_beats_classic", "kaist_benchmark"}


@pytest.mark.slow
def test_smoke_run_measures_every_claim(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR25_CACHE", str(tmp_path / "cache"))  # trains from cold, relies on nothing warm
    findings = PAPER.reproduce("smoke", RunContext(profile="smoke", out_dir=tmp_path / "run"))
    assert [f.claim for f in findings] == [c.key for c in CLAIMS]
    by = {f.claim: f for f in findings}
    assert by["kaist_benchmark"].verdict is Verdict.NOT_TESTABLE
    assert by["predictor_beats_classic"].verdict is Verdict.NOT_TESTABLE
    assert "init_minus_gaptv_db_kaist" in by["predictor_beats_classic"].measured  # the precondition
    untestable = {c.key for c in CLAIMS if c.not_testable}
    assert all(f.verdict is Verdict.SMOKE for k, f in by.items() if k not in untestable)
    m = by["refine_gain"].measured
    for mk in MASKS:
        assert len(m[f"psr_psnr_{mk}"]) == len(m[f"init_psnr_{mk}"]) == 2
        assert all(math.isfinite(x) for x in m[f"control_psnr_{mk}"])
    assert len(by["subspace_speed"].measured["ratio_band_group_over_subspace"]) == 2
    for f in findings:
        for fig in f.figures:
            assert (tmp_path / "run" / fig).is_file()


def test_every_profile_scene_size_fits_the_photographs():
    """The full profile times 256² scenes; at half scale chelsea is only 150 px high (a crash after 29 min
    of training in the full record run): crops that do not fit come from the full-resolution photograph."""
    import numpy as np

    from iclr25.psr_sci.scenes import random_crops
    from iclr25.psr_sci.training import SIZES, TEST_IMAGES

    for profile in ("smoke", "quick", "full"):
        s = SIZES[profile]
        for size in (s.scene, s.timing_scene):
            crops = random_crops(TEST_IMAGES, 2, size, np.random.default_rng(0))
            assert [c.shape for c in crops] == [(size, size, 3)] * 2
