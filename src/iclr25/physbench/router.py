"""PhysAgent stage (i): task-specific prompt activation. The question (before its options, placeholders
removed) is sorted into a tool type by PhysAgent's symbolic classifier (the released code's phrases, in our
implementation); when no phrase matches, the paper asks the VLM for a category - our stand-in for that
neural step is a keyword classifier, since the base model here cannot follow a category prompt."""

from __future__ import annotations

import re

TOOL_TYPES = ("depth", "camera", "light", "attribute", "movement", "property", "dynamics", "deep_think")

_DEPTH = re.compile(
    r"(closest(?: point)?|nearest|is farthest|is closest|the farthest) to the (camera|flame)[?:]"
)
_CAMERA_PHRASES = (
    "The camera is closer to the objects",
    "The camera is farther away from the objects",
    "The camera moves upward or downward",
    "The camera rotates along the vertical axis (upside or downside)",
    "The camera rotates along the horizontal axis (left or right)",
    "Which object is the camera closest to?",
    "the video shot",
)
_LIGHT = re.compile(
    r"(?i)(The color of the light changes from|Move parallel to the line between the|"
    r"It's just that the light source is (?:stronger and the light source position remains "
    r"the same|weaker and the light source position remains the same|closer to the objects|"
    r"farther away from the objects)|The light source moves downward|the light source "
    r"closest to\?|the light come from\?|How does the light change|the light source|"
    r"Where is the light)"
)
_ATTRIBUTES = ("sharp?", "brittle?", "stiff?", "elastic?", "malleable?", "soft?", "smooth?")
_MOVEMENT = re.compile(
    r"which of the following options are you most likely to "
    r"(see|encounter|notice|observe|find|come across)\?"
    r"|which of the following options is most likely to be seen\?"
)
_PROPERTY_PHRASES = (
    "biggest in volume?",
    "size of the ice cube changing in the video?",
    "size of the ice cube in the video?",
    "cube's size",
    "fluid?\n",
    "larger density",
    "the mass of",
    "is the largest?",
    "cube's mass",
    "hat is the color of",
    "What color does",
    "What color is",
    "What color",
    "How many",
)

# Our stand-in for the VLM's category prompt (used only when no symbolic phrase matched).
_FALLBACK = (
    (
        "movement",
        re.compile(
            r"(?i)\b(moving|direction|thrown|throw|land|dropped|falls?|collision|"
            r"after the video)\b"
        ),
    ),
    ("dynamics", re.compile(r"(?i)\b(tower|stack|happen|push|placement|place)\b")),
    (
        "property",
        re.compile(
            r"(?i)\b(ball|largest|smallest|leftmost|rightmost|highest|lowest|"
            r"closest)\b"
        ),
    ),
)


def symbolic_tool(question: str) -> str | None:
    """PhysAgent's symbolic classifier: a tool type for known phrasings, else None."""
    if _DEPTH.search(question):
        return "depth"
    if any(p in question for p in _CAMERA_PHRASES):
        return "camera"
    if _LIGHT.search(question):
        return "light"
    if any(a in question for a in _ATTRIBUTES):
        return "attribute"
    if _MOVEMENT.search(question):
        return "movement"
    if any(p in question for p in _PROPERTY_PHRASES):
        return "property"
    return None


def choose_tool(question: str) -> str:
    """The tool type for a question stem: symbolic first, then the keyword stand-in, else
    'deep_think' (PhysAgent's 'others')."""
    tool = symbolic_tool(question + "\n")
    if tool is not None:
        return tool
    for name, pattern in _FALLBACK:
        if pattern.search(question):
            return name
    return "deep_think"
