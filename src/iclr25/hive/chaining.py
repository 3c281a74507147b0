"""The chaining step: the paper-style plan orders actions but carries no data flow (spec §2 step 6, §8),
so Hive's code step decides which output feeds which input. Ours is symbolic, in four rules:

1. Order: an action whose input modality the request lacks waits for its producer; actions reading the
   request's own media run first; the action that makes the requested non-text artefact runs last; ties
   follow the order the request mentions the tasks in, corrected by ordering words ("B after doing A",
   "before doing B").
2. References: a sub-request that names an earlier step's output ("based on the summary", "translate the
   answer") reads that step; one that names the original material ("the passage", "the article", "the
   given text", or a leading "For the given passage, ...") reads the request's input, in parallel with the
   other steps ("the text" alone is not enough: it often names an extracted text; "the text file" is a
   file the request names, read as its input).
3. Types: a step that analyses a passage (summaries, entities, parts of speech, classes, sentiment,
   answers from a context) never reads a label (a class, a sentiment, an entity list, an evaluation
   score): it reads the latest passage before it, or the request's input.
4. Otherwise the latest output of the modality a step consumes feeds it (a linear chain).

FoT (flow of thought) compares a flow's edges with our gold DAGs."""

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
    "find_sentiment": ("sentiment", "positive or negative"),
    "classify_spam": ("spam",),
    "get_part_of_speech": ("part[s]? of speech", "pos tag"),
}

# outputs that are labels (a class name, a score, a list of entities), not passages to work on
LABELS = frozenset({"classify_text", "find_sentiment", "classify_spam", "translation_evaluation",
                    "summarization_evaluation", "classify_image", "get_named_entities", "get_part_of_speech"})
# steps that analyse a passage (summaries, entities, classes, sentiment, answers from a context)
NEEDS_PASSAGE = frozenset({"get_named_entities", "get_part_of_speech", "get_extractive_summarization",
                           "get_abstractive_summarization", "get_instruction_based_summary",
                           "get_answer_when_context_is_given", "summarization_evaluation", "classify_text",
                           "find_sentiment", "classify_spam"})
_SUMMARIES = ("get_abstractive_summarization", "get_extractive_summarization",
              "get_instruction_based_summary")
_ANSWERS = ("get_answer_when_context_is_given", "generate_answer_without_context",
            "get_answer_when_data_or_table_is_given", "answer_question_based_on_image", "classify_image",
            "detect_objects_in_image", "classify_text", "find_sentiment")
# a noun naming an earlier step's output -> the actions that produce it (latest first)
OUTPUT_NOUNS = (
    (r"\bsummar(?:y|ies|ised|ized)\b|\babstract\b", _SUMMARIES),
    (r"\btranslat(?:ion|ed)\b", ("get_translation",)),
    (r"\btranscri(?:pt|ption|bed)\b", ("audio_to_text",)),
    (r"\b(?:caption|description)\b", ("caption_image",)),
    (r"\bentit(?:y|ies)\b", ("get_named_entities",)),
    (r"\banswer\b", _ANSWERS),
    (r"\b(?:the|that|this) (?:story|essay|title|poem|paragraph|email|generated text)\b",
     ("generate_or_write_text",)),
    (r"\bgenerated (?:image|figure|picture)\b", ("text_to_image",)),
)
INPUT_NOUN = re.compile(r"\b(?:the|this) (?:(?:given|following|original|above) (?:text|data)|text file|"
                        r"(?:given |following |original |above )?"
                        r"(?:passage|article|context|review|document|paragraph|lyrics))\b",
                        re.IGNORECASE)
TOPIC = re.compile(r"^\s*for (?:the|this|these) ", re.IGNORECASE)
AFTER = re.compile(r"\bafter\s+(?:\w+ing\b|the\b)", re.IGNORECASE)
BEFORE = re.compile(r"\bbefore\s+(?:\w+ing\b|the\b)", re.IGNORECASE)


def _cue(action: str) -> re.Pattern:
    return re.compile("|".join(CUES.get(action, (re.escape(action.replace("_", " ")),))), re.IGNORECASE)


def mention_order(query: str, actions: list[str]) -> list[str]:
    """`actions` sorted by where the query first mentions each (unmentioned ones keep their order, last)."""
    q = query.lower()

    def pos(a: str) -> int:
        m = _cue(a).search(q)
        return m.start() if m else len(q)

    return sorted(dict.fromkeys(actions), key=lambda a: (pos(a), actions.index(a)))


@dataclass(frozen=True)
class Flow:
    """Execution order and data-flow edges (producer, consumer) between actions; an action with no
    incoming edge reads the request's own input."""

    order: tuple[str, ...]
    edges: frozenset[tuple[str, str]]

    def inputs_of(self, action: str) -> list[str]:
        return [a for a, b in self.edges if b == action]


