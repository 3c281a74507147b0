"""The served API under hostile use: broad queries go through a one-at-a-time lane (and are refused with
429 when too many queue), corpus names never reveal server paths, a damaged index folder is listed as
damaged without breaking the page or the other indexes, and the variants table a page shows is exactly
the head of the full table."""

from __future__ import annotations

import csv
import io
import threading

import numpy as np
import pytest
from fastapi import HTTPException
from fastapi.testclient import TestClient

from iclr25.core.web import create_app
from iclr25.softmatcha import web
from iclr25.softmatcha.embeddings import Embeddings
from iclr25.softmatcha.index import Index
from iclr25.softmatcha.results import group_rows

WORDS = ["the", "king", "queen", "of", "israel", "syria", "said"]


@pytest.fixture(scope="module")
def emb() -> Embeddings:
    rng = np.random.default_rng(3)
    return Embeddings.from_arrays(WORDS, rng.normal(size=(len(WORDS), 8)).astype(np.float32), name="limits")


@pytest.fixture(scope="module")
def setup(tmp_path_factory, emb):
    root = tmp_path_factory.mktemp("indexes")
    corpus = tmp_path_factory.mktemp("server-private") / "books"
    corpus.mkdir()
    rng = np.random.default_rng(0)
    for name in ("genesis.txt", "exodus.txt"):
        (corpus / name).write_text("\n".join(" ".join(rng.choice(WORDS, 6)) for _ in range(300)) + "\n")
    idx = Index.build(root / "bible", files=[corpus / "genesis.txt", corpus / "exodus.txt"], embeddings=emb)
    web.export_embeddings(emb, root / "bible")
    damaged = Index.from_lines(["the king"], root / "broken", embeddings=emb)
    (damaged.path / "meta.json").write_text('["not", "a", "meta"]')
    app = create_app(reports_dir=tmp_path_factory.mktemp("reports"), settings={"softmatcha_index_dir": root})
    return TestClient(app, base_url="http://localhost"), idx, corpus


def test_corpus_names_are_relative_never_server_paths(setup):
    client, _, corpus = setup
    r = client.get("/api/softmatcha/search", params={"index": "bible", "pattern": "the king", "threshold": 1})
    assert r.status_code == 200, r.text
    sources = {h["source"] for h in r.json()["hits"]}
    assert sources and sources <= {"genesis.txt", "exodus.txt"}
    rows = list(csv.reader(io.StringIO(client.get("/api/softmatcha/download", params={
        "index": "bible", "pattern": "the king", "threshold": 1, "format": "csv"}).text)))
    assert {row[0] for row in rows[1:]} <= {"genesis.txt", "exodus.txt"}
    body = client.get("/api/softmatcha/download", params={"index": "bible", "pattern": "the king",
                                                          "threshold": 1}).text
    assert str(corpus) not in body and str(corpus) not in r.text


def test_public_source_keeps_subfolders_and_drops_outside_paths():
    assert web.public_source("/srv/c/a/b.txt", "/srv/c") == "a/b.txt"
    assert web.public_source("/etc/passwd", "/srv/c") == "passwd"
    assert web.public_source("<lines>", "/srv/c") == "<lines>"
    assert web.source_root(type("I", (), {"meta": {"sources": [{"name": "/srv/c/x.txt"}]}})()) == "/srv/c"


def test_a_damaged_index_is_listed_as_damaged_and_the_rest_works(setup):
    client, _, _ = setup
    listed = {ix["name"]: ix for ix in client.get("/api/softmatcha/indexes").json()["indexes"]}
    assert "damaged" in listed["broken"] and "damaged" not in listed["bible"]
    page = client.get("/softmatcha")
    assert page.status_code == 200 and "broken (damaged" in page.text
    r = client.get("/api/softmatcha/search", params={"index": "broken", "pattern": "the king"})
    assert r.status_code == 409 and "broken" in r.json()["detail"] and str(client.app.state.settings[
        "softmatcha_index_dir"]) not in r.json()["detail"]
    ok = client.get("/api/softmatcha/search", params={"index": "bible", "pattern": "the king",
                                                      "threshold": 1})
    assert ok.status_code == 200


def test_heavy_lane_runs_one_and_refuses_beyond_the_queue():
    lane = web.HeavyLane(max_waiting=1, wait_seconds=0.2)
    inside, release = threading.Event(), threading.Event()

    def occupy():
        with lane.slot():
            inside.set()
            release.wait(5)

    t = threading.Thread(target=occupy)
    t.start()
    inside.wait(5)
    with pytest.raises(HTTPException) as busy, lane.slot():  # a queue place is free: waits, times out
        pass
    assert busy.value.status_code == 503
    lane._waiting = 1  # the queue is full (another broad query waits)
    with pytest.raises(HTTPException) as refused, lane.slot():
        pass
    assert refused.value.status_code == 429 and "broad queries" in refused.value.detail
    lane._waiting = 0
    release.set()
    t.join()
    with lane.slot():  # free again
        pass


def test_broad_queries_go_through_the_lane_and_ordinary_ones_do_not(setup, monkeypatch):
    client, idx, _ = setup

    def get(pattern, threshold):
        return client.get("/api/softmatcha/search", params={"index": "bible", "pattern": pattern,
                                                            "threshold": threshold})

    monkeypatch.setattr(web, "HEAVY_CANDIDATES", 10)
    busy = web.HeavyLane(max_waiting=0)
    monkeypatch.setattr(web, "_HEAVY", busy)
    busy._run.acquire()  # a broad query is running
    try:
        assert get("the", 0).status_code == 429
        rare = get("zebra", 1)
        assert rare.status_code == 200  # no candidates: never waits behind broad queries
    finally:
        busy._run.release()
    broad = get("the", 0)
    assert broad.status_code == 200 and broad.json()["count"] == idx.count("the", 0.0)
    download = client.get("/api/softmatcha/download", params={"index": "bible", "pattern": "the",
                                                              "threshold": 0})
    assert download.status_code == 200 and busy._run.acquire(blocking=False)  # released after the stream
    busy._run.release()


def test_variants_head_equals_the_full_table(setup):
    _, idx, _ = setup
    for pattern, alpha in [("the king", 0.0), ("king of", 0.3), ("the", 0.5)]:
        res = idx.search(pattern, alpha, warn=False)
        full = res.variants()
        for k in (0, 1, 3, 10, len(full) + 5):
            assert res.variants(k) == full[:k]


def test_group_rows_equals_numpy_unique():
    rng = np.random.default_rng(1)
    rows = rng.integers(0, 4, size=(500, 3))
    vals = rng.random(500)
    uniq, (counts, mins, sums) = group_rows(rows, (np.ones(500), vals, vals), (np.add, np.minimum, np.add))
    ref, inv, ref_counts = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
    order = np.lexsort(uniq.T[::-1])
    assert np.array_equal(uniq[order], ref) and np.array_equal(counts[order], ref_counts)
    inv = inv.reshape(-1)
    assert np.allclose(sums[order], np.bincount(inv, weights=vals))
    assert np.allclose(mins[order], [vals[inv == g].min() for g in range(len(ref))])
