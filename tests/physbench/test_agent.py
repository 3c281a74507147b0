"""PhysAgent: the router labels PhysAgent's phrases, exact depth makes every depth item right, experts and
knowledge answer their sub-types, ablations fall back to the base model, and the agent runs over an
OpenAI-compatible server (a local mock)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from iclr25.physbench import synth
from iclr25.physbench.agent import PhysAgent
from iclr25.physbench.depthnet import OracleDepth
from iclr25.physbench.evaluate import OpenAICompatibleVLM, evaluate
from iclr25.physbench.experts import BlobDetector, motion_direction, track
from iclr25.physbench.knowledge import KnowledgeMemory
from iclr25.physbench.router import choose_tool, symbolic_tool


class Const:
    def __init__(self, letter: str = "A") -> None:
        self.letter, self.calls = letter, 0

    def qa(self, images, prompt, mode):
        self.calls += 1
        return self.letter


@pytest.mark.parametrize(
    "question, tool",
    [
        ("Which point is closest to the camera?\n", "depth"),
        ("Which of these is the farthest to the flame:\n", "depth"),
        ("How is the video shot?", "camera"),
        ("Where is the light source?", "light"),
        ("How does the light change in the video?", "light"),
        ("Which object is the most brittle?", "attribute"),
        ("In this scene, which of the following options are you most likely to see?", "movement"),
        ("How many balls are there?", "property"),
        ("What color is the cup?", "property"),
        ("The weather is nice.", None),
    ],
)
def test_router_labels_physagent_phrases(question, tool):
    assert symbolic_tool(question) == tool


def test_router_fallback_is_deep_think_for_unknown_text():
    assert choose_tool("Which statement about chemistry is true?") == "deep_think"
    assert choose_tool("The black ball is thrown. In which zone will it land?") == "movement"


def test_exact_depth_injected_makes_every_depth_item_right():
    s = synth.generate(12, seed=4, sub_types=["depth"])
    for it, a in zip(s.items, s.answers, strict=True):
        agent = PhysAgent(
            Const("A"),
            {"detector": BlobDetector(), "depth": OracleDepth(s.truth[it.idx]["depth_map"])},
            KnowledgeMemory.default(),
            verify=3,
        )
        letter, trace = agent.answer(it)
        assert letter == a["answer"] and trace.source == "experts"


@pytest.fixture(scope="module")
def mixed():
    subs = [
        "number",
        "color",
        "attribute",
        "mass",
        "size",
        "location",
        "distance",
        "motion",
        "viewpoint",
        "light",
        "air",
        "collision",
        "throwing",
        "manipulation",
    ]
    return synth.generate(56, seed=8, sub_types=subs)


def test_experts_and_knowledge_answer_their_sub_types(mixed):
    agent = PhysAgent(Const("A"), {"detector": BlobDetector()}, KnowledgeMemory.default(), verify=3)
    preds, rep = evaluate(agent, mixed.items, mixed.answers)
    assert rep.overall >= 90.0  # chance would be 25 %
    letter, trace = agent.answer(mixed.items[0])
    assert trace.tool and len(trace.votes) == 3 and trace.facts[0]


def test_ablations_fall_back_to_the_base(mixed):
    base = Const("A")
    no_exp = PhysAgent(base, None, KnowledgeMemory.default(), verify=1)
    for it in mixed.items:
        _, tr = no_exp.answer(it)
        assert tr.source == ("knowledge" if re.search(r"the (most|least) ", it.stem) else "base")
    no_know = PhysAgent(base, {"detector": BlobDetector()}, None, verify=1)
    att = next(it for it in mixed.items if re.search(r"the (most|least) ", it.stem))
    assert no_know.answer(att)[1].source == "base"


def test_motion_expert_reads_pixels():
    s = synth.generate(4, seed=2, sub_types=["motion"])
    for it, a in zip(s.items, s.answers, strict=True):
        colour = it.stem.split(" the ")[1].split()[0]
        assert motion_direction(track(list(it.media[0]), colour)) == it.options[a["answer"]]


def test_served_vlm_and_agent_over_it(server):
    s = synth.generate(8, seed=6, sub_types=["number", "attribute"])
    vlm = OpenAICompatibleVLM(server, "mock")
    preds, rep = evaluate(vlm, s.items, s.answers)
    assert set(preds.values()) == {"B"} and vlm.calls == 8
    assert rep.overall == 100.0 * sum(a["answer"] == "B" for a in s.answers) / 8
    agent = PhysAgent(vlm, {"detector": BlobDetector()}, KnowledgeMemory.default())
    _, rep_agent = evaluate(agent, s.items, s.answers)
    assert rep_agent.overall == 100.0 and vlm.calls == 8  # experts and the table answered: no extra calls


def test_unreachable_server_is_a_user_error():
    from iclr25.core.errors import UserError

    with pytest.raises(UserError, match="cannot reach"):
        OpenAICompatibleVLM("http://127.0.0.1:9/v1", "m", timeout=2).qa(
            [np.zeros((4, 4, 3), np.uint8)], "q", "x"
        )
