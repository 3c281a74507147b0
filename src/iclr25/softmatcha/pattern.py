"""Pattern syntax shared by the CLI (which must start without numpy) and the engines.

- A pattern is tokenized like the corpus, except that a whitespace-separated part written `/RE/` (a
  slash at both ends, at least one character between) is one *regex token*: it matches every corpus
  token whose whole text matches RE (Python `re` syntax, `re.fullmatch`; case-blind unless the search is
  case-sensitive). It matches by form, not by meaning: score 1, no threshold. `/colou?r/` matches
  `color` and `colour`; `/bless(ed|ing)?/` matches `bless`, `blessed`, `blessing`.
- `*` or `_` as a token matches any one corpus token (the ranked engine, variants.py)."""

from __future__ import annotations

import re
from collections.abc import Callable

WILDCARDS = frozenset({"*", "_"})  # pattern tokens that match any one corpus token (variants.py)
MAX_EDITS = 4  # insertions (and deletions) per match: each insertion multiplies the branching by the
# number of distinct next tokens, so more is refused rather than run
MAX_REGEX_CHARS = 200


def is_regex_token(tok: str) -> bool:
    """`/RE/`: a regex token (at least one character between the slashes)."""
    return len(tok) > 2 and tok[0] == "/" and tok[-1] == "/"


def regex_runs(raw: str) -> list[tuple[bool, str]]:
    """`raw` cut into (is_regex, text) runs: regex tokens alone, the text between them whole (so a
    pattern without a regex token is one run, tokenized exactly as before)."""
    runs: list[tuple[bool, str]] = []
    buf = ""
    for part in re.split(r"(\s+)", raw):
        if is_regex_token(part):
            if buf.strip():
                runs.append((False, buf))
            buf = ""
            runs.append((True, part))
        else:
            buf += part
    if buf.strip() or not runs:
        runs.append((False, buf))
    return runs


def pattern_tokens(raw: str, tokenize: Callable[[str], list[str]]) -> list[str]:
    """The tokens of a pattern string: regex tokens kept whole (`/RE/`), every other run tokenized."""
    out: list[str] = []
    for is_rx, text in regex_runs(raw):
        out += [text] if is_rx else tokenize(text)
    return out
