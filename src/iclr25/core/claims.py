"""The claims ledger: what a paper claims, how we test it (a rule, `iclr25.core.rules`), what we
measured, and the verdict the rule derives from the measurements.

Verdicts are never typed in: an experiment returns measurements (`Finding.measure`) and the claim's rule
decides (`Paper.reproduce`). A claim's criterion is its setup in words plus the rule's generated prose.
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
    SMOKE = "smoke run — not a verdict"  # the smoke profile checks code paths; its numbers decide nothing


@dataclass(frozen=True)
class Claim:
    key: str  # "sub_second_search"
    statement: str  # the paper's claim in our words
    paper: str  # what the paper reports, with its setting
    setup: str = ""  # how we measure, in words: data, sizes, seeds (the decision is the rule's prose)
    rule: Any = None  # iclr25.core.rules: Rule | AllOf | Each | Custom, fixed before measuring
    timing: bool = False  # decided by wall-clock measurements: medians of repeats, may vary under load
    not_testable: str = ""  # why this machine can never test it (then there is no rule)

    @property
    def criterion(self) -> str:
        """The criterion as the report prints it: the setup, then the rule's own prose."""
        if self.not_testable:
            return f"not testable here: {self.not_testable}"
        if self.rule is None:
            return self.setup
        setup = self.setup.strip().rstrip(".:;")
        return f"{setup}. {self.rule.prose()}" if setup else self.rule.prose()

    @property
    def rule_hash(self) -> str:
        from iclr25.core.rules import rule_hash
        return rule_hash(self.rule)

    def to_dict(self) -> dict[str, Any]:
        """What a findings file and a record store of the claim: its texts, the rule as data and its hash."""
        return {"key": self.key, "statement": self.statement, "paper": self.paper, "setup": self.setup,
                "criterion": self.criterion, "rule": self.rule.spec() if self.rule is not None else None,
                "rule_hash": self.rule_hash, "timing": self.timing, "not_testable": self.not_testable}


Measured = dict[str, Any]  # numbers (with units in the key), text, or lists of numbers (one per seed/item)


@dataclass
class Finding:
    claim: str  # Claim.key
    verdict: Verdict | None  # None until the claim's rule decides it (Paper.reproduce)
    measured: Measured
    summary: str  # one line: "ours 0.31 s p50 at 1e8 tokens; paper < 1 s at 1.4e9"
    figures: list[str] = field(default_factory=list)  # paths relative to the run folder

    def __post_init__(self) -> None:
        if self.verdict is not None:
            self.verdict = Verdict(self.verdict)
        if self.verdict in (Verdict.NOT_TESTABLE, Verdict.DEFERRED) and not self.summary.strip():
            raise ValueError(f"finding {self.claim!r}: {self.verdict.name} needs a reason in summary")

    @classmethod
    def measure(cls, claim: str, measured: Measured, summary: str, figures: list[str] | None = None
                ) -> Finding:
        """What an experiment returns: measurements and a one-line summary; the claim's rule decides."""
        return cls(claim, None, dict(measured), summary, list(figures or []))

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
        d["verdict"] = str(self.verdict) if self.verdict is not None else None
        d["measured"] = {k: _jsonable(v) for k, v in self.measured.items()}
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Finding:
        return cls(d["claim"], Verdict(d["verdict"]), dict(d["measured"]), d["summary"],
                   list(d.get("figures", [])))


def _jsonable(v: Any) -> Any:
    if isinstance(v, list | tuple):
        return [_jsonable(x) for x in v]
    if hasattr(v, "tolist") and getattr(v, "ndim", 0) > 0:  # numpy arrays
        return [_jsonable(x) for x in v.tolist()]
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int | str):
        return v
    try:
        f = float(v)  # numpy scalars
    except (TypeError, ValueError):
        return str(v)
    return f if math.isfinite(f) else str(f)
