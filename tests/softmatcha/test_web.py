"""The web tool's JSON API and page, through FastAPI's TestClient on the app `iclr25 serve` builds:
results equal the library's, paging is lossless, every parameter is validated, and only indexes in the
configured folder can be opened."""

from __future__ import annotations

import csv
import io
import json
import os

import numpy as np
import pytest
from fastapi.testclient import TestClient

from iclr25.core.web import create_app
from iclr25.softmatcha import web
from iclr25.softmatcha.index import Index
from iclr25.softmatcha.sharded import ShardedIndex

WORDS = ["the", "king", "queen", "prince", "of", "in", "israel", "syria", "went", "out", "said"]


@pytest.fixture(scope="module")
def corpus() -> list[str]:
    rng = np.random.default_rng(7)
    lines = [" ".join(rng.choice(WORDS, rng.integers(3, 12))) for _ in range(400)]
    return ["The King of Israel said", "the queen of Syria went out", *lines]


@pytest.fixture(scope="module")
def folder(tmp_path_factory, tiny_emb, corpus):
    root = tmp_path_factory.mktemp("indexes")
    idx = Index.from_lines(corpus, root / "demo", embeddings=tiny_emb)
    web.export_embeddings(idx.embeddings, root / "demo")
    sh = ShardedIndex.build(root / "demo-sharded", lines=corpus, n_shards=3, embeddings=tiny_emb)
    web.export_embeddings(sh.embeddings, root / "demo-sharded")
    (root / "not-an-index").mkdir()
    outside = tmp_path_factory.mktemp("outside")
    Index.from_lines(["secret king"], outside / "secret", embeddings=tiny_emb)
    os.symlink(outside / "secret", root / "linked")
    return root, idx


@pytest.fixture(scope="module")
def client(folder, tmp_path_factory):
    root, _ = folder
    app = create_app(reports_dir=tmp_path_factory.mktemp("reports"), settings={"softmatcha_index_dir": root})
    return TestClient(app, base_url="http://localhost")


def search(client, **params):
    r = client.get("/api/softmatcha/search", params={"index": "demo", **params})
    assert r.status_code == 200, r.text
    return r.json()


def test_indexes_lists_only_real_indexes_in_the_folder(client):
    names = {ix["name"]: ix for ix in client.get("/api/softmatcha/indexes").json()["indexes"]}
    assert set(names) == {"demo", "demo-sharded"}  # not the plain folder, not the symlink out
    assert names["demo-sharded"]["shards"] == 3
    assert names["demo"]["tokens"] > 1000


def test_search_equals_the_library(client, folder):
    _, idx = folder
    lib = idx.search("king of israel", threshold=0.8)
    body = search(client, pattern="king of israel", threshold=0.8, limit=200)
    assert body["count"] == lib.count > 0
    assert body["pattern"] == ["king", "of", "israel"] and body["thresholds"] == [0.8] * 3
    first = body["hits"][0]
    m = lib[0]
    assert (first["line"], first["key"], first["tokens"]) == (m.line, m.matched_text, list(m.tokens))
    assert first["left"] == m.text[:m.char_span[0]][-60:] and first["right"] == m.text[m.char_span[1]:][:60]
    assert body["seconds"] >= 0
    assert [(v["string"], v["count"]) for v in body["variants"]] == \
        [(v.string, v.count) for v in lib.variants()[:web.MAX_VARIANTS]]


def test_paging_is_lossless_and_ends(client, folder):
    _, idx = folder
    full = [(h["line"], h["char_span"]) for h in search(client, pattern="the king", limit=200)["hits"]]
    paged, offset = [], 0
    while offset is not None:
        body = search(client, pattern="the king", limit=7, offset=offset, variants=False)
        assert len(body["hits"]) <= 7 and "variants" not in body
        paged += [(h["line"], h["char_span"]) for h in body["hits"]]
        offset = body["next_offset"]
    count = idx.count("the king")
    assert paged[:200] == full and len(paged) == count
    assert search(client, pattern="the king", offset=10**6)["hits"] == []


def test_hits_fall_as_the_threshold_rises(client):
    counts = [search(client, pattern="king of israel", threshold=a)["count"] for a in (0.5, 0.8, 0.92, 1.0)]
    assert counts == sorted(counts, reverse=True) and counts[0] > counts[-1]


def test_per_token_thresholds_override_the_slider(client, folder):
    _, idx = folder
    body = search(client, pattern="king of israel", threshold=0.1, thresholds="1, 1, 0.9")
    assert body["thresholds"] == [1.0, 1.0, 0.9]
    assert body["count"] == idx.count("king of israel", [1.0, 1.0, 0.9])


def test_sharded_index_answers_like_the_single_one(client):
    a = search(client, pattern="queen of syria", threshold=0.85, limit=200)
    r = client.get("/api/softmatcha/search", params={"index": "demo-sharded", "pattern": "queen of syria",
                                                     "threshold": 0.85, "limit": 200})
    b = r.json()
    assert b["count"] == a["count"] and b["hits"] == a["hits"] and b["variants"] == a["variants"]


