"""`Hive(backend, registry, executors).run(query, prefs)`: the whole pipeline for one request (spec §2):
parse -> domain classification -> merge -> PDDL problem -> plan -> chaining -> model selection under the
user's preferences -> execution -> the seven-section report with timings."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from iclr25.core.errors import UserError
from iclr25.hive.backends import MAX_QUERY_CHARS, OpenAICompatible
from iclr25.hive.chaining import Flow, chain, mention_order
from iclr25.hive.executors import DEFAULT_EXECUTORS, REAL, Artefact, ExecContext, Executor
from iclr25.hive.muse import MEDIA, media_in, modality_of
from iclr25.hive.pddl import Domain, merge_domains
from iclr25.hive.planners import Plan, plan
from iclr25.hive.registry import Preferences, Registry, Selection
from iclr25.hive.report import Report
from iclr25.hive.routes import domain_text, within
from iclr25.hive.tasks import ACTION_IO, domains_of, problem_for

# margins of the two stages per backend (score units: cosine for MiniLM, mean log-prob for SmolLM2);
# 0 keeps only the best option. The MuSE cross-fitting tunes these per fold; these are the defaults
# for users' requests.
DEFAULT_TAU = {"minilm": (0.05, 0.05), "smollm2": (0.3, 0.3), "openai": (0.0, 0.0)}


@dataclass(frozen=True)
class HiveConfig:
    planner: str = "lapkt-bfws"  # the paper's planner (1-BFWS)
    tau_domain: float | None = None  # None: DEFAULT_TAU of the backend
    tau_action: float | None = None
    max_seconds: float | None = None  # cut audio inputs (None: whole file)


@dataclass
class Result:
    outputs: list[Artefact]
    plan: Plan
    flow: Flow
    models: dict[str, Selection]
    report: Report
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def final(self) -> Artefact:
        return self.outputs[-1]


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

    def _taus(self) -> tuple[float, float]:
        d = DEFAULT_TAU.get(getattr(self.backend, "name", ""), (0.0, 0.0))
        c = self.config
        return (
            d[0] if c.tau_domain is None else c.tau_domain,
            d[1] if c.tau_action is None else c.tau_action,
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
        text = " ".join(MEDIA.sub(" ", query).split())
        parsed = {
            "instruction": text,
            "input_text": text,
            "media": [{"path": str(p), "modality": modality_of(p)} for p in media],
        }
        inputs = tuple(dict.fromkeys(["text", *(modality_of(p) for p in media)]))
        t["parse_s"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        tau_d, tau_a = self._taus()
        names = list(self.domains)
        if actions is not None:
            chosen = domains_of(actions, self.domains)
        else:
            by_name = getattr(self.backend, "by_name", False)
            d_scores = self.backend.score(
                query, [n.replace("_", " ") if by_name else domain_text(self.domains[n]) for n in names]
            )
            chosen = within(dict(zip(names, map(float, d_scores), strict=True)), tau_d)
        merged = merge_domains([self.domains[n] for n in chosen])
        t["domain_classification_s"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        if actions is not None:
            problem = problem_for(merged, actions, "request")
        elif isinstance(self.backend, OpenAICompatible):
            problem, _ = self.backend.problem(query, merged)
        else:
            by_name = getattr(self.backend, "by_name", False)
            a_scores = self.backend.score(
                query, [a.name.replace("_", " ") if by_name else a.description for a in merged.actions]
            )
            goal = within({a.name: float(s) for a, s in zip(merged.actions, a_scores, strict=True)}, tau_a)
            problem = problem_for(merged, goal, "request")
        the_plan = plan(merged, problem, self.config.planner)
        flow = chain(the_plan.actions, inputs=inputs, order_hint=mention_order(query, the_plan.actions))
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
            code.append(f"out_{i + 1} = {a}({arg}, model={models[a].model.id!r})")
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
                    "executed_with": produced[a].note + (" (stub)" if produced[a].stub else "")
                    if a in REAL or produced[a].stub
                    else produced[a].note,
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
        return Result(outputs, the_plan, flow, models, report, t)
