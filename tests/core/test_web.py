from fastapi.testclient import TestClient

from iclr25.core import runner
from iclr25.core.report import build_report
from iclr25.core.web import create_app

from .fake_paper import install


def test_index_and_paper_pages(tmp_path, monkeypatch):
    install(monkeypatch)
    runner.run_paper("hive", "smoke", tmp_path)
    build_report(tmp_path)
    client = TestClient(create_app(reports_dir=tmp_path), base_url="http://localhost")
    r = client.get("/")
    assert r.status_code == 200 and "Search is &lt;b&gt;fast" in r.text and "/papers/hive" in r.text
    page = client.get("/papers/hive")
    assert page.status_code == 200 and "/files/hive/smoke/curve.png" in page.text
    assert client.get("/files/hive/smoke/curve.png").headers["content-type"] == "image/png"
    assert client.get("/papers/softmatcha").status_code == 200  # listed even if not run


def test_unknown_paper_and_traversal_404(tmp_path):
    client = TestClient(create_app(reports_dir=tmp_path), base_url="http://localhost")
    assert client.get("/papers/nope").status_code == 404
    assert client.get("/files/../../etc/passwd").status_code == 404
    assert client.get("/files/%2e%2e/%2e%2e/etc/passwd").status_code == 404


def test_foreign_host_header_is_refused(tmp_path):
    """DNS rebinding: evil.example resolving to 127.0.0.1 must not reach the pages or the APIs."""
    app = create_app(reports_dir=tmp_path)
    assert TestClient(app, base_url="http://evil.example").get("/").status_code == 400
    assert TestClient(app, base_url="http://127.0.0.1:8025").get("/").status_code == 200
    allowed = create_app(reports_dir=tmp_path, allowed_hosts=["myserver.lan"])
    assert TestClient(allowed, base_url="http://myserver.lan").get("/").status_code == 200


def test_hostile_file_names_are_404_not_500(tmp_path):
    client = TestClient(create_app(reports_dir=tmp_path), base_url="http://localhost")
    assert client.get("/files/x%00y").status_code == 404
    assert client.get("/files/" + "a" * 5000).status_code == 404
    assert client.get("/files/" + "/".join(["b" * 255] * 40)).status_code == 404


def test_a_damaged_findings_file_leaves_the_other_pages_working(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR25_RECORDS", str(tmp_path / "none"))
    install(monkeypatch)
    runner.run_paper("hive", "smoke", tmp_path)
    runner.run_paper("physbench", "smoke", tmp_path)
    (tmp_path / "physbench" / "smoke" / "findings.json").write_text('{"claims": [')
    client = TestClient(create_app(reports_dir=tmp_path), base_url="http://localhost")
    index = client.get("/")
    assert index.status_code == 200 and "damaged" in index.text and "/papers/hive" in index.text
    assert client.get("/papers/hive").status_code == 200
    damaged = client.get("/papers/physbench")
    assert damaged.status_code == 200 and "damaged findings file" in damaged.text
