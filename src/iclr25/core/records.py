"""Full-profile records: the findings of a full run, committed as docs/full/<slug>.json (+ a rendered
.md), so that claims the quick profile cannot decide show a real full-run verdict, its date and commit."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from iclr25.core.runtime import atomic_write

REPO = Path(__file__).resolve().parents[3]


def records_dir() -> Path:
    """docs/full in the repository this package runs from (absent for a non-editable install);
    `ICLR25_RECORDS` overrides it."""
    return Path(os.environ.get("ICLR25_RECORDS", REPO / "docs" / "full"))


def git_state(root: Path = REPO) -> dict[str, Any]:
    """{"commit": short sha, "dirty": bool}; {} outside a git checkout. "dirty" means the package's
    sources differ from the commit, so the record names a commit that is only nearly what ran."""
    try:
        sha = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=10", "HEAD"],
                             capture_output=True, text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", "src"],
                               capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return {}
    return {"commit": sha, "dirty": bool(dirty)}


def write_record(run_dir: Path, out_dir: Path | None = None) -> list[Path]:
    """Turn a full run's folder (reports/<slug>/full) into docs/full/<slug>.json and .md."""
    run_dir = Path(run_dir)
    findings = json.loads((run_dir / "findings.json").read_text(encoding="utf-8"))
    run = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    if findings.get("profile") != "full":
        raise ValueError(f"{run_dir} holds a {findings.get('profile')!r} run; records are full runs")
    if findings.get("error"):
        raise ValueError(f"{run_dir}: the run failed; no record is written for a failed run")
    record = {**findings, "run": run}
    out_dir = Path(out_dir or records_dir())
    slug = findings["slug"]
    paths = [out_dir / f"{slug}.json", out_dir / f"{slug}.md"]
    with atomic_write(paths[0], "w") as f:
        json.dump(record, f, indent=2, ensure_ascii=False)
        f.write("\n")
    with atomic_write(paths[1], "w") as f:
        f.write(render_record_md(record))
    return paths


def load_record(slug: str, out_dir: Path | None = None) -> dict[str, Any] | None:
    """The committed full record of `slug`, or None when there is none (or it is unreadable)."""
    path = Path(out_dir or records_dir()) / f"{slug}.json"
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and record.get("profile") == "full" else None


def provenance(record: dict[str, Any]) -> str:
    """"full run of 2026-12-03, commit 1a2b3c4d5e (seed 0, 1234 s)"."""
    run = record.get("run", {})
    date = str(run.get("started_at", "?"))[:10]
    commit = run.get("commit", "unknown commit")
    dirty = " with local changes" if run.get("dirty") else ""
    return (f"full run of {date}, commit {commit}{dirty} (seed {record.get('seed', '?')}, "
            f"{float(run.get('wall_s', 0)):.0f} s)")


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_record_md(record: dict[str, Any]) -> str:
    by_key = {f["claim"]: f for f in record.get("findings", [])}
    lines = [f"# {record['number']:02d} · {record['title']} — full profile", "",
             f"`{record['slug']}` · {provenance(record)} · host {record.get('run', {}).get('host', '?')}",
             "", "Written by `iclr25 reproduce {slug} --profile full --record`; every verdict is computed "
             "by the paper's experiments.py.".replace("{slug}", record["slug"]), "",
             "| claim | paper reports | our criterion | verdict | we measured |", "|---|---|---|---|---|"]
    for c in record.get("claims", []):
        f = by_key.get(c["key"], {})
        timing = " ⏱ *(timing)*" if c.get("timing") else ""
        lines.append(f"| **{c['key']}**{timing}: {_cell(c['statement'])} | {_cell(c['paper'])} | "
                     f"{_cell(c['criterion'])} | **{f.get('verdict', 'not run')}** | "
                     f"{_cell(f.get('summary', ''))} |")
    lines.append("")
    for c in record.get("claims", []):
        measured = by_key.get(c["key"], {}).get("measured", {})
        if measured:
            lines += [f"### {c['key']}", "", "| measured | value |", "|---|---|"]
            lines += [f"| `{k}` | {_cell(v)} |" for k, v in sorted(measured.items())]
            lines.append("")
    return "\n".join(lines)
