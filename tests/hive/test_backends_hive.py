"""Backends (SmolLM2's cached prefix equals plain scoring; the OpenAI-compatible client on a local mock
server, PDDL re-parsed with retries), the Hive pipeline end to end, and its report."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.hive.backends import MAX_QUERY_CHARS, OpenAICompatible
from iclr25.hive.executors import local_cards
from iclr25.hive.hive import Hive, HiveConfig
from iclr25.hive.muse import load_queries
from iclr25.hive.pddl import parse_domain, parse_problem
from iclr25.hive.planners import plan
from iclr25.hive.registry import Infeasible, Preferences, Registry
from iclr25.hive.report import SECTIONS, pddl_from_markdown

DOMAIN = parse_domain("""(define (domain text_tools) (:requirements :strips :typing) (:types text audio)
  (:predicates (IsText ?t - text) (GetNER ?t - text) (GenerateAudioFromText ?t - text))
  (:action get_named_entities ; find the named entities (people, places) in a text
    :parameters (?input_text - text) :precondition (IsText ?input_text) :effect (GetNER ?input_text))
  (:action text_to_audio ; given a piece of text, convert it to audio
    :parameters (?input_text - text) :precondition (IsText ?input_text)
    :effect (GenerateAudioFromText ?input_text)))""")


class Keyword:
    """A deterministic stand-in backend: scores an option by shared words with the query."""

    name = "keyword"

    def score(self, query, options):
        q = set(query.lower().split())
        return np.array([len(q & set(o.lower().split())) for o in options], float)


def _serve(replies):
    """A local OpenAI-compatible mock: each POST gets the next reply."""
    seen = []

    class H(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            seen.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            reply = replies[min(len(seen), len(replies)) - 1]
            body = json.dumps({"choices": [{"message": {"content": reply}}]})
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *a):
            pass

    srv = HTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, seen


def test_openai_backend_reparses_pddl_and_retries():
    good = ("(define (problem p) (:domain text_tools) (:objects input_text - text) "
            "(:init (IsText input_text)) (:goal (GetNER input_text)))")
    srv, seen = _serve(["here you go: (define (problem p) (:goal (NoSuch x)))", good])
    try:
        b = OpenAICompatible(f"http://127.0.0.1:{srv.server_port}/v1", "mock")
        prob, retries = b.problem("find entities in: Ada lives in London", DOMAIN)
        assert retries == 1 and prob.goal == (("getner", ("input_text",)),)
        assert "invalid" in seen[1]["messages"][-1]["content"]  # the error went back to the model
    finally:
        srv.shutdown()


def test_openai_backend_gives_up_after_three_retries_and_picks_options():
    srv, seen = _serve(["no pddl here"])
    try:
        b = OpenAICompatible(f"http://127.0.0.1:{srv.server_port}/v1", "mock")
        with pytest.raises(UserError, match="4 tries"):
            b.problem("anything", DOMAIN)
        assert len(seen) == 4
    finally:
        srv.shutdown()
    srv, _ = _serve(["2, 3"])
    try:
        b = OpenAICompatible(f"http://127.0.0.1:{srv.server_port}/v1", "mock")
        assert list(b.score("q", ["a", "b", "c"])) == [0.0, 1.0, 1.0]
    finally:
        srv.shutdown()
    with pytest.raises(UserError, match="--url"):
        OpenAICompatible("ftp://x", "m")


def _hive(**cfg):
    return Hive(Keyword(), Registry(local_cards()), {"text_tools": DOMAIN},
                config=HiveConfig(planner="pyperplan", tau_domain=0.0, tau_action=0.0, **cfg))


def test_hive_runs_a_request_and_the_report_replans(tmp_path):
    res = _hive().run("find the named entities in: Ada Lovelace lives in London", out_dir=tmp_path)
    assert res.plan.actions == ["get_named_entities"]
    assert res.final.modality == "text" and "Ada Lovelace" in res.final.value and not res.final.stub
    md = res.report.to_markdown()
    assert all(f"## {s}" in md for s in SECTIONS) and "## Timings" in md
    d, p = pddl_from_markdown(md)
    dom, prob = parse_domain(d), parse_problem(p)
    assert plan(dom, prob, "pyperplan").steps == res.plan.steps


def test_hive_chains_text_into_speech(tmp_path):
    res = _hive().run("x", out_dir=tmp_path, actions=["text_to_audio", "get_named_entities"])
    assert res.flow.order == ("get_named_entities", "text_to_audio")
    assert res.final.modality == "audio" and (tmp_path / res.final.value.split("/")[-1]).is_file()


def test_hive_bad_input(tmp_path):
    h = _hive()
    with pytest.raises(UserError, match="empty"):
        h.run("   ", out_dir=tmp_path)
    with pytest.raises(UserError, match="missing media: ./nope.wav"):
        h.run("transcribe ./nope.wav", base_dir=tmp_path, out_dir=tmp_path)
    with pytest.raises(UserError, match="characters; at most"):
        h.run("a" * (MAX_QUERY_CHARS + 1), out_dir=tmp_path)
    with pytest.raises(Infeasible, match="licenses"):
        h.run("find the named entities in: Ada", Preferences(licenses=("gpl-3.0",)), out_dir=tmp_path)


def test_every_muse_request_fits_the_size_bound():
    # MuSE's query 68 (31,044 characters) once exceeded a 4,000-character bound and failed the quick run
    assert max(len(q.text) for q in load_queries()) <= MAX_QUERY_CHARS


def test_media_paths_in_a_query(tmp_path):
    from iclr25.hive.muse import MEDIA, media_in
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "cat.png").write_bytes(b"")
    (tmp_path / "talk.wav").write_bytes(b"")
    query = "caption ./img/cat.png, then transcribe talk.mp3."  # talk.mp3 resolves to talk.wav
    assert media_in(query, tmp_path) == [tmp_path / "./img/cat.png", tmp_path / "talk.wav"]
    assert MEDIA.sub(" ", query).split() == ["caption", ",", "then", "transcribe", "."]
    with pytest.raises(UserError, match="missing media: dog.jpg"):
        media_in("describe dog.jpg", tmp_path)
    # one long word is scanned in linear time (a lazy prefix once backtracked cubically: minutes at 5k)
    assert media_in("a" * 200_000, tmp_path) == []
    assert MEDIA.findall("a" * 100_000 + ".png") == ["a" * 100_000 + ".png"]
