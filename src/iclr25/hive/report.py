"""The explainability report (spec §2 step 9): the seven sections of the paper's Report.pdf as Markdown,
every step a symbolic artefact. The merged domain and the problem are written as fenced PDDL, so the
report alone re-plans (`pddl_from_markdown`)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from iclr25.core.errors import UserError

SECTIONS = (
    "1. User query",
    "2. Parsed query",
    "3. Domain classification and merged domain",
    "4. PDDL problem and planner output",
    "5. Plan",
    "6. Model selection",
    "7. Code and execution",
)


@dataclass
class Report:
    query: str
    parsed: dict[str, Any]
    domains: list[str]
    domain_pddl: str
    problem_pddl: str
    planner: str
    planner_output: str
    plan: list[str]
    flow: list[tuple[str, str]]
    preferences: dict[str, Any]
    selections: list[dict[str, Any]]
    code: list[str]
    outputs: list[dict[str, Any]]
    timings: dict[str, float] = field(default_factory=dict)
    unmet: list[str] = field(default_factory=list)  # what the request asked for that was not done

    def to_markdown(self) -> str:
        """The report as Markdown: sections separated by blank lines, each table and fenced block one
        block (a table's header, its `|---|` row and its rows on consecutive lines, a blank line before
        it)."""
        sel = "\n".join(
            f"| {s['action']} | {s['model']} | {s['license']} | {s['ranked_by']} | "
            f"{s['feasible']}/{s['considered']} | {s['executed_with']} |"
            for s in self.selections
        )
        outs = "\n".join(
            f"- {o['action']} -> {o['modality']}: {o['preview']}" + (" (stub)" if o["stub"] else "")
            for o in self.outputs
        )
        flow = ", ".join(f"{a} -> {b}" for a, b in self.flow) or "(no data flow between actions)"
        times = "\n".join(f"| {k} | {v:.3f} |" for k, v in self.timings.items())
        def fence(lang: str, text: str) -> str:  # one block: no blank line inside the fence
            return f"```{lang}\n{text}\n```"

        body = [
            "# Hive report",
            f"## {SECTIONS[0]}",
            self.query,
            f"## {SECTIONS[1]}",
            fence("json", json.dumps(self.parsed, indent=1, ensure_ascii=False)),
            f"## {SECTIONS[2]}",
            f"Domains: {', '.join(self.domains)}",
            fence("pddl", self.domain_pddl.rstrip()),
            f"## {SECTIONS[3]}",
            fence("pddl", self.problem_pddl.rstrip()),
            f"Planner: {self.planner}",
            fence("text", self.planner_output.strip()[-3000:] or "(no output)"),
            f"## {SECTIONS[4]}",
            "\n".join(f"{i + 1}. ({a})" for i, a in enumerate(self.plan)),
            f"Data flow (chaining step): {flow}",
            f"## {SECTIONS[5]}",
            "Preferences:",
            fence("json", json.dumps(self.preferences)),
            "| action | model | license | ranked by | feasible/considered | executed with |\n"
            "|---|---|---|---|---|---|\n" + sel,
            f"## {SECTIONS[6]}",
            fence("python", "\n".join(self.code)),
            "Outputs:",
            outs,
            *(["Not done:", "\n".join(f"- {u}" for u in self.unmet)] if self.unmet else []),
            "## Timings",
            "| step | seconds |\n|---|---|\n" + times,
        ]
        return "\n\n".join(body) + "\n"


def pddl_from_markdown(md: str) -> tuple[str, str]:
    """(domain PDDL, problem PDDL) from a report's fenced blocks."""
    blocks = re.findall(r"```pddl\n(.*?)```", md, re.DOTALL)
    dom = next((b for b in blocks if re.search(r"\(define\s*\(domain", b)), None)
    prob = next((b for b in blocks if re.search(r"\(define\s*\(problem", b)), None)
    if dom is None or prob is None:
        raise UserError("the report holds no PDDL domain and problem blocks")
    return dom, prob
