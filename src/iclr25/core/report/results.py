"""Read findings.json files back into rows the report and the web pages render."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from iclr25.core import registry

PROFILE_ORDER = ("full", "quick", "smoke")  # the report shows the largest profile that ran


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


@dataclass
class PaperResult:
    number: int
    slug: str
    title: str
    status: str  # "not implemented yet" | "not run" | "ran" | "error"
    profile: str | None = None
    claims: list[ClaimRow] = field(default_factory=list)
    error: str | None = None
    run: dict = field(default_factory=dict)

    @property
    def run_dir(self) -> str:
        return f"{self.slug}/{self.profile}" if self.profile else self.slug


def _load_one(info: registry.PaperInfo, out: Path) -> PaperResult:
    for profile in PROFILE_ORDER:
        path = out / info.slug / profile / "findings.json"
        if path.is_file():
            break
    else:
        status = "not run" if info.implemented else "not implemented yet"
        return PaperResult(info.number, info.slug, info.title, status)
    data = json.loads(path.read_text(encoding="utf-8"))
    run_path = path.with_name("run.json")
    run = json.loads(run_path.read_text(encoding="utf-8")) if run_path.is_file() else {}
    by_key = {f["claim"]: f for f in data.get("findings", [])}
    rows = []
    for c in data.get("claims", []):
        f = by_key.get(c["key"], {})
        rows.append(ClaimRow(c["key"], c["statement"], c["paper"], c["criterion"],
                             f.get("verdict", "error" if data.get("error") else "not run"),
                             f.get("summary", ""), f.get("measured", {}), f.get("figures", [])))
    return PaperResult(info.number, info.slug, info.title, "error" if data.get("error") else "ran",
                       profile, rows, data.get("error"), run)


def load_results(out: Path) -> list[PaperResult]:
    """One entry for each of the 19 papers, in seed-list order."""
    return [_load_one(p, Path(out)) for p in registry.PAPERS]


def tally(results: list[PaperResult]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in results:
        for c in r.claims:
            counts[c.verdict] = counts.get(c.verdict, 0) + 1
    return counts
