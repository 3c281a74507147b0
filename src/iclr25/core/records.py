"""Full-profile records: the findings of a full run, committed as docs/full/<slug>.json (+ a rendered
.md, + its figures under docs/full/<slug>/), so that claims the quick profile cannot decide show a real
full-run verdict, its date and commit, and the rule (and rule hash) each verdict was decided under."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from iclr25.core.runtime import atomic_write

REPO = Path(__file__).resolve().parents[3]
MAX_FIGURE_BYTES = 200_000  # a committed figure: small enough that the repository stays light


class DirtyTree(ValueError):
    """A record would name a commit that is not what ran."""


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


def write_record(run_dir: Path, out_dir: Path | None = None, allow_dirty: bool = False) -> list[Path]:
    """Turn a full run's folder (reports/<slug>/full) into docs/full/<slug>.json and .md and copy its
    figures (as ≤ 200 KB files) to docs/full/<slug>/. A run from a tree with uncommitted changes is
    refused unless `allow_dirty`, and then the record says so."""
    run_dir = Path(run_dir)
    findings = json.loads((run_dir / "findings.json").read_text(encoding="utf-8"))
    run = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    if findings.get("profile") != "full":
        raise ValueError(f"{run_dir} holds a {findings.get('profile')!r} run; records are full runs")
    if findings.get("error"):
        raise ValueError(f"{run_dir}: the run failed; no record is written for a failed run")
    if run.get("dirty") and not allow_dirty:
        raise DirtyTree(f"{run_dir}: the run's sources had uncommitted changes (commit "
                        f"{run.get('commit', '?')}); commit first, or pass --allow-dirty to write a record "
                        "marked as such")
    record = {**findings, "run": run}
    out_dir = Path(out_dir or records_dir())
    slug = findings["slug"]
    _copy_figures(run_dir, out_dir / slug, [p for f in findings["findings"] for p in f.get("figures", [])])
    paths = [out_dir / f"{slug}.json", out_dir / f"{slug}.md"]
    with atomic_write(paths[0], "w") as f:
        json.dump(record, f, indent=2, ensure_ascii=False)
        f.write("\n")
    with atomic_write(paths[1], "w") as f:
        f.write(render_record_md(record))
    return paths


def _copy_figures(src: Path, dst: Path, names: list[str]) -> None:
    """The record's figures, and only those, in `dst`; a PNG over the size limit is re-encoded with a
    palette (then halved until it fits)."""
    if dst.is_dir():
        shutil.rmtree(dst)
    for name in dict.fromkeys(names):
        data = (src / name).read_bytes()
        if len(data) > MAX_FIGURE_BYTES and name.lower().endswith(".png"):
            data = shrink_png(data)
        with atomic_write(dst / name) as f:
            f.write(data)


def shrink_png(data: bytes, limit: int = MAX_FIGURE_BYTES) -> bytes:
    """A PNG re-encoded with a 256-colour palette, halved in size until it is at most `limit` bytes."""
    from PIL import Image
    img = Image.open(io.BytesIO(data)).convert("RGB")
    while True:
        buf = io.BytesIO()
        img.quantize(256).save(buf, "PNG", optimize=True)
        if buf.tell() <= limit or min(img.size) < 64:
            return buf.getvalue()
        img = img.resize((img.width // 2, img.height // 2))


def figures_dir(slug: str, out_dir: Path | None = None) -> Path:
    return Path(out_dir or records_dir()) / slug


def load_record(slug: str, out_dir: Path | None = None) -> dict[str, Any] | None:
    """The committed full record of `slug`, or None when there is none (or it is unreadable)."""
    path = Path(out_dir or records_dir()) / f"{slug}.json"
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) and record.get("profile") == "full" else None


def provenance(record: dict[str, Any]) -> str:
    """"full run of 2026-12-03, commit 1a2b3c4d5e (seed 0, 1234 s)"."""
    run = record.get("run", {})
    date = str(run.get("started_at", "?"))[:10]
    commit = run.get("commit", "unknown commit")
    dirty = " with uncommitted changes" if run.get("dirty") else ""
    return (f"full run of {date}, commit {commit}{dirty} (seed {record.get('seed', '?')}, "
            f"{float(run.get('wall_s', 0)):.0f} s)")


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_record_md(record: dict[str, Any], current: Mapping[str, Any] | None = None) -> str:
    """The record as Markdown. `current`: the claims as the code states them now (key -> Claim): a
    verdict decided under another rule is marked, with both criteria."""
    by_key = {f["claim"]: f for f in record.get("findings", [])}
    slug = record["slug"]
    lines = [f"# {record['number']:02d} · {record['title']} — full profile", "",
             f"`{slug}` · {provenance(record)} · host {record.get('run', {}).get('host', '?')}", "",
             f"Written by `iclr25 reproduce {slug} --profile full --record`; every verdict is computed by "
             "the claim's rule from the measurements below.", ""]
    if record.get("run", {}).get("dirty"):
        lines += ["**Recorded from a tree with uncommitted changes**: the commit named is only nearly what "
                  "ran.", ""]
    lines += ["| claim | paper reports | our criterion | verdict | we measured |", "|---|---|---|---|---|"]
    for c in record.get("claims", []):
        f = by_key.get(c["key"], {})
        timing = " *(timing)*" if c.get("timing") else ""
        criterion = _cell(c.get("criterion", ""))
        now = (current or {}).get(c["key"])
        if now is not None and now.rule_hash != c.get("rule_hash", ""):
            criterion = (f"**decided under an older rule** ({c.get('rule_hash') or 'none'}): {criterion} "
                         f"— current rule ({now.rule_hash}): {_cell(now.criterion)}")
        lines.append(f"| **{c['key']}**{timing}: {_cell(c['statement'])} | {_cell(c['paper'])} | "
                     f"{criterion} | **{f.get('verdict', 'not run')}** | {_cell(f.get('summary', ''))} |")
    lines.append("")
    for c in record.get("claims", []):
        f = by_key.get(c["key"], {})
        if f.get("figures"):
            lines += [f"![{c['key']}: {p}]({slug}/{p})" for p in f["figures"]] + [""]
        measured = f.get("measured", {})
        if measured:
            lines += [f"### {c['key']}", "", "| measured | value |", "|---|---|"]
            lines += [f"| `{k}` | {_cell(v)} |" for k, v in sorted(measured.items())]
            lines.append("")
    return "\n".join(lines)
