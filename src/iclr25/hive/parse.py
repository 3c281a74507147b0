"""Query parsing without an LLM (spec §2 step 2): the instruction part of a request and its sub-requests.

- `instruction(query)`: media paths become their kind ("the audio file"), a long quoted span becomes
  "the quoted text", and a long passage after a colon (or `Context=`) is cut: what remains is what the
  user asks for, not the material to work on.
- `parts(query)`: the instruction's first 40 words split into sub-requests at sentence ends and at
  conjunctions ("and", "then", "and then", "after that", "finally", commas, semicolons); bracketed option
  lists are kept whole and one-word fragments join their neighbour. Every route matches each part on its
  own (issue #45: a request with two tasks is two matches, not one).
- `text_files(query, base)`: `.txt` / `.md` files a request names, read as its input text.
"""

from __future__ import annotations

import re
from pathlib import Path

from iclr25.core.errors import UserError

MAX_PARTS = 8
PASSAGE_WORDS = 12  # a colon followed by more words than this introduces material, not instructions
QUOTE_WORDS = 6  # a quoted span longer than this is material
INSTRUCTION_WORDS = 40  # requests state their tasks first: words beyond this are material to work on
MAX_TEXT_FILE_BYTES = 2_000_000
TEXT_FILE = re.compile(r"(?<![\w./-])[\w./-]*[\w-]\.(?:txt|md)\b", re.IGNORECASE)
_QUOTES = re.compile(r"(?<!\w)'(.{1,20000}?)'(?!\w)|\"([^\"]{1,20000}?)\"|“([^”]{1,20000}?)”", re.DOTALL)
_BRACKETS = re.compile(r"\[[^\[\]]{0,2000}\]|\([^()]{0,2000}\)")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_CONJUNCTION = re.compile(r",?\s+(?:and then|and|then|after that|afterwards|finally|also)\s+|[,;]\s+",
                          re.IGNORECASE)


def instruction(query: str) -> str:
    """The request without its material: media paths named by kind, long quotes and passages cut.

    >>> instruction("Summarise the following: " + "word " * 40)
    'Summarise the following'
    >>> instruction("Transcribe ./talk.wav and summarise it")
    'Transcribe the audio file and summarise it'
    >>> instruction("Narrate 'Harry Potter is a series of seven fantasy novels' aloud")
    'Narrate the quoted text aloud'
    """
    from iclr25.hive.muse import MEDIA, modality_of

    q = MEDIA.sub(lambda m: f"the {modality_of(Path(m.group(0)))} file", query)
    q = TEXT_FILE.sub("the text file", q)
    q = _QUOTES.sub(lambda m: "the quoted text" if len((m.group(1) or m.group(2) or m.group(3) or "").split())
                    > QUOTE_WORDS else m.group(0), q)
    for cut in re.finditer(r"[:=]", q):
        if len(q[cut.end():].split()) > PASSAGE_WORDS and q[:cut.start()].strip():
            q = q[:cut.start()]
            break
    return " ".join(q.replace("\\n", " ").split()).strip(" ,;")


def parts(query: str, max_parts: int = MAX_PARTS) -> list[str]:
    """The sub-requests of a request, in order (at least one: the whole instruction).

    >>> parts("Transcribe ./talk.wav and summarise it")
    ['Transcribe the audio file', 'summarise it']
    >>> parts("Classify the review into [positive, negative] and then translate it. Be brief")
    ['Classify the review into [positive, negative]', 'translate it', 'Be brief']
    """
    text = " ".join(instruction(query).split()[:INSTRUCTION_WORDS])
    kept: list[str] = []

    def protect(m: re.Match) -> str:
        kept.append(m.group(0))
        return f"\x00{len(kept) - 1}\x00"

    text = _BRACKETS.sub(protect, text)
    out: list[str] = []
    for sentence in _SENTENCE.split(text):
        for frag in _CONJUNCTION.split(sentence):
            frag = frag.strip(" .,;!?")
            if not frag:
                continue
            if len(frag.split()) < 2 and out or out and len(out[-1].split()) < 2:
                out[-1] += " " + frag
            else:
                out.append(frag)
    restored = [re.sub(r"\x00(\d+)\x00", lambda m: kept[int(m.group(1))], p) for p in out]
    if len(restored) > max_parts:
        restored = restored[: max_parts - 1] + [" ".join(restored[max_parts - 1:])]
    return restored or [text or query.strip()]


def text_files(query: str, base: str | Path = ".") -> list[Path]:
    """`.txt` / `.md` files the request names, resolved against `base` (missing: one-line error)."""
    out = []
    for m in TEXT_FILE.findall(query):
        p = Path(base) / m
        if not p.is_file():
            raise UserError(f"missing text file: {m} (looked in {Path(base).resolve()})")
        if p.stat().st_size > MAX_TEXT_FILE_BYTES:
            raise UserError(f"text file {m} has {p.stat().st_size:,} bytes; at most {MAX_TEXT_FILE_BYTES:,}")
        out.append(p)
    return out


def read_text_file(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UserError(f"text file {path} is not UTF-8 text") from None
