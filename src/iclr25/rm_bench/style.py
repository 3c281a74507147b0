"""Style variants for building your own style-controlled pairs: a markdown answer flattened to the plain
detailed style RM-Bench uses for y^L ("First, Underwear Drawer. Contents: socks..."), keeping the words
and dropping the formatting. Fenced code blocks are kept verbatim (code is content, not style)."""

from __future__ import annotations

import re

from iclr25.core.errors import UserError

ORDINALS = ("First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth", "Ninth", "Tenth")
_NUMBERED = re.compile(r"^\s*(?:#{1,6}\s*)?(?:\*\*|__)?(\d+)[.)](?:\*\*|__)?\s+(.*)$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*)$")
_BULLET = re.compile(r"^\s*[-*+]\s+(.*)$")
_RULE = re.compile(r"^\s*(?:-{3,}|\*{3,}|_{3,})\s*$")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}.*$")
_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1|(?<![\w*])\*(?!\s)([^*\n]+?)\*(?!\w)|`([^`\n]+)`")


def _strip_inline(s: str) -> str:
    return _EMPHASIS.sub(lambda m: m.group(2) or m.group(3) or m.group(4) or "", s).strip()


def _sentence(s: str) -> str:
    s = s.strip()
    return s if not s or s[-1] in ".!?:;" else s + "."


def flatten_markdown(text: str) -> str:
    """The plain-text version of a markdown answer: headings and list items become sentences (numbered
    items open with "First,", "Second,", ...), emphasis, inline code, quotes and rules are dropped, table
    rows become "a, b, c." and everything runs on as one paragraph, as in RM-Bench's plain answers.

    >>> flatten_markdown("Tips:\\n\\n### 1. **Sleep**\\n- Go to bed *early*\\n\\n2. Eat `well`")
    'Tips: First, Sleep. Go to bed early. Second, Eat well.'
    """
    if not isinstance(text, str):
        raise UserError(f"text must be a string, got {type(text).__name__}")
    paragraphs: list[str] = []
    current: list[str] = []
    in_code = False
    code: list[str] = []

    def close() -> None:
        if current:
            paragraphs.append(" ".join(current))
            current.clear()

    for line in text.splitlines():
        if line.strip().startswith("```"):
            if in_code:
                code.append(line)
                paragraphs.append("\n".join(code))
                code.clear()
            else:
                close()
                code.append(line)
            in_code = not in_code
            continue
        if in_code:
            code.append(line)
            continue
        if not line.strip():
            close()
            continue
        if _RULE.match(line) or _TABLE_SEP.match(line) and "|" in line:
            continue
        if m := _NUMBERED.match(line):
            k = int(m.group(1))
            lead = ORDINALS[k - 1] if 1 <= k <= len(ORDINALS) else "Next"
            current.append(_sentence(f"{lead}, {_strip_inline(m.group(2))}"))
        elif (m := _HEADING.match(line)) or (m := _BULLET.match(line)):
            current.append(_sentence(_strip_inline(m.group(1))))
        elif line.strip().startswith("|"):
            cells = [_strip_inline(c) for c in line.strip().strip("|").split("|")]
            current.append(_sentence(", ".join(c for c in cells if c)))
        else:
            current.append(_strip_inline(line.lstrip("> ").strip()))
    if code:  # an unclosed fence keeps what it held
        paragraphs.append("\n".join(code))
    close()
    # RM-Bench's plain answers run on as one paragraph; code blocks keep their own lines.
    out = ""
    for p in (p for p in paragraphs if p.strip()):
        sep = "\n" if p.startswith("```") or out.endswith("```") else " "
        out = f"{out}{sep}{p}" if out else p
    return out


def make_style_variants(markdown_answer: str) -> dict[str, str]:
    """{"plain": the flattened detailed answer, "markdown": the answer as given}: the two detailed styles
    of an RM-Bench item (the concise one needs a writer, not a rewrite)."""
    return {"plain": flatten_markdown(markdown_answer), "markdown": markdown_answer}
