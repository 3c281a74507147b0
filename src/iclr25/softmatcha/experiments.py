"""Reproduction of SoftMatcha's claims (placeholder while the engine lands)."""

from __future__ import annotations

from iclr25.core.claims import Claim, Finding
from iclr25.core.runtime import RunContext

CLAIMS: list[Claim] = []


def run(profile: str, ctx: RunContext) -> list[Finding]:
    return []
