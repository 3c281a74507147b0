"""PSR-SCI's claims and the rules that decide them (pure data: the CLI and the registry load it without
torch). Units are test scenes: every arm of a comparison reconstructs the same scenes under the same mask,
so differences are paired by scene. The refinement claims are decided per test mask (in an earlier run
the sign of a small refinement effect depended on the mask), never pooled."""

from iclr25.core.claims import Claim
from iclr25.core.rules import All, AnyOf, Diff, Each, Mean, Named, Rule, Test

MASKS = ("kaist", "bern1", "bern2")  # the KAIST mask's centre; two Bernoulli(0.5) masks unseen in training
SCENES = "test scenes"
PRIOR_SCALE = ("Our prior is a 1 M-parameter DDPM trained here on synthetic ground-truth high bands (64² "
               "latent patches, 5,000 steps in full), not Stable Diffusion: short of REPRODUCED, the effect "
               "is not shown at our prior's scale, which says nothing against PSR-SCI with SD-2.1")


def _paired(a: str, b: str, what: str) -> Diff:
    return Diff(a, b, what, over=SCENES)


GAIN = _paired("psr_psnr_{c}", "init_psnr_{c}", "PSNR gain PSR − predictor (dB)")
RESIDUAL = _paired("psr_residual_{c}", "init_residual_{c}", "‖Φx̂−y‖/‖y‖, PSR − predictor")
DSSIM = _paired("psr_ssim_{c}", "init_ssim_{c}", "ΔSSIM PSR − predictor")
ZERO_GAIN = _paired("zs_psr_psnr_{c}", "zs_init_psnr_{c}", "zero-shot PSNR gain PSR − predictor (dB)")
LOWER_RESIDUAL = Test(_paired("residual_guided", "residual_unguided", "‖Φx̂−y‖/‖y‖, guided − "
                                                                      "unguided"), "<", 0)
HIGHER_PSNR = Test(_paired("psnr_guided", "psnr_unguided", "PSNR, guided − unguided (dB)"), ">", 0)
SUBSPACE_VS_CUBE = _paired("psnr_subspace", "psnr_full_cube", "PSNR, subspace − full-cube refiner (dB)")

