"""PhysAgent: it cannot see the answer key (the agent package imports no generator code, checked in a
fresh process), its experts read pixels (analytic cases), its physics is textbook physics (closed forms),
its router reads language, it answers held-out items it was not built on, its ablations fall back to the
wrapped model, and over a served VLM it always asks the model, with its notes in the prompt."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from iclr25.physbench import synth
from iclr25.physbench.agent import PhysAgent, perception, question_text
from iclr25.physbench.agent import knowledge as K
from iclr25.physbench.agent.language import colours_in, default_language, directions_in, numbers_in
from iclr25.physbench.evaluate import OpenAICompatibleVLM, evaluate
from iclr25.physbench.harness import Item

AGENT = Path(__file__).resolve().parents[2] / "src" / "iclr25" / "physbench" / "agent"
FORBIDDEN = ("iclr25.physbench.synth", "iclr25.physbench.embodied", "iclr25.physbench.experiments",
             "iclr25.physbench.baseqa", "iclr25.physbench.claims")


class Const:
    def __init__(self, letter: str = "A") -> None:
        self.letter, self.calls, self.prompts = letter, 0, []

    def qa(self, images, prompt, mode):
        self.calls += 1
        self.prompts.append(prompt)
        return self.letter


def test_agent_source_imports_no_generator_code():
    """Every import in the agent package, read from its source: only numpy/scipy, the core models, the
    official harness format and the agent itself."""
    for path in AGENT.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            for name in names:
                assert not name.startswith(FORBIDDEN), f"{path.name} imports {name}"
                if name.startswith("iclr25."):
                    assert name.startswith(("iclr25.physbench.agent", "iclr25.physbench.harness",
                                            "iclr25.physbench.taxonomy", "iclr25.core")), (path.name, name)


def test_agent_at_work_loads_no_generator_module(tmp_path):
    """In a fresh process: read a PhysBench-format folder from disk and let the agent answer every item;
    no generator, embodied or experiment module is ever imported."""
    synth.write(synth.generate(15, seed=3, heldout=True), tmp_path / "data")
    code = f"""
import sys, json
from iclr25.physbench.harness import load
from iclr25.physbench.agent import PhysAgent
class Const:
    def qa(self, images, prompt, mode): return "A"
agent = PhysAgent(Const(), verify=1)
letters = [agent.qa_item(it) for it in load({str(tmp_path / 'data')!r}, "val")]
print(json.dumps({{"letters": letters, "modules": sorted(m for m in sys.modules if m.startswith("iclr25"))}}))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert len(got["letters"]) == 15 and set(got["letters"]) <= set("ABCD")
    leaked = [m for m in got["modules"] if m.startswith(FORBIDDEN)]
    assert not leaked, leaked


# ---- perception: pixels in, facts out ---------------------------------------------------------------------

def _canvas(bg=(232, 228, 220)) -> np.ndarray:
    return np.full((40, 60, 3), bg, np.uint8)


def test_colour_names_from_hue_and_brightness():
    img = _canvas()
    img[2:8, 2:8] = (200, 30, 30)  # red
    img[2:8, 20:28] = (30, 60, 180)  # blue (a darker shade than any palette's)
    img[20:30, 20:22] = (120, 80, 40)  # dark orange: brown
    img[30:34, 40:44] = (15, 15, 15)  # black
    found = {(b.colour, b.area) for b in perception.detect(img)}
    assert found == {("red", 36), ("blue", 48), ("brown", 20), ("black", 16)}
    assert perception.labels(_canvas())[0, 0] == -1  # a light tinted background is no object


def test_tracking_and_direction():
    frames = []
    for t in range(5):
        f = _canvas()
        f[10:14, 5 + 6 * t: 9 + 6 * t] = (40, 170, 60)
        frames.append(f)
    path = perception.track(frames, "green")
    assert np.allclose(np.diff(path[:, 0]), 6.0) and perception.direction(path) == "right"
    assert perception.direction(path[::-1]) == "left" and perception.direction(path[:1]) is None


def test_ground_rows_see_occlusion():
    img = _canvas()
    img[10:20, 10:20] = (200, 30, 30)  # a far red object...
    img[18:30, 14:26] = (30, 60, 180)  # ...whose bottom a nearer blue one hides
    rows = perception.ground_rows(img, {"A": [12, 12], "B": [20, 25]})
    assert rows["A"] == (19.0, True) and rows["B"] == (29.0, False)


# ---- knowledge: textbook physics -----------------------------------------------------------------

def test_projectile_landing_solves_the_parabola():
    t = np.linspace(0, 1, 8)
    x, y = 10 + 30 * t, 20 - 40 * t + 0.5 * 200 * t ** 2
    land = K.projectile_landing(t, np.stack([x, y], 1), 80.0)
    t_hit = (40 + np.sqrt(40 ** 2 + 2 * 200 * 60)) / 200
    assert land == pytest.approx(10 + 30 * t_hit, abs=1e-6)


