"""The report: reports/index.html, a page per paper, reports/REPORT.md, and (with --docs)
docs/RESULTS.md plus the papers table in README.md."""

from __future__ import annotations

import json
import re
from pathlib import Path

from iclr25.core.records import records_dir, render_record_md
from iclr25.core.report.render import papers_table_md, render_index, render_markdown, render_paper
from iclr25.core.report.results import PaperResult, load_results
from iclr25.core.runtime import atomic_write

__all__ = ["PaperResult", "build_report", "load_results", "records_dir", "write_docs"]

README_START = "<!-- papers:start -->"
README_END = "<!-- papers:end -->"


def _write_text(path: Path, text: str) -> None:
    with atomic_write(path, "w") as f:
        f.write(text)


def build_report(out: Path) -> list[Path]:
    """Write index.html, one <slug>.html per paper and REPORT.md into `out`."""
    out = Path(out)
    results = load_results(out)
    written = [out / "index.html", out / "REPORT.md"]
    _write_text(written[0], render_index(results, link=lambda s: f"{s}.html", static=True))
    _write_text(written[1], render_markdown(results))
    for r in results:
        page = out / f"{r.slug}.html"
        _write_text(page, render_paper(r, asset=lambda p, r=r: f"{r.run_dir}/{p}", static=True))
        written.append(page)
    return written


def write_docs(out: Path, root: Path) -> list[Path]:
    """Rewrite docs/RESULTS.md, the table between the markers in README.md, and docs/full/<slug>.md
    from each committed docs/full/<slug>.json."""
    results = load_results(Path(out))
    root = Path(root)
    written = []
    full_dir = root / "docs" / "full"
    for record_path in sorted(full_dir.glob("*.json")) if full_dir.is_dir() else []:
        try:
            record = json.loads(record_path.read_text(encoding="utf-8"))
            text = render_record_md(record)
        except (ValueError, KeyError, TypeError):
            continue  # not a record (e.g. a benchmark's own json); left as it is
        _write_text(record_path.with_suffix(".md"), text)
        written.append(record_path.with_suffix(".md"))
    results_md = root / "docs" / "RESULTS.md"
    _write_text(results_md, render_markdown(results, full_link="full") + "\n")
    written.append(results_md)
    readme = root / "README.md"
    if readme.is_file():
        text = readme.read_text(encoding="utf-8")
        table = papers_table_md(results, src="src/iclr25", full_link="docs/full")
        block = f"{README_START}\n{table}\n{README_END}"
        pattern = re.compile(re.escape(README_START) + ".*?" + re.escape(README_END), re.S)
        if pattern.search(text):
            _write_text(readme, pattern.sub(lambda _: block, text))
            written.append(readme)
    return written
