"""Claims' rules as data: analytic verdicts, the null's false-pass rate where the answer is known, the
prose, the hash, and the round trip through a record's stored form."""

import math

import numpy as np
import pytest

from iclr25.core.claims import Claim, Finding, Verdict
from iclr25.core.paper import Paper
from iclr25.core.rules import (
    All,
    AllOf,
    AnyOf,
    Custom,
    Diff,
    Each,
    KOf,
    Mean,
    Named,
    Not,
    Rule,
    Share,
    Test,
    Value,
    from_spec,
    null_pass_rate,
    rule_hash,
)

R, P, N = Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED


def test_interval_and_point_decisions():
    m = {"x": [1.0, 2.0, 3.0]}  # mean 2, t-interval [-0.484, 4.484]
    assert Rule(Test(Mean("x"), ">=", 1.9, by="point")).decide(m) is R
    assert Rule(Test(Mean("x"), ">=", 1.9)).decide(m) is N
    assert Rule(Test(Mean("x"), ">=", -0.49)).decide(m) is R
    assert Rule(Test(Mean("x"), "<=", 4.49)).decide(m) is R
    assert Rule(Test(Mean("x"), "<", 4.48)).decide(m) is N
    one = {"x": [5.0]}  # one seed: a point test can pass, an interval never
    assert Rule(Test(Mean("x"), ">=", 1, by="point")).decide(one) is R
    assert Rule(Test(Mean("x"), ">=", 1)).decide(one) is N


def test_partial_and_nan():
    rule = Rule(Test(Value("v"), ">=", 3), partial=Test(Value("v"), ">=", 1))
    assert [rule.decide({"v": v}) for v in (3, 2, 0.5, math.nan)] == [R, P, N, N]


def test_diff_share_and_log_mean():
    assert Rule(Test(Diff("a", "b"), ">", 0)).decide({"a": [3, 4, 5], "b": [1, 2, 3.5]}) is R
    with pytest.raises(ValueError, match="paired"):
        Rule(Test(Diff("a", "b"), ">", 0)).decide({"a": [1, 2], "b": [1]})
    share = Rule(Test(Share("ok"), ">=", 0.5))  # 50 of 100: Wilson [0.404, 0.596]
    assert share.decide({"ok": [1] * 50 + [0] * 50}) is N
    assert Rule(Test(Share("ok"), ">=", 0.4)).decide({"ok": [1] * 50 + [0] * 50}) is R
    geo = Mean("t", log=True).point({"t": np.array([[1.0, 100.0]])})
    assert geo[0] == pytest.approx(10.0)


def test_conditions_combine():
    v = {"a": 1.0, "b": 5.0}
    t_a, t_b = Test(Value("a"), ">=", 2), Test(Value("b"), ">=", 2)
    assert Rule(All(t_a, t_b)).decide(v) is N and Rule(AnyOf(t_a, t_b)).decide(v) is R
    assert Rule(KOf(1, t_a, t_b)).decide(v) is R and Rule(KOf(2, t_a, t_b)).decide(v) is N


def test_each_is_per_condition_not_pooled():
    rule = Each(Rule(Test(Share("ok_{c}"), ">=", 0.85, by="point")), ("0", "0.2", "0.4"), "noise rate")
    pooled_ok = {"ok_0": [1] * 10, "ok_0.2": [1] * 10, "ok_0.4": [1] * 6 + [0] * 4}  # pooled 87%
    assert rule.decide(pooled_ok) is P
    assert rule.decide({k: [1] * 10 for k in pooled_ok}) is R
    assert rule.decide({k: [0] * 10 for k in pooled_ok}) is N
    both = AllOf({"x": Rule(Test(Value("x"), ">=", 1)), "y": Rule(Test(Value("y"), ">=", 1))})
    assert both.decide({"x": 2, "y": 0}) is P


def test_missing_or_non_numeric_measurement_is_named():
    with pytest.raises(KeyError, match="'latency'"):
        Rule(Test(Value("latency"), "<", 1)).decide({})
    with pytest.raises(ValueError, match="'latency'"):
        Rule(Test(Value("latency"), "<", 1)).decide({"latency": "fast"})
    with pytest.raises(ValueError, match="comparison"):
        Test(Value("x"), "=>", 1)


