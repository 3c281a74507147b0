"""An independent judge of soft matches: WordNet 3.0 (Debian `wordnet-base`, read from its database
files) says whether a corpus word that stood in for a pattern word is one of its relatives. Evaluation
code only: the search engine never imports it (the claims' precision and the held-out choice of the
default alpha use it).

Relatives of a word w (over all its parts of speech, after WordNet's own morphology, `morphy`):
- the same lemma (kings -> king), or a synonym (they share a synset);
- a hypernym or hyponym up to two links away, instance links included (israel -> country);
- a sibling or cousin: the two share a hypernym within two links of each (son, daughter: "offspring";
  bread, meat: "food"), or are parts of one whole (israel, syria: parts of the Middle East);
- for adjectives, WordNet's "similar to" links (the adjective satellites' siblings).
Antonyms are not relatives (good -> evil is a related word, not a stand-in).

>>> wn = WordNet.load()                                              # doctest: +SKIP
>>> wn.related("israel", "syria"), wn.related("time", "the")        # doctest: +SKIP
(True, False)
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from pathlib import Path

from iclr25.core.errors import UserError

WORDNET_DIR = Path(os.environ.get("ICLR25_WORDNET", "/usr/share/wordnet"))
WORDNET_SETUP = "apt-get install wordnet-base"
POS = ("noun", "verb", "adj", "adv")
_HYPER = {"@", "@i"}
_SIMILAR = {"&"}
_PART_OF = {"#p"}
# WordNet's detachment rules (morphy): suffix -> replacement, per part of speech
_RULES = {
    "noun": [("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"),
             ("men", "man"), ("ies", "y")],
    "verb": [("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"),
             ("ing", "")],
    "adj": [("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
    "adv": [],
}


def available(root: Path = WORDNET_DIR) -> bool:
    return all((root / f"data.{p}").is_file() for p in POS)


class WordNet:
    """The WordNet graph as plain dicts: lemma -> synsets per part of speech, synset -> hypernyms and
    "similar to" links. `load()` parses the database files once per process (~3 s)."""

    def __init__(self, lemmas: dict[str, dict[str, set[int]]], hyper: dict[int, set[int]],
                 similar: dict[int, set[int]], part_of: dict[int, set[int]],
                 exceptions: dict[str, dict[str, set[str]]]) -> None:
        self.lemmas, self.hyper, self.similar, self.exceptions = lemmas, hyper, similar, exceptions
        self.part_of = part_of
        self.hypo: dict[int, set[int]] = {}
        for s, hs in hyper.items():
            for h in hs:
                self.hypo.setdefault(h, set()).add(s)

    @classmethod
    @functools.lru_cache(maxsize=1)
    def load(cls, root: Path = WORDNET_DIR) -> WordNet:
        if not available(root):
            raise UserError(f"WordNet is not installed at {root}: {WORDNET_SETUP}")
        lemmas: dict[str, dict[str, set[int]]] = {p: {} for p in POS}
        hyper: dict[int, set[int]] = {}
        similar: dict[int, set[int]] = {}
        part_of: dict[int, set[int]] = {}
        for k, pos in enumerate(POS):
            with open(root / f"data.{pos}", encoding="latin-1") as f:
                for line in f:
                    if line.startswith("  "):
                        continue  # the licence header
                    parts = line.split(" | ", 1)[0].split()
                    sid = (k << 28) | int(parts[0])  # offsets are per file: tag them with the POS
                    n_words = int(parts[3], 16)
                    for i in range(n_words):
                        w = parts[4 + 2 * i].lower()
                        if pos == "adj" and w.endswith(")"):  # adjective markers: galore(ip)
                            w = w[:w.index("(")]
                        lemmas[pos].setdefault(w, set()).add(sid)
                    at = 4 + 2 * n_words
                    n_ptr = int(parts[at])
                    for j in range(n_ptr):
                        sym, off, p = parts[at + 1 + 4 * j: at + 4 + 4 * j]
                        tgt = ({"n": 0, "v": 1, "a": 2, "s": 2, "r": 3}[p] << 28) | int(off)
                        if sym in _HYPER:
                            hyper.setdefault(sid, set()).add(tgt)
                        elif sym in _SIMILAR:
                            similar.setdefault(sid, set()).add(tgt)
                        elif sym in _PART_OF:
                            part_of.setdefault(sid, set()).add(tgt)
        exceptions: dict[str, dict[str, set[str]]] = {p: {} for p in POS}
        for pos in POS:
            p = root / f"{pos}.exc"
            if p.is_file():
                for line in p.read_text(encoding="latin-1").splitlines():
                    ws = line.split()
                    if len(ws) >= 2:
                        exceptions[pos].setdefault(ws[0], set()).update(ws[1:])
        return cls(lemmas, hyper, similar, part_of, exceptions)

    # ---- morphology -----------------------------------------------------------------------------
    def base_forms(self, word: str) -> dict[str, set[str]]:
        """WordNet's morphy: per part of speech, the lemmas `word` can be a form of."""
        w = word.lower().replace(" ", "_")
        out: dict[str, set[str]] = {}
        for pos in POS:
            table = self.lemmas[pos]
            cands = {w} | self.exceptions[pos].get(w, set())
            cands |= {w[:-len(a)] + b for a, b in _RULES[pos] if w.endswith(a) and len(w) > len(a)}
            got = {c for c in cands if c in table}
            if got:
                out[pos] = got
        return out

    def synsets(self, word: str) -> set[int]:
        return {s for pos, forms in self.base_forms(word).items() for f in forms
                for s in self.lemmas[pos][f]}

    def known(self, word: str) -> bool:
        """Whether WordNet has the word at all (function words and punctuation it has not)."""
        return bool(self.base_forms(word))

    # ---- relations ------------------------------------------------------------------------------
    def _up(self, ss: Iterable[int], steps: int) -> set[int]:
        out, frontier = set(), set(ss)
        for _ in range(steps):
            frontier = {h for s in frontier for h in self.hyper.get(s, ())}
            out |= frontier
        return out

    def related(self, pattern_word: str, corpus_word: str) -> bool:
        """Whether `corpus_word` is a relative of `pattern_word` (see the module docstring)."""
        if pattern_word == corpus_word:
            return True
        fa, fb = self.base_forms(pattern_word), self.base_forms(corpus_word)
        if not fa or not fb:
            return False
        if any(fa[p] & fb.get(p, set()) for p in fa):
            return True  # the same lemma
        a, b = self.synsets(pattern_word), self.synsets(corpus_word)
        if a & b:
            return True  # synonyms
        up_a, up_b = self._up(a, 2), self._up(b, 2)
        if up_a & b or up_b & a:
            return True  # hypernym / hyponym within two links
        if up_a & up_b:
            return True  # siblings and cousins
        if {t for s in a for t in self.part_of.get(s, ())} & {t for s in b for t in self.part_of.get(s, ())}:
            return True  # parts of one whole
        sim_a = {t for s in a for t in self.similar.get(s, ())}
        return bool(sim_a & b) or bool({t for s in b for t in self.similar.get(s, ())} & a)


