"""The search page in a real headless browser (Debian's chromium driven by Playwright) against a real
uvicorn server on loopback: type a query, move the slider, see highlighted hits and the count change,
page with "Load more", and download all hits."""

from __future__ import annotations

import json
import shutil
import socket
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from iclr25.softmatcha import web
from iclr25.softmatcha.index import Index

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage"]

pytestmark = [pytest.mark.browser, pytest.mark.slow]

if not CHROMIUM.is_file():
    pytest.skip("needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api",
                               reason="needs the python package playwright (dev extra)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory, tiny_emb):
    import uvicorn

    from iclr25.core.web import create_app
    root = tmp_path_factory.mktemp("indexes")
    rng = np.random.default_rng(3)
    words = ["the", "king", "queen", "prince", "of", "in", "israel", "syria", "went", "out"]
    lines = [" ".join(rng.choice(words, rng.integers(4, 12))) for _ in range(300)]
    idx = Index.from_lines(["The King of Israel said", *lines], root / "demo", embeddings=tiny_emb)
    web.export_embeddings(idx.embeddings, root / "demo")
    app = create_app(reports_dir=tmp_path_factory.mktemp("reports"), settings={"softmatcha_index_dir": root})
    port = _free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    th = threading.Thread(target=srv.run, daemon=True)
    th.start()
    deadline = time.time() + 20
    while not srv.started and time.time() < deadline:
        time.sleep(0.05)
    assert srv.started, "uvicorn did not start"
    yield f"http://127.0.0.1:{port}", idx
    srv.should_exit = True
    th.join(timeout=10)


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    profile = tmp_path_factory.mktemp("chromium-profile")  # a fresh user-data-dir, nothing shared
    with sync_api.sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(str(profile), executable_path=str(CHROMIUM), headless=True,
                                                   args=FLAGS, accept_downloads=True)
        ctx.set_default_timeout(15_000)
        try:
            yield ctx.new_page()
        finally:
            ctx.close()
    shutil.rmtree(profile, ignore_errors=True)


def _count(page) -> int:
    return int(page.inner_text("#sm-count").replace(",", ""))


def test_search_slider_paging_download(server, page, tmp_path):
    url, idx = server
    page.goto(url + "/softmatcha")
    assert page.locator("#sm-index option").first.get_attribute("value") == "demo"

    # 1. type a query, submit: highlighted KWIC rows and the exact count of the library
    page.fill("#sm-limit", "5")
    page.fill("#sm-pattern", "king of israel")
    page.click("#sm-go")
    page.wait_for_selector("#sm-hits tbody tr mark.hit")
    n_high = _count(page)
    assert n_high == idx.count("king of israel", 0.8) > 0
    marks = page.locator("#sm-hits tbody mark.hit")
    assert marks.count() == min(5, n_high)
    assert marks.first.inner_text().lower().split()[0] in ("king", "queen")
    assert page.inner_text("#sm-time").endswith("ms")
    assert page.locator("#sm-variants tbody tr").count() >= 1

    # 2. move the slider down with the keyboard: the page re-searches and the count grows
    page.focus("#sm-alpha")
    for _ in range(30):
        page.keyboard.press("ArrowLeft")
    page.wait_for_function("document.body.dataset.alpha === '0.5'")
    n_low = _count(page)
    assert page.inner_text("#sm-alpha-out") == "0.50"
    assert n_low == idx.count("king of israel", 0.5) and n_low > n_high

    # 3. page: "Load more" appends the next 5 rows
    rows = page.locator("#sm-hits tbody tr")
    assert rows.count() == 5
    page.click("#sm-more")
    page.wait_for_function("document.querySelectorAll('#sm-hits tbody tr').length === 10")
    expected = idx.search("king of israel", 0.5)[:10]
    assert [r.inner_text().split("\t")[0] for r in rows.all()] == [str(m.line) for m in expected]

    # 4. download all hits as JSON: every hit, matching the count shown
    with page.expect_download() as dl:
        page.click("#sm-dl-json")
    path = tmp_path / "hits.json"
    dl.value.save_as(path)
    body = json.loads(path.read_text())
    assert body["count"] == n_low == len(body["matches"])


def test_a_shared_link_reruns_its_search_and_the_address_bar_follows(server, page):
    url, idx = server
    page.goto(url + "/softmatcha?index=demo&pattern=king+of+israel&threshold=0.6")
    page.wait_for_function("document.body.dataset.alpha === '0.6'")
    assert page.input_value("#sm-pattern") == "king of israel"
    assert _count(page) == idx.count("king of israel", 0.6)
    page.fill("#sm-pattern", "queen of syria")
    page.click("#sm-go")
    page.wait_for_function("location.search.includes('pattern=queen+of+syria')")
    assert _count(page) == idx.count("queen of syria", 0.6)


def test_bad_query_shows_an_error_not_a_crash(server, page):
    url, _ = server
    page.goto(url + "/softmatcha")
    page.fill("#sm-pattern", "king of israel")
    page.fill("#sm-alphas", "1, 2")
    page.click("#sm-go")
    page.wait_for_function("document.getElementById('sm-status').textContent.startsWith('error')")
    assert "threshold" in page.inner_text("#sm-status")


def test_ranked_variants_and_edits_on_the_page(server, page):
    """Issue 29: the variants table is the ranked suffix-array table; insertions widen the matches."""
    url, idx = server
    page.goto(url + "/softmatcha?index=demo&pattern=king+israel&threshold=0.8")
    page.wait_for_function("document.body.dataset.alpha === '0.8'")
    assert _count(page) == idx.count("king israel", 0.8)
    page.fill("#sm-ins", "1")
    page.click("#sm-go")
    page.wait_for_function("location.search.includes('max_insert=1')")
    page.wait_for_function("document.querySelector('#sm-variants tbody tr td:nth-child(5)') !== null")
    want = idx.variants("king israel", 0.8, 50, max_insert=1)
    rows = page.locator("#sm-variants tbody tr")
    assert rows.count() == len(want)
    assert [r.inner_text().split("\t")[1:3] for r in rows.all()] == [[v.string, str(v.count)] for v in want]
    from iclr25.softmatcha.variants import VariantConfig
    # one hit per place (issue 51): variants that start at one position count once
    assert _count(page) == idx.hits("king israel", 0.8, VariantConfig(max_insert=1)).count
    assert any("+1/-0" in r.inner_text() for r in rows.all())


def test_topk_mode_ranks_without_a_threshold_and_marks_a_cut_search(server, page):
    """Issue 52: the k closest variants (no threshold) from the search form, within a time budget; a search
    the budget cut shows the best found so far, marked partial."""
    url, idx = server
    page.goto(url + "/softmatcha")
    page.fill("#sm-pattern", "queen of syria")
    page.select_option("#sm-mode", "topk")
    page.fill("#sm-k", "4")
    page.fill("#sm-budget", "5")
    page.click("#sm-go")
    page.wait_for_function("document.body.dataset.hits === 'top4'")
    want = idx.variants("queen of syria", 0.0, k=4)
    rows = page.locator("#sm-variants tbody tr")
    assert [r.inner_text().split("\t")[1:3] for r in rows.all()] == [[v.string, str(v.count)] for v in want]
    assert page.locator("#sm-partial").is_hidden()
    assert page.locator("#sm-hits tbody tr").count() == 0 and page.locator("#sm-more").is_hidden()
    assert "mode=topk" in page.evaluate("location.search")
    # an explosive query with a tiny budget: the best found so far, marked partial
    page.fill("#sm-pattern", "the the the the")
    page.fill("#sm-ins", "4")
    page.fill("#sm-del", "2")
    page.fill("#sm-k", "1000")
    page.fill("#sm-budget", "0.01")
    page.click("#sm-go")
    page.wait_for_function("document.body.dataset.partial === 'true'")
    assert page.inner_text("#sm-partial").startswith("partial: the time budget (0.01 s) ran out")


def test_collocates_panel_shows_the_library_table(server, page):
    url, idx = server
    page.goto(url + "/softmatcha?index=demo&pattern=king+of+israel&threshold=0.8")
    page.wait_for_function("document.body.dataset.alpha === '0.8'")
    page.fill("#sm-cl", "2")
    page.fill("#sm-cr", "2")
    page.fill("#sm-cmin", "2")
    page.click("#sm-coll-go")
    page.wait_for_function("document.body.dataset.colloc !== undefined")
    want = idx.collocates("king of israel", 0.8, left=2, right=2, min_count=2, top_k=30)
    rows = page.locator("#sm-colloc tbody tr")
    assert rows.count() == len(want.rows) > 0
    assert [r.inner_text().split("\t")[1:3] for r in rows.all()] == [[c.string, str(c.window)]
                                                                       for c in want.rows]
    assert "Dunning 1993" in page.inner_text("#sm-coll-info")
