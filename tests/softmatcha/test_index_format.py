"""The on-disk format: memory-mapped load, checksums, versioning, atomic writes, the embeddings and
tokenizer an index records, invalid UTF-8, empty corpora, and bytes per token."""

from __future__ import annotations

import json

import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.softmatcha import BuildConfig, Embeddings, Index


def test_load_is_memory_mapped_and_equal(tiny_index):
    idx = Index.load(tiny_index.path, embeddings=tiny_index.embeddings, verify="full")
    assert isinstance(idx.tokens, np.memmap) and isinstance(idx.postings, np.memmap)
    assert idx.count("king of israel", 1.0) == tiny_index.count("king of israel", 1.0) == 3


def test_csr_postings_invert_the_forward_array(tiny_index):
    tok, post, ptr = np.asarray(tiny_index.tokens), np.asarray(tiny_index.postings), tiny_index.indptr
    for w in range(len(ptr) - 1):
        assert np.array_equal(post[ptr[w]:ptr[w + 1]], np.flatnonzero(tok == w))


def test_corrupted_file_fails_checksum(tiny_index, tmp_path):
    import shutil
    d = tmp_path / "copy"
    shutil.copytree(tiny_index.path, d)
    raw = bytearray((d / "tokens.bin").read_bytes())
    raw[5] ^= 0xFF
    (d / "tokens.bin").write_bytes(bytes(raw))
    with pytest.raises(UserError, match="checksum mismatch in tokens.bin"):
        Index.load(d, embeddings=tiny_index.embeddings)


def test_truncated_file_and_missing_meta(tiny_index, tmp_path):
    import shutil
    d = tmp_path / "copy"
    shutil.copytree(tiny_index.path, d)
    (d / "postings.bin").write_bytes((d / "postings.bin").read_bytes()[:-4])
    with pytest.raises(UserError, match="postings.bin has"):
        Index.load(d, embeddings=tiny_index.embeddings, verify="size")
    (d / "meta.json").unlink()
    with pytest.raises(UserError, match="not a complete SoftMatcha index"):
        Index.load(d, embeddings=tiny_index.embeddings)
    with pytest.raises(UserError, match="no index at"):
        Index.load(tmp_path / "nowhere")


