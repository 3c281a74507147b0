"""What the fuzzer needs to know about one CLI command: a valid, fast base invocation to mutate."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Spec:
    """`base`: param name -> value(s) of a valid call that finishes in about a second; "{key}" is a file
    made by the paper's `valid(folder)` in tests/fuzz/specs/<slug>.py, "{tmp}" a fresh folder per call.
    `fixed`: params never mutated (say why in a comment). `grep_like`: exit 1 means "no match".
    `needs`: the ../shared/data folder the base call reads (its base check skips without it; the fuzz
    still runs, where a clean exit 2 naming the missing data is the expected outcome)."""

    command: str
    base: dict = field(default_factory=dict)
    fixed: frozenset = frozenset()
    grep_like: bool = False
    needs: str | None = None

    @property
    def slug(self) -> str:
        return self.command.split()[0]
