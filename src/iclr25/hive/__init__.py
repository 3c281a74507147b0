"""Hive (ICLR 2025): explainable multi-model plans. PDDL domains of model capabilities are merged and
planned over, the plan is chained by modality, models are selected from a capability registry under
the user's license/size/benchmark preferences, executed, and every step is written to a report."""

from iclr25.core.lazy import lazy_package

__getattr__, __dir__, __all__ = lazy_package(__name__, {
    "backends": ["MiniLM", "OpenAICompatible", "SmolLM2", "make_backend"],
    "chaining": ["Flow", "chain", "fot_flow", "fot_order", "mention_order"],
    "claims": ["CLAIMS"],
    "executors": ["DEFAULT_EXECUTORS", "Artefact"],
    "experiments": ["run"],
    "hive": ["Hive", "HiveConfig", "Result"],
    "muse": ["Query", "load_domains", "load_queries"],
    "parse": ["instruction", "parts"],
    "pddl": ["Action", "Domain", "Predicate", "Problem", "merge_domains", "parse_domain", "parse_problem"],
    "planners": ["PLANNERS", "Plan", "plan", "up_validate", "validate"],
    "registry": ["Infeasible", "ModelCard", "Preferences", "Registry", "Selection"],
    "report": ["Report"],
    "routes": ["ROUTES"],
})
