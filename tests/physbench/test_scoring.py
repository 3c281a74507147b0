"""The official scorer, quirks included (spec §8), the lenient extractor, the Report tables and the
EvalAI writer."""

from __future__ import annotations

import json

import pytest
from tests.conftest import shared_data

from iclr25.core.errors import UserError
from iclr25.physbench.scoring import answer_true, lenient_letter, score, write_submission
from iclr25.physbench.taxonomy import ABILITIES, MODES, SUB_TYPES, TASK_TYPES

GT = [
    {
        "idx": 0,
        "answer": "A",
        "task_type": "property",
        "sub_type": "number",
        "ability_type": "identify",
        "mode": "image-only",
    },
    {
        "idx": 1,
        "answer": "B",
        "task_type": "scene",
        "sub_type": "light",
        "ability_type": "perception",
        "mode": "image&video",
    },
    {
        "idx": 2,
        "answer": "",
        "task_type": "dynamics",
        "sub_type": "others",
        "ability_type": "reasoning",
        "mode": "general",
    },
    {
        "idx": 3,
        "answer": "D",
        "task_type": "scene",
        "sub_type": "light",
        "ability_type": "reasoning",
        "mode": "general",
    },
]


def test_official_rule_and_its_quirks():
    assert answer_true("A", "A") and answer_true("ABCD", "A") and answer_true("A. red", "A")
    assert answer_true("anything", "")  # a blank label credits every prediction
    assert (
        not answer_true("The answer is B", "B") and not answer_true("b", "B") and not answer_true(" B", "B")
    )


def test_lenient_extractor_is_opt_in():
    assert lenient_letter("The answer is b") == "B"
    assert lenient_letter("(C) red") == "C" and lenient_letter(" D") == "D" and lenient_letter("none") == ""
    preds = [{"idx": 1, "answer": "The answer is B"}]
    assert score(preds, GT).correct == 0
    assert score(preds, GT, lenient=True).correct == 1


def test_lenient_reads_a_lone_lower_case_letter_but_not_an_article():
    assert [lenient_letter(t) for t in ("d", " d.", "(c)", "b. red", "a) ball")] == ["D", "D", "C", "B", "A"]
    assert lenient_letter("a ball") == "" and lenient_letter("d is wrong, so") == ""


def test_missing_predictions_can_count_wrong():
    preds = [{"idx": 1, "answer": GT[1]["answer"]}]
    dropped, counted = score(preds, GT), score(preds, GT, missing="wrong")
    assert (dropped.correct, dropped.total, dropped.missing) == (1, 1, 0)
    assert (counted.correct, counted.total, counted.missing) == (1, len(GT), len(GT) - 1)


def test_hand_scored_report_and_tables_add_up():
    preds = [
        {"idx": 0, "answer": "ABCD"},
        {"idx": 1, "answer": "C"},
        {"idx": 2, "answer": "zzz"},
        {"idx": 3, "answer": "D"},
    ]
    rep = score(preds, GT)
    assert (rep.correct, rep.total) == (3, 4) and rep.overall == 75.0
    assert rep.by_sub["light"] == (1, 2) and rep.by_task["scene"] == (1, 2)
    for table in (rep.by_task, rep.by_sub, rep.by_ability, rep.by_mode):
        assert sum(n for _, n in table.values()) == rep.total
        assert sum(c for c, _ in table.values()) == rep.correct


def test_denominator_is_submitted_rows():
    assert score([{"idx": 3, "answer": "D"}], GT).overall == 100.0


@pytest.mark.parametrize(
    "preds, match",
    [
        ([{"idx": 9, "answer": "A"}], "not in the answer file"),
        ([{"idx": 0, "answer": "A"}, {"idx": 0, "answer": "B"}], "duplicate idx 0"),
        ([{"idx": "0", "answer": "A"}], "idx must be an integer"),
        ([{"answer": "A"}], "needs 'idx' and 'answer'"),
        ([], "non-empty"),
    ],
)
def test_bad_predictions_are_one_line_errors(preds, match):
    with pytest.raises(UserError, match=match):
        score(preds, GT)


def test_answers_missing_fields_or_duplicates():
    with pytest.raises(UserError, match="lacks field"):
        score([{"idx": 0, "answer": "A"}], [{"idx": 0, "answer": "A"}])
    with pytest.raises(UserError, match="duplicate idx"):
        score([{"idx": 0, "answer": "A"}], GT + GT[:1])


def test_submission_writer_round_trips(tmp_path):
    rows = [{"idx": 3, "answer": "D"}, {"idx": 0, "answer": "A"}]
    back = json.loads(write_submission(rows, tmp_path / "s.json").read_text())
    assert back == sorted(rows, key=lambda r: r["idx"])


def test_real_val_labels_have_the_paper_taxonomy():
    root = shared_data("10-physbench")
    val = json.loads((root / "val_answer.json").read_text())
    assert len(val) == 200
    assert {a["task_type"] for a in val} == set(TASK_TYPES)
    assert {a["sub_type"] for a in val} == set(SUB_TYPES) and len(SUB_TYPES) == 19
    assert {a["ability_type"] for a in val} == set(ABILITIES) and {a["mode"] for a in val} == set(MODES)
    rep = score([{"idx": a["idx"], "answer": "A"} for a in val], val)
    assert rep.correct == sum(a["answer"] in ("A", "") for a in val)  # idx 1011 has a blank label
