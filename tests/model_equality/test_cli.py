"""The CLI end to end on JSONL files, and what bad input gets (exit 2, one line)."""

import json
import subprocess
import sys

import pytest


def run(*args):
    return subprocess.run([sys.executable, "-m", "iclr25.core.cli", "model_equality", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def files(tmp_path):
    rng = __import__("random").Random(0)
    def write(name, alphabet, n=12):
        rows = [{"prompt": p, "completion": "".join(rng.choice(alphabet) for _ in range(8))}
                for p in ("Once upon", "def f(x):") for _ in range(n)]
        (tmp_path / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        return str(tmp_path / name)
    return write("ref.jsonl", "abc", 30), write("same.jsonl", "abc"), write("api.jsonl", "xyz")


def test_cli_test_rejects_a_different_api_and_accepts_the_same(files):
    ref, same, api = files
    out = run("test", "--ref", ref, "--api", api, "--b", "200")
    assert out.returncode == 0, out.stderr
    assert "p-value 0.004975" in out.stdout and "decision: REJECT" in out.stdout
    out = run("test", "--ref", ref, "--api", same, "--b", "200", "--pvalue", "null")
    assert out.returncode == 0, out.stderr
    assert "do not reject" in out.stdout.splitlines()[-1]
    out = run("test", "--ref", ref, "--api", same, "--b", "200", "--composite", api)
    assert out.returncode == 0, out.stderr
    assert "do not reject: consistent with a reference" in out.stdout.splitlines()[-1]
    out = run("distance", ref, api)
    # no shared symbol: MMD^2 = 2 x (within-sample agreement 1/3) x (share of same-prompt pairs ~1/2)
    assert out.returncode == 0 and 0.5 < float(out.stdout.split(":")[-1]) < 0.65


def test_cli_bad_input_is_one_line_exit_2(files, tmp_path):
    ref, _, api = files
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"prompt": "Once upon"}\n')
    for args, needle in [
        (("test", "--ref", ref, "--api", str(bad)), "bad.jsonl:1: row is missing the field 'completion'"),
        (("test", "--ref", ref, "--api", api, "--kernel", "rbf"), "unknown statistic 'rbf'"),
        (("test", "--ref", ref, "--api", api, "--pvalue", "exact"), "unknown --pvalue 'exact'"),
        (("test", "--ref", api, "--api", ref, "--pvalue", "null"), "api.jsonl: prompt 0: the pool has 12"),
    ]:
        out = run(*args)
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        err = out.stderr.strip()
        assert needle in err and len(err.splitlines()) == 1, err
