"""Held-out wordings of PhysBench-Synth's questions: written apart from the generator's templates
(`wording.TEMPLATE`), with other sentence shapes, synonyms and option phrasings, several per slot. Only
evaluation sets use them; no model trains on them and the agent never reads this module (a test checks
that the agent package imports nothing from the generator)."""

from __future__ import annotations

from iclr25.physbench.synth.wording import Wording

# Attribute questions: each (extreme, attribute) asked in everyday words, not by the attribute's name.
_ATTRIBUTE_STEMS = {
    "most_brittle": ["Of these things, which would shatter most easily if dropped?",
                     "Which item here is the most fragile?"],
    "least_brittle": ["Which of these would survive a fall without breaking?",
                      "Which item is the least fragile?"],
    "most_stiff": ["Which of these items is the most rigid?", "Which thing would bend the least?"],
    "least_stiff": ["Which of these items bends most easily?", "Which thing is the least rigid?"],
    "most_soft": ["Which of these would feel the squishiest to touch?", "Which item is the softest?"],
    "least_soft": ["Which of these would feel the hardest to touch?", "Which item is the least soft?"],
    "most_smooth": ["Which of these has the smoothest surface?", "Which item feels the least rough?"],
    "least_smooth": ["Which of these has the roughest surface?", "Which item feels the least smooth?"],
    "most_malleable": ["Which of these can be reshaped or folded most easily?",
                       "Which item is the easiest to bend into a new shape?"],
    "least_malleable": ["Which of these keeps its shape however hard you press it?",
                        "Which item is the hardest to reshape?"],
    "most_sharp": ["Which of these could cut you most easily?", "Which item has the keenest edge or point?"],
    "least_sharp": ["Which of these is the least likely to cut you?", "Which item is the bluntest?"],
    "most_elastic": ["Which of these stretches and springs back best?", "Which item is the stretchiest?"],
    "least_elastic": ["Which of these barely stretches at all?", "Which item is the least stretchy?"],
}

HELDOUT: Wording = {
    "number": {
        "stem": ["Count the round objects in this picture. How many are there?",
                 "What is the number of discs shown here?", "How many circles can you see?"],
        "option": ["{word}", "{n} of them", "exactly {word}"],
    },
    "color": {
        "stem": ["Which colour does the biggest disc have?", "The largest circle in the picture is what "
                                                             "colour?",
                 "Tell me the colour of the biggest round object."],
        "option": ["{c}", "it is {c}", "{c} in colour"],
    },
    "attribute": {"stem": ["Which of these is {ext} {attr}?"], **{f"stem_{k}": v for k, v in
                                                                   _ATTRIBUTE_STEMS.items()},
                  "option": ["{o}", "the {o}"]},
    "mass": {
        "stem": ["Two boxes, one {c1} and one {c2}, rest on a balance. What does the clip show about their "
                 "weights?", "A {c1} box and a {c2} box sit on the two ends of a seesaw. Which statement "
                 "about their weights is right?"],
        "heavier": ["the {c} box weighs more", "the {c} one is the heavier box"],
        "same": ["both boxes weigh the same", "their weights are equal"],
        "unknown": ["there is no way to judge their weights", "the clip says nothing about weight"],
    },
    "size": {
        "stem": ["Which disc has the greatest size?", "Which circle takes up the most room?"],
        "stem_smallest": ["Which disc is the tiniest?", "Which circle takes up the least room?"],
        "option": ["the {c} one", "{c} disc", "the disc that is {c}"],
    },
    "location": {
        "stem": ["Which disc is {word}?"],
        "stem_leftmost": ["Which disc is farthest to the left?", "Which circle sits closest to the left "
                                                                 "edge?"],
        "stem_rightmost": ["Which disc is farthest to the right?",
                           "Which circle sits closest to the right edge?"],
        "stem_highest": ["Which disc sits nearest the top of the picture?", "Which circle is placed highest "
                                                                            "up?"],
        "stem_lowest": ["Which disc sits nearest the bottom of the picture?",
                        "Which circle is placed lowest down?"],
        "option": ["the {c} one", "{c} disc", "the disc that is {c}"],
    },
    "distance": {
        "stem": ["Which disc lies nearest to the {c} one?", "Which circle has the shortest gap to the {c} "
                 "circle?"],
        "option": ["the {c} one", "{c} disc", "the disc that is {c}"],
    },
    "depth": {
        "stem": ["Which of the marked points is nearest to the viewer?",
                 "Which labelled point lies closest to where the picture was taken from?"],
        "option": ["point {k}", "the point marked {k}", "{k}"],
    },
    "motion": {
        "stem": ["Where is the {c} disc heading?", "Which way does the {c} circle travel in the clip?"],
        "left": ["towards the left", "leftward"], "right": ["towards the right", "rightward"],
        "up": ["upward", "toward the top"], "down": ["downward", "toward the bottom"],
    },
    "viewpoint": {
        "stem": ["What is the camera doing during this clip?",
                 "How is the viewpoint changing over the clip?"],
        "closer": ["it moves in toward the objects", "it approaches the scene"],
        "farther": ["it pulls back, away from the objects", "it retreats from the scene"],
        "left": ["it pans toward the left", "it slides to the left"],
        "right": ["it pans toward the right", "it slides to the right"],
    },
    "light": {
        "stem": ["From which direction is the scene lit?", "Where does the illumination come from?"],
        "upper_left": ["from the top left", "from high up on the left"],
        "upper_right": ["from the top right", "from high up on the right"],
        "above": ["from straight overhead", "from directly over the objects"],
        "front": ["from in front of the objects", "from the viewer's side, facing the objects"],
    },
    "air": {
        "stem": ["A {c1} ball and a {c2} ball are released together. What does the clip show about air drag?",
                 "Both the {c1} ball and the {c2} ball are let go at the same moment. Which is correct?"],
        "only": ["air drag slows only the {c} ball", "just the {c} ball is held back by the air"],
        "neither": ["the air slows neither ball", "no ball is held back by the air"],
        "both": ["the air slows both balls by the same amount", "both balls are held back equally"],
    },
    "collision": {
        "stem": ["The two balls are made of one material and the clip is one second long. Which picture "
                 "shows "
                 "the {c1} ball and the {c2} ball one second after the clip stops?",
                 "The clip lasts one second; both balls have the same material. Where are the {c1} and the "
                 "{c2} ball one second later than the clip's end?"],
    },
    "throwing": {
        "stem": ["Where will the thrown dark ball come down?", "The dark ball has been tossed. Which "
                                                               "coloured "
                 "strip does it hit first?"],
        "option": ["in the {c} area", "on the {c} strip", "the {c} patch"],
    },
    "manipulation": {
        "stem": ["Is this stack of blocks stable?", "What happens next to this pile of blocks?"],
        "stays": ["it remains upright", "nothing happens, it keeps standing"],
        "left": ["it topples toward the left", "it tips over leftward"],
        "right": ["it topples toward the right", "it tips over rightward"],
        "sinks": ["it sinks into the surface below", "it is pushed down into the floor"],
    },
}
