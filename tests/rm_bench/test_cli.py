"""The CLI end to end on a user's folder: eval, export → score round trip, report, one-line errors."""

import contextlib
import io
import json
from types import SimpleNamespace

import pytest

from iclr25.core.cli import main
from iclr25.rm_bench import Length, evaluate, load_rmbench


def _cli(*args) -> SimpleNamespace:
    """`iclr25 rm_bench *args` in this process: exit code and captured output."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["iclr25", "rm_bench", *args])
        except SystemExit as e:
            code = e.code or 0
    return SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


def test_eval_writes_results_and_report_prints_them(tiny_dir, tmp_path):
    out = tmp_path / "res.json"
    r = _cli("eval", "--data", str(tiny_dir), "--scorer", "length", "-o", str(out))
    assert r.returncode == 0, r.stderr
    res = json.loads(out.read_text())
    assert set(res["domains"]) == {"chat", "safety"} and res["items"] == 13
    expect = evaluate(Length(), load_rmbench(tiny_dir))
    assert res["overall"] == pytest.approx(expect["overall"])
    assert res["domains"]["chat"]["matrix"][0] == [100, 0, 0]  # "correct" is longer than "wrong"
    rep = _cli("report", str(out))
    assert rep.returncode == 0 and "overall" in rep.stdout and "89.0" in rep.stdout


def test_export_then_score_reproduces_eval(tiny_dir, tmp_path):
    todo, done = tmp_path / "todo.jsonl", tmp_path / "done.jsonl"
    assert _cli("export", "--data", str(tiny_dir), "-o", str(todo)).returncode == 0
    rows = [json.loads(x) for x in todo.read_text().splitlines()]
    assert len(rows) == 6 * 13 and set(rows[0]) == {"id", "domain", "role", "style", "prompt", "response"}
    done.write_text("".join(json.dumps(dict(r, score=len(r["response"]))) + "\n" for r in rows[::-1]))
    r = _cli("score", "--data", str(tiny_dir), "--scores", str(done), "-o", str(tmp_path / "a.json"))
    assert r.returncode == 0, r.stderr
    _cli("eval", "--data", str(tiny_dir), "--scorer", "length", "-o", str(tmp_path / "b.json"))
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("a.json", "b.json"))
    assert a["domains"] == b["domains"] and a["overall"] == b["overall"]


def _scores_file(tiny_dir, tmp_path, edit):
    todo = tmp_path / "todo.jsonl"
    _cli("export", "--data", str(tiny_dir), "-o", str(todo))
    rows = [dict(json.loads(x), score=1.0) for x in todo.read_text().splitlines()]
    rows = edit(rows)
    p = tmp_path / "done.jsonl"
    p.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return p


@pytest.mark.parametrize("edit, msg", [
    (lambda rows: rows[1:], "lacks the score"),
    (lambda rows: [dict(rows[0], score=float("nan"))] + rows[1:], "finite number"),
    (lambda rows: [dict(rows[0], score="high")] + rows[1:], "finite number"),
    (lambda rows: [dict(rows[0], id="999")] + rows[1:], "no item '999'"),
    (lambda rows: [dict(rows[0], style="fancy")] + rows[1:], "style"),
    (lambda rows: ["{not json"] + rows, "not valid JSON"),
])
def test_bad_scores_file_is_one_line_exit_2(tiny_dir, tmp_path, edit, msg):
    p = _scores_file(tiny_dir, tmp_path, edit)
    r = _cli("score", "--data", str(tiny_dir), "--scores", str(p), "-o", str(tmp_path / "r.json"))
    assert r.returncode == 2 and msg in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_bad_input_is_one_line_exit_2(tiny_dir, tmp_path):
    out = str(tmp_path / "r.json")
    bad_data = tmp_path / "bad"
    bad_data.mkdir()
    (bad_data / "chat_filtered.json").write_text(json.dumps([{"id": 1, "prompt": "q", "chosen": ["a", "b"],
                                                              "rejected": ["c", "d", "e"]}]))
    damaged = tiny_dir / "chat_filtered.json"
    cases = [
        (("eval", "--data", str(tiny_dir), "--scorer", "gpt5", "-o", out), "unknown scorer"),
        (("eval", "--data", str(bad_data), "-o", out), "3 styles"),
        (("eval", "--data", str(tiny_dir), "--ties", "maybe", "-o", out), "--ties"),
        (("eval", "--data", str(tiny_dir), "-o", str(tmp_path / "r.txt")), "must end in .json"),
        (("eval", "--data", str(tiny_dir), "--scorer", "hf", "-o", out), "--model-dir"),
        (("report", str(tmp_path / "missing.json")), "not found"),
    ]
    for args, msg in cases:
        r = _cli(*args)
        one_line = len(r.stderr.strip().splitlines()) == 1
        assert r.returncode == 2 and msg in r.stderr and one_line, (args, r.stderr)
    damaged.write_text(damaged.read_text().replace("topic1", "topicX"))
    r = _cli("eval", "--data", str(tiny_dir), "-o", out)
    assert r.returncode == 2 and "checksum mismatch" in r.stderr


def test_report_refuses_a_file_that_is_not_results(tmp_path):
    p = tmp_path / "x.json"
    p.write_text(json.dumps({"domains": {"chat": {"matrix": [[1, 2]], "n": 3}}}))
    r = _cli("report", str(p))
    assert r.returncode == 2 and "not an rm_bench results file" in r.stderr
