"""The claims ledger: what a paper claims, what we measured, and the verdict code derived from it.

Verdicts are never typed in: experiments call the helpers below on measured numbers.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class Verdict(StrEnum):
    REPRODUCED = "reproduced"  # our measurement meets the stated criterion
    PARTIAL = "partial"  # the direction holds, the size does not (say which)
    NOT_REPRODUCED = "not reproduced"  # we measured and it does not hold
    NOT_TESTABLE = "not testable here"  # needs what this machine can never have; reason required
    DEFERRED = "decided by the full profile"  # this profile is too small; the committed full run decides
    ERROR = "error"  # the experiment crashed; the report shows the error


@dataclass(frozen=True)
class Claim:
    key: str  # "sub_second_search"
    statement: str  # the paper's claim in our words
    paper: str  # what the paper reports, with its setting
    criterion: str  # our pass rule, decided before measuring
    timing: bool = False  # decided by wall-clock measurements: medians of repeats, may vary under load


Measured = dict[str, float | int | str]


@dataclass
class Finding:
    claim: str  # Claim.key
    verdict: Verdict
    measured: Measured
    summary: str  # one line: "ours 0.31 s p50 at 1e8 tokens; paper < 1 s at 1.4e9"
    figures: list[str] = field(default_factory=list)  # paths relative to the run folder

    def __post_init__(self) -> None:
        self.verdict = Verdict(self.verdict)
        if self.verdict in (Verdict.NOT_TESTABLE, Verdict.DEFERRED) and not self.summary.strip():
            raise ValueError(f"finding {self.claim!r}: {self.verdict.name} needs a reason in summary")

    @classmethod
    def not_testable(cls, claim: str, reason: str, **measured: float | int | str) -> Finding:
        """A claim this machine cannot test (GPU, hub download, 70B model...), with the reason."""
        return cls(claim, Verdict.NOT_TESTABLE, dict(measured), reason)

    @classmethod
    def deferred(cls, claim: str, summary: str, **measured: float | int | str) -> Finding:
        """A claim this profile is too small to decide: the full profile decides it, and the report shows
        the committed full record beside this one. `summary` gives what this profile did measure."""
        return cls(claim, Verdict.DEFERRED, dict(measured), summary)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["verdict"] = str(self.verdict)
        d["measured"] = {k: _jsonable(v) for k, v in self.measured.items()}
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Finding:
        return cls(d["claim"], Verdict(d["verdict"]), dict(d["measured"]), d["summary"],
                   list(d.get("figures", [])))


def _jsonable(v: Any) -> float | int | str:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int | str):
        return v
    try:
        f = float(v)  # numpy scalars
    except (TypeError, ValueError):
        return str(v)
    return f if math.isfinite(f) else str(f)


# ---- verdict helpers: a measurement and a criterion in, a verdict out ---------------------------

def _ok(b: bool) -> Verdict:
    return Verdict.REPRODUCED if b else Verdict.NOT_REPRODUCED


def at_least(x: float, bound: float) -> Verdict:
    """REPRODUCED iff x >= bound (NaN never passes)."""
    return _ok(bool(x >= bound))


def at_most(x: float, bound: float) -> Verdict:
    """REPRODUCED iff x <= bound (NaN never passes)."""
    return _ok(bool(x <= bound))


def between(x: float, lo: float, hi: float) -> Verdict:
    """REPRODUCED iff lo <= x <= hi."""
    return _ok(bool(lo <= x <= hi))


def ratio_at_least(num: float, den: float, bound: float) -> Verdict:
    """REPRODUCED iff num / den >= bound; a zero denominator passes only for a positive numerator."""
    if den == 0:
        return _ok(num > 0)
    return at_least(num / den, bound)


def ratio_at_most(num: float, den: float, bound: float) -> Verdict:
    """REPRODUCED iff num / den <= bound."""
    if den == 0:
        return _ok(num <= 0)
    return at_most(num / den, bound)


def graded(x: float, full: float, partial: float, higher_is_better: bool = True) -> Verdict:
    """REPRODUCED when x meets `full`, PARTIAL when it only meets the weaker `partial` (the direction
    holds, the size does not), NOT_REPRODUCED otherwise."""
    sign = 1.0 if higher_is_better else -1.0
    if not math.isfinite(x):
        return Verdict.NOT_REPRODUCED
    if sign * x >= sign * full:
        return Verdict.REPRODUCED
    if sign * x >= sign * partial:
        return Verdict.PARTIAL
    return Verdict.NOT_REPRODUCED


def all_of(*verdicts: Verdict) -> Verdict:
    """REPRODUCED if all are; NOT_TESTABLE (then DEFERRED) if any is; NOT_REPRODUCED if none
    reproduced; PARTIAL if some reproduced (or partial) and some did not."""
    vs = [Verdict(v) for v in verdicts]
    if not vs:
        raise ValueError("all_of needs at least one verdict")
    for undecided in (Verdict.ERROR, Verdict.NOT_TESTABLE, Verdict.DEFERRED):
        if undecided in vs:
            return undecided
    if all(v is Verdict.REPRODUCED for v in vs):
        return Verdict.REPRODUCED
    if all(v is Verdict.NOT_REPRODUCED for v in vs):
        return Verdict.NOT_REPRODUCED
    return Verdict.PARTIAL


def fraction_at_least(flags: list[bool], share: float) -> Verdict:
    """REPRODUCED iff at least `share` of the boolean checks hold."""
    if not flags:
        return Verdict.NOT_REPRODUCED
    return at_least(sum(map(bool, flags)) / len(flags), share)
