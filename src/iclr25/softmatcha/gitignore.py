""".gitignore rules for folder walks (`index` and `grep` over a folder), as git and ripgrep read them.

Which files: the `.gitignore` of every walked folder, and of its parent folders up to the enclosing git
repository's root (the folder holding `.git`), if there is one. Rules of a deeper file come later, so they
win; within a file the last matching rule wins. Files named on the command line are always read.

The syntax (gitignore(5)): blank lines and `#` comments are skipped; `\\#`, `\\!` and `\\ ` escape; trailing
spaces are dropped; `!` re-includes; a trailing `/` matches folders only; a pattern with a `/` at its
start or middle is relative to its .gitignore's folder, one without matches a name at any depth; `*`, `?`
and `[...]` do not match `/`; `**/` is any number of folders (none too), `/**` everything inside, `a/**/b`
zero or more folders between. As in git, a file below an ignored folder cannot be re-included (the walk
does not enter that folder)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Rule:
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool
    base: str  # the .gitignore's folder (absolute, posix)


def _class(pat: str, i: int) -> tuple[str, int]:
    """A `[...]` at pat[i]: (regex, index after it), or ('\\[', i + 1) when it does not close."""
    j = i + 1
    if j < len(pat) and pat[j] in "!^":
        j += 1
    if j < len(pat) and pat[j] == "]":
        j += 1
    while j < len(pat) and pat[j] != "]":
        j += 1
    if j >= len(pat):
        return re.escape("["), i + 1
    body = pat[i + 1:j]
    if body[:1] in ("!", "^"):
        body = "^" + body[1:]
    return "(?!/)[" + body + "]", j + 1


def translate(pat: str) -> str:
    """The regex (for re.fullmatch on a path relative to the rule's folder) of one gitignore pattern,
    with its `!`, trailing `/` and anchoring already taken off by `parse`."""
    out, i, n = [], 0, len(pat)
    while i < n:
        c = pat[i]
        if c == "*":
            if pat.startswith("**", i):
                before_ok = i == 0 or pat[i - 1] == "/"
                after = i + 2
                if before_ok and after == n:  # trailing /**: everything inside
                    out.append(".*")
                    i = after
                    continue
                if before_ok and after < n and pat[after] == "/":  # **/ : zero or more folders
                    out.append("(?:.*/)?")
                    i = after + 1
                    continue
                while i < n and pat[i] == "*":  # any other run of stars is one star
                    i += 1
                out.append("[^/]*")
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            rx, i = _class(pat, i)
            out.append(rx)
            continue
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pat[i + 1]))
            i += 2
            continue
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def parse(text: str, base: str) -> list[Rule]:
    """The rules of one .gitignore whose folder is `base` (absolute, posix)."""
    rules = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        while line.endswith(" ") and not line.endswith("\\ "):
            line = line[:-1]
        if not line:
            continue
        negate = line.startswith("!")
        if negate or line.startswith(("\\!", "\\#")):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        rx = translate(line)
        if not anchored:
            rx = "(?:.*/)?" + rx
        try:
            rules.append(Rule(re.compile(rx, re.DOTALL), negate, dir_only, base))
        except re.error:
            continue  # git skips a pattern it cannot read
    return rules


def ignored(rules: list[Rule], path: str, is_dir: bool) -> bool:
    """Whether `path` (absolute, posix) is ignored: the last rule that matches it decides."""
    out = False
    for r in rules:
        if r.dir_only and not is_dir:
            continue
        if not path.startswith(r.base + "/"):
            continue
        if r.regex.fullmatch(path[len(r.base) + 1:]):
            out = not r.negate
    return out


def _read(folder: str) -> list[Rule]:
    f = os.path.join(folder, ".gitignore")
    try:
        with open(f, encoding="utf-8", errors="replace") as fh:
            return parse(fh.read(), folder)
    except OSError:
        return []


def inherited(root: Path) -> list[Rule]:
    """The rules of the .gitignore files above `root` inside its git repository (none outside one)."""
    root = root.resolve()
    chain = []
    for parent in root.parents:
        chain.append(parent)
        if (parent / ".git").exists():
            break
    else:
        return []
    rules: list[Rule] = []
    for folder in reversed(chain):
        rules += _read(folder.as_posix())
    return [r for r in rules if root.as_posix().startswith(r.base)]


def walk(root: Path, hidden: bool = False, ignore: bool = True) -> list[Path]:
    """The files under `root`, sorted as before (by path): hidden entries skipped unless `hidden`,
    .gitignore'd ones unless `ignore` is False. Links to folders are not followed."""
    out: list[Path] = []
    start = Path(os.path.abspath(root))
    rules0 = inherited(start) if ignore else []

    def visit(folder: Path, rel: Path, rules: list[Rule]) -> None:
        if ignore:
            rules = rules + _read(folder.as_posix())
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return
        for e in entries:
            if not hidden and e.name.startswith("."):
                continue
            is_dir = e.is_dir(follow_symlinks=False)
            if ignore and ignored(rules, Path(e.path).as_posix(), is_dir):
                continue
            if is_dir:
                visit(Path(e.path), rel / e.name, rules)
            elif e.is_file():
                out.append(Path(root) / rel / e.name)

    visit(start, Path(), rules0)
    return sorted(out)
