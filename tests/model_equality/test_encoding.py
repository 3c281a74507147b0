"""Encoding completions and reading users' JSONL files; each bad row is a one-line error naming it."""

import json

import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.model_equality import PAD, encode_chars, encode_tokens, read_jsonl, samples_from_rows


def test_char_and_token_encoding_pad_and_truncate():
    assert encode_chars(["héllo"], 3).tolist() == [[104, 233, 108]]
    assert encode_chars([""], 2).tolist() == [[PAD, PAD]]
    assert encode_tokens([[4, 1, 9, 9], [7, 7, 7, 7, 7]], 4, eos_id=1).tolist() == [[4, PAD, PAD, PAD],
                                                                                  [7, 7, 7, 7]]


def write(tmp_path, name, rows):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_rows_to_samples_share_one_prompt_index(tmp_path):
    ref = read_jsonl(write(tmp_path, "r.jsonl", [{"prompt": p, "completion": c} for p, c in
                                                 [("b", "xy"), ("a", "z"), ("a", "zz"), ("b", "x")]]))
    api = [("a", "q"), ("a", "r"), ("b", "s"), ("b", "t")]
    p, q, prompts = samples_from_rows(ref, api)
    assert prompts == ["a", "b"] and p.L == 2
    assert p.prompt_ids.tolist() == [1, 0, 0, 1] and q.counts().tolist() == [2, 2]


@pytest.mark.parametrize("content, message", [
    (b'{"prompt": "a"}\n', "line 1: row is missing the field 'completion'"),
    (b'{"prompt": "a", "completion": ""}\n', "line 1: empty completion"),
    (b'{"prompt": "a", "completion": "x"}\n\xff\xfe\n', "line 2: line is not valid UTF-8"),
    (b'{"prompt": "a", "completion": 3}\n', "line 1: field 'completion' must be a string"),
    (b'not json\n', "line 1: not valid JSON"),
    (b'[1, 2]\n', "line 1: expected an object"),
    (b'\n', "no rows"),
    (b"[" * 100_000 + b"]" * 100_000 + b"\n", "line 1: JSON nested too deeply"),
    (b'{"prompt": ' + b"9" * 5000 + b"}\n", "line 1: unreadable JSON (Exceeds the limit"),
])
def test_bad_rows_name_the_line(tmp_path, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(UserError) as e:
        read_jsonl(path)
    msg = str(e.value).replace(f"{path}:", "line ")
    assert message in msg and "\n" not in str(e.value)


def test_mismatched_prompts_and_too_few_samples():
    with pytest.raises(UserError, match="prompt sets differ: 1 prompt\\(s\\) only in api, first 'c'"):
        samples_from_rows([("a", "x"), ("a", "y")], [("a", "x"), ("c", "y")])
    with pytest.raises(UserError, match="ref: prompt 'b' has 1 sample\\(s\\); need at least 2"):
        samples_from_rows([("a", "x"), ("a", "y"), ("b", "z")], [("a", "x"), ("a", "x"), ("b", "y"),
                                                                ("b", "y")])
    with pytest.raises(UserError, match="no such file"):
        read_jsonl("/nonexistent/x.jsonl")
    assert np.all(encode_chars(["ab"], 1) == [[97]])
