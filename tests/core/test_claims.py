import math

import pytest

from iclr25.core.claims import (
    Claim,
    Finding,
    Verdict,
    all_of,
    at_least,
    at_most,
    between,
    fraction_at_least,
    graded,
    ratio_at_least,
    ratio_at_most,
)
from iclr25.core.paper import Paper

R, P, N, T = Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED, Verdict.NOT_TESTABLE


def test_bounds():
    assert at_least(1.0, 1.0) is R and at_least(0.99, 1.0) is N
    assert at_most(1.0, 1.0) is R and at_most(1.01, 1.0) is N
    assert between(0.05, 0.01, 0.1) is R and between(0.2, 0.01, 0.1) is N


def test_nan_never_passes():
    assert at_least(math.nan, 0) is N and at_most(math.nan, 0) is N and between(math.nan, 0, 1) is N
    assert graded(math.nan, 1, 0) is N


def test_ratios():
    assert ratio_at_least(6, 2, 3) is R and ratio_at_least(5, 2, 3) is N
    assert ratio_at_most(1, 10, 0.3) is R and ratio_at_most(4, 10, 0.3) is N
    assert ratio_at_least(1, 0, 3) is R and ratio_at_least(0, 0, 3) is N
    assert ratio_at_most(0, 0, 1) is R and ratio_at_most(1, 0, 1) is N


def test_graded_both_directions():
    assert graded(0.9, full=0.8, partial=0.5) is R
    assert graded(0.6, full=0.8, partial=0.5) is P
    assert graded(0.4, full=0.8, partial=0.5) is N
    assert graded(0.5, full=1.0, partial=2.0, higher_is_better=False) is R
    assert graded(1.5, full=1.0, partial=2.0, higher_is_better=False) is P
    assert graded(3.0, full=1.0, partial=2.0, higher_is_better=False) is N


def test_all_of_every_branch():
    assert all_of(R, R) is R
    assert all_of(N, N) is N
    assert all_of(R, N) is P
    assert all_of(P, R) is P
    assert all_of(R, T) is T
    assert all_of(Verdict.ERROR, R) is Verdict.ERROR
    with pytest.raises(ValueError):
        all_of()


def test_fraction_at_least():
    assert fraction_at_least([True, True, False], 0.6) is R
    assert fraction_at_least([True, False, False], 0.6) is N
    assert fraction_at_least([], 0.1) is N


def test_finding_roundtrip_and_json_types():
    import numpy as np
    f = Finding("k", R, {"x": np.float32(1.5), "n": np.int64(3), "flag": True, "inf": math.inf}, "s")
    d = f.to_dict()
    assert d["verdict"] == "reproduced"
    assert d["measured"] == {"x": 1.5, "n": 3.0, "flag": 1, "inf": "inf"}
    assert Finding.from_dict(d).verdict is R


def test_not_testable_needs_reason():
    assert Finding.not_testable("k", "needs a GPU").verdict is T
    with pytest.raises(ValueError):
        Finding("k", T, {}, "  ")


def test_paper_check_matches_claims_to_findings():
    c = [Claim("a", "s", "p", "c"), Claim("b", "s", "p", "c")]
    paper = Paper("x", 0, "t", c, run=lambda profile, ctx: [])
    ok = [Finding("a", R, {}, ""), Finding("b", N, {}, "")]
    assert paper.check(ok) == ok
    for bad in ([ok[0]], ok + [Finding("c", R, {}, "")], ok + [ok[0]]):
        with pytest.raises(ValueError):
            paper.check(bad)
