"""Model selection under preferences: select == brute force, monotone feasibility, the C-KG loader."""

from __future__ import annotations

import json

import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.hive.registry import Infeasible, ModelCard, Preferences, Registry, parse_size, violations
from iclr25.hive.synthetic import brute_force, random_preferences, synthetic_models

CARDS = [
    ModelCard("a/small", "automatic-speech-recognition", "mit", 1e8, 10, (("libri", "WER", 5.0),)),
    ModelCard("a/big", "automatic-speech-recognition", "apache-2.0", 2e9, 1000, (("libri", "WER", 2.0),)),
    ModelCard("a/nc", "automatic-speech-recognition", "cc-by-nc-4.0", 5e8, 50, (("libri", "WER", 1.0),)),
]


def test_select_filters_then_ranks_by_the_preferred_benchmark():
    reg = Registry(CARDS)
    assert reg.select("audio_to_text").model.id == "a/big"  # no preference: most downloads
    p = Preferences(
        licenses=("mit", "apache-2.0"), benchmarks={"automatic-speech-recognition": ("libri", "WER")}
    )
    assert reg.select("automatic-speech-recognition", p).model.id == "a/big"  # WER: lower is better
    p = Preferences(
        licenses=("mit", "apache-2.0"),
        max_params=1e9,
        benchmarks={"automatic-speech-recognition": ("libri", "WER")},
    )
    assert reg.select("audio_to_text", p).model.id == "a/small"


@pytest.mark.parametrize(
    ("prefs", "named"),
    [
        (Preferences(licenses=("gpl-3.0",)), "licenses"),
        (Preferences(max_params=1e6), "size"),
    ],
)
def test_infeasible_names_the_constraint(prefs, named):
    with pytest.raises(Infeasible, match=named):
        Registry(CARDS).select("audio_to_text", prefs)
    with pytest.raises(Infeasible, match="task"):
        Registry(CARDS).select("text_to_image", prefs)


def test_select_equals_brute_force_and_never_violates():
    rng = np.random.default_rng(0)
    reg = Registry(synthetic_models(200, rng))
    for _ in range(300):
        task, prefs = random_preferences(rng, reg)
        ref = brute_force(reg, task, prefs)
        try:
            got = reg.select(task, prefs).model
        except Infeasible:
            got = None
        assert (got and got.id) == (ref and ref.id)
        assert got is None or not violations(got, prefs)


def test_an_added_constraint_never_grows_the_feasible_set():
    rng = np.random.default_rng(1)
    reg = Registry(synthetic_models(200, rng))
    for _ in range(100):
        task, prefs = random_preferences(rng, reg)
        base = {m.id for m in reg.feasible(task, prefs)}
        tighter_size = Preferences(prefs.licenses, min(prefs.max_params or 1e12, 1e9), prefs.benchmarks)
        lic = prefs.licenses[:1] if prefs.licenses else ("mit",)
        tighter_lic = Preferences(lic, prefs.max_params, prefs.benchmarks)
        assert {m.id for m in reg.feasible(task, tighter_size)} <= base
        assert {m.id for m in reg.feasible(task, tighter_lic)} <= base


def test_kg_loader_rebuilds_scores_from_edge_order_with_shared_metric_nodes():
    nodes = [{"id": "m1", "value": 5}, {"id": "m2", "value": 7}]
    edges = [
        {"from": "m1", "to": "asr", "title": "Main Task"},
        {"from": "m1", "to": "MIT", "title": "License"},
        {"from": "m1", "to": "libri", "title": "Benchmark"},
        {"from": "libri", "to": "WER", "title": "Metric"},
        {"from": "WER", "to": "3.1", "title": "Score"},
        {"from": "m2", "to": "asr", "title": "Main Task"},  # no License edge
        {"from": "m2", "to": "cv", "title": "Benchmark"},
        {"from": "cv", "to": "WER", "title": "Metric"},
        {"from": "WER", "to": "9.4%", "title": "Score"},  # the shared metric node 'WER'
    ]
    reg = Registry.from_kg(nodes, edges)
    m1, m2 = reg.models
    assert m1.scores == (("libri", "WER", 3.1),) and m1.license == "mit" and m1.downloads == 5
    assert m2.scores == (("cv", "WER", 9.4),) and m2.license == "unknown"


def test_preferences_json_and_bad_values():
    p = Preferences.from_dict({"licenses": ["MIT"], "size": "7B", "benchmarks": {"asr": {"libri": "WER"}}})
    assert p.licenses == ("mit",) and p.max_params == 7e9 and p.benchmarks == {"asr": ("libri", "WER")}
    assert Preferences.from_dict({"licenses": "any_license", "size": "no_constraints"}) == Preferences()
    assert parse_size(350e6) == 350e6
    for bad in (
        {"size": "-3"},
        {"size": "huge"},
        {"licenses": []},
        {"licenses": 3},
        {"colour": "red"},
        {"benchmarks": {"asr": "libri"}},
        [],
        {"size": True},
    ):
        with pytest.raises(UserError):
            Preferences.from_dict(bad)


def test_jsonl_round_trip_and_errors(tmp_path):
    reg = Registry(CARDS)
    f = tmp_path / "m.jsonl"
    f.write_text(reg.to_jsonl())
    again = Registry.from_jsonl(f)
    assert [m.id for m in again.models] == [m.id for m in CARDS] and again.models[0].scores == CARDS[0].scores
    f.write_text(json.dumps({"id": "x"}) + "\n")
    with pytest.raises(UserError, match="m.jsonl:1"):
        Registry.from_jsonl(f)
    f.write_text("{not json\n")
    with pytest.raises(UserError, match="m.jsonl:1"):
        Registry.from_jsonl(f)
    f.write_text(reg.to_jsonl() * 2)
    with pytest.raises(UserError, match="twice"):
        Registry.from_jsonl(f)
