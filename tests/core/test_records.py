"""Full-profile records: written from a full run of a clean tree, carrying their rules; shown beside quick
with their date and commit; a record decided under an older rule or from a dirty tree is marked."""

import json
from dataclasses import replace

import pytest

from iclr25.core import records, runner
from iclr25.core.claims import Claim, Finding
from iclr25.core.paper import Paper
from iclr25.core.records import DirtyTree, load_record, provenance, write_record
from iclr25.core.report import build_report, load_results, write_docs
from iclr25.core.rules import Rule, Test, Value

from .fake_paper import install

CLAIMS = [Claim("small", "works on small data", "yes", "x of the small run",
                Rule(Test(Value("x"), ">=", 1)), timing=True),
          Claim("big", "works at scale", "yes", "y at full size", Rule(Test(Value("y"), ">=", 1)))]


def run(profile, ctx):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    ax.plot([0, 1])
    fig.savefig(ctx.out_dir / "big.png")
    plt.close(fig)
    big = (Finding.measure("big", {"y": 2.0}, "ours y = 2 at full size", ["big.png"])
           if profile == "full" else Finding.deferred("big", "quick measured y = 0.3 at 1/100 size", y=0.3))
    return [Finding.measure("small", {"x": 1.5}, "ours x = 1.5"), big]


@pytest.fixture
def papers(monkeypatch, tmp_path):
    install(monkeypatch, default=lambda slug: Paper(slug, 19, "T", CLAIMS, run))
    monkeypatch.setenv("ICLR25_RECORDS", str(tmp_path / "docs" / "full"))
    monkeypatch.setattr(runner, "git_state", lambda: {"commit": "abcdef0123", "dirty": False})
    return tmp_path


def test_deferred_needs_a_reason():
    with pytest.raises(ValueError):
        Finding.deferred("big", " ")
    assert Finding.deferred("big", "later").to_dict()["verdict"] == "decided by the full profile"


def test_record_written_and_shown_beside_quick(papers):
    out = papers / "reports"
    runner.run_paper("causal_direction", "full", out)
    paths = write_record(out / "causal_direction" / "full")
    assert [p.name for p in paths] == ["causal_direction.json", "causal_direction.md"]
    record = load_record("causal_direction")
    assert record["profile"] == "full" and record["run"]["commit"] == "abcdef0123"
    assert {c["key"]: c["rule_hash"] for c in record["claims"]} == {c.key: c.rule_hash for c in CLAIMS}
    assert (papers / "docs" / "full" / "causal_direction" / "big.png").is_file()  # figures travel with it
    (out / "causal_direction" / "full").rename(out / "elsewhere")  # only the committed record is left
    runner.run_paper("causal_direction", "quick", out)
    r = next(r for r in load_results(out) if r.slug == "causal_direction")
    assert r.profile == "quick" and r.full == provenance(record) and not r.full_local
    big = next(c for c in r.claims if c.key == "big")
    assert big.verdict == "decided by the full profile" and big.full_verdict == "reproduced"
    assert big.full_summary == "ours y = 2 at full size" and not big.full_stale
    build_report(out)
    page = (out / "causal_direction.html").read_text()
    assert "decided by the full profile" in page and provenance(record) in page
    assert 'src="causal_direction/record/big.png"' in page and "causal_direction.md\">the record</a>" in page
    assert (out / "causal_direction" / "record" / "big.png").is_file()


def test_clean_clone_report_has_every_figure(papers):
    """A fresh clone has records and no runs: every figure the report shows comes from docs/full."""
    out = papers / "reports"
    runner.run_paper("causal_direction", "full", out)
    write_record(out / "causal_direction" / "full")
    fresh = papers / "fresh"
    fresh.mkdir()
    build_report(fresh)
    assert 'src="causal_direction/record/big.png"' in (fresh / "causal_direction.html").read_text()
    (papers / "docs" / "full" / "causal_direction" / "big.png").unlink()
    with pytest.raises(FileNotFoundError, match="big.png"):
        build_report(fresh)


def test_dirty_tree_is_refused_or_marked(papers, monkeypatch):
    monkeypatch.setattr(runner, "git_state", lambda: {"commit": "abcdef0123", "dirty": True})
    out = papers / "reports"
    runner.run_paper("causal_direction", "full", out)
    with pytest.raises(DirtyTree, match="uncommitted"):
        write_record(out / "causal_direction" / "full")
    write_record(out / "causal_direction" / "full", allow_dirty=True)
    (out / "causal_direction" / "full").rename(out / "elsewhere")
    r = next(r for r in load_results(out) if r.slug == "causal_direction")
    assert r.full_dirty and "uncommitted" in r.full
    build_report(out)
    assert "uncommitted tree" in (out / "index.html").read_text()


def test_record_under_an_older_rule_is_marked_with_both_criteria(papers, monkeypatch):
    out = papers / "reports"
    runner.run_paper("causal_direction", "full", out)
    write_record(out / "causal_direction" / "full")
    (out / "causal_direction" / "full").rename(out / "old")
    stricter = [CLAIMS[0], replace(CLAIMS[1], rule=Rule(Test(Value("y"), ">=", 3)))]
    install(monkeypatch, default=lambda slug: Paper(slug, 19, "T", stricter, run))
    r = next(r for r in load_results(out) if r.slug == "causal_direction")
    big = next(c for c in r.claims if c.key == "big")
    assert big.full_stale and "≥ 1" in big.full_criterion and "≥ 3" in big.criterion
    (papers / "README.md").write_text("<!-- papers:start -->\n<!-- papers:end -->\n")
    write_docs(out, papers)
    md = (papers / "docs" / "full" / "causal_direction.md").read_text()
    assert "decided under an older rule" in md and "y ≥ 3" in md and "y ≥ 1" in md
    assert "The full record was decided under an older rule" in (papers / "docs" / "RESULTS.md").read_text()


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
    assert "works on small data *(timing)*" in results_md  # wall-clock claims are marked
    assert "commit 0123456789" in (papers / "docs" / "full" / "causal_direction.md").read_text()
    assert "(docs/full/causal_direction.md)" in (papers / "README.md").read_text()


def test_only_full_successful_runs_become_records(papers):
    out = papers / "reports"
    runner.run_paper("causal_direction", "quick", out)
    with pytest.raises(ValueError, match="records are full runs"):
        write_record(out / "causal_direction" / "quick")


def test_large_figures_are_shrunk(tmp_path):
    import numpy as np
    from PIL import Image
    noise = (np.random.default_rng(0).random((900, 900, 3)) * 255).astype("uint8")
    Image.fromarray(noise).save(tmp_path / "big.png")
    data = records.shrink_png((tmp_path / "big.png").read_bytes())
    assert len(data) <= records.MAX_FIGURE_BYTES < (tmp_path / "big.png").stat().st_size


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
