"""Each claim's verdict rule on fixed synthetic measurements: a change that flips one of these fails CI."""

from iclr25.core.claims import Verdict
from iclr25.model_equality.experiments import (
    decide_half_hardest,
    decide_hamming_power_small_n,
    decide_level_control,
    decide_model_swap,
    decide_power_grows,
    decide_robust_to_length,
    mc_gap_error,
)

R, P, N = Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED


def test_hamming_power_small_n_needs_the_top_rank_then_size():
    assert decide_hamming_power_small_n({"hamming": 0.8, "onehot": 0.1, "l1": 0.3, "chi2": 0.2}) is R
    assert decide_hamming_power_small_n({"hamming": 0.3, "onehot": 0.05, "l1": 0.1, "chi2": 0.1}) is P
    assert decide_hamming_power_small_n({"hamming": 0.07, "onehot": 0.05, "l1": 0.05, "chi2": 0.05}) is N
    assert decide_hamming_power_small_n({"hamming": 0.9, "onehot": 0.9, "l1": 0.3, "chi2": 0.2}) is N  # tie


def test_level_control_band_and_degenerate_tests():
    fpr = {"fpr_hamming_n5": 0.05, "fpr_onehot_n5": 0.0, "fpr_hamming_permutation": 0.04}
    assert decide_level_control(fpr, {"fpr_onehot_n5": True}) is R  # degenerate: cannot reject, <= 0.10
    assert decide_level_control(fpr, {}) is N  # the same 0.0 FPR from a non-degenerate null fails
    assert decide_level_control({"fpr_hamming_n5": 0.12}, {}) is N
    assert decide_level_control({"fpr_l1_n5": 0.2}, {"fpr_l1_n5": True}) is N


def test_power_grows_tolerates_monte_carlo_dips_only():
    assert decide_power_grows({"int8": [0.1, 0.3, 0.6], "fp16": [0.05, 0.04, 0.07]}, 100) is R
    assert decide_power_grows({"int8": [0.5, 0.2, 0.6], "fp16": [0.05, 0.1, 0.2]}, 100) is N  # real drop
    assert decide_power_grows({"int8": [0.05, 0.06, 0.07], "fp16": [0.05, 0.05, 0.06]}, 100) is N  # flat


def test_robust_to_length_measures_drops_from_the_peak_of_l1_and_chi2():
    Ls = (1, 5, 50)
    se = {t: dict.fromkeys(Ls, 0.01) for t in ("hamming", "l1", "chi2")}
    curves = {"hamming": {1: 0.3, 5: 0.6, 50: 0.7}, "l1": {1: 0.3, 5: 0.5, 50: 0.05},
              "chi2": {1: 0.2, 5: 0.4, 50: 0.05}}
    assert decide_robust_to_length(curves, se) is R
    curves["hamming"] = {1: 0.3, 5: 0.6, 50: 0.6}
    curves["chi2"] = {1: 0.2, 5: 0.21, 50: 0.2}  # chi2 keeps its power: gap within error
    assert decide_robust_to_length(curves, se) is P
    curves["hamming"] = {1: 0.9, 5: 0.9, 50: 0.05}  # Hamming collapses more than both
    assert decide_robust_to_length(curves, se) is N


def test_half_precision_hardest_by_more_than_mc_error():
    base = {"int8": 0.5, "nf4": 0.9, "watermark": 1.0, "finetune": 0.4, "swap": 1.0}
    assert decide_half_hardest(base | {"fp16": 0.05, "bf16": 0.2}, 100) is R
    assert decide_half_hardest(base | {"fp16": 0.35, "bf16": 0.6}, 100) is P  # 0.05 < 2 SE
    assert decide_half_hardest(base | {"fp16": 0.45, "bf16": 0.6}, 100) is N
    assert abs(mc_gap_error(0.5, 0.5, 100) - 0.1414) < 1e-3


def test_model_swap_against_the_papers_076():
    assert decide_model_swap(0.76) is R
    assert decide_model_swap(0.5) is P
    assert decide_model_swap(0.3) is N
