"""PDDL parsing (with the shipped files' quirks), writing and merging."""

from __future__ import annotations

import pytest

from iclr25.core.errors import UserError
from iclr25.hive.pddl import Domain, merge_domains, parse_domain, parse_problem

QUIRKY = """(define (domain qa)
  (:requirements :strips :typing)
  (:types text language)
  (:predicates
    (ExtracteAnswerFromTable ?question -text ?data - text)
    (Translate ?input_text - text ?language - language ?language - language)
    (IsText ?t - text) (ValidLanguage ?l - language))
  (:action caption_thing; glued comment
    :parameters (?question - text ?data - text)
    :precondition (and (IsText ?question) (IsText ?data))
    :effect (ExtracteAnswerFromTable ?question ?data))
  (:action translate ; translate a text
    :parameters (?t - text ?a - language ?b - language)
    :precondition (and (IsText ?t) (ValidLanguage ?b))
    :effect (Translate ?t ?a ?b))
)"""


def test_quirks_are_fixed_and_comments_kept():
    d = parse_domain(QUIRKY)
    table = d.predicate("ExtracteAnswerFromTable")
    assert table.params == (("?question", "text"), ("?data", "text"))  # '-text' read as '- text'
    tr = d.predicate("translate")
    assert [v for v, _ in tr.params] == ["?input_text", "?language", "?language_2"]  # repeated variable
    assert d.action("caption_thing").comment == "glued comment"
    assert d.action("translate").description == "translate a text"


def test_round_trip_through_text():
    d = parse_domain(QUIRKY)
    assert parse_domain(d.to_pddl()) == d


def test_merge_is_commutative_idempotent_and_unions():
    a = parse_domain(QUIRKY)
    b = parse_domain("""(define (domain gen) (:requirements :strips :typing) (:types text)
      (:predicates (IsText ?t - text) (GenerateText ?t - text))
      (:action write :parameters (?t - text) :precondition (IsText ?t) :effect (GenerateText ?t)))""")
    assert merge_domains([a, b]) == merge_domains([b, a])
    assert merge_domains([a, a]) == merge_domains([a])
    m = merge_domains([a, b])
    assert m.name == "gen-qa" and {x.name for x in m.actions} == {"caption_thing", "translate", "write"}
    assert len([p for p in m.predicates if p.name == "istext"]) == 1


def test_merge_refuses_clashing_arity():
    a = parse_domain("""(define (domain a) (:types text) (:predicates (P ?x - text))
      (:action f :parameters (?x - text) :precondition (P ?x) :effect (P ?x)))""")
    b = parse_domain("""(define (domain b) (:types text) (:predicates (P ?x - text ?y - text))
      (:action g :parameters (?x - text) :precondition (P ?x ?x) :effect (P ?x ?x)))""")
    with pytest.raises(UserError, match="clashes"):
        merge_domains([a, b])


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("(define (domain x)\n (:types text)\n (:predicates (P ?x - text)", ":3:"),  # never closed
        ("(define (domain x))\n)", ":2:"),
        ("(define (domain x)\n (:predicates (P x - text)))", ":2:"),  # variable without '?'
        (
            "(define (domain x)\n (:types t)\n (:predicates (P ?x - t))\n (:action a :parameters (?x - t)\n"
            " :precondition (or (P ?x)) :effect (P ?x)))",
            ":5:",
        ),
    ],
)
def test_malformed_pddl_names_file_and_line(tmp_path, text, where):
    f = tmp_path / "bad.pddl"
    f.write_text(text)
    with pytest.raises(UserError, match=f"bad.pddl{where}"):
        Domain.load(f)


def test_unknown_predicate_in_action_is_refused():
    with pytest.raises(UserError, match="unknown predicate 'q'"):
        parse_domain("""(define (domain a) (:types t) (:predicates (P ?x - t))
          (:action f :parameters (?x - t) :precondition (Q ?x) :effect (P ?x)))""")


def test_problem_parses_goal_conjunction():
    p = parse_problem(
        "(define (problem p) (:domain d) (:objects a b - text) (:init (IsText a)) (:goal (and (P a) (Q b))))"
    )
    assert p.objects == (("a", "text"), ("b", "text")) and p.goal == (("p", ("a",)), ("q", ("b",)))
