"""The web tool's collocation table and top-k mode (issue 52), through FastAPI's TestClient: equal to the
library's, every parameter validated, regex tokens that could backtrack refused."""

from __future__ import annotations

import numpy as np
import pytest
from fastapi.testclient import TestClient

from iclr25.core.web import create_app
from iclr25.softmatcha import web
from iclr25.softmatcha.index import Index
from iclr25.softmatcha.sharded import ShardedIndex
from iclr25.softmatcha.variants import VariantConfig

WORDS = ["the", "king", "queen", "prince", "of", "in", "israel", "syria", "went", "out", "said", ","]


@pytest.fixture(scope="module")
def served(tmp_path_factory, tiny_emb):
    root = tmp_path_factory.mktemp("indexes")
    rng = np.random.default_rng(11)
    lines = ["The King of Israel said",
             *(" ".join(rng.choice(WORDS, rng.integers(3, 12))) for _ in range(300))]
    idx = Index.from_lines(lines, root / "demo", embeddings=tiny_emb)
    web.export_embeddings(idx.embeddings, root / "demo")
    sh = ShardedIndex.build(root / "sharded", lines=lines, n_shards=2, embeddings=tiny_emb)
    web.export_embeddings(sh.embeddings, root / "sharded")
    app = create_app(reports_dir=tmp_path_factory.mktemp("reports"), settings={"softmatcha_index_dir": root})
    return TestClient(app, base_url="http://localhost"), idx


def get(client, path, **params):
    return client.get(path, params={"index": "demo", **params})


def test_collocates_equal_the_library(served):
    client, idx = served
    r = get(client, "/api/softmatcha/collocates", pattern="king of", threshold=0.8, left=2, right=3, k=10,
            min_count=3, by="mi")
    assert r.status_code == 200, r.text
    body = r.json()
    want = idx.collocates("king of", 0.8, left=2, right=3, min_count=3, by="mi", top_k=10)
    assert body["count"] == idx.count("king of", 0.8) == want.n_hits
    assert [(c["collocate"], c["window"], c["corpus"]) for c in body["rows"]] == [
        (c.string, c.window, c.corpus) for c in want.rows]
    assert [c["rank"] for c in body["rows"]] == list(range(1, len(want.rows) + 1))
    assert (body["span_tokens"], body["population"]) == (want.span_tokens, want.population)
    assert "Dunning 1993" in body["reference"]


def test_collocates_of_an_edit_query_use_one_hit_per_place(served):
    client, idx = served
    body = get(client, "/api/softmatcha/collocates", pattern="king israel", threshold=0.8, max_insert=1,
               min_count=1, k=1000).json()
    assert body["count"] == idx.hits("king israel", 0.8, VariantConfig(max_insert=1)).count


@pytest.mark.parametrize("params, status", [
    ({"left": 0, "right": 0}, 422), ({"left": 51}, 422), ({"by": "t"}, 422), ({"min_count": 0}, 422),
    ({"k": 0}, 422), ({"threshold": 2}, 422), ({"index": "sharded"}, 422), ({"index": "../x"}, 422),
    ({"index": "nope"}, 404)])
def test_collocates_validate_every_parameter(served, params, status):
    client, _ = served
    r = client.get("/api/softmatcha/collocates", params={"index": "demo", "pattern": "the king", **params})
    assert r.status_code == status, r.text


def test_regex_tokens_that_could_backtrack_are_refused(served):
    client, idx = served
    ok = get(client, "/api/softmatcha/search", pattern="the /k.*g/", threshold=1.0)
    assert ok.status_code == 200 and ok.json()["count"] == idx.count("the /k.*g/", 1.0) > 0
    for bad in ("/(a+)+b/", "/(k.*)*/", "/(a)\\1/", "/" + "a" * 70 + "/"):
        r = get(client, "/api/softmatcha/search", pattern=bad)
        assert r.status_code == 422 and "refused here" in r.json()["detail"], bad
        assert get(client, "/api/softmatcha/variants", pattern=bad).status_code == 422


def test_topk_without_threshold_and_its_budget(served):
    """The page's top-k mode: no threshold, the k closest, a budget after which the best found so far
    come back marked partial (exact, since they come in score order)."""
    client, idx = served
    body = get(client, "/api/softmatcha/variants", pattern="queen of syria", k=5, max_runtime=5).json()
    assert not body["partial"]
    assert [(v["string"], v["count"]) for v in body["variants"]] == [
        (v.string, v.count) for v in idx.variants("queen of syria", 0.0, k=5)]
    cut = get(client, "/api/softmatcha/variants", pattern="the the the the", max_insert=4, max_delete=2,
              k=1000, max_runtime=1e-6).json()
    assert cut["partial"] is True
    full = [v.string for v in idx.variants("the the the the", 0.0, k=len(cut["variants"]) or 1,
                                           max_insert=4, max_delete=2)]
    assert [v["string"] for v in cut["variants"]] == full[:len(cut["variants"])]


def test_the_page_has_the_topk_mode_and_the_collocates_panel(served):
    client, _ = served
    html = client.get("/softmatcha").text
    for needle in ('id="sm-mode"', 'value="topk"', 'id="sm-k"', 'id="sm-budget"', 'id="sm-coll-go"',
                   'id="sm-colloc"', 'id="sm-partial"'):
        assert needle in html
