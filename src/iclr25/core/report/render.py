"""Render results as HTML (Jinja2, autoescaped) and Markdown. The static report and the web app
share these functions; only the way links are made differs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import jinja2

from iclr25.core.report.results import ClaimRow, PaperResult, paper_tally, tally

_TEMPLATE_DIRS = [Path(__file__).parent / "templates", Path(__file__).parents[1] / "web" / "templates"]
ENV = jinja2.Environment(loader=jinja2.FileSystemLoader([str(p) for p in _TEMPLATE_DIRS]),
                         autoescape=True, trim_blocks=True, lstrip_blocks=True)

VERDICT_CLASS = {"reproduced": "ok", "partial": "partial", "not reproduced": "bad",
                 "not testable here": "na", "decided by the full profile": "deferred", "error": "err",
                 "not run": "none", "damaged": "err", "smoke run — not a verdict": "none"}
VERDICT_ORDER = tuple(VERDICT_CLASS)

TIMING_MD = " *(timing)*"  # marks a wall-clock claim in Markdown


class MissingFigure(FileNotFoundError):
    """A page would show a figure that is not on disk."""


def _fmt(v: object) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, list) and all(isinstance(x, int | float) for x in v):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return str(v)


def _ordered(counts: dict[str, int]) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda kv: VERDICT_ORDER.index(kv[0]) if kv[0] in VERDICT_ORDER else 99)


ENV.filters["fmt"] = _fmt
ENV.globals["verdict_class"] = lambda v: VERDICT_CLASS.get(v, "none")
ENV.globals["ordered"] = _ordered
ENV.globals["paper_tally"] = paper_tally


def render_index(results: list[PaperResult], link: Callable[[str], str], static: bool) -> str:
    return ENV.get_template("report_index.html").render(
        results=results, tally=tally(results), full_tally=tally(results, full=True), link=link,
        static=static)


def render_paper(result: PaperResult, asset: Callable[[str], str], static: bool,
                 full_asset: Callable[[str], str] | None = None, record_link: str | None = None) -> str:
    """One paper's page. `asset(name)` links a figure of the shown run, `full_asset(name)` one of the full
    record (either may raise MissingFigure); `record_link` the committed record's Markdown."""
    return ENV.get_template("report_paper.html").render(r=result, asset=asset, full_asset=full_asset or asset,
                                                        static=static, record_link=record_link)


def _md_cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _counts(verdicts: list[str | None]) -> str:
    counts: dict[str, int] = {}
    for v in verdicts:
        if v and v != "not run":
            counts[v] = counts.get(v, 0) + 1
    return ", ".join(f"{n} {v}" for v, n in _ordered(counts)) or "—"


def papers_table_md(results: list[PaperResult], src: str = "../src/iclr25", full_link: str = "",
                    cold: dict[str, float] | None = None) -> str:
    """The README's table: one row per paper, its verdict tallies (the run shown, and the full-profile
    record) and, with `cold`, its cold quick-profile CPU seconds; the slug links to the paper's README
    under `src` and the tally to its full record under `full_link` ("" = no link)."""
    head = "| # | paper | slug | run shown | verdicts | full profile |"
    rule = "|---|---|---|---|---|---|"
    if cold is not None:
        head, rule = head + " cold quick (CPU s) |", rule + "---|"
    lines = [head, rule]
    for r in results:
        status = f"{r.status} ({r.profile})" if r.profile else r.status
        slug = f"[`{r.slug}`]({src}/{r.slug}/README.md)"
        full = _counts([c.full_verdict for c in r.claims]) if r.full else "—"
        if r.full and full_link:
            full = f"[{full}]({full_link}/{r.slug}.md)"
        stale = sum(c.full_stale for c in r.claims)
        if stale:
            full += f" ({stale} under older rules)"
        line = (f"| {r.number:02d} | {_md_cell(r.title)} | {slug} | {status} | "
                f"{_counts([c.verdict for c in r.claims])} | {full} |")
        if cold is not None:
            line += f" {cold[r.slug]:.0f} |" if r.slug in cold else " — |"
        lines.append(line)
    return "\n".join(lines)


