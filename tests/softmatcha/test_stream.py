"""Issue 51 item 1: plain searches stream. Hits come window by window in corpus order, equal to the
complete enumeration; a window never splits a line; the CLI prints as it finds, counts without keeping
hits, and a closed pipe (`| head -1`) exits 0."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from iclr25.softmatcha import Index
from iclr25.softmatcha.search import iter_positions


@pytest.fixture(scope="module")
def zipf_index(tiny_emb, tmp_path_factory):
    rng = np.random.default_rng(0)
    words = list(tiny_emb.words[1:]) + ["zz", ",", "."]
    ids = rng.integers(0, len(words), 20_000)
    lens = rng.integers(1, 12, 4_000)
    lens[-1] += ids.size - lens.sum() if lens.sum() < ids.size else 0
    lens = lens[np.cumsum(lens) <= ids.size]
    ids = ids[:lens.sum()]
    return Index.from_token_ids(ids, lens, words, tmp_path_factory.mktemp("z") / "i", tiny_emb)


@pytest.mark.parametrize("pattern, alpha", [("king of", 0.8), ("the king", 0.5), ("of", 0.7),
                                            ("in israel", 1.0), ("zz ,", 1.0), ("queen", 0.0)])
@pytest.mark.parametrize("window", [64, 1000, 1 << 22])
def test_windows_give_the_complete_enumeration_in_order(zipf_index, pattern, alpha, window):
    whole = zipf_index.search(pattern, alpha, warn=False).positions
    st = zipf_index.search_stream(pattern, alpha, window=window)
    chunks = [r.positions for r in st.chunks()]
    got = np.concatenate(chunks) if chunks else np.empty(0, np.int64)
    assert got.tolist() == whole.tolist()
    lines = [set(r.line_indices().tolist()) for r in st.chunks()]
    for x, y in zip(lines, lines[1:], strict=False):
        assert not x & y and max(x) < min(y)  # a line's hits are all in one window


def test_dense_and_postings_paths_agree(zipf_index):
    slots, _ = zipf_index.slots("the king", 0.5)
    masks = [s.mask for s in slots]
    args = (masks, zipf_index.tokens, zipf_index.indptr, zipf_index.postings)
    sparse = np.concatenate(list(iter_positions(*args, window=500, dense_fraction=1.0)))
    dense = np.concatenate(list(iter_positions(*args, window=500, dense_fraction=0.0)))
    scan = np.concatenate(list(iter_positions(masks, zipf_index.tokens, window=500)))
    assert sparse.tolist() == dense.tolist() == scan.tolist()


def _cli(*args: str, stdin=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "iclr25.core.cli", "softmatcha", *args], capture_output=True,
                          text=True, timeout=120, stdin=stdin)


def test_cli_counts_and_pages_match_the_complete_search(tiny_emb, tiny_lines, tmp_path):
    from typer.testing import CliRunner

    from iclr25.softmatcha import Embeddings
    from iclr25.softmatcha.cli import app
    vec = tmp_path / "tiny.txt"  # a word2vec file: the index records it and the CLI reloads it
    vec.write_text("".join(f"{w} {' '.join(map(str, v))}\n" for w, v in
                           zip(tiny_emb.words[1:], np.asarray(tiny_emb.vectors[1:]), strict=True)))
    idx = Index.from_lines(tiny_lines * 50, tmp_path / "i", embeddings=Embeddings.from_word2vec_text(vec))
    r = CliRunner()
    res = idx.search("king of israel", 0.9, warn=False)
    path = str(idx.path)
    assert r.invoke(app, ["search", path, "king of israel", "-t", "0.9", "--count-matches"]).stdout == \
        f"{res.count}\n"
    lines = sorted(set(res.line_indices().tolist()))
    assert r.invoke(app, ["search", path, "king of israel", "-t", "0.9", "-c"]).stdout == f"{len(lines)}\n"
    out = r.invoke(app, ["search", path, "king of israel", "-t", "0.9", "-o", "--offset", "1",
                         "--limit", "2"])
    assert out.stdout.splitlines() == [m.matched_text for m in res[1:3]]
    assert r.invoke(app, ["search", path, "king of israel", "-t", "0.9", "-q"]).exit_code == 0


def test_closed_pipe_exits_zero(tmp_path):
    """`search ... | head -1`: the reader leaves after one line; grep and ripgrep exit 0 then."""
    f = tmp_path / "c.txt"
    f.write_text("the king of israel\n" * 20_000)
    cmd = (f"{sys.executable} -m iclr25.core.cli softmatcha grep 'the king' {f} -t 1 | head -1; "
           "echo \"rc=${PIPESTATUS[0]}\"")
    out = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=120)
    assert out.stdout.splitlines() == ["the king of israel", "rc=0"], out.stderr


def test_invalid_utf8_pattern_is_one_line(tmp_path):
    f = tmp_path / "c.txt"
    f.write_text("the king\n")
    out = subprocess.run([sys.executable, "-m", "iclr25.core.cli", "softmatcha", "grep", b"\xff\xfe", str(f)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "not valid UTF-8" in out.stderr