class Relatives:
    """`WordNet.related` for one fixed list of candidate words at once, through inverted maps from each
    kind of key (lemma, synset, hypernym within two links, whole, similar-to) to the candidates that
    have it: the relatives of a word among 20,000 candidates in milliseconds."""

    def __init__(self, wn: WordNet, words: Iterable[str]) -> None:
        self.wn = wn
        self.words = list(words)
        self._maps: dict[str, dict[object, set[int]]] = {k: {} for k in ("lemma", "syn", "up", "part", "sim")}
        self._pos = {w: i for i, w in enumerate(self.words)}
        for i, w in enumerate(self.words):
            for kind, keys in self._keys(w).items():
                for key in keys:
                    self._maps[kind].setdefault(key, set()).add(i)

    def _keys(self, w: str) -> dict[str, set]:
        wn = self.wn
        forms = wn.base_forms(w)
        syn = {s for pos, fs in forms.items() for f in fs for s in wn.lemmas[pos][f]}
        return {"lemma": {(p, f) for p, fs in forms.items() for f in fs}, "syn": syn, "up": wn._up(syn, 2),
                "part": {t for s in syn for t in wn.part_of.get(s, ())},
                "sim": {t for s in syn for t in wn.similar.get(s, ())}}

    def of(self, word: str) -> set[int]:
        """Indices (into `words`) of the candidates that are relatives of `word`."""
        k = self._keys(word)
        m = self._maps
        out: set[int] = set()
        for key in k["lemma"]:
            out |= m["lemma"].get(key, set())
        for key in k["syn"] | k["sim"]:
            out |= m["syn"].get(key, set())  # synonyms, similar-to
            out |= m["up"].get(key, set())  # hyponyms within two links
        for key in k["up"]:
            out |= m["syn"].get(key, set())  # hypernyms within two links
            out |= m["up"].get(key, set())  # siblings and cousins
        for key in k["part"]:
            out |= m["part"].get(key, set())
        for key in k["syn"]:  # adjectives similar to this one, seen from their side
            out |= m["sim"].get(key, set())
        if word in self._pos:
            out.add(self._pos[word])
        return out
