from fastapi.testclient import TestClient

from iclr25.core import registry, runner
from iclr25.core.report import build_report
from iclr25.core.web import create_app

from .fake_paper import fake_paper


def test_index_and_paper_pages(tmp_path, monkeypatch):
    monkeypatch.setattr(registry, "load", lambda slug: fake_paper(slug))
    runner.run_paper("hive", "smoke", tmp_path)
    build_report(tmp_path)
    client = TestClient(create_app(reports_dir=tmp_path))
    r = client.get("/")
    assert r.status_code == 200 and "Search is &lt;b&gt;fast" in r.text and "/papers/hive" in r.text
    page = client.get("/papers/hive")
    assert page.status_code == 200 and "/files/hive/smoke/curve.png" in page.text
    assert client.get("/files/hive/smoke/curve.png").headers["content-type"] == "image/png"
    assert client.get("/papers/softmatcha").status_code == 200  # listed even if not run


def test_unknown_paper_and_traversal_404(tmp_path):
    client = TestClient(create_app(reports_dir=tmp_path))
    assert client.get("/papers/nope").status_code == 404
    assert client.get("/files/../../etc/passwd").status_code == 404
    assert client.get("/files/%2e%2e/%2e%2e/etc/passwd").status_code == 404
