"""How PhysBench-Synth puts its questions and options into words. A wording maps each sub-type's slots
("stem", an option kind, or a stem for one case such as "stem_most_brittle") to one or more templates.
`TEMPLATE` is the generator's own wording, used for training items and the in-template test set;
`iclr25.physbench.synth.heldout.HELDOUT` is written apart from it and used only for evaluation.

>>> phrase(TEMPLATE, "size", "option", None, c="red")
'the red ball'
"""

from __future__ import annotations

from typing import Any

import numpy as np

Wording = dict[str, dict[str, list[str]]]

TEMPLATE: Wording = {
    "number": {"stem": ["How many balls are there in the image?"], "option": ["{n}"]},
    "color": {"stem": ["What color is the largest ball?"], "option": ["{c}"]},
    "attribute": {"stem": ["Which object is the {ext} {attr}?"], "option": ["{o}"]},
    "mass": {
        "stem": ["What can you tell about the mass of the {c1} box and the {c2} box?"],
        "heavier": ["The {c} box is heavier"],
        "same": ["They have the same mass"],
        "unknown": ["The mass of the boxes cannot be compared"],
    },
    "size": {"stem": ["Which ball is the {word}?"], "option": ["the {c} ball"]},
    "location": {"stem": ["Which ball is the {word} in the image?"], "option": ["the {c} ball"]},
    "distance": {"stem": ["Which ball is closest to the {c} ball?"], "option": ["the {c} ball"]},
    "depth": {"stem": ["Which point is {word} to the camera?"], "option": ["Point {k}"]},
    "motion": {"stem": ["In which direction is the {c} ball moving?"], "left": ["left"], "right": ["right"],
               "up": ["up"], "down": ["down"]},
    "viewpoint": {
        "stem": ["How does the camera move in the video shot?"],
        "closer": ["The camera is closer to the objects"],
        "farther": ["The camera is farther away from the objects"],
        "left": ["The camera moves to the left"],
        "right": ["The camera moves to the right"],
    },
    "light": {
        "stem": ["Where is the light source?"],
        "upper_left": ["The light source is at the upper left"],
        "upper_right": ["The light source is at the upper right"],
        "above": ["The light source is directly above the balls"],
        "front": ["The light source is in front of the balls"],
    },
    "air": {
        "stem": ["The {c1} ball and the {c2} ball are dropped at the same time. Which statement is true?"],
        "only": ["Only the {c} ball is slowed by air resistance"],
        "neither": ["Neither ball is slowed by air resistance"],
        "both": ["Both balls are slowed equally by air resistance"],
    },
    "collision": {"stem": ["Both balls are made of the same material. The video lasts 1 second. Which image "
                           "shows the {c1} ball and the {c2} ball 1 second after the video ends?"]},
    "throwing": {"stem": ["The black ball is thrown. In which zone will it land?"],
                 "option": ["the {c} zone"]},
    "manipulation": {
        "stem": ["What will happen to this tower of blocks?"],
        "stays": ["The tower stays standing"],
        "left": ["The tower falls to the left"],
        "right": ["The tower falls to the right"],
        "sinks": ["The tower sinks into the table"],
    },
}


def phrase(wording: Wording, sub: str, slot: str, rng: np.random.Generator | None, **slots: Any) -> str:
    """One template for `slot` of sub-type `sub`, filled with `slots`. Several templates: `rng` picks one
    (a wording stream apart from the scene's, so words never change a scene)."""
    templates = wording[sub][slot]
    pick = 0 if len(templates) == 1 or rng is None else int(rng.integers(len(templates)))
    text = templates[pick].format(**slots)
    return text[0].upper() + text[1:] if slot == "stem" else text


def stem(wording: Wording, sub: str, rng: np.random.Generator | None, case: str = "", **slots: Any) -> str:
    """The question stem; a wording may phrase one case (e.g. "most_brittle") in its own words."""
    slot = f"stem_{case}" if case and f"stem_{case}" in wording[sub] else "stem"
    return phrase(wording, sub, slot, rng, **slots)