@dataclass(frozen=True)
class _Clauses:
    """Which sub-request of the query mentions each action (its clause: that part and the parts after it
    that mention no action), and whether a leading topic ("For the given passage, ...") names the input."""

    text: dict[str, str]
    topic_input: bool

    @classmethod
    def of(cls, query: str | None, actions: list[str]) -> _Clauses:
        if not query:
            return cls({}, False)
        from iclr25.hive.parse import parts

        ps = parts(query)
        owner: list[str | None] = []
        for p in ps:
            hits = [(m.start(), a) for a in actions if (m := _cue(a).search(p))]
            owner.append(min(hits)[1] if hits else None)
        text: dict[str, str] = {}
        for a in actions:
            idx = next((i for i, p in enumerate(ps) if _cue(a).search(p)), None)
            if idx is None:
                continue
            j = idx + 1
            while j < len(ps) and owner[j] is None:
                j += 1
            text[a] = " ".join(ps[idx:j])
        topic = bool(ps) and owner[0] is None and TOPIC.search(ps[0]) is not None and \
            INPUT_NOUN.search(ps[0]) is not None
        return cls(text, topic)


def _ordering_words(order: list[str], clauses: _Clauses) -> list[str]:
    """Move A before B where B's clause says "after <A>" and after B where B's says "before <A>"."""
    out = list(order)
    for b in order:
        text = clauses.text.get(b, "")
        for pattern, a_first in ((AFTER, True), (BEFORE, False)):
            m = pattern.search(text)
            if not m:
                continue
            tail = text[m.start():]
            named = [a for a in out if a != b and _cue(a).match(tail[len(m.group(0).split()[0]):].lstrip())]
            named = named or [a for a in out if a != b and (c := _cue(a).search(tail)) and c.start() < 40]
            for a in named[:1]:
                out.remove(a)
                i = out.index(b)
                out.insert(i if a_first else i + 1, a)
    return out


def _after_target(b: str, clauses: _Clauses, actions: list[str]) -> str | None:
    text = clauses.text.get(b, "")
    m = AFTER.search(text)
    if not m:
        return None
    tail = text[m.start():]
    return next((a for a in actions if a != b and (c := _cue(a).search(tail)) and c.start() < 40), None)


def chain(
    actions: list[str],
    output: str | None = None,
    inputs: tuple[str, ...] = ("text",),
    order_hint: list[str] | None = None,
    query: str | None = None,
) -> Flow:
    """Order `actions` and connect outputs to inputs (see the module docstring). `output` is the
    requested modality; None takes the one the actions imply (`implied_output`). `query`, when given,
    supplies the mention order, ordering words and references.

    >>> f = chain(["text_to_image", "audio_to_text"], output="image", inputs=("audio",))
    >>> f.order, sorted(f.edges)
    (('audio_to_text', 'text_to_image'), [('audio_to_text', 'text_to_image')])
    >>> chain(["text_to_audio", "get_translation"]).order  # speech is produced last: nothing reads it
    ('get_translation', 'text_to_audio')
    >>> sorted(chain(["find_sentiment", "get_named_entities"]).edges)  # entities need a passage
    []
    """
    acts = list(dict.fromkeys(actions))
    output = output or implied_output(acts)
    clauses = _Clauses.of(query, acts)
    hint_list = list(order_hint) if order_hint is not None else (mention_order(query, acts) if query else [])
    hint_list = _ordering_words(hint_list, clauses)
    hint = {a: i for i, a in enumerate(hint_list)}
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
        producer = _producer(b, order[:j], clauses)
        if producer is not None:
            edges.add((producer, b))
    return Flow(tuple(order), frozenset(edges))


def _producer(b: str, before: list[str], clauses: _Clauses) -> str | None:
    need = _io(b)[0]
    same = [a for a in reversed(before) if _io(a)[1] == need]
    if need != "text":
        return same[0] if same else None
    text = clauses.text.get(b, "")
    after = _after_target(b, clauses, before)
    if after is not None and _io(after)[1] == "text":
        return after
    for pattern, producers in OUTPUT_NOUNS:  # rule 2: an earlier output named
        if re.search(pattern, text, re.IGNORECASE):
            named = [a for a in same if a in producers]
            if named:
                return named[0]
    if INPUT_NOUN.search(text) or (clauses.topic_input and not text.lower().startswith(("then", "finally"))):
        return None  # rule 2: the original material, in parallel
    if b in NEEDS_PASSAGE:  # rule 3
        same = [a for a in same if a not in LABELS]
    return same[0] if same else None  # rule 4


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
