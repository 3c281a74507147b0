"""Tokenizers shared by pattern and corpus. An index records which one built it, and the pattern is always
tokenized the same way.

- `glove` (default): GloVe-compatible. GloVe 6B was trained on Stanford-tokenized, lower-cased text, so a
  token here is what has a GloVe row: clitics split as the Penn Treebank does (`king's` -> `king` `'s`,
  `don't` -> `do` `n't`), hyphenated compounds kept whole (`well-known`), numbers with separators kept
  whole (`1,000`, `3.14`), abbreviations with periods (`u.s.`), `...` and `--`, every other punctuation
  mark alone.
- `moses`: Moses (sacremoses), as the official SoftMatcha English pipeline; lower-cased *after* Moses
  runs, because Moses decides on case (`Israel.` splits its period, `israel.` does not).
- `word`: `\\w+` runs and single punctuation marks (grep -w's notion of a word); kept to read indexes
  built before `glove` became the default.
- `mecab`: Japanese (MeCab through fugashi, UniDic-lite dictionary; the optional `softmatcha-ja` extra)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from iclr25.core.errors import UserError

Span = tuple[str, int, int]  # (token, start char, end char) in the original line

_WORD = re.compile(r"\w+|[^\w\s]")
_CLITIC = r"(?:'(?:s|re|ve|ll|d|m)|n't)(?!\w)"
_GLOVE = re.compile(
    r"(?:[^\W\d_]\.){2,}"  # u.s., e.g.
    r"|\d+(?:[.,]\d+)+"  # 1,000  3.14
    r"|" + _CLITIC +  # 's 're 've 'll 'd 'm n't
    r"|\w+?(?=n't(?!\w))"  # do|n't, ca|n't
    r"|\w+(?:-\w+)*"  # words, hyphenated compounds whole
    r"|\.\.\.|--"
    r"|[^\w\s]", re.IGNORECASE)


_CURLY = str.maketrans({"\u2019": "'", "\u2018": "'"})  # ’ ‘ -> ' (same length: spans stay valid)


class _RegexTokenizer:
    """Lower-cased tokens from one regular expression; spans point into the original line. `curly`:
    typographic apostrophes read as ASCII ones (`don’t` -> `do n't`, as GloVe's training text has it)."""

    name = ""
    curly = False
    _re: re.Pattern[str]

    def _prep(self, line: str) -> str:
        return line.translate(_CURLY) if self.curly else line

    def tokenize(self, line: str) -> list[str]:
        if line.isascii():
            return self._re.findall(line.lower())
        return [m.group().lower() for m in self._re.finditer(self._prep(line))]

    def tokenize_lines(self, lines: Iterable[str]) -> list[list[str]]:
        return [self.tokenize(line) for line in lines]

    def spans(self, line: str) -> list[Span]:
        """Tokens with their character spans in `line` (not in its lower-cased copy)."""
        return [(m.group().lower(), m.start(), m.end()) for m in self._re.finditer(self._prep(line))]

    def char_spans(self, line: str) -> list[tuple[int, int]]:
        """Only the character spans of the tokens (what a KWIC view needs), without building the tokens."""
        return [m.span() for m in self._re.finditer(self._prep(line))]


class GloveTokenizer(_RegexTokenizer):
    """GloVe-compatible (Stanford/PTB-style) lower-cased tokens; the default.

    >>> GloveTokenizer().tokenize("The King's men don’t know well-known U.S. facts: 1,000...")
    ['the', 'king', "'s", 'men', 'do', "n't", 'know', 'well-known', 'u.s.', 'facts', ':', '1,000', '...']
    """

    name = "glove-lower-v2"  # v2: curly apostrophes as ASCII ones (v1, indexes built before, kept them)
    curly = True
    _re = _GLOVE

    def __init__(self, curly: bool = True) -> None:
        self.curly = curly
        if not curly:
            self.name = "glove-lower-v1"


class WordTokenizer(_RegexTokenizer):
    """Lower-cased `\\w+` runs; every other non-space character is its own token.

    >>> WordTokenizer().tokenize("The King's men, 2 of them.")
    ['the', 'king', "'", 's', 'men', ',', '2', 'of', 'them', '.']
    """

    name = "word-lower-v1"
    _re = _WORD


class MosesTokenizer:
    """Moses (sacremoses) tokenization as the official SoftMatcha English pipeline, then lower-cased.

    `lower_first=True` reproduces indexes built before version 2 (`moses-lower-v1`), which lower-cased
    the line before Moses and so kept `israel.` as one token."""

    def __init__(self, lang: str = "en", aggressive_dash_splits: bool = False,
                 lower_first: bool = False) -> None:
        try:
            from sacremoses import MosesTokenizer as _Moses
        except ImportError:
            raise UserError("the moses tokenizer needs sacremoses: pip install sacremoses==0.2.0") from None
        self._tok = _Moses(lang=lang)
        self._dash = aggressive_dash_splits
        self._lower_first = lower_first
        dash = "-dash" if aggressive_dash_splits else ""
        self.name = f"moses-lower{dash}-v1" if lower_first else f"moses{dash}-v2"

    def tokenize(self, line: str) -> list[str]:
        toks = self._tok.tokenize(line.lower() if self._lower_first else line, escape=False,
                                  aggressive_dash_splits=self._dash)
        return [t.lower() for t in toks if t and not t.isspace()]

    def tokenize_lines(self, lines: Iterable[str]) -> list[list[str]]:
        return [self.tokenize(line) for line in lines]

    def char_spans(self, line: str) -> list[tuple[int, int]]:
        return [(a, b) for _, a, b in self.spans(line)]

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


JA_EXTRA = 'install iclr25[softmatcha-ja] (pip install "iclr25[softmatcha-ja]": MeCab and its UniDic-lite ' \
           'dictionary) for the Japanese tokenizer'


class JapaneseTokenizer:
    """Japanese words as MeCab splits them (fugashi, the UniDic-lite dictionary; both on PyPI, installed by
    the `softmatcha-ja` extra): surface forms, Latin letters lower-cased. The paper's engine uses MeCab
    with IPAdic; UniDic's short units are a little finer (`住んで` -> `住ん` `で`). There are no Japanese
    vectors in any registry here, so a Japanese index is searched exactly (pattern words match literally,
    with a warning), or softly with vectors of your own (`--emb FILE`).

    >>> JapaneseTokenizer().tokenize("吾輩は猫である")  # doctest: +SKIP
    ['吾輩', 'は', '猫', 'で', 'ある']
    """

    name = "mecab-unidic-lite-v1"

    def __init__(self) -> None:
        try:
            import fugashi
            import unidic_lite
        except ImportError:
            raise UserError(JA_EXTRA) from None
        self._tagger = fugashi.Tagger(f'-d "{unidic_lite.DICDIR}" -r /dev/null')

    def spans(self, line: str) -> list[Span]:
        out: list[Span] = []
        pos = 0
        for w in self._tagger(line):
            surf = w.surface
            if not surf or surf.isspace():
                continue
            j = line.find(surf, pos)
            if j < 0:  # MeCab rewrote it (never seen with UniDic): an empty span where we are
                out.append((surf.lower(), pos, pos))
                continue
            out.append((surf.lower(), j, j + len(surf)))
            pos = j + len(surf)
        return out

    def tokenize(self, line: str) -> list[str]:
        return [t for t, _, _ in self.spans(line)]

    def tokenize_lines(self, lines: Iterable[str]) -> list[list[str]]:
        return [self.tokenize(line) for line in lines]

    def char_spans(self, line: str) -> list[tuple[int, int]]:
        return [(a, b) for _, a, b in self.spans(line)]


Tokenizer = GloveTokenizer | WordTokenizer | MosesTokenizer | JapaneseTokenizer
TOKENIZERS = ("glove", "moses", "word", "mecab")
DEFAULT_TOKENIZER = "glove"


def get_tokenizer(name: str = DEFAULT_TOKENIZER) -> Tokenizer:
    """`glove` (default), `moses` or `word`; also the names an index records (`glove-lower-v1`, ...),
    including the older `moses-lower-v1` (lower-cased before Moses), so old indexes still load."""
    if name in ("glove", GloveTokenizer.name):
        return GloveTokenizer()
    if name == "glove-lower-v1":  # indexes built before curly apostrophes were read as ASCII ones
        return GloveTokenizer(curly=False)
    if name in ("word", WordTokenizer.name):
        return WordTokenizer()
    if name in ("moses", "moses-v2"):
        return MosesTokenizer()
    if name == "moses-dash-v2":
        return MosesTokenizer(aggressive_dash_splits=True)
    if name == "moses-lower-v1":
        return MosesTokenizer(lower_first=True)
    if name == "moses-lower-dash-v1":
        return MosesTokenizer(aggressive_dash_splits=True, lower_first=True)
    if name in ("mecab", "ja", JapaneseTokenizer.name):
        return JapaneseTokenizer()
    raise UserError(f"unknown tokenizer {name!r}; choose from {', '.join(TOKENIZERS)}")
