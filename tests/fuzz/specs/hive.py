from __future__ import annotations

import json

from ..spec import Spec

SPECS = [
    Spec("hive run", {"query": "find the named entities in: Ada Lovelace lives in London",
                      "registry": "{registry}", "prefs": "{prefs}", "out": "{tmp}/report.md",
                      "domain_dir": "{domains}", "planner": "pyperplan", "base_dir": "{tmp}",
                      "out_dir": "{tmp}/out"},
         grep_like=True),  # exit 1: the request could not be met in full (what was not done is on stderr)
    Spec("hive plan", {"domains": ["text_tools"], "goal": "(GetNER input_text)", "domain_dir": "{domains}",
                       "planner": "pyperplan"}),
    Spec("hive muse-eval", {"system": "hive", "backend": "minilm", "limit": "2", "data_dir": "{muse}"}),
]

DOMAIN = """(define (domain text_tools) (:requirements :strips :typing) (:types text)
  (:predicates (IsText ?t - text) (GetNER ?t - text) (ExtractSummary ?t - text))
  (:action get_named_entities ; find the named entities in a text
    :parameters (?input_text - text) :precondition (IsText ?input_text) :effect (GetNER ?input_text))
  (:action get_extractive_summarization ; summarise a text by its key sentences
    :parameters (?input_text - text) :precondition (IsText ?input_text) :effect (ExtractSummary ?input_text)))
"""


def valid(d):
    dom = d / "domains"
    dom.mkdir()
    (dom / "text_tools-domain.pddl").write_text(DOMAIN)
    (d / "m.jsonl").write_text(json.dumps({"id": "dslim/bert-base-NER", "task": "token-classification",
                                           "license": "mit", "params": 1.1e8, "downloads": 5}) + "\n")
    (d / "p.json").write_text(json.dumps({"licenses": ["mit", "apache-2.0"], "size": "1B"}))
    muse = d / "muse"
    (muse / "MuSE_Benchmark").mkdir(parents=True)
    (muse / "PDDL-domain-files").mkdir()
    (muse / "PDDL-domain-files" / "text_tools-domain.pddl").write_text(DOMAIN)
    queries = [{"input": "Identify named entities in: My name is Omar.", "idx": 0, "input_type": "text",
                "output_type": "text", "domains": ["token_classification"],
                "tasks": ["named-entity-recognition"]},
               {"input": "Summarise this: Cats sleep. Dogs bark.", "idx": 1, "input_type": "text",
                "output_type": "text", "domains": ["summarisation"], "tasks": ["extractive-summarisation"]}]
    (muse / "MuSE_Benchmark" / "queries.json").write_text(json.dumps(queries))
    return {"domains": str(dom), "registry": str(d / "m.jsonl"), "prefs": str(d / "p.json"),
            "muse": str(muse)}