def test_prose_is_generated_from_the_rule():
    rule = Rule(Test(Mean("acc", "accuracy"), ">=", 0.9), partial=Test(Mean("acc", "accuracy"), ">=", 0.5,
                                                                       by="point"))
    assert rule.prose() == ("REPRODUCED if accuracy (mean over seeds) ≥ 0.9 (whole 95% interval); PARTIAL "
                            "if accuracy (mean over seeds) ≥ 0.5; otherwise NOT REPRODUCED.")
    claim = Claim("k", "s", "p", "3 seeds of a toy run.", rule)
    assert claim.criterion == "3 seeds of a toy run. " + rule.prose()
    assert Claim("k", "s", "p", not_testable="needs a GPU").criterion == "not testable here: needs a GPU"


def test_hash_changes_with_the_rule_and_round_trips():
    a = Rule(Test(Value("x"), ">=", 1))
    b = Rule(Test(Value("x"), ">=", 2))
    assert rule_hash(a) != rule_hash(b) and rule_hash(a) == rule_hash(Rule(Test(Value("x"), ">=", 1)))
    share = KOf(1, Test(Share("s", chance=0.5), ">=", 0.9))
    inner = Rule(All(Test(Diff("a{c}", "b{c}", log=True), "<=", 3), Named("S", share)),
                 partial=AnyOf(Test(Mean("a{c}"), ">", 0, by="point")), same=(("a{c}", "b{c}"),))
    nested = Each(inner, ("x", "y"), "set", measured_only=True)
    assert from_spec(nested.spec()).spec() == nested.spec()


# ---- the null: known false-pass rates --------------------------------------------------------------

REC = {"a": [1.0, 1.2, 0.9], "b": [0.5, 0.6, 0.4]}


def test_point_rule_at_its_bound_passes_half_the_time():
    rate = null_pass_rate(Rule(Test(Mean("a"), ">=", 1.0, by="point")), REC).rate
    assert rate == pytest.approx(0.5, abs=0.05)


def test_interval_rule_at_its_bound_passes_one_sided_alpha():
    r = null_pass_rate(Rule(Test(Mean("a"), ">=", 1.0)), REC)
    assert r.rate == pytest.approx(0.025, abs=0.012) and r.ok and r.noise == "record"


def test_equal_arms_null_for_a_comparison():
    assert null_pass_rate(Rule(Test(Diff("a", "b"), ">", 0)), REC).rate == pytest.approx(0.025, abs=0.012)
    separate = Rule(All(Test(Mean("a"), ">=", 1.1, by="point"), Test(Mean("b"), "<=", 0.8, by="point")))
    assert null_pass_rate(separate, REC).rate > 0.1  # each arm at its own bound: not a comparison
    same = Rule(separate.reproduced, same=(("a", "b"),))
    assert null_pass_rate(same, REC).rate < 0.05  # one distribution for both: the bounds exclude each other


def test_ratio_rule_null_is_at_its_bound_not_at_equality():
    ratio = Rule(Test(Diff("a", "b", log=True), "<=", 3))  # "at most 3x slower": equality would pass
    assert null_pass_rate(ratio, REC).rate == pytest.approx(0.025, abs=0.012)


def test_share_against_chance_and_against_its_bound():
    ok = {"ok": [1] * 24}
    assert null_pass_rate(Rule(Test(Share("ok", chance=0.5), ">=", 0.95, by="point")), ok).rate < 0.01
    assert null_pass_rate(Rule(Test(Share("ok"), ">=", 0.95, by="point")), ok).rate > 0.5


def test_best_of_many_fails_the_null():
    """The shape of a best-of-16 rule: any of 16 noisy gains above 0 by its point estimate."""
    gains = {f"g{i}": [0.01, -0.02, 0.03, 0.0, 0.01] for i in range(16)}
    best_of = Rule(AnyOf(*(Test(Mean(f"g{i}"), ">", 0, by="point") for i in range(16))))
    assert null_pass_rate(best_of, gains).rate > 0.9
    one = Rule(Test(Mean("g0"), ">", 0))
    assert null_pass_rate(one, gains).ok


