"""Tokenizers: what a token is, spans into the original line, and the tokenizer registry."""

from __future__ import annotations

import pytest

from iclr25.core.errors import UserError
from iclr25.softmatcha import WordTokenizer, get_tokenizer


def test_word_tokenizer_is_lower_case_words_and_single_punctuation():
    assert WordTokenizer().tokenize("Hello, WORLD's 2nd  test_case!") == [
        "hello", ",", "world", "'", "s", "2nd", "test_case", "!"]


@pytest.mark.parametrize("line", ["The King's men.", "  À la carte — déjà vu!", "İstanbul ﬁne", ""])
def test_spans_slice_the_original_line_to_each_token(line):
    tok = WordTokenizer()
    spans = tok.spans(line)
    assert [t for t, _, _ in spans] == tok.tokenize(line)
    for t, a, b in spans:
        assert line[a:b].lower() == t


def test_moses_spans_cover_tokens():
    pytest.importorskip("sacremoses")
    tok = get_tokenizer("moses")
    line = "Don't stop, the King's men."
    for t, a, b in tok.spans(line):
        assert line[a:b].lower() == t


def test_unknown_tokenizer():
    with pytest.raises(UserError, match="unknown tokenizer"):
        get_tokenizer("spacy")