def test_other_format_version_is_refused(tiny_index, tmp_path):
    import shutil
    d = tmp_path / "copy"
    shutil.copytree(tiny_index.path, d)
    meta = json.loads((d / "meta.json").read_text())
    meta["version"] = 99
    (d / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(UserError, match="format version 99"):
        Index.load(d, embeddings=tiny_index.embeddings)


def test_index_built_with_other_embeddings_is_refused(tiny_index, tiny_words):
    other = Embeddings.from_arrays(tiny_words, np.eye(8, 5), name="tiny")
    with pytest.raises(UserError, match="was built with embeddings"):
        Index.load(tiny_index.path, embeddings=other)


def test_custom_embeddings_must_be_given(tiny_index):
    with pytest.raises(UserError, match="custom embeddings 'tiny'"):
        Index.load(tiny_index.path)


def test_tokenizer_is_recorded_and_used_for_patterns(tiny_emb, tmp_path):
    pytest.importorskip("sacremoses")
    idx = Index.from_lines(["the king's men", "don't"], tmp_path / "m", embeddings=tiny_emb,
                           tokenizer="moses")
    assert idx.meta["tokenizer"] == "moses-v2"
    again = Index.load(tmp_path / "m", embeddings=tiny_emb)
    assert again.tokenizer.name == "moses-v2"
    assert again.count("king's men", 1.0) == 1  # the pattern goes through the same tokenizer


def test_interrupted_build_leaves_old_index_and_no_partial(tiny_lines, tiny_emb, tmp_path):
    out = tmp_path / "atomic"
    Index.from_lines(tiny_lines, out, embeddings=tiny_emb)
    before = sorted(p.name for p in tmp_path.iterdir())

    def lines():
        yield "the king"
        raise KeyboardInterrupt  # Ctrl-C in the middle of the build

    with pytest.raises(KeyboardInterrupt):
        Index.build(out, lines=lines(), embeddings=tiny_emb, overwrite=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no temp folder left behind
    assert Index.load(out, embeddings=tiny_emb, verify="full").count("king of israel", 1.0) == 3
    with pytest.raises(UserError, match="already exists"):
        Index.from_lines(tiny_lines, out, embeddings=tiny_emb)


def test_streaming_build_equals_one_chunk_build(tiny_lines, tiny_emb, tmp_path):
    cfg = BuildConfig(lines_per_block=2, sort_chunk=5)
    a = Index.from_lines(tiny_lines, tmp_path / "a", embeddings=tiny_emb, config=cfg)
    b = Index.from_lines(tiny_lines, tmp_path / "b", embeddings=tiny_emb)
    for name in ("tokens", "postings"):
        assert np.array_equal(np.asarray(getattr(a, name)), np.asarray(getattr(b, name)))


def test_invalid_utf8_is_replaced_and_counted(tiny_emb, tmp_path):
    f = tmp_path / "bad.txt"
    f.write_bytes(b"the king\nof \xff\xfe israel\nthe queen\n")
    with pytest.warns(UserWarning, match="1 line"):
        idx = Index.from_files([f], tmp_path / "i", embeddings=tiny_emb)
    assert idx.meta["invalid_utf8_lines"] == 1
    assert "\ufffd" in idx.line_text(1)
    assert [m.line for m in idx.search("the queen", 1.0)] == [3]


@pytest.mark.parametrize("lines", [[], ["", "   ", ""]])
def test_empty_corpus_is_refused(tiny_emb, tmp_path, lines):
    with pytest.raises(UserError, match="empty"):
        Index.from_lines(lines, tmp_path / "e", embeddings=tiny_emb)
    assert not (tmp_path / "e").exists()


def test_missing_input_file(tiny_emb, tmp_path):
    with pytest.raises(UserError, match="no such file"):
        Index.from_files([tmp_path / "nope.txt"], tmp_path / "e", embeddings=tiny_emb)


def test_sources_and_line_numbers_per_file(tiny_emb, tmp_path):
    (tmp_path / "a.txt").write_text("the king\nof israel\n")
    (tmp_path / "b.txt").write_text("x\nthe queen of syria\n")
    idx = Index.from_files([tmp_path / "a.txt", tmp_path / "b.txt"], tmp_path / "i", embeddings=tiny_emb)
    [m] = idx.search("queen of", 1.0)
    assert (m.source.endswith("b.txt"), m.line) == (True, 2)


def test_from_token_ids_matches_text_build(tiny_words, tiny_emb, tmp_path):
    words = tiny_words
    ids = np.array([words.index(w) for w in ["the", "king", "of", "israel", "the", "queen", "of", "syria"]])
    a = Index.from_token_ids(ids, np.array([4, 4]), words, tmp_path / "a", tiny_emb)
    b = Index.from_lines(["the king of israel", "the queen of syria"], tmp_path / "b", embeddings=tiny_emb)
    for q, alpha in [("king of israel", 0.9), ("the", 1.0)]:
        assert np.array_equal(a.search(q, alpha).positions, b.search(q, alpha).positions)
    assert a.search("king of israel", 0.9)[1].matched_text == "queen of syria"


def test_from_token_ids_in_small_blocks_equals_one_block(tiny_words, tiny_emb, tmp_path):
    """The token file is written block by block (bounded memory at 1e9 tokens): blocks of 2 lines,
    empty lines included, give the same tokens, postings and suffix array as one block."""
    from iclr25.softmatcha.build import BuildConfig
    rng = np.random.default_rng(3)
    lens = rng.integers(0, 6, 41)
    ids = rng.integers(0, len(tiny_words), int(lens.sum()))
    one = Index.from_token_ids(ids, lens, tiny_words, tmp_path / "one", tiny_emb)
    small = Index.from_token_ids(ids, lens, tiny_words, tmp_path / "small", tiny_emb,
                                 config=BuildConfig(sort_chunk=32))
    for name in ("tokens", "postings", "indptr", "suffix_array"):
        assert np.array_equal(np.asarray(getattr(small, name)), np.asarray(getattr(one, name))), name
    ends = np.cumsum(lens)
    k = int(np.flatnonzero(lens)[-1])
    assert small.line_tokens(k).size == lens[k]
    want = [tiny_words[i] for i in ids[ends[k] - lens[k]:ends[k]]]
    assert [small.vocab[t] for t in small.line_tokens(k)] == want


def test_bytes_per_token_at_most_twelve(tiny_words, tiny_emb, tmp_path):
    """12 B/token without the suffix array (v2's layout); <= 16 with it (issue 29's budget)."""
    from iclr25.softmatcha.build import BuildConfig
    rng = np.random.default_rng(0)
    words = tiny_words
    lines = [" ".join(rng.choice(words, 30)) for _ in range(2000)]
    idx = Index.from_lines(lines, tmp_path / "b", embeddings=tiny_emb, config=BuildConfig(suffix_array=None))
    assert idx.bytes_per_token() <= 12
    assert Index.from_lines(lines, tmp_path / "sa", embeddings=tiny_emb).bytes_per_token() <= 16


def test_persisted_vocabulary_map_equals_the_vocabulary(tiny_emb, tmp_path):
    """Format v2 stores a sorted token -> type id map, so a query's first lookup reads no vocabulary;
    it agrees with the vocabulary for every type, for absent tokens and for tokens too long for the map."""
    long = "x" * 100
    idx = Index.from_lines([f"the king of israel {long}", "queen ÿ日本 of syria"], tmp_path / "v",
                           embeddings=tiny_emb)
    assert "lookup_keys.npy" in idx.meta["files"] and idx._vocab_lookup is not None
    words = idx.vocab[1:] + ["absent", "x" * 99, "", "\x00sep"]
    truth = {w: i for i, w in enumerate(idx.vocab) if i}
    assert idx.type_ids(words) == [truth.get(w) for w in words]
    assert idx.count(long, 1.0) == 1 and idx.frequency("queen") == 1
