"""PhysBench's fixed vocabulary: the 4 domains, 19 sub-types, 8 abilities and 3 modes in the order the
official scorer prints them, and the evaluation prompt strings (spec §2)."""

from __future__ import annotations

LETTERS = ("A", "B", "C", "D")

# task_type -> sub_types, in the order of the official print_test_score.py tables.
TAXONOMY: dict[str, tuple[str, ...]] = {
    "property": ("number", "mass", "color", "attribute"),
    "relationships": ("size", "location", "depth", "distance", "motion"),
    "scene": ("temperature", "viewpoint", "air", "light"),
    "dynamics": ("collision", "throwing", "manipulation", "fluid", "chemistry", "others"),
}
TASK_TYPES = tuple(TAXONOMY)
SUB_TYPES = tuple(s for subs in TAXONOMY.values() for s in subs)
ABILITIES_BY_TASK: dict[str, tuple[str, ...]] = {
    "property": ("identify", "comparison"),
    "relationships": ("static", "dynamic"),
    "scene": ("perception", "prediction", "judgment", "reasoning"),
    "dynamics": ("perception", "prediction", "judgment", "reasoning"),
}
ABILITIES = (
    "identify",
    "comparison",
    "static",
    "dynamic",
    "perception",
    "prediction",
    "judgment",
    "reasoning",
)
MODES = ("image-only", "image&video", "general")
SPLITS = ("val", "test")

# The official evaluation suffix appended to every question (eval/physbench).
OFFICIAL_END_PROMPT = (
    "\nAnswer with the option's letter from the given choices directly. You can only answer "
    "one letter from A, B, C, or D."
)
# Prefix the official harness gives single-image models before a numbered 2x2 grid of video frames.
GRID_PREFIX = (
    "This is a series of images sampled at equal intervals from the beginning to the end of a "
    "video, based on the series of images, answer the question.\n"
)
