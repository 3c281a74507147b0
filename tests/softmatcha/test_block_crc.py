"""Issue 49 item 3: an index too large to check whole at load (over 64 MiB: only each file's first MiB)
gave wrong hits for a byte flipped further in. Every file now records the CRC-32 of each 1 MiB block, and a
query checks the blocks it reads, the first time it reads them."""

from __future__ import annotations

import json

import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.softmatcha import Index
from iclr25.softmatcha import index_format as fmt


@pytest.fixture()
def big(tmp_path, tiny_emb):
    """~1.5M tokens over the tiny vocabulary: tokens.bin and postings.bin span 6 blocks each."""
    rng = np.random.default_rng(0)
    words = list(tiny_emb.words[1:])
    ids = rng.integers(0, len(words), 1_500_000)
    lens = np.full(150_000, 10)
    return Index.from_token_ids(ids, lens, words, tmp_path / "i", tiny_emb)


def _load(path, emb):
    return Index.load(path, embeddings=emb, verify="head")  # what "auto" does above 64 MiB


def test_blocks_are_recorded_and_checked_where_read(big, tiny_emb):
    meta = json.loads((big.path / "meta.json").read_text())
    crcs = meta["files"]["tokens.bin"]["block_crc32"]
    assert len(crcs) == -(-meta["files"]["tokens.bin"]["bytes"] // fmt.BLOCK_BYTES) >= 6
    idx = _load(big.path, tiny_emb)
    assert isinstance(idx.tokens, fmt.CheckedArray)
    want = big.search("king of israel", 0.9, warn=False).positions
    assert idx.search("king of israel", 0.9, warn=False).positions.tolist() == want.tolist()
    # flip one byte in the 5th MiB of tokens.bin, keeping the size: the load (head) cannot see it
    f = big.path / "tokens.bin"
    data = bytearray(f.read_bytes())
    data[4 * fmt.BLOCK_BYTES + 123] ^= 0x01
    f.write_bytes(bytes(data))
    idx = _load(big.path, tiny_emb)
    first = idx.search_stream("king", 1.0, window=2**16)
    got = next(first.chunks())  # the first window reads the first MiB only: fine
    assert got.count > 0
    with pytest.raises(UserError, match=r"checksum mismatch in tokens.bin, block 4"):
        idx.search("king of israel", 0.9, warn=False)


def test_a_fully_checked_or_old_index_reads_plain_arrays(big, tiny_emb, tmp_path):
    idx = Index.load(big.path, embeddings=tiny_emb, verify="crc")  # every byte checked at load
    assert isinstance(idx.tokens, np.memmap)
    meta = json.loads((big.path / "meta.json").read_text())
    for info in meta["files"].values():
        info.pop("block_crc32", None)  # built before this round (which recorded no digest of meta.json)
    meta.pop("meta_sha256")
    (big.path / "meta.json").write_text(json.dumps(meta))
    assert isinstance(_load(big.path, tiny_emb).tokens, np.memmap)


def test_checked_array_behaves_like_the_array(tmp_path):
    a = np.arange(700_000, dtype=np.uint32)
    p = tmp_path / "x.bin"
    a.tofile(p)
    crcs = fmt.file_checksums(p)["block_crc32"]
    c = fmt.CheckedArray(np.memmap(p, dtype=np.uint32, mode="r"), fmt.BlockCheck(p, crcs, 4))
    idx = np.array([5, 600_000, 699_999])
    assert c[idx].tolist() == a[idx].tolist() and c[10:20].tolist() == a[10:20].tolist()
    assert int(c[-1]) == 699_999 and len(c) == c.shape[0] == 700_000
    assert np.asarray(c).sum() == a.sum() and c._check.ok.all()
