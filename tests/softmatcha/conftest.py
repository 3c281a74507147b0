"""Shared fixtures: a tiny embedding table with known cosines, and small indexes built from it."""

from __future__ import annotations

import numpy as np
import pytest

from iclr25.softmatcha import Embeddings, Index

# cos(king, queen) = 0.9, cos(king, prince) = 0.6, cos(of, in) = 0.8, cos(israel, syria) = 0.95
TINY = {
    "the": [1, 0, 0, 0, 0],
    "king": [0, 1, 0, 0, 0],
    "queen": [0, 0.9, np.sqrt(1 - 0.81), 0, 0],
    "prince": [0, 0.6, 0, 0.8, 0],
    "of": [0, 0, 0, 0, 1],
    "in": [0, 0, 0, 0.6, 0.8],
    "israel": [0, 0, 1, 0, 0],
    "syria": [0, 0, 0.95, np.sqrt(1 - 0.9025), 0],
}

LINES = [
    "The king of Israel said",        # 1
    "the queen of Syria, and the prince in Israel",  # 2
    "king of",                        # 3: the pattern must not continue on line 4
    "israel went out",                # 4
    "a zorblax of israel",            # 5: zorblax has no embedding
    "",                               # 6: empty line
    "THE KING OF ISRAEL; the king of israel",  # 7: two matches on one line
]


@pytest.fixture(scope="session")
def tiny_emb() -> Embeddings:
    return Embeddings.from_arrays(list(TINY), np.array(list(TINY.values()), dtype=np.float32), name="tiny")


@pytest.fixture(scope="session")
def tiny_index(tiny_emb, tmp_path_factory) -> Index:
    return Index.from_lines(LINES, tmp_path_factory.mktemp("idx") / "tiny.smidx", embeddings=tiny_emb)


@pytest.fixture(scope="session")
def tiny_lines() -> list[str]:
    return list(LINES)


@pytest.fixture(scope="session")
def tiny_words() -> list[str]:
    return list(TINY)
