"""Three routes from a request to a set of actions, on the same backend and the same option texts (the
domain files' action comments), so only the route differs:

- Hive (spec §2 steps 3-6): domain classification, merge of the chosen domains, goal actions chosen
  within the merged domain, a PDDL problem and a plan;
- HuggingGPT: one flat task list over every action, model by downloads;
- ControlLLM: task decomposition into clauses, one tool per clause, then Thoughts-on-Graph: a search on
  the typed tool graph that adds the tools needed to connect the query's inputs to each chosen tool.

Each route keeps the options within a margin `tau` of the best score (Hive has one margin per stage);
the margins are what the 2-fold cross-fitting tunes, alike for all routes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from iclr25.hive.pddl import Domain, merge_domains
from iclr25.hive.tasks import ACTION_IO

ROUTES = ("hive", "hugginggpt", "controlllm")


@dataclass(frozen=True)
class Scores:
    """Backend scores of one query: every domain and every action (each against the whole query), and
    every action against each clause of the query (ControlLLM's decomposition)."""

    domains: dict[str, float]
    actions: dict[str, float]
    clauses: tuple[dict[str, float], ...] = field(default=())


def domain_text(d: Domain) -> str:
    """What a domain is matched on: its actions' comments."""
    return "; ".join(a.description for a in d.actions)


def clauses(query: str) -> list[str]:
    """ControlLLM-style decomposition: the request split into sub-requests at 'and', 'then', commas and
    sentence ends; fragments under three words join the previous one."""
    parts = re.split(r"\band then\b|\bthen\b|\band\b|[,;.?!]\s+|\n+", " ".join(query.split()[:120]))
    out: list[str] = []
    for p in (p.strip() for p in parts):
        if not p:
            continue
        if out and len(p.split()) < 3:
            out[-1] += " " + p
        else:
            out.append(p)
    return out[:6] or [query]


def score_query(backend: Any, query: str, domains: dict[str, Domain]) -> Scores:
    """A backend with `by_name` (SmolLM2) scores the names in words ("audio to text"), short closed
    answers; the others score the comments."""
    by_name = getattr(backend, "by_name", False)
    actions = {
        a.name: a.name.replace("_", " ") if by_name else a.description
        for d in domains.values()
        for a in d.actions
    }
    names, texts = list(actions), list(actions.values())
    dnames = list(domains)
    dtexts = [d.replace("_", " ") if by_name else domain_text(domains[d]) for d in dnames]
    both = backend.score(query, dtexts + texts)
    per_clause = []
    for c in clauses(query):
        s = backend.score(c, texts)
        per_clause.append(dict(zip(names, map(float, s), strict=True)))
    return Scores(
        dict(zip(dnames, map(float, both[: len(dnames)]), strict=True)),
        dict(zip(names, map(float, both[len(dnames) :]), strict=True)),
        tuple(per_clause),
    )


def within(scores: dict[str, float], tau: float) -> list[str]:
    """Options scoring within `tau` of the best, best first."""
    best = max(scores.values())
    return sorted((k for k, v in scores.items() if v >= best - tau), key=lambda k: -scores[k])


def hive_actions(
    s: Scores,
    domains: dict[str, Domain],
    tau_domain: float,
    tau_action: float,
) -> tuple[list[str], Domain]:
    """Domain classification, merge, then goal actions within the merged domain."""
    chosen = within(s.domains, tau_domain)
    merged = merge_domains([domains[d] for d in chosen])
    acts = within({a.name: s.actions[a.name] for a in merged.actions}, tau_action)
    return acts, merged


def hugginggpt_actions(s: Scores, tau: float) -> list[str]:
    return within(s.actions, tau)


def controlllm_actions(s: Scores, z: float, inputs: tuple[str, ...]) -> list[str]:
    """One tool per clause whose best tool stands out (standardised score >= z), then Thoughts-on-Graph:
    a tool whose input type nothing provides gets the best-scoring producer of that type prepended."""
    picked: list[str] = []
    for c in s.clauses:
        v = np.array(list(c.values()))
        best = max(c, key=c.get)
        if (c[best] - v.mean()) / (v.std() + 1e-9) >= z and best not in picked:
            picked.append(best)
    if not picked:
        picked = [max(s.actions, key=s.actions.get)]
    available = {"text", *inputs}
    tools = list(picked)
    for t in picked:
        need = ACTION_IO.get(t, ("text", "text"))[0]
        if need not in available and not any(ACTION_IO[u][1] == need for u in tools if u in ACTION_IO):
            producers = [
                a for a in s.actions if ACTION_IO.get(a, ("", ""))[1] == need and ACTION_IO[a][0] in available
            ]
            if producers:
                tools.insert(0, max(producers, key=s.actions.get))
        available.add(ACTION_IO.get(t, ("text", "text"))[1])
    return tools
