"""A paper: its metadata, its claims, and the function that measures them under a profile. Verdicts are
decided here, by each claim's rule on the experiment's measurements, never by the experiment."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from iclr25.core.claims import Claim, Finding, Verdict

if TYPE_CHECKING:
    from iclr25.core.runtime import RunContext

PROFILES = ("smoke", "quick", "full")
DECIDED = (Verdict.REPRODUCED, Verdict.PARTIAL, Verdict.NOT_REPRODUCED)


@dataclass(frozen=True)
class Paper:
    slug: str
    number: int
    title: str
    claims: Sequence[Claim]
    run: Callable[[str, RunContext], list[Finding]]  # run(profile, ctx) -> findings

    def claim(self, key: str) -> Claim:
        for c in self.claims:
            if c.key == key:
                return c
        raise KeyError(f"{self.slug} has no claim {key!r}")

    def check(self, findings: list[Finding]) -> list[Finding]:
        """Every finding names a declared claim, and every claim gets exactly one finding."""
        keys = [c.key for c in self.claims]
        got = [f.claim for f in findings]
        unknown = sorted(set(got) - set(keys))
        missing = sorted(set(keys) - set(got))
        dup = sorted({k for k in got if got.count(k) > 1})
        if unknown or missing or dup:
            raise ValueError(f"{self.slug}: findings do not match claims "
                             f"(unknown={unknown}, missing={missing}, duplicated={dup})")
        return findings

    def decide(self, findings: list[Finding], profile: str) -> list[Finding]:
        """Each measured finding gets its claim's rule's verdict. A smoke run decides (so the rule runs)
        but shows no verdict: its sizes are for code paths, not evidence."""
        for f in self.check(findings):
            claim = self.claim(f.claim)
            if claim.not_testable and f.verdict is not Verdict.NOT_TESTABLE:
                raise ValueError(f"{self.slug}.{f.claim} is declared not testable; its finding must say so")
            if f.verdict is None:
                if claim.rule is None:
                    raise ValueError(f"{self.slug}.{f.claim}: a measured finding needs its claim's rule")
                f.verdict = claim.rule.decide(f.measured)
            elif f.verdict in DECIDED and claim.rule is not None:
                raise ValueError(f"{self.slug}.{f.claim}: the verdict comes from the claim's rule, not the "
                                 "experiment (return Finding.measure)")
            if profile == "smoke" and f.verdict is not Verdict.NOT_TESTABLE:
                f.verdict = Verdict.SMOKE
        return findings

    def reproduce(self, profile: str, ctx: RunContext) -> list[Finding]:
        """Run the experiments under `profile` and decide every claim."""
        return self.decide(self.run(profile, ctx), profile)
