"""Runnable README blocks: a fenced block preceded by `<!-- run -->` is executed by the test suite, so a
README cannot name a flag or a function that does not exist, nor show output the command no longer gives.

    <!-- run -->                          run the block as written; console output is compared
    <!-- run: --steps 3000 => --steps 20; --seeds 5 => --seeds 2 -->
                                          replace text first (tiny sizes for CI); output is not compared

A ```python block runs as one script. A console block (```console, ```bash, ```sh or plain ```) whose
lines start with `$ ` runs each command in bash (-o pipefail); the lines after a command are its expected
output, where `...` inside a line matches anything and a line of only `...` matches any lines. A block
without `$ ` prompts runs as one bash script. Every command must exit 0. Blocks of one README share a
temporary folder, in order, so a later block may read what an earlier one wrote."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MARK = re.compile(r"<!--\s*run(?:\s*:\s*(?P<opts>.*?))?\s*-->\s*\n```(?P<lang>[\w-]*)\n(?P<body>.*?)\n```",
                  re.S)


@dataclass
class Block:
    lang: str
    body: str
    line: int  # where the block starts in the README (1-based)
    subs: list[tuple[str, str]] = field(default_factory=list)

    @property
    def python(self) -> bool:
        return self.lang in ("python", "py")

    @property
    def compare_output(self) -> bool:
        return not self.subs

    def text(self) -> str:
        out = self.body
        for old, new in self.subs:
            if old not in out:
                raise ValueError(f"README block at line {self.line}: substitution {old!r} matches nothing")
            out = out.replace(old, new)
        return out

    def commands(self) -> list[tuple[str, list[str]]]:
        """(command, expected output lines) for a console block with `$ ` prompts; [] otherwise."""
        out: list[tuple[str, list[str]]] = []
        for line in self.text().splitlines():
            if line.startswith("$ "):
                out.append((line[2:], []))
            elif out:
                out[-1][1].append(line)
        return out


def blocks(markdown: str) -> list[Block]:
    found = []
    for m in MARK.finditer(markdown):
        subs = []
        for opt in (m.group("opts") or "").split(";"):
            if "=>" in opt:
                old, new = (s.strip() for s in opt.split("=>", 1))
                subs.append((old, new))
            elif opt.strip():
                raise ValueError(f"unknown run option {opt.strip()!r}")
        line = markdown.count("\n", 0, m.start("body")) + 1
        found.append(Block(m.group("lang"), m.group("body"), line, subs))
    return found


def _line_matches(pattern: str, line: str) -> bool:
    parts = [re.escape(p) for p in pattern.rstrip().split("...")]
    return re.fullmatch(".*".join(parts), line.rstrip()) is not None


def output_matches(expected: list[str], got: list[str]) -> bool:
    """doctest's ELLIPSIS for lines: `...` in a line matches any text, a line of `...` any lines.

    >>> output_matches(["a ...", "...", "z"], ["a 1.2 s", "b", "c", "z"])
    True
    >>> output_matches(["a 2"], ["a 1"])
    False
    """
    if not expected:
        return not got
    head, rest = expected[0], expected[1:]
    if head.strip() == "...":
        return any(output_matches(rest, got[i:]) for i in range(len(got) + 1))
    return bool(got) and _line_matches(head, got[0]) and output_matches(rest, got[1:])
