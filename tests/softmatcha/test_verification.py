"""One verification path for the CLI and the web app (index_format.verify_files): every load checks sizes
and a CRC-32 of every file, so a damaged index is refused with one line instead of giving wrong hits; the
SHA-256 is checked on demand (`info --verify`); a damaged meta.json is a one-line error, not a KeyError;
version-1 indexes (SHA-256 only) still load."""

from __future__ import annotations

import json
import shutil

import pytest
from fastapi.testclient import TestClient

from iclr25.core.errors import UserError
from iclr25.core.web import create_app
from iclr25.softmatcha import Index, web
from iclr25.softmatcha.index_format import auto_level, read_meta, verify_files

FILES = ["tokens.bin", "postings.bin", "indptr.bin", "emb_rows.bin", "vocab.txt", "line_bytes.bin",
         "text.txt"]


def _copy(tiny_index, tmp_path, name="copy"):
    d = tmp_path / name
    shutil.copytree(tiny_index.path, d)
    return d


def _flip(path, at=-3):
    """Same-size corruption: one byte changed, the size untouched."""
    raw = bytearray(path.read_bytes())
    raw[at] ^= 0x01
    path.write_bytes(bytes(raw))


@pytest.mark.parametrize("name", FILES)
def test_same_size_corruption_of_any_file_is_refused_at_load(tiny_index, tmp_path, name):
    d = _copy(tiny_index, tmp_path)
    _flip(d / name)
    with pytest.raises(UserError, match=rf"corrupted index .*checksum mismatch in {name} \(CRC-32\)"):
        Index.load(d, embeddings=tiny_index.embeddings)
    Index.load(d, embeddings=tiny_index.embeddings, verify="size")  # sizes alone cannot see it


def test_levels_head_and_full(tiny_index, tmp_path):
    d = _copy(tiny_index, tmp_path)
    meta = read_meta(d)
    assert auto_level(meta) == "crc"  # a small index: every byte is checked at every load
    _flip(d / "postings.bin", at=0)
    for level, what in (("head", "CRC-32 of its first MiB"), ("full", "SHA-256")):
        with pytest.raises(UserError, match=f"postings.bin \\({what}\\)"):
            verify_files(d, meta, level)
    with pytest.raises(UserError, match="verify must be one of"):
        verify_files(d, meta, "sometimes")


def test_large_indexes_check_each_file_head(tiny_index, tmp_path, monkeypatch):
    from iclr25.softmatcha import index_format
    monkeypatch.setattr(index_format, "CRC_ALL_BELOW", 10)
    assert auto_level(read_meta(tiny_index.path)) == "head"


def test_version_1_index_still_loads_and_is_verified_by_its_sha256(tiny_index, tmp_path):
    d = _copy(tiny_index, tmp_path)
    meta = json.loads((d / "meta.json").read_text())
    meta["version"] = 1
    meta.pop("meta_sha256")  # version 1 recorded no checksum of meta.json
    for info in meta["files"].values():  # version 1 recorded bytes and a SHA-256 only
        del info["crc32"], info["head_crc32"]
    (d / "meta.json").write_text(json.dumps(meta))
    old = Index.load(d, embeddings=tiny_index.embeddings)
    assert old.meta["version"] == 1 and auto_level(old.meta) == "full"
    assert old.count("king of israel", 0.8) == tiny_index.count("king of israel", 0.8)
    _flip(d / "tokens.bin")
    with pytest.raises(UserError, match=r"tokens.bin \(SHA-256\)"):
        Index.load(d, embeddings=tiny_index.embeddings)


@pytest.mark.parametrize("edit", [
    lambda m: m.pop("n_lines"), lambda m: m.pop("files"), lambda m: m.pop("sources"),
    lambda m: m.pop("embeddings"), lambda m: m["embeddings"].pop("fingerprint"),
    lambda m: m.__setitem__("n_tokens", "many"), lambda m: m.__setitem__("arrays", []),
    lambda m: m["arrays"]["tokens"].__setitem__("dtype", "object"),
    lambda m: m["arrays"]["postings"].__setitem__("shape", [3]),
    lambda m: m["sources"][0].__setitem__("first_line", 5),
    lambda m: m.__setitem__("tokenizer", None),
], ids=["n_lines", "files", "sources", "embeddings", "fingerprint", "n_tokens-type", "arrays-type", "dtype",
        "shape", "first_line", "tokenizer"])
def test_meta_json_missing_or_malformed_keys_is_one_line_error(tiny_index, tmp_path, edit):
    d = _copy(tiny_index, tmp_path)
    meta = json.loads((d / "meta.json").read_text())
    edit(meta)
    (d / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(UserError, match=f"corrupted index {d}: meta.json"):
        Index.load(d, embeddings=tiny_index.embeddings)


def test_meta_json_not_an_object(tiny_index, tmp_path):
    d = _copy(tiny_index, tmp_path)
    (d / "meta.json").write_text("[1, 2]")
    with pytest.raises(UserError, match="is not a SoftMatcha index"):
        Index.load(d, embeddings=tiny_index.embeddings)


def test_web_app_refuses_a_same_size_corrupted_index(tiny_index, tmp_path):
    root = tmp_path / "indexes"
    root.mkdir()
    for name in ("good", "bad"):
        shutil.copytree(tiny_index.path, root / name)
        web.export_embeddings(tiny_index.embeddings, root / name)
    _flip(root / "bad" / "postings.bin")
    client = TestClient(create_app(reports_dir=tmp_path / "reports", settings={"softmatcha_index_dir": root}),
                        base_url="http://localhost")
    ok = client.get("/api/softmatcha/search", params={"index": "good", "pattern": "king of israel",
                                                       "threshold": 1.0})
    assert ok.status_code == 200 and ok.json()["count"] == 3
    r = client.get("/api/softmatcha/search", params={"index": "bad", "pattern": "king of israel",
                                                      "threshold": 1.0})
    assert r.status_code == 409
    assert "checksum mismatch in postings.bin" in r.json()["detail"]
    assert str(root) not in r.text  # no server path in the message


def test_sharded_index_verifies_every_shard(tiny_lines, tiny_emb, tmp_path):
    from iclr25.softmatcha import ShardedIndex
    sh = ShardedIndex.build(tmp_path / "sh", lines=tiny_lines * 3, n_shards=2, embeddings=tiny_emb)
    _flip(sh.path / "shard-001" / "postings.bin")
    with pytest.raises(UserError, match=r"shard-001: checksum mismatch in postings.bin \(CRC-32\)"):
        ShardedIndex.load(sh.path, embeddings=tiny_emb)


def test_an_edited_meta_json_is_refused(tmp_path, tiny_emb):
    """Issue 49: one changed byte in meta.json's source name reattributed every hit to another file."""
    import json

    from iclr25.core.errors import UserError
    from iclr25.softmatcha import Index
    f = tmp_path / "notes.txt"
    f.write_text("the king of israel\n")
    idx = Index.from_files([f], tmp_path / "i", embeddings=tiny_emb)
    meta_path = idx.path / "meta.json"
    text = meta_path.read_text()
    meta_path.write_text(text.replace("notes.txt", "motes.txt"))
    with pytest.raises(UserError, match="meta.json does not match its own checksum"):
        Index.load(idx.path, embeddings=tiny_emb)
    meta_path.write_text(text)
    assert Index.load(idx.path, embeddings=tiny_emb).meta["sources"][0]["name"].endswith("notes.txt")
    assert json.loads(text)["meta_sha256"]
