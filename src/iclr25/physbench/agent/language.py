"""PhysAgent's stage (i), task-specific prompt activation, done from language: a sentence encoder
(all-MiniLM-L6-v2 via `iclr25.core.models`) compares the question with short descriptions of what each
tool answers, written in the agent's own words, and picks the closest; the objects a question names are
read with a lexicon of everyday colour words; options are matched to the agent's conclusion by meaning
(the encoder), by the numbers and colour words they contain, and by direction words. No pattern of any
benchmark's question templates is used.

>>> colours_in("Is the Violet ball left of the grey one?")
['purple']
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

# Everyday colour words -> the names perception uses (grey and white are background colours there).
COLOUR_WORDS = {"red": "red", "crimson": "red", "scarlet": "red", "orange": "orange", "yellow": "yellow",
                "golden": "yellow", "green": "green", "lime": "green", "cyan": "cyan", "turquoise": "cyan",
                "teal": "cyan", "blue": "blue", "navy": "blue", "purple": "purple", "violet": "purple",
                "magenta": "pink", "pink": "pink", "brown": "brown", "black": "black", "dark": "black"}
NUMBER_WORDS = {w: i for i, w in enumerate(("zero", "one", "two", "three", "four", "five", "six", "seven",
                                            "eight", "nine", "ten", "eleven", "twelve"))}
# Direction (and size) words by what they point to (image frame; "front" is toward the viewer).
DIRECTION_WORDS = {
    "left": ("left", "leftmost", "leftward", "leftwards", "west"),
    "right": ("right", "rightmost", "rightward", "rightwards", "east"),
    "up": ("up", "upward", "upwards", "top", "above", "over", "overhead", "high", "higher", "highest",
           "upper"),
    "down": ("down", "downward", "downwards", "bottom", "below", "under", "low", "lower", "lowest"),
    "front": ("front", "facing", "viewer", "toward", "towards", "closer", "nearer", "approaches"),
    "away": ("away", "back", "farther", "further", "retreats", "recedes"),
    "big": ("big", "bigger", "biggest", "large", "larger", "largest", "greatest", "huge"),
    "small": ("small", "smaller", "smallest", "tiny", "tinier", "tiniest", "little", "least"),
}


def words(text: str) -> list[str]:
    return re.findall(r"[a-z]+|\d+", text.lower())


def colours_in(text: str) -> list[str]:
    """Colour names in order of mention (each once)."""
    out: list[str] = []
    for w in words(text):
        c = COLOUR_WORDS.get(w)
        if c and c not in out:
            out.append(c)
    return out


def numbers_in(text: str, spelled: bool = True) -> list[float]:
    """Numbers in digits (and, with `spelled`, in words) in order of mention."""
    out = []
    for w in re.findall(r"\d+(?:\.\d+)?|[a-z]+", text.lower()):
        if w[0].isdigit():
            out.append(float(w))
        elif spelled and w in NUMBER_WORDS:
            out.append(float(NUMBER_WORDS[w]))
    return out


def directions_in(text: str) -> set[str]:
    ws = set(words(text))
    return {d for d, vocab in DIRECTION_WORDS.items() if ws & set(vocab)}


@dataclass(frozen=True)
class Intent:
    """A tool and its argument, with the descriptions (the agent's own words) that call it. `pictures`:
    the tool chooses among option images (so it fits only items whose options are images, and only those
    tools fit such items)."""

    tool: str
    arg: str
    descriptions: tuple[str, ...]
    pictures: bool = False


INTENTS = (
    Intent("count", "", ("count how many objects there are", "what is the number of things in the image",
                         "how many balls or shapes are shown")),
    Intent("largest_colour", "", ("what colour is the biggest object",
                                  "name the colour of the largest ball")),
    Intent("material", "", ("which object is the most or the least brittle, stiff, soft, smooth, sharp or "
                            "elastic", "which of these everyday things is hardest, most fragile, most "
                                       "bendable "
                            "or most stretchy", "which item breaks, bends, cuts or stretches most easily")),
    Intent("balance", "", ("which of two boxes on a balance or seesaw is heavier", "compare the mass or "
                                                                                   "weight "
                           "of two boxes on a lever")),
    Intent("extreme", "largest", ("which ball or object is the biggest", "which object is the largest in "
                                  "size")),
    Intent("extreme", "smallest", ("which ball or object is the smallest", "which object is the tiniest in "
                                   "size")),
    Intent("extreme", "leftmost", ("which ball or object is furthest to the left", "which thing is the "
                                   "leftmost in the image")),
    Intent("extreme", "rightmost", ("which ball or object is furthest to the right", "which thing is the "
                                    "rightmost in the image")),
    Intent("extreme", "highest", ("which ball or object is highest up in the image", "which thing is nearest "
                                  "the top edge")),
    Intent("extreme", "lowest", ("which ball or object is lowest down in the image", "which thing is nearest "
                                 "the bottom edge")),
    Intent("nearest_to", "", ("which ball is closest to the given coloured ball", "which object lies nearest "
                              "to another named object in the image")),
    Intent("depth", "", ("which labelled point is closest to the camera", "which marked point is nearest the "
                         "viewer in depth")),
    Intent("motion", "", ("which direction is the ball moving in", "where is the moving object going")),
    Intent("camera", "", ("how is the camera moving", "is the viewpoint zooming in, zooming out or panning")),
    Intent("light", "", ("where is the light source", "which direction is the scene lit from")),
    Intent("drag", "", ("two balls are dropped together: which one is slowed by air resistance",
                        "falling balls and air drag")),
    Intent("collision", "", pictures=True, descriptions=("a moving ball will hit a resting ball: which "
                                                         "image shows both balls later",
                             "predict the two balls' positions some time after they collide")),
    Intent("projectile", "", ("where will the thrown ball land", "which zone does the tossed ball come down "
                              "in")),
    Intent("stack", "", ("will the tower of blocks stay up or fall over", "is the stack of blocks stable")),
    Intent("placement", "", pictures=True, descriptions=("where should the block be put so the tower does "
                                                         "not fall", "which placement "
                             "keeps the stack standing")),
    Intent("catch", "", ("where should the catcher wait to catch the ball", "which mat will the flying ball "
                         "come down on")),
    Intent("push", "", pictures=True, descriptions=("what will the scene look like after the ball is pushed "
                                                    "into the other ball",
                        "predict the result of pushing one ball into another")),
)


@dataclass
class Language:
    """The sentence encoder, with a cache (the same option texts recur across items)."""

    encoder: object = None
    cache: dict[str, np.ndarray] = field(default_factory=dict)
    min_similarity: float = 0.3
    DIRECTION_WEIGHT = 0.2

    def __post_init__(self) -> None:
        if self.encoder is None:
            from iclr25.core.models import sentence_encoder

            self.encoder = sentence_encoder()
        descs = [d for it in INTENTS for d in it.descriptions]
        self._intent_of = [it for it in INTENTS for _ in it.descriptions]
        self._intent_vecs = self.encode(descs)
        self._intent_dirs = [directions_in(d) for d in descs]

    def encode(self, texts: list[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if todo:
            for t, v in zip(todo, self.encoder.encode(todo, batch=32), strict=True):
                self.cache[t] = v
        return np.stack([self.cache[t] for t in texts])

    def intent(self, question: str, pictures: bool = False) -> tuple[Intent | None, float]:
        """The tool the question asks for (None when no description is similar enough) and the
        similarity. The encoder picks the tool; among that tool's arguments, direction and size words
        shared with a description decide (the encoder hardly tells 'left' from 'right'). `pictures`: the
        options are images."""
        sims = self._intent_vecs @ self.encode([question])[0]
        fits = np.array([it.pictures == pictures for it in self._intent_of])
        if not fits.any():
            return None, 0.0
        sims = np.where(fits, sims, -np.inf)
        tool = self._intent_of[int(np.argmax(sims))].tool
        same = np.array([it.tool == tool for it in self._intent_of])
        scored = np.where(same, sims + self.DIRECTION_WEIGHT * _agreement(directions_in(question),
                                                                          self._intent_dirs), -np.inf)
        k = int(np.argmax(scored))
        return (self._intent_of[k] if sims[k] >= self.min_similarity else None), float(sims[k])

    def choose(self, conclusion: str, options: dict[str, str]) -> str | None:
        """The option that says what `conclusion` says: among options naming the same numbers and colours
        (when the conclusion names any), the closest in meaning, direction words agreeing."""
        cands = dict(options)
        nums = numbers_in(conclusion, spelled=False)  # the agent states counts in digits
        if nums:
            cands = {k: t for k, t in cands.items() if numbers_in(t)[:1] == nums[:1]}
        cols = colours_in(conclusion)
        if cols:
            same = {k: t for k, t in cands.items() if colours_in(t) == cols}
            cands = same or {k: t for k, t in cands.items() if set(cols) <= set(colours_in(t))}
        if not cands:
            return None
        if len(cands) == 1:
            return next(iter(cands))
        keys = list(cands)
        sims = self.encode([cands[k] for k in keys]) @ self.encode([conclusion])[0]
        sims = sims + 2 * self.DIRECTION_WEIGHT * _agreement(directions_in(conclusion),
                                                             [directions_in(cands[k]) for k in keys])
        return keys[int(np.argmax(sims))]


def _agreement(dirs: set[str], others: list[set[str]]) -> np.ndarray:
    """Per candidate: shared direction words minus conflicting ones (left vs right, up vs down, ...),
    over the words of `dirs`; 0 when `dirs` is empty."""
    if not dirs:
        return np.zeros(len(others))
    opposite = {"left": "right", "right": "left", "up": "down", "down": "up", "front": "away",
                "away": "front", "big": "small", "small": "big"}
    return np.array([(len(dirs & o) - sum(opposite[d] in o for d in dirs)) / len(dirs) for o in others])


@lru_cache(maxsize=1)
def default_language() -> Language:
    """One shared `Language` per process (the encoder loads once)."""
    return Language()
