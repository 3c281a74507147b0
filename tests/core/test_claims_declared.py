"""Every claim of every paper is declared as data and is a test: its rule (or its reason for being
untestable) is in the paper's light claims.py, the rule says REPRODUCED on at most 10% of simulated
measurements with no effect at the noise and seed count of its committed record, and a record decided
under the current rule gives back its own verdicts from its own measurements."""

from __future__ import annotations

import pytest

from iclr25.core import registry
from iclr25.core.records import load_record
from iclr25.core.rules import NULL_BOUND, from_spec, null_pass_rate

CLAIMS = [(p.slug, c) for p in registry.PAPERS for c in registry.claims(p.slug)]


def _recorded(slug: str, key: str) -> tuple[dict | None, dict | None]:
    record = load_record(slug) or {}
    claim = next((c for c in record.get("claims", []) if c["key"] == key), None)
    finding = next((f for f in record.get("findings", []) if f["claim"] == key), None)
    return claim, finding


def test_there_are_116_claims_in_light_modules():
    assert len(CLAIMS) >= 116
    for p in registry.PAPERS:
        mod = __import__(f"iclr25.{p.slug}.claims", fromlist=["CLAIMS"])
        assert mod.CLAIMS, p.slug


@pytest.mark.parametrize("slug, claim", CLAIMS, ids=[f"{s}.{c.key}" for s, c in CLAIMS])
def test_claim_is_declared_and_rejects_the_null(slug, claim):
    if claim.not_testable:
        assert claim.rule is None, f"{slug}.{claim.key}: a claim declared not testable has no rule"
        return
    assert claim.rule is not None, f"{slug}.{claim.key}: declare its rule in {slug}/claims.py"
    assert claim.setup.strip(), f"{slug}.{claim.key}: say how it is measured (setup)"
    recorded, finding = _recorded(slug, claim.key)
    under_current = recorded is not None and recorded.get("rule_hash") == claim.rule_hash
    measured = (finding or {}).get("measured") if under_current else None
    result = null_pass_rate(claim.rule, measured)
    assert result.rate <= NULL_BOUND, f"{slug}.{claim.key}: {result} — not a test ({result.world})"
    if under_current and finding["verdict"] in ("reproduced", "partial", "not reproduced"):
        assert result.noise == "record"
        assert str(claim.rule.decide(finding["measured"])) == finding["verdict"]


@pytest.mark.parametrize("slug", [p.slug for p in registry.PAPERS])
def test_record_verdicts_follow_from_the_record_itself(slug):
    """A record's own rules (stored as data) give back its verdicts from its own measurements: no verdict
    in a record was typed in or edited."""
    record = load_record(slug)
    if record is None:
        pytest.skip(f"{slug} has no committed record")
    by_key = {f["claim"]: f for f in record["findings"]}
    checked = 0
    for c in record["claims"]:
        rule = from_spec(c["rule"]) if c.get("rule") else None
        f = by_key[c["key"]]
        if rule is not None and f["verdict"] in ("reproduced", "partial", "not reproduced"):
            assert str(rule.decide(f["measured"])) == f["verdict"], f"{slug}.{c['key']}"
            checked += 1
    if not checked:
        pytest.skip(f"{slug}'s record predates rules as data")
