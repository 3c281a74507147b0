"""Read findings.json files back into rows the report and the web pages render: the latest run of each
paper, and beside it the full-profile record (a local full run, or the one committed under docs/full)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from iclr25.core import registry
from iclr25.core.records import load_record, provenance

PROFILE_ORDER = ("quick", "smoke", "full")  # the run shown first; full also shows in its own column


@dataclass
class ClaimRow:
    key: str
    statement: str
    paper: str
    criterion: str
    verdict: str = "not run"
    summary: str = ""
    measured: dict = field(default_factory=dict)
    figures: list[str] = field(default_factory=list)
    full_verdict: str | None = None  # from the full record, when there is one
    full_summary: str = ""
    full_measured: dict = field(default_factory=dict)
    timing: bool = False  # a wall-clock claim: repeats may differ under load


@dataclass
class PaperResult:
    number: int
    slug: str
    title: str
    status: str  # "not implemented yet" | "not run" | "ran" | "error" | "damaged"
    profile: str | None = None
    claims: list[ClaimRow] = field(default_factory=list)
    error: str | None = None
    run: dict = field(default_factory=dict)
    full: str | None = None  # provenance of the full record shown beside: date, commit, seed

    @property
    def run_dir(self) -> str:
        return f"{self.slug}/{self.profile}" if self.profile else self.slug


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _full_record(info: registry.PaperInfo, out: Path) -> dict | None:
    """A full run in this report folder wins over the committed record."""
    path = out / info.slug / "full" / "findings.json"
    try:
        local = _read_json(path)
        run_path = path.with_name("run.json")
        local["run"] = _read_json(run_path) if run_path.is_file() else {}
        if not local.get("error"):
            return local
    except (OSError, ValueError, TypeError):
        pass
    return load_record(info.slug)


def _load_one(info: registry.PaperInfo, out: Path, records: bool) -> PaperResult:
    for profile in PROFILE_ORDER:
        path = out / info.slug / profile / "findings.json"
        if path.is_file():
            break
    else:
        path, profile = None, None
    full = _full_record(info, out) if records else None
    if path is None and full is None:
        status = "not run" if info.implemented else "not implemented yet"
        return PaperResult(info.number, info.slug, info.title, status)
    try:
        data = _read_json(path) if path else full
        run_path = path.with_name("run.json") if path else None
        run = _read_json(run_path) if run_path and run_path.is_file() else (full or {}).get("run", {})
        by_key = {f["claim"]: f for f in data.get("findings", [])}
        full_by_key = {f["claim"]: f for f in (full or {}).get("findings", [])} if full else {}
        rows = []
        for c in data.get("claims", []):
            f, ff = by_key.get(c["key"], {}), full_by_key.get(c["key"])
            rows.append(ClaimRow(
                c["key"], c["statement"], c["paper"], c["criterion"],
                f.get("verdict", "error" if data.get("error") else "not run"), f.get("summary", ""),
                f.get("measured", {}), f.get("figures", []),
                ff["verdict"] if ff else None, ff["summary"] if ff else "", ff["measured"] if ff else {},
                bool(c.get("timing", False))))
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as e:
        # one damaged file must not take down the report: show the paper as damaged, keep the rest
        return PaperResult(info.number, info.slug, info.title, "damaged",
                           error=f"damaged findings file {path}: {type(e).__name__}: {e}")
    return PaperResult(info.number, info.slug, info.title, "error" if data.get("error") else "ran",
                       profile or "full", rows, data.get("error"), run,
                       provenance(full) if full else None)


def load_results(out: Path, records: bool = True) -> list[PaperResult]:
    """One entry for each of the 19 papers, in seed-list order. `records`: show full records beside."""
    return [_load_one(p, Path(out), records) for p in registry.PAPERS]


def tally(results: list[PaperResult], full: bool = False) -> dict[str, int]:
    """Verdict counts over all claims, of the shown run (or of the full records with `full`)."""
    counts: dict[str, int] = {}
    for r in results:
        for c in r.claims:
            v = c.full_verdict if full else c.verdict
            if v:
                counts[v] = counts.get(v, 0) + 1
    return counts
