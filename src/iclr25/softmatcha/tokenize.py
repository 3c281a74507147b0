"""Tokenizers shared by pattern and corpus: the default lower-case word tokenizer (`\\w+` runs and single
punctuation marks, like grep -w's notion of a word) and a Moses-style one (sacremoses). An index records
which one built it, and the pattern is always tokenized the same way."""

from __future__ import annotations

import re
from collections.abc import Iterable

from iclr25.core.errors import UserError

_WORD = re.compile(r"\w+|[^\w\s]")

Span = tuple[str, int, int]  # (token, start char, end char) in the original line


class WordTokenizer:
    """Lower-cased `\\w+` runs; every other non-space character is its own token.

    >>> WordTokenizer().tokenize("The King's men, 2 of them.")
    ['the', 'king', "'", 's', 'men', ',', '2', 'of', 'them', '.']
    """

    name = "word-lower-v1"

    def tokenize(self, line: str) -> list[str]:
        return _WORD.findall(line.lower()) if line.isascii() else [m.group().lower() for m in
                                                                    _WORD.finditer(line)]

    def tokenize_lines(self, lines: Iterable[str]) -> list[list[str]]:
        return [self.tokenize(line) for line in lines]

    def spans(self, line: str) -> list[Span]:
        """Tokens with their character spans in `line` (not in its lower-cased copy)."""
        return [(m.group().lower(), m.start(), m.end()) for m in _WORD.finditer(line)]


class MosesTokenizer:
    """Moses (sacremoses) tokenization, lower-cased, as the official SoftMatcha English pipeline."""

    name = "moses-lower-v1"

    def __init__(self, lang: str = "en", aggressive_dash_splits: bool = False) -> None:
        try:
            from sacremoses import MosesTokenizer as _Moses
        except ImportError:
            raise UserError("the moses tokenizer needs sacremoses: pip install sacremoses==0.2.0") from None
        self._tok = _Moses(lang=lang)
        self._dash = aggressive_dash_splits
        if aggressive_dash_splits:
            self.name = "moses-lower-dash-v1"

    def tokenize(self, line: str) -> list[str]:
        toks = self._tok.tokenize(line.lower(), escape=False, aggressive_dash_splits=self._dash)
        return [t for t in toks if t and not t.isspace()]

    def tokenize_lines(self, lines: Iterable[str]) -> list[list[str]]:
        return [self.tokenize(line) for line in lines]

    def spans(self, line: str) -> list[Span]:
        """Spans by a forward search of each token in the lower-cased line; a token the tokenizer
        rewrote (e.g. `@-@`) gets the empty span at the current position."""
        low = line.lower()
        if len(low) != len(line):  # lower() changed the length (rare Unicode): map on a per-char basis
            low = "".join(c.lower() if len(c.lower()) == 1 else c for c in line)
        out: list[Span] = []
        pos = 0
        for t in self.tokenize(line):
            j = low.find(t, pos)
            if j < 0:
                out.append((t, pos, pos))
            else:
                out.append((t, j, j + len(t)))
                pos = j + len(t)
        return out


Tokenizer = WordTokenizer | MosesTokenizer
TOKENIZERS = ("word", "moses")


def get_tokenizer(name: str = "word") -> Tokenizer:
    """`word` (default) or `moses`; also accepts the recorded names (`word-lower-v1`, ...)."""
    if name in ("word", WordTokenizer.name):
        return WordTokenizer()
    if name in ("moses", MosesTokenizer.name):
        return MosesTokenizer()
    if name == "moses-lower-dash-v1":
        return MosesTokenizer(aggressive_dash_splits=True)
    raise UserError(f"unknown tokenizer {name!r}; choose from {', '.join(TOKENIZERS)}")
