import json

import pytest

from iclr25.core import registry, runner
from iclr25.core.report import MissingFigure, build_report, load_results, write_docs

from .fake_paper import broken, fake_paper, install


@pytest.fixture
def reports(tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR25_RECORDS", str(tmp_path / "no-records"))
    install(monkeypatch, {"hive": fake_paper("hive"), "physbench": fake_paper("physbench", broken)})
    out = tmp_path / "reports"
    results = runner.reproduce(["hive", "physbench"], "quick", out, seed=3)
    build_report(out)
    return out, results


def test_runner_writes_findings_and_error_row(reports):
    out, results = reports
    ok, bad = results
    assert ok.error is None and ok.counts == {"reproduced": 1, "not reproduced": 1}
    assert bad.error and "experiment exploded" in bad.error
    data = json.loads((out / "hive" / "quick" / "findings.json").read_text())
    assert [f["claim"] for f in data["findings"]] == ["fast", "big"]
    assert all(len(c["rule_hash"]) == 12 and c["rule"]["type"] == "Rule" for c in data["claims"])
    run = json.loads((out / "hive" / "quick" / "run.json").read_text())
    assert run["seed"] == 3 and "numpy" in run["versions"]


def test_smoke_shows_measurements_never_verdicts(tmp_path, monkeypatch):
    install(monkeypatch)
    r = runner.run_paper("hive", "smoke", tmp_path, seed=1)
    assert r.counts == {"smoke run — not a verdict": 2}
    data = json.loads((tmp_path / "hive/smoke/findings.json").read_text())
    assert {f["verdict"] for f in data["findings"]} == {"smoke run — not a verdict"}
    assert data["findings"][1]["measured"] == {"ratio": 1.5}


def test_same_seed_same_findings(tmp_path, monkeypatch):
    install(monkeypatch)
    a = runner.run_paper("hive", "quick", tmp_path / "a", seed=1)
    b = runner.run_paper("hive", "quick", tmp_path / "b", seed=1)
    assert a.error is None and b.error is None
    fa = json.loads((tmp_path / "a/hive/quick/findings.json").read_text())["findings"]
    fb = json.loads((tmp_path / "b/hive/quick/findings.json").read_text())["findings"]
    assert fa == fb


def test_html_lists_every_claim_and_escapes(reports):
    out, _ = reports
    html = (out / "index.html").read_text()
    assert "Search is &lt;b&gt;fast&lt;/b&gt; &amp; exact" in html
    assert "Recall beats exact" in html
    assert "<script>alert(1)</script>" not in html
    assert 'class="v ok"' in html and 'class="v bad"' in html
    assert 'id="scoreboard"' in html and "hive.html#claim-fast" in html
    for p in registry.PAPERS:  # all 19, honestly
        assert p.title.split(":")[0].replace("&", "&amp;") in html
    page = (out / "hive.html").read_text()
    assert 'src="hive/quick/curve.png"' in page and "latency_s" in page
    assert "null check:" in page and "the rule as data" in page
    assert "⏱" not in page  # no emoji the page's fonts may lack
    assert "experiment exploded" in (out / "physbench.html").read_text()


def test_markdown_lists_every_claim(reports):
    out, _ = reports
    md = (out / "REPORT.md").read_text()
    assert "Search is <b>fast</b> & exact" in md and "Recall beats exact" in md
    assert "**not reproduced**" in md and "experiment exploded" in md
    assert "REPRODUCED if soft/exact recall ≥ 2" in md  # the criterion is the rule's own prose


def test_write_docs_rewrites_between_markers(reports, tmp_path):
    out, _ = reports
    readme_text = "intro\n<!-- papers:start -->\nOLD TABLE\n<!-- papers:end -->\ntail\n"
    (tmp_path / "README.md").write_text(readme_text)
    written = write_docs(out, tmp_path)
    readme = (tmp_path / "README.md").read_text()
    assert "OLD TABLE" not in readme and readme.startswith("intro") and readme.endswith("tail\n")
    hive_row = next(line for line in readme.splitlines() if "`hive`" in line)
    assert "| ran (quick) | 1 reproduced, 1 not reproduced" in hive_row
    assert "[`softmatcha`](src/iclr25/softmatcha/README.md)" in readme
    results_md = (tmp_path / "docs" / "RESULTS.md").read_text()
    assert "| Recall beats exact | x2 | recall ratio of the fake index. REPRODUCED if soft/exact recall ≥ 2" \
        in results_md
    assert len(written) == 2


def test_paper_readme_claims_table_is_generated(reports, tmp_path):
    out, _ = reports
    paper_dir = tmp_path / "src" / "iclr25" / "hive"
    paper_dir.mkdir(parents=True)
    (paper_dir / "README.md").write_text("# hive\n<!-- claims:start -->\nhand-typed\n<!-- claims:end -->\n")
    write_docs(out, tmp_path)
    text = (paper_dir / "README.md").read_text()
    assert "hand-typed" not in text and "| `big` | x2 |" in text and "**not reproduced**: ours x1.5" in text


def test_load_results_prefers_largest_profile(reports, monkeypatch):
    out, _ = reports
    runner.run_paper("hive", "smoke", out)
    hive = next(r for r in load_results(out) if r.slug == "hive")
    assert hive.profile == "quick"


def test_a_missing_figure_fails_the_static_report(reports):
    out, _ = reports
    (out / "hive" / "quick" / "curve.png").unlink()
    with pytest.raises(MissingFigure, match="curve.png"):
        build_report(out)


def test_deeply_nested_findings_file_is_damaged_not_a_crash(reports):
    out, _ = reports
    path = out / "hive" / "quick" / "findings.json"
    path.write_text("[" * 3000 + "]" * 3000)
    hive = next(r for r in load_results(out) if r.slug == "hive")
    assert hive.status == "damaged" and str(out) not in hive.error
    build_report(out)


def test_the_report_of_a_fresh_clone_shows_only_figures_that_exist(tmp_path):
    """A fresh clone has the committed records and no runs: every image the report's pages show exists."""
    import re
    build_report(tmp_path)
    pages = list(tmp_path.glob("*.html"))
    srcs = [src for page in pages for src in re.findall(r'<img[^>]* src="([^"]+)"', page.read_text())]
    assert len(pages) == 20
    assert [s for s in srcs if not (tmp_path / s).is_file()] == []