def criterion_md(c: ClaimRow) -> str:
    """The current criterion, its null check, and what an older rule said where a run was decided by one."""
    text = _md_cell(c.criterion)
    if c.null:
        text += f" *(null check: {c.null}{'' if c.null_ok else ' — FAILS: not a test'})*"
    if c.full_stale:
        text += f" **The full record was decided under an older rule:** {_md_cell(c.full_criterion)}"
    return text


def render_markdown(results: list[PaperResult], full_link: str = "") -> str:
    """Every claim: the paper's number, ours, the verdict."""
    t, ft = tally(results), tally(results, full=True)
    out = ["# iclr25 — results", "",
           "Generated by `iclr25 report`; every verdict is computed by the claim's rule (`claims.py` of each "
           "paper, declared as data) from measurements. The full-profile column comes from the committed "
           "records in docs/full/ (date and commit under each paper). Each criterion shows its null check: "
           "how often the rule says REPRODUCED on simulated measurements with no effect.", "",
           "Claims: " + (", ".join(f"{n} {v}" for v, n in _ordered(t)) or "none yet"),
           "", "Full-profile records: " + (", ".join(f"{n} {v}" for v, n in _ordered(ft)) or "none"),
           "", papers_table_md(results, full_link=full_link), ""]
    for r in results:
        if not r.claims and r.status not in ("error", "damaged"):
            continue
        wall = f" · wall {r.run.get('wall_s', '?')} s" if r.profile else ""
        shown = f"`{r.slug}` · run shown: `{r.profile or 'none'}`{wall}"
        out += [f"## {r.number:02d} · {r.title}", "", shown, ""]
        if r.full:
            link = f" — [record]({full_link}/{r.slug}.md)" if full_link else ""
            dirty = " **(from a tree with uncommitted changes)**" if r.full_dirty else ""
            out += [f"Full profile: {r.full}{dirty}{link}", ""]
        if r.error:
            out += ["**Error:** `" + _md_cell(r.error.strip().splitlines()[-1]) + "`", ""]
        shown = r.profile or "run"
        out += [f"| claim | paper reports | our criterion | {shown} | we measured | full profile |",
                "|---|---|---|---|---|---|"]
        out += [f"| {_md_cell(c.statement)}{TIMING_MD if c.timing else ''} | {_md_cell(c.paper)} | "
                f"{criterion_md(c)} | **{c.verdict}**{' (older rule)' if c.stale else ''} | "
                f"{_md_cell(c.summary)} | "
                + (f"**{c.full_verdict}**: {_md_cell(c.full_summary)} |" if c.full_verdict else "— |")
                for c in r.claims]
        out.append("")
    return "\n".join(out)


def claims_table_md(r: PaperResult, full_link: str = "") -> str:
    """A paper README's claims table, generated: the paper's number, our criterion (the rule's prose and
    its null check), the run shown and the full record. Edit the rule in claims.py, never this table."""
    shown = r.profile or "run"
    full_head = f"[full profile]({full_link}/{r.slug}.md)" if full_link and r.full else "full profile"
    lines = ["*Generated by `iclr25 report --docs` from `claims.py` and the runs; do not edit by hand.*", "",
             f"| claim | paper reports | our criterion | {shown} | {full_head} |", "|---|---|---|---|---|"]
    for c in r.claims:
        run = f"**{c.verdict}**: {_md_cell(c.summary)}" if c.verdict != "not run" else "not run"
        full = f"**{c.full_verdict}**: {_md_cell(c.full_summary)}" if c.full_verdict else "—"
        timing = TIMING_MD if c.timing else ""
        lines.append(f"| `{c.key}`{timing} | {_md_cell(c.paper)} | {criterion_md(c)} | {run} | {full} |")
    return "\n".join(lines)