CLAIMS = [
    Claim(key="predictor_beats_classic",
          statement="A learned deep-unfolding predictor reconstructs CASSI far better than model-based "
                    "GAP-TV.",
          paper="DAUHST-3stg 37.21 dB vs GAP-TV 24.36 dB on KAIST (MST Table 1, quoted by PSR-SCI)",
          not_testable="prior work that PSR-SCI quotes (MST/DAUHST, trained for days on GPUs on CAVE), not "
                       "testable at our scale. Our predictor is GAP-TV plus learned residual stages, so it "
                       "starts at the classical level; its precondition 'init ≥ classic' (predictor vs "
                       "GAP-TV on the test scenes, per mask) is measured and reported with this finding"),
    Claim(key="urse_reversible",
          statement="URSe's 3-channel embedding is reversible: ψ⁻¹ψ(X^h) + X^l recovers the cube.",
          paper="round trip on the 10 KAIST GT cubes: 49.25 dB / 0.9961 (released notebook)",
          setup="ground-truth round trip ψ⁻¹ψ(X^h_gt) + X^l_gt on the test scenes. URSe's ground-truth "
                "branch trains with the true low band X^l_gt (the paper writes X^l_init, nearly equal to it "
                "for its 37 dB predictor), so this is the round trip its loss optimises",
          rule=Rule(Test(Mean("roundtrip_psnr_db", "GT round-trip PSNR (dB)", over=SCENES), ">=", 40))),
    Claim(key="refine_gain",
          statement="Guided subspace diffusion refinement improves the predictor's reconstruction and its "
                    "measurement consistency.",
          paper="38.14 vs 37.21 dB (PSR-SCI-D vs DAUHST); notebook +0.62 dB",
          setup="PSR (predictor → URSe subspace → guided DDIM from the noised A_init) against the predictor "
                "alone on the same scenes, per test mask; reported beside it: the positive control (the same "
                "refinement of GAP-TV's output) and the precondition 'init ≥ classic'. " + PRIOR_SCALE,
          rule=Each(Rule(All(Test(GAIN, ">=", 0.3), Test(RESIDUAL, "<", 0)), partial=Test(GAIN, ">", 0)),
                    MASKS, "test mask")),
    Claim(key="guidance_consistency",
          statement="SCI-consistency guidance makes the refined cube agree with the measurement.",
          paper="visual ablation only (Fig. 10)",
          setup="guided vs unguided refinement of the predictor's output from the same noise, KAIST mask",
          rule=Rule(All(LOWER_RESIDUAL, HIGHER_PSNR), partial=AnyOf(LOWER_RESIDUAL, HIGHER_PSNR))),
    Claim(key="ssim_competitive",
          statement="Refinement does not cost structural similarity.",
          paper="notebook: −0.030 SSIM after refinement (scenes 6 and 8 worse)",
          setup="SSIM (MST convention) of PSR and of the predictor on the same scenes, per test mask; SAM "
                "reported. " + PRIOR_SCALE,
          rule=Each(Rule(Test(DSSIM, ">=", -0.01), partial=Test(DSSIM, ">=", -0.03)), MASKS, "test mask")),
    Claim(key="zero_shot",
          statement="The refinement transfers to scenes with unseen spectra and content (zero-shot).",
          paper="NTIRE/ICVL/Harvard: qualitative + PSNR (Table 2)",
          setup="motorcycle scenes with the 99 CIE-2017 spectra (never trained on), per test mask. "
                "" + PRIOR_SCALE,
          rule=Each(Rule(Test(ZERO_GAIN, ">=", 0.2), partial=Test(ZERO_GAIN, ">", 0)), MASKS, "test mask")),
    Claim(key="subspace_data_efficiency",
          statement="Diffusion in the 3-channel subspace learns more from the same data than diffusion on "
                    "the full 28-band cube.",
          paper="direct MSI diffusion is 'impractical' (data and compute), no number",
          setup="the same U-Net prior trained on the same ground-truth crops, steps and scene area, in "
                "URSe's subspace or on the 28-band high-frequency cube; both refine the predictor's output "
                "with the same guidance, KAIST mask",
          rule=Rule(Test(SUBSPACE_VS_CUBE, ">=", 0.1),
                    partial=Named("the direction", Test(SUBSPACE_VS_CUBE, ">=", 0, by="point")))),
    Claim(key="subspace_speed",
          statement="One refinement in the 3-channel subspace is much cheaper than a DiffSCI-style 3-channel "
                    "prior run over all band groups.",
          paper="8.9 s vs DiffSCI 84.5 s per scene (GPU, 50 steps)",
          setup="process CPU time per guided DDIM step on one test scene, band-group prior (the same "
                "U-Net on 10 groups of 3 bands) vs subspace prior, arms alternated, 1 thread. This measures "
                "only the per-step part of the paper's comparison: the paper's 9.5× is total time per scene "
                "against DiffSCI at their own step counts and models (SD-2.1 vs DiffSCI's), which cannot be "
                "rebuilt here; with one U-Net for both arms the ratio is bounded near 2.5× by pixel count",
          rule=Rule(Test(Mean("ratio_band_group_over_subspace", "band-group / subspace CPU s per step",
                              over="repeats", log=True), ">=", 2)),
          timing=True),
    Claim(key="kaist_benchmark",
          statement="PSR-SCI-D reaches 38.14 dB on the 10 KAIST scenes.",
          paper="38.14 dB (Table 1), 35.88 dB / 0.9226 PSR-SCI-T notebook",
          not_testable="needs the 10 KAIST ground-truth cubes (Drive-hosted, not in shared/data) and the "
                       "SD-2.1 / DiffBIR / DAUHST weights (hub downloads)"),
]