def test_independent_conditions_multiply():
    each = Each(Rule(Test(Mean("a{c}"), ">=", 1, by="point")), ("1", "2", "3"))
    rec = {f"a{c}": [1.0, 1.1, 0.9] for c in "123"}
    assert null_pass_rate(each, rec).rate == pytest.approx(0.125, abs=0.03)


def test_value_with_standard_error_and_exact_value():
    assert null_pass_rate(Rule(Test(Value("v", se="v_se"), ">=", 2)), {"v": 3.0, "v_se": 0.2}).rate < 0.05
    assert null_pass_rate(Rule(Test(Value("v"), ">=", 2)), {"v": 3.0}).rate == 0.0  # exact: the bound fails


def test_custom_rule_uses_its_own_null_and_docstring():
    def decide(m):
        """REPRODUCED when the largest of the gains is positive."""
        return R if max(m["gains"]) > 0 else N

    def null(rng, record):
        """Gains from N(0, 1): no effect."""
        return {"gains": list(rng.normal(size=len(record.get("gains", [0] * 4))))}
    rule = Custom(decide, null)
    assert null_pass_rate(rule, {"gains": [1, 2, 3, 4]}).rate > 0.8
    assert rule.prose() == "REPRODUCED when the largest of the gains is positive."
    assert len(rule_hash(rule)) == 12 and from_spec(rule.spec()) is None


def test_without_a_record_the_noise_is_assumed_and_said():
    r = null_pass_rate(Rule(Test(Mean("x"), ">=", 5)), None)
    assert r.noise == "assumed" and r.ok


# ---- the paper decides, never the experiment --------------------------------------------------------

def _paper(findings, claims=None):
    claims = claims or [Claim("k", "s", "p", "setup", Rule(Test(Value("v"), ">=", 1)))]
    return Paper("x", 1, "t", claims, lambda profile, ctx: findings)


def test_paper_decides_by_the_rule_and_smoke_hides_it():
    f = [Finding.measure("k", {"v": 2}, "two")]
    assert _paper(f).decide(f, "quick")[0].verdict is R
    f = [Finding.measure("k", {"v": 2}, "two")]
    assert _paper(f).decide(f, "smoke")[0].verdict is Verdict.SMOKE


def test_experiment_cannot_type_a_verdict_for_a_declared_rule():
    f = [Finding("k", R, {"v": 0}, "typed")]
    with pytest.raises(ValueError, match="comes from the claim's rule"):
        _paper(f).decide(f, "quick")


def test_not_testable_claim_needs_a_not_testable_finding():
    claims = [Claim("k", "s", "p", not_testable="GPU-days")]
    f = [Finding.measure("k", {"v": 2}, "measured anyway")]
    with pytest.raises(ValueError, match="not testable"):
        _paper(f, claims).decide(f, "quick")
    ok = [Finding.not_testable("k", "GPU-days")]
    assert _paper(ok, claims).decide(ok, "smoke")[0].verdict is Verdict.NOT_TESTABLE


def test_not_gives_a_three_way_comparison():
    """Win when the interval lies below 0, loss above, tie (PARTIAL) when it straddles."""
    d = Diff("a", "b")
    rule = Rule(Test(d, "<", 0), partial=Not(Test(d, ">", 0)))
    assert rule.decide({"a": [1, 1.1, 0.9], "b": [2, 2.1, 1.9]}) is R
    assert rule.decide({"a": [2, 2.1, 1.9], "b": [1, 1.1, 0.9]}) is N
    assert rule.decide({"a": [1, 2, 0.5], "b": [1, 1, 1]}) is P
    assert from_spec(rule.spec()).spec() == rule.spec() and "not (" in rule.prose()


def test_null_of_a_profile_subset_uses_the_conditions_its_record_measured():
    each = Each(Rule(Test(Mean("x_{c}"), ">=", 1)), ("a", "b"), "size", measured_only=True)
    r = null_pass_rate(each, {"x_a": [1.0, 1.2, 0.9]})
    assert r.noise == "record" and r.ok
