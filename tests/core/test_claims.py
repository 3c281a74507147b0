import math

import pytest

from iclr25.core.claims import Claim, Finding, Verdict
from iclr25.core.paper import Paper

R, P, N, T = Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED, Verdict.NOT_TESTABLE


def test_finding_roundtrip_and_json_types():
    import numpy as np
    f = Finding("k", R, {"x": np.float32(1.5), "n": np.int64(3), "flag": True, "inf": math.inf,
                         "seeds": np.array([1.0, 2.5]), "list": [np.float64(0.5), 2]}, "s")
    d = f.to_dict()
    assert d["verdict"] == "reproduced"
    assert d["measured"] == {"x": 1.5, "n": 3.0, "flag": 1, "inf": "inf", "seeds": [1.0, 2.5],
                             "list": [0.5, 2]}
    assert Finding.from_dict(d).verdict is R
    pending = Finding.measure("k", {"x": 1}, "s")
    assert pending.verdict is None and pending.to_dict()["verdict"] is None


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
