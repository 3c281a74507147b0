"""The report: reports/index.html, a page per paper, reports/REPORT.md, and (with --docs)
docs/RESULTS.md, the papers table in README.md, each paper README's claims table and the records' .md."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

from iclr25.core import registry
from iclr25.core.records import figures_dir, records_dir, render_record_md
from iclr25.core.report.render import (
    MissingFigure,
    claims_table_md,
    papers_table_md,
    render_index,
    render_markdown,
    render_paper,
)
from iclr25.core.report.results import PaperResult, load_results
from iclr25.core.runtime import atomic_write

__all__ = ["MissingFigure", "PaperResult", "build_report", "load_results", "records_dir", "write_docs"]

README_START = "<!-- papers:start -->"
README_END = "<!-- papers:end -->"
CLAIMS_START = "<!-- claims:start -->"
CLAIMS_END = "<!-- claims:end -->"
COLD_TIMES = "docs/demo_cold.json"  # written by benchmarks/core/demo_cold.py


def _write_text(path: Path, text: str) -> None:
    with atomic_write(path, "w") as f:
        f.write(text)


def _checked(root: Path, rel: str) -> str:
    if not (root / rel).is_file():
        raise MissingFigure(f"the report shows {rel}, which is not in {root}")
    return rel


def build_report(out: Path) -> list[Path]:
    """Write index.html, one <slug>.html per paper and REPORT.md into `out`. The committed records'
    figures are copied beside (<slug>/record/); a page that would show a missing figure is an error."""
    out = Path(out)
    results = load_results(out)
    written = [out / "index.html", out / "REPORT.md"]
    _write_text(written[0], render_index(results, link=lambda s: f"{s}.html", static=True))
    _write_text(written[1], render_markdown(results))
    for r in results:
        full_dir = f"{r.slug}/full"
        if r.full and not r.full_local:
            full_dir = f"{r.slug}/record"
            shutil.rmtree(out / full_dir, ignore_errors=True)  # only what the record has now
            for name in {p for c in r.claims for p in c.full_figures}:
                src = figures_dir(r.slug) / name
                if not src.is_file():
                    raise MissingFigure(f"the {r.slug} record shows {name}, which is not in {src.parent}")
                (out / full_dir / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, out / full_dir / name)
        page = out / f"{r.slug}.html"
        record_md = records_dir() / f"{r.slug}.md"
        record_link = os.path.relpath(record_md, out) if r.full and not r.full_local and record_md.is_file() \
            else None
        _write_text(page, render_paper(r, asset=lambda p, r=r: _checked(out, f"{r.run_dir}/{p}"), static=True,
                                       full_asset=lambda p, d=full_dir: _checked(out, f"{d}/{p}"),
                                       record_link=record_link))
        written.append(page)
    return written


def _cold_times(root: Path) -> dict[str, float] | None:
    try:
        rows = json.loads((root / COLD_TIMES).read_text(encoding="utf-8"))["papers"]
        return {r["slug"]: float(r["cpu_s"]) for r in rows}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _replace_block(path: Path, start: str, end: str, body: str) -> bool:
    text = path.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        return False
    new = pattern.sub(lambda _: f"{start}\n{body}\n{end}", text)
    if new != text:
        _write_text(path, new)
    return True


def write_docs(out: Path, root: Path) -> list[Path]:
    """Rewrite docs/RESULTS.md, the table between the markers in README.md, each paper README's claims
    table (between its claims markers) and docs/full/<slug>.md from each committed docs/full/<slug>.json."""
    results = load_results(Path(out))
    root = Path(root)
    written = []
    full_dir = root / "docs" / "full"
    for record_path in sorted(full_dir.glob("*.json")) if full_dir.is_dir() else []:
        try:
            record = json.loads(record_path.read_text(encoding="utf-8"))
            current = {c.key: c for c in registry.claims(record["slug"])} if record["slug"] in \
                registry.BY_SLUG else None
            text = render_record_md(record, current)
        except (ValueError, KeyError, TypeError):
            continue  # not a record (e.g. a benchmark's own json); left as it is
        _write_text(record_path.with_suffix(".md"), text)
        written.append(record_path.with_suffix(".md"))
    results_md = root / "docs" / "RESULTS.md"
    _write_text(results_md, render_markdown(results, full_link="full") + "\n")
    written.append(results_md)
    readme = root / "README.md"
    table = papers_table_md(results, src="src/iclr25", full_link="docs/full", cold=_cold_times(root))
    if readme.is_file() and _replace_block(readme, README_START, README_END, table):
        written.append(readme)
    for r in results:
        paper_readme = root / "src" / "iclr25" / r.slug / "README.md"
        if paper_readme.is_file() and _replace_block(paper_readme, CLAIMS_START, CLAIMS_END,
                                                      claims_table_md(r, full_link="../../../docs/full")):
            written.append(paper_readme)
    return written
