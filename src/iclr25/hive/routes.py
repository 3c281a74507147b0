"""Three routes from a request to a set of actions, on the same backend, the same option texts (the
domain files' action comments) and the same decomposition of the request into parts (`parse.parts`), so
only the route differs:

- Hive (spec §2 steps 3-6): per part, domain classification (domains within `tau_domain` of the part's
  best), then the goal actions within `tau_action` of the best action of the merged domains; the goal
  is the union over parts, planned as one PDDL problem;
- HuggingGPT: per part, one flat choice over every action (within `tau`), model by downloads;
- ControlLLM: per part, the best tool when it stands out (standardised score ≥ z), then
  Thoughts-on-Graph: a search on the typed tool graph that adds the tools needed to connect the
  request's inputs to each chosen tool.

A part contributes only when its best option scores at least `tau_part` (Hive, HuggingGPT): parts that
match nothing well (material left in the request, a greeting) are skipped, and the skipped parts are
named. The margins are what the 2-fold cross-fitting tunes, alike for all routes (issue #45: a margin
over the whole request kept one action for a two-task request).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from iclr25.hive.pddl import Domain, merge_domains
from iclr25.hive.tasks import ACTION_IO

ROUTES = ("hive", "hugginggpt", "controlllm")


@dataclass(frozen=True)
class PartScores:
    """Backend scores of one part of a request: every domain and every action."""

    text: str
    domains: dict[str, float]
    actions: dict[str, float]


@dataclass(frozen=True)
class Scores:
    """Backend scores of one request: the whole request (fallback when no part matches), and each part."""

    domains: dict[str, float]
    actions: dict[str, float]
    parts: tuple[PartScores, ...] = field(default=())


@dataclass(frozen=True)
class Choice:
    """The actions a route chose, and the parts it skipped (text, best option, its score)."""

    actions: list[str]
    skipped: list[tuple[str, str, float]] = field(default_factory=list)


def domain_text(d: Domain) -> str:
    """What a domain is matched on: its actions' comments."""
    return "; ".join(a.description for a in d.actions)


def clauses(query: str) -> list[str]:
    """The request's parts (kept for callers of the first round's name; see `parse.parts`)."""
    from iclr25.hive.parse import parts

    return parts(query)


def score_query(backend: Any, query: str, domains: dict[str, Domain]) -> Scores:
    """A backend with `by_name` (SmolLM2) scores the names in words ("audio to text"), short closed
    answers; the others score the comments. The whole request and each part are scored alike."""
    from iclr25.hive.parse import parts

    by_name = getattr(backend, "by_name", False)
    actions = {
        a.name: a.name.replace("_", " ") if by_name else a.description
        for d in domains.values()
        for a in d.actions
    }
    names, texts = list(actions), list(actions.values())
    dnames = list(domains)
    dtexts = [d.replace("_", " ") if by_name else domain_text(domains[d]) for d in dnames]

    def both(text: str) -> tuple[dict[str, float], dict[str, float]]:
        s = backend.score(text, dtexts + texts)
        return (dict(zip(dnames, map(float, s[: len(dnames)]), strict=True)),
                dict(zip(names, map(float, s[len(dnames):]), strict=True)))

    whole = both(query)
    ps = parts(query)
    per_part = tuple(PartScores(p, *both(p)) for p in ps) if len(ps) > 1 else (PartScores(ps[0], *whole),)
    return Scores(whole[0], whole[1], per_part)


def within(scores: dict[str, float], tau: float) -> list[str]:
    """Options scoring within `tau` of the best, best first."""
    best = max(scores.values())
    return sorted((k for k, v in scores.items() if v >= best - tau), key=lambda k: -scores[k])


def _domain_actions(domains: dict[str, Domain]) -> dict[str, list[str]]:
    return {n: [a.name for a in d.actions] for n, d in domains.items()}


def hive_select(s: Scores, domains: dict[str, Domain], tau_domain: float, tau_action: float,
                tau_part: float, by_domain: dict[str, list[str]] | None = None) -> Choice:
    """Per part: domains within `tau_domain`, then actions of those domains within `tau_action` of their
    best, kept when that best scores ≥ `tau_part`; the union over parts, in order. No part kept: the
    whole request's best action (one task), so a request never plans nothing."""
    by_domain = by_domain or _domain_actions(domains)
    chosen: list[str] = []
    skipped = []
    for p in s.parts:
        pool = {a: p.actions[a] for d in within(p.domains, tau_domain) for a in by_domain[d]}
        best = max(pool, key=pool.get)
        if pool[best] < tau_part:
            skipped.append((p.text, best, pool[best]))
            continue
        chosen += [a for a in within(pool, tau_action) if a not in chosen]
    if not chosen:
        pool = {a: s.actions[a] for d in within(s.domains, tau_domain) for a in by_domain[d]}
        chosen = [max(pool, key=pool.get)]
    return Choice(chosen, skipped)


def hive_actions(s: Scores, domains: dict[str, Domain], tau_domain: float, tau_action: float,
                 tau_part: float = float("-inf")) -> tuple[list[str], Domain]:
    """Hive's goal actions and the merged domain of the domains holding them."""
    from iclr25.hive.tasks import domains_of

    acts = hive_select(s, domains, tau_domain, tau_action, tau_part).actions
    return acts, merge_domains([domains[d] for d in domains_of(acts, domains)])


def hugginggpt_select(s: Scores, tau: float, tau_part: float) -> Choice:
    chosen: list[str] = []
    skipped = []
    for p in s.parts:
        best = max(p.actions, key=p.actions.get)
        if p.actions[best] < tau_part:
            skipped.append((p.text, best, p.actions[best]))
            continue
        chosen += [a for a in within(p.actions, tau) if a not in chosen]
    return Choice(chosen or [max(s.actions, key=s.actions.get)], skipped)


def hugginggpt_actions(s: Scores, tau: float, tau_part: float = float("-inf")) -> list[str]:
    return hugginggpt_select(s, tau, tau_part).actions


def controlllm_actions(s: Scores, z: float, inputs: tuple[str, ...]) -> list[str]:
    """One tool per part whose best tool stands out (standardised score >= z), then Thoughts-on-Graph:
    a tool whose input type nothing provides gets the best-scoring producer of that type prepended."""
    picked: list[str] = []
    for p in s.parts:
        c = p.actions
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
