"""A paper: its metadata, its claims, and the function that measures them under a profile."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from iclr25.core.claims import Claim, Finding

if TYPE_CHECKING:
    from iclr25.core.runtime import RunContext

PROFILES = ("smoke", "quick", "full")


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
