"""Planners (one-step plans per action, agreement, validators) and the chaining step (FoT)."""

from __future__ import annotations

import pytest
from tests.conftest import shared_data

from iclr25.core.errors import UserError
from iclr25.hive.chaining import chain, fot_flow, fot_order, implied_output, mention_order
from iclr25.hive.pddl import Problem, merge_domains, parse_domain
from iclr25.hive.planners import Plan, plan, unreachable_goals, up_validate, validate
from iclr25.hive.tasks import ACTION_IO, LABEL_ACTION, goal_problem, problem_for

AUDIO = parse_domain("""(define (domain audio) (:requirements :strips :typing) (:types text audio)
  (:predicates (IsAudio ?a - audio) (IsText ?t - text) (SpeechRecognition ?a - audio)
               (GenerateAudioFromText ?t - text))
  (:action text_to_audio ; given a piece of text, convert it to audio
    :parameters (?input_text - text) :precondition (IsText ?input_text)
    :effect (GenerateAudioFromText ?input_text))
  (:action audio_to_text ; given an audio, transcribe it to text
    :parameters (?input_audio - audio) :precondition (IsAudio ?input_audio)
    :effect (SpeechRecognition ?input_audio)))""")


def _domains():
    from iclr25.hive.muse import load_domains
    return load_domains(shared_data("07-hive") / "PDDL-domain-files")


def test_every_shipped_action_alone_is_a_one_step_plan():
    domains = _domains()
    actions = [(d, a.name) for d in domains.values() for a in d.actions]
    assert len(actions) == 28
    for dom, name in actions:
        prob = problem_for(dom, [name])
        result = plan(dom, prob, "pyperplan")
        assert result.actions == [name] and validate(dom, prob, result)


@pytest.mark.slow
@pytest.mark.parametrize("planner", ["lapkt-bfws", "fast-downward"])
def test_other_planners_agree_on_length(planner):
    domains = _domains()
    for dname, action in (("machine_translation", "get_translation"), ("audio", "audio_to_text")):
        dom = domains[dname]
        prob = problem_for(dom, [action])
        assert plan(dom, prob, planner).steps == plan(dom, prob, "pyperplan").steps


def test_two_goals_need_two_steps_and_both_validators_agree():
    prob = goal_problem(AUDIO, "(and (SpeechRecognition input_audio) (GenerateAudioFromText input_text))")
    result = plan(AUDIO, prob, "pyperplan")
    assert sorted(result.actions) == ["audio_to_text", "text_to_audio"]
    assert validate(AUDIO, prob, result) and up_validate(AUDIO, prob, result)
    broken = Plan(result.steps[:1], "manual")
    assert not validate(AUDIO, prob, broken) and not up_validate(AUDIO, prob, broken)
    wrong_type = Plan((("audio_to_text", ("input_text",)),), "manual")
    assert not validate(AUDIO, prob, wrong_type) and not up_validate(AUDIO, prob, wrong_type)


def test_unreachable_goal_is_named():
    prob = Problem("p", "audio", (("input_text", "text"), ("input_audio", "audio")),
                   (("istext", ("input_text",)),), (("speechrecognition", ("input_audio",)),))
    assert unreachable_goals(AUDIO, prob) == [("speechrecognition", ("input_audio",))]
    with pytest.raises(UserError, match=r"unreachable goal \(speechrecognition input_audio\)"):
        plan(AUDIO, prob, "pyperplan")


def test_bad_goals_and_planners():
    with pytest.raises(UserError, match="unknown predicate 'nosuch'"):
        goal_problem(AUDIO, "(NoSuch input_text)")
    with pytest.raises(UserError, match="takes 1"):
        goal_problem(AUDIO, "(SpeechRecognition a b)")
    with pytest.raises(UserError, match="unknown planner"):
        plan(AUDIO, goal_problem(AUDIO, "(SpeechRecognition a)"), "magic")


def test_chaining_connects_outputs_to_inputs_by_modality():
    # the shipped trace: the planner puts text_to_image first, but the image prompt is the transcript
    f = chain(["text_to_image", "audio_to_text"], output="image", inputs=("audio", "text"))
    assert f.order == ("audio_to_text", "text_to_image") and fot_flow(f, [("audio_to_text", "text_to_image")])
    assert not fot_order(["text_to_image", "audio_to_text"], [("audio_to_text", "text_to_image")])
    # a consumer of a modality the query lacks waits for its producer (generate, then answer on it)
    f = chain(["answer_question_based_on_image", "text_to_image"], output="text")
    assert f.order == ("text_to_image", "answer_question_based_on_image")
    # text -> text ties follow the order of mention
    q = "Translate the following French sentence into English and identify the entity tokens in it"
    order = mention_order(q, ["get_named_entities", "get_translation"])
    assert chain(order, order_hint=order).order == ("get_translation", "get_named_entities")


def test_labels_cover_the_actions_with_io():
    assert set(LABEL_ACTION.values()) <= set(ACTION_IO)
    assert len(ACTION_IO) == 28


def test_merged_domains_plan_the_paper_trace():
    d = _domains()
    merged = merge_domains([d["audio"], d["image_generation"]])
    prob = problem_for(merged, ["audio_to_text", "text_to_image"])
    assert set(plan(merged, prob, "pyperplan").actions) == {"audio_to_text", "text_to_image"}


def test_implied_output_puts_the_unread_modality_last():
    assert implied_output(["get_translation", "text_to_audio"]) == "audio"
    assert implied_output(["get_translation", "classify_text"]) is None  # text only
    assert implied_output(["text_to_audio", "audio_to_text"]) is None  # the audio is read
    assert implied_output(["text_to_audio", "text_to_image"]) is None  # two candidates: no guess
    # MuSE 65 ("Read me an English version of ..."): the mention order alone puts speech first
    flow = chain(["text_to_audio", "get_translation"], order_hint=["text_to_audio", "get_translation"])
    assert flow.order == ("get_translation", "text_to_audio")
    assert flow.edges == {("get_translation", "text_to_audio")}


def _plan_fd(action: str) -> list[str]:
    dom = _domains()["audio"]
    return [plan(dom, problem_for(dom, [action]), "fast-downward").actions[0] for _ in range(6)]


@pytest.mark.slow
def test_fast_downward_side_by_side_in_one_directory():
    """Two processes planning different tasks at once from the same working directory each get their
    own plan (Fast Downward's translator writes output.sas into the working directory)."""
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(2) as ex:
        got = list(ex.map(_plan_fd, ["audio_to_text", "text_to_audio"]))
    assert got == [["audio_to_text"] * 6, ["text_to_audio"] * 6]
