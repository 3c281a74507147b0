import json

import pytest

from iclr25.core import registry, runner
from iclr25.core.report import build_report, load_results, write_docs

from .fake_paper import broken, fake_paper


@pytest.fixture
def reports(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR25_RECORDS", str(tmp_path / "no-records"))
    papers = {"hive": fake_paper("hive"), "physbench": fake_paper("physbench", broken)}
    monkeypatch.setattr(registry, "load", lambda slug: papers[slug])
    out = tmp_path / "reports"
    results = runner.reproduce(["hive", "physbench"], "smoke", out, seed=3)
    build_report(out)
    return out, results


def test_runner_writes_findings_and_error_row(reports):
    out, results = reports
    ok, bad = results
    assert ok.error is None and ok.counts == {"reproduced": 1, "not reproduced": 1}
    assert bad.error and "experiment exploded" in bad.error
    data = json.loads((out / "hive" / "smoke" / "findings.json").read_text())
    assert [f["claim"] for f in data["findings"]] == ["fast", "big"]
    run = json.loads((out / "hive" / "smoke" / "run.json").read_text())
    assert run["seed"] == 3 and "numpy" in run["versions"]


def test_same_seed_same_findings(tmp_path, monkeypatch):
    monkeypatch.setattr(registry, "load", lambda slug: fake_paper(slug))
    a = runner.run_paper("hive", "smoke", tmp_path / "a", seed=1)
    b = runner.run_paper("hive", "smoke", tmp_path / "b", seed=1)
    assert a.error is None and b.error is None
    fa = json.loads((tmp_path / "a/hive/smoke/findings.json").read_text())["findings"]
    fb = json.loads((tmp_path / "b/hive/smoke/findings.json").read_text())["findings"]
    assert fa == fb


def test_html_lists_every_claim_and_escapes(reports):
    out, _ = reports
    html = (out / "index.html").read_text()
    assert "Search is &lt;b&gt;fast&lt;/b&gt; &amp; exact" in html
    assert "Recall beats exact" in html
    assert "<script>alert(1)</script>" not in html
    assert 'class="v ok"' in html and 'class="v bad"' in html
    for p in registry.PAPERS:  # all 19, honestly
        assert p.title.split(":")[0].replace("&", "&amp;") in html
    assert "not implemented yet" in html or all(p.implemented for p in registry.PAPERS)
    page = (out / "hive.html").read_text()
    assert 'src="hive/smoke/curve.png"' in page and "latency_s_p50" in page
    assert "experiment exploded" in (out / "physbench.html").read_text()


def test_markdown_lists_every_claim(reports):
    out, _ = reports
    md = (out / "REPORT.md").read_text()
    assert "Search is <b>fast</b> & exact" in md and "Recall beats exact" in md
    assert "**not reproduced**" in md and "experiment exploded" in md
    assert md.count("| 0") + md.count("| 1") >= 19  # one table row per paper


def test_write_docs_rewrites_between_markers(reports, tmp_path):
    out, _ = reports
    readme_text = "intro\n<!-- papers:start -->\nOLD TABLE\n<!-- papers:end -->\ntail\n"
    (tmp_path / "README.md").write_text(readme_text)
    written = write_docs(out, tmp_path)
    readme = (tmp_path / "README.md").read_text()
    assert "OLD TABLE" not in readme and readme.startswith("intro") and readme.endswith("tail\n")
    hive_row = next(line for line in readme.splitlines() if "`hive`" in line)
    assert "| ran (smoke) | 1 not reproduced, 1 reproduced" in hive_row
    assert "[`softmatcha`](src/iclr25/softmatcha/README.md)" in readme  # implemented: linked
    results_md = (tmp_path / "docs" / "RESULTS.md").read_text()
    assert "| Recall beats exact | x2 | ratio >= 2 | **not reproduced** |" in results_md
    assert len(written) == 2


def test_load_results_prefers_largest_profile(reports, monkeypatch):
    out, _ = reports
    monkeypatch.setattr(registry, "load", lambda slug: fake_paper(slug))
    runner.run_paper("hive", "quick", out)
    hive = next(r for r in load_results(out) if r.slug == "hive")
    assert hive.profile == "quick"
