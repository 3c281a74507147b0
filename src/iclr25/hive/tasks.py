"""What the 28 actions of the shipped domains do: which MuSE task label each one serves (our annotation,
spec §4 R2), the modality each consumes and produces, and the paper-style PDDL problem for a set of
actions (spec §2 step 5: typed objects, `:init` = type facts, `:goal` = the actions' effects)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from iclr25.core.errors import UserError
from iclr25.hive.pddl import Atom, Domain, Problem

MODALITIES = ("text", "image", "audio")

# MuSE label -> action of the domain files (our annotation)
LABEL_ACTION = {
    "automatic-speech-recognition": "audio_to_text",
    "text-to-audio": "text_to_audio",
    "text-to-image": "text_to_image",
    "text-generation": "generate_or_write_text",
    "image-captioning": "caption_image",
    "abstract-summarisation": "get_abstractive_summarization",
    "extractive-summarisation": "get_extractive_summarization",
    "instruction-based-summarisation": "get_instruction_based_summary",
    "named-entity-recognition": "get_named_entities",
    "text-classification": "classify_text",
    "question-answering-using-context": "get_answer_when_context_is_given",
    "open-question-answering": "generate_answer_without_context",
    "table-question-answering": "get_answer_when_data_or_table_is_given",
    "visual-question-answering": "answer_question_based_on_image",
    "image-classification": "classify_image",
    "object-detection": "detect_objects_in_image",
    "depth-estimation": "estimate_depth_of_image",
    "translation-xx-to-yy": "get_translation",
}
ACTION_LABEL = {a: lab for lab, a in LABEL_ACTION.items()}

# action -> (modality it consumes, modality it produces): what the chaining step connects
ACTION_IO = {
    "text_to_audio": ("text", "audio"),
    "audio_to_audio": ("audio", "audio"),
    "audio_to_text": ("audio", "text"),
    "text_to_image": ("text", "image"),
    "image_refinement": ("image", "image"),
    "image_segmentation": ("image", "image"),
    "estimate_depth_of_image": ("image", "image"),
    "classify_image": ("image", "text"),
    "detect_objects_in_image": ("image", "text"),
    "caption_image": ("image", "text"),
    "answer_question_based_on_image": ("image", "text"),
    **{
        a: ("text", "text")
        for a in (
            "get_translation",
            "back_translation",
            "translation_evaluation",
            "get_answer_when_context_is_given",
            "generate_answer_without_context",
            "get_answer_when_data_or_table_is_given",
            "get_extractive_summarization",
            "get_abstractive_summarization",
            "get_instruction_based_summary",
            "summarization_evaluation",
            "classify_text",
            "find_sentiment",
            "classify_spam",
            "generate_or_write_text",
            "generate_or_write_code",
            "get_named_entities",
            "get_part_of_speech",
        )
    },
}

# type -> the type fact the domain files use as precondition
TYPE_FACT = {
    "text": "istext",
    "image": "isimage",
    "audio": "isaudio",
    "list": "islist",
    "language": "validlanguage",
}


def action_of(label: str) -> str:
    if label not in LABEL_ACTION:
        raise UserError(f"unknown MuSE task label {label!r}")
    return LABEL_ACTION[label]


def problem_for(domain: Domain, actions: list[str], name: str = "query") -> Problem:
    """Paper-style problem whose goal is the effect of each action, over one object per parameter
    name (`?input_text` -> input_text): the planner then orders these actions, with no data flow."""
    objects: dict[str, str] = {}
    goal: list[Atom] = []
    for name_a in actions:
        a = domain.action(name_a)
        sub = {v: v.lstrip("?") for v, _ in a.params}
        for v, t in a.params:
            objects.setdefault(sub[v], t)
        goal += [(p, tuple(sub[x] for x in xs)) for p, xs in a.effect]
    init: list[Atom] = [(TYPE_FACT[t], (o,)) for o, t in objects.items() if t in TYPE_FACT]
    init += [("isevaluationmetric", (o,)) for o in objects if o == "metric"]
    known = {p.name for p in domain.predicates}
    init = [f for f in init if f[0] in known]
    return Problem(
        name, domain.name, tuple(objects.items()), tuple(dict.fromkeys(init)), tuple(dict.fromkeys(goal))
    )


def domains_of(actions: list[str], domains: dict[str, Domain]) -> list[str]:
    """Names of the domains holding these actions (the gold domain classification of a task set)."""
    out = []
    for a in actions:
        owner = next((d for d, dom in domains.items() if any(x.name == a for x in dom.actions)), None)
        if owner is None:
            raise UserError(f"no domain holds action {a!r}")
        if owner not in out:
            out.append(owner)
    return out


@cache
def gold_flows() -> dict[int, list[tuple[str, str]]]:
    """Our gold data-flow edges (producer label, consumer label) for each multi-task MuSE query."""
    raw = json.loads(resources.files("iclr25.hive").joinpath("annotations.json").read_text(encoding="utf-8"))
    return {int(k): [tuple(e) for e in v] for k, v in raw["flows"].items()}


def goal_problem(domain: Domain, goal: str) -> Problem:
    """The problem for a goal written in PDDL: each goal argument becomes an object typed by its
    predicate's declaration, `:init` holds the type facts."""
    from iclr25.hive.pddl import parse_atoms

    atoms = parse_atoms(goal)
    objects: dict[str, str] = {}
    for pred, args in atoms:
        p = domain.predicate(pred)
        if len(args) != p.arity:
            raise UserError(
                f"goal ({pred} {' '.join(args)}) has {len(args)} arguments; {pred} takes {p.arity}"
            )
        for arg, (_, typ) in zip(args, p.params, strict=True):
            if objects.setdefault(arg, typ) != typ:
                raise UserError(f"goal object {arg!r} is used as a {objects[arg]} and as a {typ}")
    init = [(TYPE_FACT[t], (o,)) for o, t in objects.items() if t in TYPE_FACT]
    init += [("isevaluationmetric", (o,)) for o in objects if o == "metric"]
    known = {p.name for p in domain.predicates}
    return Problem(
        "goal", domain.name, tuple(objects.items()), tuple(f for f in init if f[0] in known), atoms
    )
