"""Hive (ICLR 2025): explainable multi-model plans. PDDL domains of model capabilities are merged and
planned over, the plan is chained by modality, models are selected from a capability registry under
the user's license/size/benchmark preferences, executed, and every step is written to a report."""

from iclr25.core.registry import make_paper
from iclr25.hive.backends import MiniLM, OpenAICompatible, SmolLM2, make_backend
from iclr25.hive.chaining import Flow, chain, fot_flow, fot_order, mention_order
from iclr25.hive.executors import DEFAULT_EXECUTORS, Artefact
from iclr25.hive.experiments import CLAIMS, run
from iclr25.hive.hive import Hive, HiveConfig, Result
from iclr25.hive.muse import Query, load_domains, load_queries
from iclr25.hive.pddl import Action, Domain, Predicate, Problem, merge_domains, parse_domain, parse_problem
from iclr25.hive.planners import PLANNERS, Plan, plan, up_validate, validate
from iclr25.hive.registry import Infeasible, ModelCard, Preferences, Registry, Selection
from iclr25.hive.report import Report
from iclr25.hive.routes import ROUTES

PAPER = make_paper("hive", CLAIMS, run)

__all__ = [
    "CLAIMS",
    "DEFAULT_EXECUTORS",
    "PAPER",
    "PLANNERS",
    "ROUTES",
    "Action",
    "Artefact",
    "Domain",
    "Flow",
    "Hive",
    "HiveConfig",
    "Infeasible",
    "MiniLM",
    "ModelCard",
    "OpenAICompatible",
    "Plan",
    "Predicate",
    "Preferences",
    "Problem",
    "Query",
    "Registry",
    "Report",
    "Result",
    "Selection",
    "SmolLM2",
    "chain",
    "fot_flow",
    "fot_order",
    "load_domains",
    "load_queries",
    "make_backend",
    "mention_order",
    "merge_domains",
    "parse_domain",
    "parse_problem",
    "plan",
    "run",
    "up_validate",
    "validate",
]
