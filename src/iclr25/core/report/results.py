"""Read findings.json files back into rows the report and the web pages render: the latest run of each
paper, and beside it the full-profile record (a local full run, or the one committed under docs/full);
each claim with its current rule, the rule each run was decided under, and the rule's null pass rate."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
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
    criterion: str  # as the code states it now
    verdict: str = "not run"  # of the run shown
    summary: str = ""
    measured: dict = field(default_factory=dict)
    figures: list[str] = field(default_factory=list)  # names inside the shown run's folder
    full_verdict: str | None = None  # from the full record, when there is one
    full_summary: str = ""
    full_measured: dict = field(default_factory=dict)
    full_figures: list[str] = field(default_factory=list)  # names inside the record's figure folder
    full_figures_not_kept: list[str] = field(default_factory=list)  # an older record's figures, not in git
    timing: bool = False  # a wall-clock claim: repeats may differ under load
    rule_hash: str = ""  # the current rule's
    run_rule_hash: str | None = None  # the rule the shown run was decided under (None: not run)
    run_criterion: str = ""
    full_rule_hash: str | None = None
    full_criterion: str = ""
    rule_spec: dict | None = None  # the current rule as data
    null: str = ""  # the current rule's false-pass rate under no effect, at the record's noise
    null_ok: bool = True

    @property
    def stale(self) -> bool:
        """The shown run was decided under a rule other than the current one."""
        return self.run_rule_hash is not None and self.run_rule_hash != self.rule_hash

    @property
    def full_stale(self) -> bool:
        return self.full_rule_hash is not None and self.full_rule_hash != self.rule_hash


@dataclass
class PaperResult:
    number: int
    slug: str
    title: str
    status: str  # "not run" | "ran" | "error" | "damaged"
    profile: str | None = None
    claims: list[ClaimRow] = field(default_factory=list)
    error: str | None = None
    run: dict = field(default_factory=dict)
    full: str | None = None  # provenance of the full record shown beside: date, commit, seed
    full_dirty: bool = False  # the record was written from a tree with uncommitted changes
    full_local: bool = False  # the full column is a full run in the report folder, not the committed one

    @property
    def run_dir(self) -> str:
        return f"{self.slug}/{self.profile}" if self.profile else self.slug


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _full_record(info: registry.PaperInfo, out: Path) -> tuple[dict | None, bool]:
    """A full run in this report folder wins over the committed record; (record, is_local)."""
    path = out / info.slug / "full" / "findings.json"
    try:
        local = _read_json(path)
        run_path = path.with_name("run.json")
        local["run"] = _read_json(run_path) if run_path.is_file() else {}
        if isinstance(local, dict) and not local.get("error") and isinstance(local.get("findings"), list):
            return local, True
    except (OSError, ValueError, TypeError, RecursionError):
        pass
    return load_record(info.slug), False


@lru_cache(maxsize=512)
def _null(slug: str, key: str, measured_json: str) -> tuple[str, bool]:
    from iclr25.core.rules import NULL_DRAWS, null_pass_rate
    claim = next(c for c in registry.claims(slug) if c.key == key)
    try:
        result = null_pass_rate(claim.rule, json.loads(measured_json) or None, draws=NULL_DRAWS // 2)
    except (ValueError, KeyError, TypeError) as e:  # shown, never hidden: the rule could not be simulated
        return f"could not be simulated ({type(e).__name__}: {e})", False
    return str(result), result.ok


def _claim_dicts(data: dict) -> dict[str, dict]:
    return {c["key"]: c for c in data.get("claims", []) if isinstance(c, dict) and "key" in c}


def _load_one(info: registry.PaperInfo, out: Path, records: bool) -> PaperResult:
    for profile in PROFILE_ORDER:
        path = out / info.slug / profile / "findings.json"
        if path.is_file():
            break
    else:
        path, profile = None, None
    full, full_local = _full_record(info, out) if records else (None, False)
    try:
        current = registry.claims(info.slug)
    except ImportError as e:  # a paper whose extra is not installed here
        from iclr25.core.extras import missing_message
        return PaperResult(info.number, info.slug, info.title, "not installed",
                           error=missing_message(info.slug, e))
    rows = [ClaimRow(c.key, c.statement, c.paper, c.criterion, timing=c.timing, rule_hash=c.rule_hash,
                     rule_spec=c.rule.spec() if c.rule is not None else None) for c in current]
    try:
        data = _read_json(path) if path else {}
        run_path = path.with_name("run.json") if path else None
        run = _read_json(run_path) if run_path and run_path.is_file() else {}
        shown = {f["claim"]: f for f in data.get("findings", [])}
        shown_claims = _claim_dicts(data)
        full_by_key = {f["claim"]: f for f in (full or {}).get("findings", [])}
        full_claims = _claim_dicts(full or {})
        for row in rows:
            f, ff = shown.get(row.key), full_by_key.get(row.key)
            if f is not None:
                row.verdict, row.summary = f["verdict"], f.get("summary", "")
                row.measured, row.figures = f.get("measured", {}), list(f.get("figures", []))
                c = shown_claims.get(row.key, {})
                row.run_rule_hash, row.run_criterion = c.get("rule_hash", ""), c.get("criterion", "")
            elif data.get("error"):
                row.verdict = "error"
            if ff is not None:
                row.full_verdict, row.full_summary = ff["verdict"], ff.get("summary", "")
                row.full_measured, row.full_figures = ff.get("measured", {}), list(ff.get("figures", []))
                row.full_figures_not_kept = list(ff.get("figures_not_kept", []))
                c = full_claims.get(row.key, {})
                row.full_rule_hash, row.full_criterion = c.get("rule_hash", ""), c.get("criterion", "")
            if row.rule_spec is not None:
                noise = row.full_measured or row.measured
                row.null, row.null_ok = _null(info.slug, row.key, json.dumps(noise, sort_keys=True))
    except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError) as e:
        # one damaged file must not take down the report: show the paper as damaged, keep the rest
        name = f"{info.slug}/{profile}/findings.json" if path else f"the {info.slug} record"
        return PaperResult(info.number, info.slug, info.title, "damaged",
                           error=f"damaged findings file {name}: {type(e).__name__}: {str(e)[:200]}")
    status = "not run" if path is None else "error" if data.get("error") else "ran"
    return PaperResult(info.number, info.slug, info.title, status, profile, rows, data.get("error"), run,
                       provenance(full) if full else None,
                       bool((full or {}).get("run", {}).get("dirty")), full_local)


def load_results(out: Path, records: bool = True) -> list[PaperResult]:
    """One entry for each of the 19 papers, in seed-list order. `records`: show full records beside."""
    return [_load_one(p, Path(out), records) for p in registry.PAPERS]


def tally(results: list[PaperResult], full: bool = False) -> dict[str, int]:
    """Verdict counts over all claims, of the shown run (or of the full records with `full`)."""
    counts: dict[str, int] = {}
    for r in results:
        for c in r.claims:
            v = c.full_verdict if full else c.verdict
            if v and v != "not run":
                counts[v] = counts.get(v, 0) + 1
    return counts


def paper_tally(r: PaperResult, full: bool = False) -> dict[str, int]:
    return tally([r], full)
