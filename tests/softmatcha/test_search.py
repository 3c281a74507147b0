"""Search semantics on a tiny corpus with known cosines: soft sets, thresholds, exact mode, OOV tokens,
line boundaries, spans and scores."""

from __future__ import annotations

import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.softmatcha import Embeddings, Index


def hits(idx, pattern, threshold):
    return [(m.line, m.matched_text) for m in idx.search(pattern, threshold, warn=False)]


def test_exact_mode_finds_only_the_literal_phrase(tiny_index):
    assert hits(tiny_index, "the king of israel", 1.0) == [
        (1, "The king of Israel"), (7, "THE KING OF ISRAEL"), (7, "the king of israel")]


def test_soft_threshold_admits_words_above_alpha_only(tiny_index):
    # queen ~ king 0.9, syria ~ israel 0.95: admitted at 0.9; prince (0.6) and in (0.8) are not
    assert (2, "the queen of Syria") in hits(tiny_index, "the king of israel", 0.9)
    assert all("prince" not in t for _, t in hits(tiny_index, "the king of israel", 0.9))
    # at 0.6 "prince in israel" also matches (king~prince 0.6, of~in 0.8)
    assert (2, "the prince in Israel") in hits(tiny_index, "the king of israel", 0.6)


def test_per_token_thresholds(tiny_index):
    # exact "king", soft elsewhere: the queen line is gone, the Israel lines remain
    got = hits(tiny_index, "king of israel", [1.0, 0.5, 0.5])
    assert got == [(1, "king of Israel"), (7, "KING OF ISRAEL"), (7, "king of israel")]


def test_hits_are_monotone_in_alpha(tiny_index):
    counts = [tiny_index.count("the king of israel", a) for a in np.linspace(0, 1, 11)]
    assert counts == sorted(counts, reverse=True)


def test_alpha_one_is_exact_despite_float_rounding(tmp_path):
    # find a vector whose float32 unit-norm self-dot rounds below 1 (spec §2 pitfall)
    rng = np.random.default_rng(0)
    while True:
        v = rng.normal(size=50).astype(np.float32)
        u = v / np.linalg.norm(v)
        if float(u @ u) < 1.0:
            break
    emb = Embeddings.from_arrays(["w", "x"], np.vstack([v, rng.normal(size=50)]))
    assert float(emb.vectors[1] @ emb.vectors[1]) < 1.0
    idx = Index.from_lines(["w x w", "x"], tmp_path / "i", embeddings=emb)
    assert idx.count("w", 1.0) == 2
    assert idx.count("w", 0.9999) == 2


def test_matches_never_cross_lines(tiny_index):
    # line 3 ends "king of", line 4 starts "israel": not a match
    assert all(line != 3 for line, _ in hits(tiny_index, "king of israel", 0.5))


def test_char_spans_slice_the_original_line(tiny_index):
    for m in tiny_index.search("the king of israel", 0.5, warn=False):
        assert m.text[m.char_span[0]:m.char_span[1]].lower().split()[0] == m.tokens[0]
        assert m.matched_text == m.text[m.char_span[0]:m.char_span[1]]
        assert m.token_span[1] - m.token_span[0] == 4


def test_scores_are_the_clipped_cosines(tiny_index):
    m = next(m for m in tiny_index.search("the king of israel", 0.9, warn=False) if m.line == 2)
    assert m.tokens == ("the", "queen", "of", "syria")
    assert m.scores == pytest.approx((1.0, 0.9, 1.0, 0.95), abs=1e-5)


def test_oov_pattern_token_warns_and_matches_literally(tiny_index):
    with pytest.warns(UserWarning, match="zorblax"):
        res = tiny_index.search("zorblax of israel", 0.5)
    assert [(m.line, m.matched_text) for m in res] == [(5, "zorblax of israel")]


def test_absent_word_matches_nothing(tiny_index):
    assert tiny_index.count("unicorn", 0.5) == 0


def test_alpha_zero_matches_every_window_within_lines(tiny_index):
    """At alpha 0 a word pattern matches every window of two words within a line; punctuation only when
    the punctuation policy is lifted (issue 51: by default words match words, punctuation punctuation)."""
    from dataclasses import replace
    lines = [tiny_index.tokenizer.tokenize(tiny_index.line_text(k)) for k in range(tiny_index.n_lines)]
    n_windows = sum(max(0, len(t) - 1) for t in lines)
    n_word_windows = sum(a.isalnum() and b.isalnum() for t in lines for a, b in zip(t, t[1:], strict=False))
    assert n_word_windows < n_windows  # the corpus has punctuation
    assert tiny_index.count("of of", 0.0) == n_word_windows
    assert tiny_index.count(", ;", 0.0) == sum(not a.isalnum() and not b.isalnum() for t in lines
                                               for a, b in zip(t, t[1:], strict=False))
    mixed = replace(tiny_index.config, mix_punctuation=True)
    old, tiny_index.config = tiny_index.config, mixed
    try:
        tiny_index.forget_lists()
        assert tiny_index.count("of of", 0.0) == n_windows
    finally:
        tiny_index.config = old
        tiny_index.forget_lists()


def test_variants_and_kwic(tiny_index):
    res = tiny_index.search("the king of israel", 0.9, warn=False)
    vs = {v.string: v for v in res.variants()}
    assert vs["the king of israel"].count == 3
    assert vs["the queen of syria"].min_score == pytest.approx(0.9, abs=1e-5)
    rows = res.kwic(width=10, sort="right")
    assert len(rows) == res.count and all(r.count("|") == 2 for r in rows)
    assert len({r.index("|") for r in rows}) == 1  # aligned key column


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan")])
def test_threshold_outside_unit_interval_is_refused(tiny_index, bad):
    with pytest.raises(UserError, match="threshold"):
        tiny_index.search("king", bad)


def test_threshold_list_must_match_pattern_length(tiny_index):
    with pytest.raises(UserError, match="2 thresholds"):
        tiny_index.search("the king of", [0.5, 0.5])


@pytest.mark.parametrize("pattern", ["", "   ", "\t"])
def test_empty_pattern_is_refused(tiny_index, pattern):
    with pytest.raises(UserError, match="empty pattern"):
        tiny_index.search(pattern)


def test_huge_pattern_is_refused(tiny_index):
    with pytest.raises(UserError, match="10000 tokens"):
        tiny_index.search(" ".join(["king"] * 10_000))


def test_json_round_trip(tiny_index):
    import json
    d = json.loads(tiny_index.search("king of israel", 1.0, warn=False).to_json())
    assert d["count"] == 3 and d["matches"][0]["matched_text"] == "king of Israel"