def test_stack_rule_and_collision_conserve_what_they_should():
    assert K.stack_verdict([(50, 20, 9), (58, 12, 9)]) == "stays"
    assert K.stack_verdict([(50, 20, 9), (62, 12, 9)]) == "right"  # centre 62 beyond the edge at 60
    assert K.stack_verdict([(50, 20, 9), (50, 10, 9), (41, 10, 9)]) == "left"
    r1, r2, v, t = 5.0, 8.0, 30.0, 2.0
    x1, x2 = K.elastic_after(0.0, r1, 40.0, r2, v, t)
    t_hit = (40 - r1 - r2) / v
    m1, m2 = r1 ** 3, r2 ** 3
    u1, u2 = (x1 - v * t_hit) / (t - t_hit), (x2 - 40) / (t - t_hit)
    assert m1 * v == pytest.approx(m1 * u1 + m2 * u2)  # momentum
    assert m1 * v ** 2 == pytest.approx(m1 * u1 ** 2 + m2 * u2 ** 2)  # kinetic energy


def test_small_rules():
    assert K.heavier_side(10.0, -10.0) == "a" and K.heavier_side(0.5, 0.0) == "equal"
    assert K.slowed_by_air(40.0, 56.0) == "a" and K.slowed_by_air(56.0, 55.5) == "neither"
    assert K.camera_motion(1.5, 0.0) == "closer" and K.camera_motion(1.0, 9.0) == "left"
    assert K.light_direction(15.0, 0.0, 6.0) == "upper left" and K.light_direction(0, -10, 6) == "front"


# ---- language ------------------------------------------------------------------------------------

def test_language_lexicons():
    assert colours_in("the Crimson disc beside the violet one") == ["red", "purple"]
    assert numbers_in("exactly four, not 3") == [4.0, 3.0] and numbers_in("one", spelled=False) == []
    assert directions_in("moving upward and to the left") == {"left", "up"}


def test_router_reads_meaning_not_templates():
    lang = default_language()
    for q, tool in (("How many round things can be seen here?", "count"),
                    ("Which marked spot is nearest to whoever took the photo?", "depth"),
                    ("Is this pile of bricks going to collapse?", "stack"),
                    ("Which sphere sits furthest to the right?", "extreme")):
        intent, _ = lang.intent(q)
        assert intent is not None and intent.tool == tool, (q, intent)
    assert lang.intent("Which sphere sits furthest to the right?")[0].arg == "rightmost"
    opts = {"A": "it tips toward the left", "B": "it tips toward the right", "C": "it stays up",
            "D": "it sinks"}
    assert lang.choose("the tower falls over to the right", opts) == "B"
    assert lang.choose("there are 4 objects", {"A": "three", "B": "exactly four", "C": "5", "D": "6"}) == "B"


# ---- the agent on items --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def held():
    return synth.generate(45, seed=8, heldout=True)


def test_agent_beats_its_constant_base_on_held_out_items(held):
    base = Const("A")
    _, rep = evaluate(PhysAgent(base, verify=1), held.items, held.answers)
    _, rep_base = evaluate(base, held.items, held.answers)
    assert rep.overall >= rep_base.overall + 25  # answers from pixels and physics, not the constant


def test_ablations_and_verification_fall_back_to_the_model(held):
    items = [it for it, a in zip(held.items, held.answers, strict=True)
             if a["sub_type"] in ("manipulation", "light", "air")]
    base = Const("C")
    no_knowledge = PhysAgent(base, knowledge=False, verify=1)
    assert all(no_knowledge.answer(it)[1].source == "model" for it in items)  # physics needed
    no_eyes = PhysAgent(base, perception=False, verify=1)
    count = next(it for it, a in zip(held.items, held.answers, strict=True) if a["sub_type"] == "number")
    assert no_eyes.answer(count)[1].source == "model"
    letter, trace = PhysAgent(base, verify=3).answer(items[0])
    assert len(trace.votes) == 3 and trace.facts[0]


def test_question_text_gives_the_router_the_options():
    it = Item(0, "<image>\nWhich one?\nA. red\nB. <image>\nC. blue\nD. green", ["x.png"])
    assert question_text(it) == "Which one? Options: red; blue; green"


def test_served_vlm_and_prompted_agent_over_it(server):
    s = synth.generate(8, seed=6, sub_types=["number", "manipulation"])
    vlm = OpenAICompatibleVLM(server, "mock")
    preds, rep = evaluate(vlm, s.items, s.answers)
    assert set(preds.values()) == {"B"} and vlm.calls == 8
    agent = PhysAgent(vlm, mode="prompted")
    preds, rep_agent = evaluate(agent, s.items, s.answers)
    assert vlm.calls == 16 and set(preds.values()) == {"B"}  # the model answers every question
    notes = [agent.answer(it)[1].note for it in s.items]
    assert all("Notes from vision tools" in n for n in notes) and any("points to option" in n for n in notes)


def test_unreachable_server_is_a_user_error():
    from iclr25.core.errors import UserError

    with pytest.raises(UserError, match="cannot reach"):
        OpenAICompatibleVLM("http://127.0.0.1:9/v1", "m", timeout=2).qa(
            [np.zeros((4, 4, 3), np.uint8)], "q", "x"
        )
