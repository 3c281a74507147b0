"""Each claim's rule (claims.py) on fixed synthetic measurements — simulations' 0/1 rejections — and the
null check at assumed noise: a change that flips one of these fails CI."""

import numpy as np
import pytest

from iclr25.core.claims import Verdict
from iclr25.core.rules import null_pass_rate
from iclr25.model_equality.claims import CLAIMS, N_PER_PROMPT, TESTS

R, P, N, NT = Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED, Verdict.NOT_TESTABLE
RULE = {c.key: c.rule for c in CLAIMS}


def _rejects(rate: float, sims: int = 400) -> list[int]:
    """`sims` outcomes with exactly round(rate * sims) rejections, spread evenly."""
    k = round(rate * sims)
    return [int(i * k // sims != (i + 1) * k // sims) for i in range(sims)]


def test_experiments_hold_no_verdict_code():
    import iclr25.model_equality.experiments as ex
    assert not [n for n in dir(ex) if n.startswith("decide")] and not hasattr(ex, "CLAIMS")


def test_hamming_power_needs_the_top_rank_then_size():
    rule = RULE["hamming_power_small_n"]
    m = {"rejects_hamming_local": _rejects(0.8), "rejects_onehot_local": _rejects(0.1),
         "rejects_l1_local": _rejects(0.3), "rejects_chi2_local": _rejects(0.2)}
    assert rule.decide(m) is R
    assert rule.decide({**m, "rejects_hamming_local": _rejects(0.45)}) is P  # highest, below 0.5
    assert rule.decide({**m, "rejects_hamming_local": _rejects(0.31)}) is N  # within noise of L1's 0.30
    assert rule.decide({**m, "rejects_onehot_local": _rejects(0.8)}) is N  # a tie is not "highest"


def test_level_control_band_interval_and_degenerate_tests():
    rule = RULE["level_control"]
    good = {"fpr_hamming_n10": _rejects(0.05), "degenerate_hamming_n10": 0,
            "fpr_onehot_n10": _rejects(0.0), "degenerate_onehot_n10": 1,
            "fpr_hamming_permutation": _rejects(0.05, 200), "degenerate_hamming_permutation": 0}
    assert rule.decide(good) is R  # a degenerate test (cannot reject) needs only the upper bound
    assert rule.decide({**good, "degenerate_onehot_n10": 0}) is P  # the same 0.0 from a live null fails
    assert rule.decide({**good, "fpr_hamming_n10": _rejects(0.085)}) is P  # 0.085: the interval reaches 0.10


def test_power_grows_needs_a_rise_beyond_noise_and_no_distortion_falling():
    rule = RULE["power_grows_with_n"]
    lo, hi = N_PER_PROMPT[0], N_PER_PROMPT[-1]
    m = {f"rejects_hamming_all_n{lo}": _rejects(0.1, 300), f"rejects_hamming_all_n{hi}": _rejects(0.4, 300),
         f"rejects_hamming_int8_n{lo}": _rejects(0.1, 100), f"rejects_hamming_int8_n{hi}": _rejects(0.5, 100),
         f"rejects_hamming_fp16_n{lo}": _rejects(0.05, 100),
         f"rejects_hamming_fp16_n{hi}": _rejects(0.07, 100)}
    assert rule.decide(m) is R
    assert rule.decide({**m, f"rejects_hamming_fp16_n{hi}": _rejects(0.0, 100)}) is R  # -0.05: a MC dip
    assert rule.decide({**m, f"rejects_hamming_fp16_n{hi}": _rejects(0.0, 100),
                        f"rejects_hamming_fp16_n{lo}": _rejects(0.3, 100)}) is P  # fp16 loses 0.3
    assert rule.decide({**m, f"rejects_hamming_all_n{hi}": _rejects(0.13, 300)}) is P  # rise within noise


def test_robust_to_length_compares_drops_from_l_1_to_10_per_count_test():
    rule = RULE["robust_to_length"]
    rng = np.random.default_rng(0)

    def drop(p_short, p_long, n=400):
        return list((rng.random(n) < p_short).astype(int) - (rng.random(n) < p_long).astype(int))
    m = {"drop_hamming": drop(0.3, 0.3), "drop_l1": drop(0.3, 0.0), "drop_chi2": drop(0.3, 0.05)}
    assert rule.decide(m) is R
    assert rule.decide({**m, "drop_chi2": m["drop_hamming"]}) is P  # chi2 keeps its power: a tie
    assert rule.decide({**m, "drop_hamming": drop(0.9, 0.0), "drop_l1": drop(0.3, 0.2),
                        "drop_chi2": drop(0.3, 0.2)}) is N  # Hamming collapses more than both


def test_half_precision_hardest_says_when_it_cannot_decide():
    rule = RULE["half_precision_hardest"]
    base = {"rejects_hamming_int8": _rejects(0.5, 100), "rejects_hamming_nf4": _rejects(0.9, 100),
            "rejects_hamming_watermark": _rejects(1.0, 100), "fpr_hamming": _rejects(0.05, 400)}
    assert rule.decide({**base, "rejects_hamming_fp16": _rejects(0.05, 100),
                        "rejects_hamming_bf16": _rejects(0.2, 100)}) is R
    assert rule.decide({**base, "rejects_hamming_fp16": _rejects(0.42, 100),
                        "rejects_hamming_bf16": _rejects(0.6, 100)}) is P  # below int8 within noise
    assert rule.decide({**base, "rejects_hamming_fp16": _rejects(0.7, 100),
                        "rejects_hamming_bf16": _rejects(0.6, 100)}) is N
    undetected = {**base, "rejects_hamming_int8": _rejects(0.06, 100),
                  "rejects_hamming_fp16": _rejects(0.04, 100), "rejects_hamming_bf16": _rejects(0.05, 100)}
    assert rule.decide(undetected) is NT  # int8 at the same-model FPR: the ranking is noise
    assert "not decidable" in CLAIMS[4].criterion


def test_model_swap_against_the_papers_076_by_its_interval():
    rule = RULE["model_swap"]
    assert rule.decide({"rejects_hamming_swap": _rejects(0.9, 100)}) is R
    assert rule.decide({"rejects_hamming_swap": _rejects(0.8, 100)}) is P  # Wilson lower end 0.71 < 0.76
    assert rule.decide({"rejects_hamming_swap": _rejects(0.1, 100)}) is N  # the last record's 0.10


@pytest.mark.parametrize("claim", [c for c in CLAIMS if c.rule is not None], ids=lambda c: c.key)
def test_every_rule_rejects_the_null_at_assumed_noise(claim):
    assert null_pass_rate(claim.rule, draws=500).rate <= 0.10


def test_tests_and_sizes_are_the_rules():
    assert TESTS[0] == "hamming" and N_PER_PROMPT == (2, 5, 10)