@pytest.mark.parametrize("params, status", [
    ({"pattern": "x" * 201}, 422),                            # pattern too long
    ({"pattern": "king", "threshold": 1.5}, 422),             # threshold out of range
    ({"pattern": "king", "threshold": -0.1}, 422),
    ({"pattern": "king", "threshold": "nan"}, 422),
    ({"pattern": "king", "limit": 201}, 422),                 # page too large
    ({"pattern": "king", "limit": 0}, 422),
    ({"pattern": "king", "offset": -1}, 422),
    ({"pattern": "king", "context": 1000}, 422),
    ({"pattern": "king of", "thresholds": "1"}, 422),         # wrong number of per-token thresholds
    ({"pattern": "king", "thresholds": "abc"}, 422),
    ({"pattern": "king", "thresholds": "2"}, 422),
    ({"pattern": "   "}, 422),                                 # no tokens
    ({"pattern": " ".join(["king"] * 17)}, 422),              # too many tokens
    ({"pattern": "king", "index": "../outside"}, 422),        # traversal: not a folder name
    ({"pattern": "king", "index": "..%2Fsecret"}, 422),
    ({"pattern": "king", "index": "/etc"}, 422),
    ({"pattern": "king", "index": "linked"}, 404),            # a symlink out of the folder
    ({"pattern": "king", "index": "not-an-index"}, 404),
    ({"pattern": "king", "index": "missing"}, 404),
])
def test_bad_parameters_are_refused_with_a_message(client, params, status):
    r = client.get("/api/softmatcha/search", params={"index": "demo", **params})
    assert r.status_code == status, r.text
    assert r.json()["detail"]


def test_too_broad_query_is_refused_not_enumerated(client, monkeypatch):
    monkeypatch.setattr(web, "MAX_CANDIDATES", 10)
    r = client.get("/api/softmatcha/search", params={"index": "demo", "pattern": "the", "threshold": 0.9})
    assert r.status_code == 422 and "too broad" in r.json()["detail"]


def test_download_json_and_csv_hold_every_hit(client, folder):
    _, idx = folder
    n = idx.count("king of", 0.8)
    r = client.get("/api/softmatcha/download", params={"index": "demo", "pattern": "king of",
                                                       "format": "json"})
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    body = json.loads(r.text)
    assert body["count"] == n == len(body["matches"]) and not body["truncated"]
    assert all(m["matched_text"].lower().split()[1] in ("of", "in") for m in body["matches"])
    r = client.get("/api/softmatcha/download", params={"index": "demo", "pattern": "king of",
                                                       "format": "csv"})
    rows = list(csv.reader(io.StringIO(r.text)))
    assert rows[0][:3] == ["source", "line", "matched_text"] and len(rows) == n + 1
    assert client.get("/api/softmatcha/download", params={"index": "demo", "pattern": "king",
                                                          "format": "xml"}).status_code == 422


def test_download_is_capped(client, monkeypatch):
    monkeypatch.setattr(web, "MAX_DOWNLOAD", 5)
    r = client.get("/api/softmatcha/download", params={"index": "demo", "pattern": "the", "format": "json"})
    body = json.loads(r.text)
    assert len(body["matches"]) == 5 and body["truncated"] and r.headers["x-truncated"] == "1"


def test_page_and_static_files(client):
    r = client.get("/softmatcha")
    assert r.status_code == 200 and 'id="sm-pattern"' in r.text and '<option value="demo">' in r.text
    assert "demo-sharded" in r.text and 'type="range"' in r.text
    assert client.get("/softmatcha/static/softmatcha.js").status_code == 200
    assert client.get("/softmatcha/static/..%2Fweb.py").status_code == 404
    assert client.get("/softmatcha/static/web.py").status_code == 404


def test_page_says_how_to_build_an_index_when_the_folder_is_empty(tmp_path):
    app = create_app(reports_dir=tmp_path, settings={"softmatcha_index_dir": tmp_path / "none"})
    r = TestClient(app, base_url="http://localhost").get("/softmatcha")
    assert r.status_code == 200 and 'id="no-indexes"' in r.text


def test_openapi_documents_the_search_parameters(client):
    spec = client.get("/openapi.json").json()
    params = {p["name"]: p for p in spec["paths"]["/api/softmatcha/search"]["get"]["parameters"]}
    assert {"index", "pattern", "threshold", "thresholds", "offset", "limit"} <= set(params)
    assert params["threshold"]["schema"]["maximum"] == 1.0
    assert params["limit"]["schema"]["maximum"] == web.MAX_PAGE
    assert all(p.get("description") for p in params.values())


def test_index_folder_falls_back_to_the_environment(tmp_path, monkeypatch, folder):
    root, _ = folder
    monkeypatch.setenv("ICLR25_SOFTMATCHA_INDEXES", str(root))
    c = TestClient(create_app(reports_dir=tmp_path), base_url="http://localhost")
    names = {ix["name"] for ix in c.get("/api/softmatcha/indexes").json()["indexes"]}
    assert names == {"demo", "demo-sharded"}
