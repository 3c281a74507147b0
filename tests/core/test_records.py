"""Full-profile records: written from a full run, shown beside quick with their date and commit."""

import json

import pytest

from iclr25.core import registry, runner
from iclr25.core.claims import Claim, Finding, Verdict, all_of, at_least
from iclr25.core.paper import Paper
from iclr25.core.records import load_record, provenance, write_record
from iclr25.core.report import build_report, load_results, write_docs

CLAIMS = [Claim("small", "works on small data", "yes", "x >= 1", timing=True),
          Claim("big", "works at scale", "yes", "full profile: y >= 1")]


def run(profile, ctx):
    big = (Finding("big", at_least(2.0, 1.0), {"y": 2.0}, "ours y = 2 at full size")
           if profile == "full" else Finding.deferred("big", "quick measured y = 0.3 at 1/100 size", y=0.3))
    return [Finding("small", at_least(1.5, 1.0), {"x": 1.5}, "ours x = 1.5"), big]


@pytest.fixture
def papers(monkeypatch, tmp_path):
    monkeypatch.setattr(registry, "load", lambda slug: Paper(slug, 19, "T", CLAIMS, run))
    monkeypatch.setenv("ICLR25_RECORDS", str(tmp_path / "docs" / "full"))
    return tmp_path


def test_deferred_needs_a_reason_and_wins_in_all_of():
    with pytest.raises(ValueError):
        Finding.deferred("big", " ")
    assert all_of(Verdict.REPRODUCED, Verdict.DEFERRED) is Verdict.DEFERRED
    assert Finding.deferred("big", "later").to_dict()["verdict"] == "decided by the full profile"


def test_record_written_and_shown_beside_quick(papers):
    out = papers / "reports"
    runner.run_paper("causal_direction", "full", out)
    paths = write_record(out / "causal_direction" / "full")
    assert [p.name for p in paths] == ["causal_direction.json", "causal_direction.md"]
    record = load_record("causal_direction")
    assert record["profile"] == "full" and "commit" in record["run"]
    assert record["run"]["commit"] in provenance(record)
    (out / "causal_direction" / "full").rename(out / "elsewhere")  # only the committed record is left
    runner.run_paper("causal_direction", "quick", out)
    r = next(r for r in load_results(out) if r.slug == "causal_direction")
    assert r.profile == "quick" and r.full == provenance(record)
    big = next(c for c in r.claims if c.key == "big")
    assert big.verdict == "decided by the full profile" and big.full_verdict == "reproduced"
    assert big.full_summary == "ours y = 2 at full size"
    build_report(out)
    page = (out / "causal_direction.html").read_text()
    assert "decided by the full profile" in page and provenance(record) in page


def test_record_from_another_commit_names_it(papers):
    out = papers / "reports"
    runner.run_paper("causal_direction", "full", out)
    write_record(out / "causal_direction" / "full")
    path = papers / "docs" / "full" / "causal_direction.json"
    record = json.loads(path.read_text())
    record["run"]["commit"] = "0123456789"
    path.write_text(json.dumps(record))
    (out / "causal_direction" / "full").rename(out / "old")
    runner.run_paper("causal_direction", "quick", out)
    (papers / "README.md").write_text("<!-- papers:start -->\n<!-- papers:end -->\n")
    write_docs(out, papers)
    results_md = (papers / "docs" / "RESULTS.md").read_text()
    assert "commit 0123456789" in results_md and "[record](full/causal_direction.md)" in results_md
    assert "**reproduced**: ours y = 2 at full size" in results_md
    assert "works on small data ⏱ *(timing)*" in results_md  # wall-clock claims are marked
    assert "commit 0123456789" in (papers / "docs" / "full" / "causal_direction.md").read_text()
    assert "(docs/full/causal_direction.md)" in (papers / "README.md").read_text()


def test_only_full_successful_runs_become_records(papers):
    out = papers / "reports"
    runner.run_paper("causal_direction", "quick", out)
    with pytest.raises(ValueError, match="records are full runs"):
        write_record(out / "causal_direction" / "quick")


def test_damaged_findings_leave_the_rest_of_the_report_working(papers):
    out = papers / "reports"
    runner.run_paper("causal_direction", "quick", out)
    runner.run_paper("psr_sci", "quick", out)
    path = out / "psr_sci" / "quick" / "findings.json"
    path.write_text(path.read_text()[:40])  # truncated
    results = {r.slug: r for r in load_results(out)}
    assert results["psr_sci"].status == "damaged" and "damaged findings file" in results["psr_sci"].error
    assert results["causal_direction"].status == "ran"
    build_report(out)
    assert "damaged" in (out / "index.html").read_text()
