"""The web API's ranked variants (issue 29): /variants equals `Index.variants`, edits and wildcards page
their occurrences losslessly through /search, and bad values are 422s."""

from __future__ import annotations

import numpy as np
import pytest
from fastapi.testclient import TestClient

from iclr25.core.web import create_app
from iclr25.softmatcha import web
from iclr25.softmatcha.index import Index

WORDS = ["the", "king", "queen", "prince", "of", "in", "israel", "syria", "went", "out"]


@pytest.fixture(scope="module")
def setup(tmp_path_factory, tiny_emb):
    root = tmp_path_factory.mktemp("indexes")
    rng = np.random.default_rng(5)
    lines = [" ".join(rng.choice(WORDS, rng.integers(3, 10))) for _ in range(150)]
    idx = Index.from_lines(lines, root / "demo", embeddings=tiny_emb)
    web.export_embeddings(idx.embeddings, root / "demo")
    app = create_app(reports_dir=tmp_path_factory.mktemp("reports"), settings={"softmatcha_index_dir": root})
    return TestClient(app, base_url="http://localhost"), idx


def test_variants_endpoint_equals_the_library(setup):
    client, idx = setup
    r = client.get("/api/softmatcha/variants", params={"index": "demo", "pattern": "king of israel",
                                                       "threshold": 0.5, "k": 7, "max_insert": 1,
                                                       "score": "product"})
    assert r.status_code == 200, r.text
    want = idx.variants("king of israel", 0.5, 7, max_insert=1, score="product")
    assert [(v["rank"], v["string"], v["count"]) for v in r.json()["variants"]] == \
        [(i, v.string, v.count) for i, v in enumerate(want, 1)]


@pytest.mark.parametrize("params", [{"pattern": "king _ israel"}, {"pattern": "king israel", "max_insert": 2},
                                    {"pattern": "the king of israel", "max_delete": 1}])
def test_ranked_search_pages_every_occurrence_once(setup, params):
    client, idx = setup
    seen, offset = [], 0
    while offset is not None:
        r = client.get("/api/softmatcha/search", params={"index": "demo", "threshold": 0.8, "limit": 9,
                                                         "offset": offset, **params})
        assert r.status_code == 200, r.text
        body = r.json()
        seen += [(h["source"], h["line"], h["token_span"][0]) for h in body["hits"]]  # a place: its start
        offset = body["next_offset"]
    from iclr25.softmatcha.variants import VariantConfig
    cfg = VariantConfig(max_insert=params.get("max_insert", 0), max_delete=params.get("max_delete", 0))
    total = idx.hits(params["pattern"], 0.8, cfg).count  # one hit per start position (issue 51)
    assert body["ranked"] and body["count"] == total == len(seen) == len(set(seen)) > 0
    assert body["count_complete"]


@pytest.mark.parametrize(("params", "msg"), [
    ({"max_insert": -1}, "greater than or equal"), ({"max_delete": 9}, "less than or equal"),
    ({"k": 0}, "greater than or equal"), ({"score": "mean"}, "min"), ({"pattern": "* _"}, "only wildcards"),
    ({"pattern": "king of", "max_delete": 2}, "would delete the whole"),
])
def test_bad_variant_queries_are_422(setup, params, msg):
    client, _ = setup
    params = {"index": "demo", "pattern": "king of israel", **params}
    r = client.get("/api/softmatcha/variants", params=params)
    assert r.status_code == 422 and msg in r.text
