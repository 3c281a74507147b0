"""The chaining step: the paper-style plan orders actions but carries no data flow (spec §2 step 6, §8),
so Hive's code step decides which output feeds which input. Ours is symbolic: outputs go to inputs by
modality, an action whose input modality the query lacks waits for its producer, actions reading the
query's own media run first, the action that makes the requested non-text artefact runs last, and ties
follow the order the query mentions the tasks in.
FoT (flow of thought) compares a flow with our gold DAGs."""

from __future__ import annotations

import re
from dataclasses import dataclass

from iclr25.hive.tasks import ACTION_IO

# where the query mentions an action: the first match of its cue decides the tie-break order
CUES = {  # alternatives joined with "|"
    "audio_to_text": ("transcri", "listen", "recording", "decipher", "audio (?:to|transcri)",
                      "from (?:this|the) audio", "speech"),
    "text_to_audio": ("narrat", "narate", "aloud", "read (?:it|me|the answer)", "read .{0,30}audio", "shout",
                      "record the text", "into audio", "by audio"),
    "text_to_image": ("(?:generate|create|whip up|give me|draw|build|re-generate)\\b.{0,25}"
                      "(?:image|photo|picture|portrait|visual|pictorial)", "picture '", "into image",
                      "portrait"),
    "caption_image": ("caption", "describe", "image to text", "into text", "what is happening", "written in",
                      "content of"),
    "classify_image": ("classify the (?:image|animal)", "identify the dish", "choose what",
                       "classify the generated image"),
    "detect_objects_in_image": ("detect", "objects", "how many", "the animal in"),
    "answer_question_based_on_image": ("vqa", "based on the (?:image|visual)", "answer",
                                       "what is in this image", "tell me"),
    "estimate_depth_of_image": ("depth",),
    "get_translation": ("transl", "tranlsat", "english version", "multi-lingual",
                        "in (?:english|chinese|italian|french)", "change its language",
                        "into (?:english|chinese|spanish|japanese|hindi)"),
    "get_abstractive_summarization": ("summar", "overview", "abstract", "synopsis"),
    "get_extractive_summarization": ("summar", "extract"),
    "get_instruction_based_summary": ("summar", "in \\d+ sentences", "one sentence"),
    "get_named_entities": ("entit", "named", "token"),
    "classify_text": ("classif", "categor", "decide which"),
    "generate_or_write_text": ("write", "compose", "generate a (?:paragraph|story|title)", "essay", "story",
                               "describe the typical", "sonnet", "poem", "response message"),
    "get_answer_when_context_is_given": ("answer", "question"),
    "generate_answer_without_context": ("answer", "who ", "what ", "tell me", "explain"),
    "get_answer_when_data_or_table_is_given": ("answer", "table"),
}


def mention_order(query: str, actions: list[str]) -> list[str]:
    """`actions` sorted by where the query first mentions each (unmentioned ones keep their order, last)."""
    q = query.lower()

    def pos(a: str) -> int:
        m = re.search("|".join(CUES.get(a, (re.escape(a.replace("_", " ")),))), q)
        return m.start() if m else len(q)

    return sorted(dict.fromkeys(actions), key=lambda a: (pos(a), actions.index(a)))


@dataclass(frozen=True)
class Flow:
    """Execution order and data-flow edges (producer, consumer) between actions."""

    order: tuple[str, ...]
    edges: frozenset[tuple[str, str]]

    def inputs_of(self, action: str) -> list[str]:
        return [a for a, b in self.edges if b == action]


def chain(
    actions: list[str],
    output: str | None = None,
    inputs: tuple[str, ...] = ("text",),
    order_hint: list[str] | None = None,
) -> Flow:
    """Order `actions` and connect outputs to inputs by modality (see the module docstring). `output` is
    the requested modality; None takes the one the actions imply (`implied_output`).

    >>> f = chain(["text_to_image", "audio_to_text"], output="image", inputs=("audio",))
    >>> f.order, sorted(f.edges)
    (('audio_to_text', 'text_to_image'), [('audio_to_text', 'text_to_image')])
    >>> chain(["text_to_audio", "get_translation"]).order  # speech is produced last: nothing reads it
    ('get_translation', 'text_to_audio')
    """
    acts = list(dict.fromkeys(actions))
    output = output or implied_output(acts)
    hint = {a: i for i, a in enumerate(order_hint or [])}
    available = {"text", *inputs}
    remaining, order = list(acts), []
    while remaining:
        ready = [a for a in remaining if _io(a)[0] in available] or remaining  # broken flow: keep going

        def key(a: str) -> tuple[int, int, int, int]:
            makes_final = (
                output not in (None, "text")
                and _io(a)[1] == output
                and not any(_io(b)[0] == output for b in remaining if b != a)
            )
            reads_query_media = _io(a)[0] != "text" and _io(a)[0] in inputs
            return (int(makes_final), int(not reads_query_media), hint.get(a, len(hint)), acts.index(a))

        nxt = min(ready, key=key)
        order.append(nxt)
        remaining.remove(nxt)
        available.add(_io(nxt)[1])
    edges = set()
    for j, b in enumerate(order):
        need = _io(b)[0]
        producer = next((a for a in reversed(order[:j]) if _io(a)[1] == need), None)
        if producer is not None:
            edges.add((producer, b))
    return Flow(tuple(order), frozenset(edges))


def implied_output(actions: list[str]) -> str | None:
    """The output modality a set of actions implies: the one non-text modality that some action produces
    and none reads (speech from text-to-speech when nothing consumes audio); None when there is no such
    modality or several."""
    sinks = {_io(a)[1] for a in actions} - {"text"} - {_io(a)[0] for a in actions}
    return sinks.pop() if len(sinks) == 1 else None


def _io(action: str) -> tuple[str, str]:
    return ACTION_IO.get(action, ("text", "text"))


def fot_flow(flow: Flow, gold: list[tuple[str, str]]) -> bool:
    """FoT of a DAG: its data-flow edges are exactly the gold edges."""
    return set(flow.edges) == set(gold)


def fot_order(order: list[str], gold: list[tuple[str, str]]) -> bool:
    """FoT of a plain sequence (the planner's raw order): every gold producer runs before its consumer."""
    pos = {a: i for i, a in enumerate(order)}
    return all(a in pos and b in pos and pos[a] < pos[b] for a, b in gold)
