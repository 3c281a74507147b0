"""`Hive(backend, registry, executors).run(query, prefs)`: the whole pipeline for one request (spec §2):
parse (the request split into parts) -> per part, domain classification and goal actions -> merge ->
PDDL problem -> plan -> chaining -> model selection under the user's preferences -> execution -> the
seven-section report with timings. What could not be done (a part that matched no action, a step that
only a stub could run) is listed in `Result.unmet`, never dropped silently."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from iclr25.core.errors import UserError
from iclr25.hive.backends import MAX_QUERY_CHARS, OpenAICompatible
from iclr25.hive.chaining import Flow, chain
from iclr25.hive.executors import DEFAULT_EXECUTORS, Artefact, ExecContext, Executor
from iclr25.hive.muse import MEDIA, media_in, modality_of
from iclr25.hive.parse import instruction, read_text_file, text_files
from iclr25.hive.pddl import Domain, merge_domains
from iclr25.hive.planners import Plan, plan
from iclr25.hive.registry import Preferences, Registry, Selection
from iclr25.hive.report import Report
from iclr25.hive.routes import domain_text, hive_select, score_query, within
from iclr25.hive.tasks import ACTION_IO, domains_of, problem_for

# Margins per backend (score units: cosine for MiniLM, mean log-prob for SmolLM2): (tau_domain,
# tau_action, tau_part). 0 keeps only the best option; a part whose best action scores below tau_part is
# skipped (and reported). The reproduction cross-fits its own on MuSE; these defaults for users'
# requests are, for MiniLM, the margins fitted on all 100 MuSE queries for TS (`evaluation.fit`), for
# SmolLM2 the medians of the six cross-fitted margins of the full record (its scoring takes minutes).
# No measurement of the reproduction reads them.
DEFAULT_TAU = {"minilm": (0.08, 0.0, 0.18), "smollm2": (0.28, 0.0, -6.67), "openai": (0.0, 0.0, 0.5)}


@dataclass(frozen=True)
class HiveConfig:
    planner: str = "lapkt-bfws"  # the paper's planner (1-BFWS)
    tau_domain: float | None = None  # None: DEFAULT_TAU of the backend
    tau_action: float | None = None
    tau_part: float | None = None
    max_seconds: float | None = None  # cut audio inputs (None: whole file)


@dataclass
class Result:
    outputs: list[Artefact]
    plan: Plan
    flow: Flow
    models: dict[str, Selection]
    report: Report
    timings: dict[str, float] = field(default_factory=dict)
    skipped: list[tuple[str, str, float]] = field(default_factory=list)  # (part, best action, its score)
    tau_part: float = float("-inf")

    @property
    def final(self) -> Artefact:
        return self.outputs[-1]

    @property
    def unmet(self) -> list[str]:
        """What the request asked for that was not done for real: parts that matched no action, and
        steps that only a stub could run (their output is a placeholder)."""
        out = [f"part {p!r} matched no action (best: {a}, score {v:.3f} < tau_part {self.tau_part:.3f}); "
               "skipped" for p, a, v in self.skipped]
        out += [f"{a}: no local model can run it; a stub returned a placeholder {o.modality}"
                for a, o in zip(self.flow.order, self.outputs, strict=True) if o.stub]
        return out


class Hive:
    def __init__(
        self,
        backend: Any,
        registry: Registry,
        domains: dict[str, Domain],
        executors: dict[str, Executor] | None = None,
        config: HiveConfig = HiveConfig(),
    ) -> None:
        if not domains:
            raise UserError("Hive needs at least one PDDL domain")
        self.backend, self.registry, self.domains, self.config = backend, registry, domains, config
        self.executors = {**DEFAULT_EXECUTORS, **(executors or {})}

    def _taus(self) -> tuple[float, float, float]:
        d = DEFAULT_TAU.get(getattr(self.backend, "name", ""), (0.0, 0.0, float("-inf")))
        c = self.config
        return (
            d[0] if c.tau_domain is None else c.tau_domain,
            d[1] if c.tau_action is None else c.tau_action,
            d[2] if c.tau_part is None else c.tau_part,
        )

    def run(
        self,
        query: str,
        prefs: Preferences | None = None,
        base_dir: str | Path = ".",
        out_dir: str | Path = "hive-out",
        actions: list[str] | None = None,
    ) -> Result:
        """Run the request; `actions` (optional) are known goal actions, which skips the backend's
        classification stages (an oracle parse: the reproduction's execution check uses MuSE's labels)."""
        prefs = prefs or Preferences()
        if not isinstance(query, str) or not query.strip():
            raise UserError("the query is empty")
        if len(query) > MAX_QUERY_CHARS:
            raise UserError(f"the query has {len(query)} characters; at most {MAX_QUERY_CHARS}")
        t: dict[str, float] = {}
        t0 = time.perf_counter()
        media = media_in(query, base_dir)  # missing media -> UserError before any work
        files = text_files(query, base_dir)
        material = "\n\n".join(read_text_file(f) for f in files)
        # the text the text steps work on: the named text file(s), else the request without its media
        text = material or " ".join(MEDIA.sub(" ", query).split())
        parsed = {
            "instruction": instruction(query),
            "input_text": text if len(text) <= 2000 else text[:2000] + " ...",
            "media": [{"path": str(p), "modality": modality_of(p)} for p in media],
            "text_files": [str(p) for p in files],
        }
        inputs = tuple(dict.fromkeys(["text", *(modality_of(p) for p in media)]))
        t["parse_s"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        tau_d, tau_a, tau_p = self._taus()
        skipped: list[tuple[str, str, float]] = []
        goal: list[str] | None = None
        if actions is not None:
            chosen = domains_of(actions, self.domains)
        elif isinstance(self.backend, OpenAICompatible):
            names = list(self.domains)
            d_scores = self.backend.score(query, [domain_text(self.domains[n]) for n in names])
            chosen = within(dict(zip(names, map(float, d_scores), strict=True)), tau_d)
        else:
            scores = score_query(self.backend, query, self.domains)
            pick = hive_select(scores, self.domains, tau_d, tau_a, tau_p)
            goal, skipped = pick.actions, pick.skipped
            chosen = domains_of(goal, self.domains)
        merged = merge_domains([self.domains[n] for n in chosen])
        t["domain_classification_s"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        if actions is not None:
            problem = problem_for(merged, actions, "request")
        elif isinstance(self.backend, OpenAICompatible):
            problem, _ = self.backend.problem(query, merged)
        else:
            problem = problem_for(merged, goal, "request")
        the_plan = plan(merged, problem, self.config.planner)
        flow = chain(the_plan.actions, inputs=inputs, query=query)
        t["problem_and_plan_s"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        models = {a: self.registry.select(a, prefs) for a in flow.order}  # Infeasible names the constraint
        t["model_selection_s"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        ctx = ExecContext(query, Path(out_dir), self.config.max_seconds)
        produced: dict[str, Artefact] = {}
        code: list[str] = []
        for i, a in enumerate(flow.order):
            need = ACTION_IO.get(a, ("text", "text"))[0]
            src = flow.inputs_of(a)
            if src:
                x, arg = produced[src[0]], f"out_{flow.order.index(src[0]) + 1}"
            elif need == "text":
                x, arg = Artefact("text", text), "input_text"
            else:
                path = next((p for p in media if modality_of(p) == need), None)
                if path is None:
                    raise UserError(f"action {a} needs an {need} input; the query names no {need} file")
                x, arg = Artefact(need, str(path)), f"input_{need}"
            produced[a] = self.executors[a](x, ctx)
            ran = produced[a].note + (", a stub" if produced[a].stub else "")
            code.append(f"out_{i + 1} = {a}({arg})  # selected {models[a].model.id}; ran {ran}")
        t["execution_s"] = time.perf_counter() - t0

        outputs = [produced[a] for a in flow.order]
        report = Report(
            query,
            parsed,
            chosen,
            merged.to_pddl(),
            problem.to_pddl(),
            the_plan.planner,
            the_plan.raw,
            [" ".join((a, *args)) for a, args in the_plan.steps],
            sorted(flow.edges),
            prefs.to_dict(),
            [
                {
                    "action": a,
                    "model": s.model.id,
                    "license": s.model.license,
                    "ranked_by": s.ranked_by,
                    "feasible": s.feasible,
                    "considered": s.considered,
                    "executed_with": produced[a].note + (" (stub: placeholder output)" if produced[a].stub
                                                         else " (local stand-in)"),
                }
                for a, s in models.items()
            ],
            code,
            [
                {
                    "action": a,
                    "modality": produced[a].modality,
                    "preview": produced[a].preview(),
                    "stub": produced[a].stub,
                }
                for a in flow.order
            ],
            t,
        )
        result = Result(outputs, the_plan, flow, models, report, t, skipped, tau_p)
        report.unmet = result.unmet
        return result
