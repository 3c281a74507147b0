"""The CLI end to end on JSONL files, and what bad input gets (exit 2, one line)."""

import contextlib
import io
import json
import shutil
import subprocess
import sys

import pytest


def run(*args):
    """The CLI in-process (fast); `run_subprocess` checks the real entry point once."""
    from iclr25.core.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["iclr25", "model_equality", *args])
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


def run_subprocess(*args):
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
    out = run_subprocess("test", "--ref", ref, "--api", api, "--b", "200")
    assert out.returncode == 0, out.stderr
    assert "p-value 0.004975" in out.stdout and "decision: REJECT" in out.stdout
    out = run("test", "--ref", ref, "--api", same, "--b", "200", "--pvalue", "null")
    assert out.returncode == 0, out.stderr
    assert "do not reject" in out.stdout.splitlines()[-1]
    out = run("test", "--ref", ref, "--api", same, "--b", "200", "--composite", api)
    assert out.returncode == 0, out.stderr
    assert "do not reject: consistent with a reference" in out.stdout.splitlines()[-1]
    out = run("distance", ref, api)
    # no shared symbol: MMD^2 = 2 x (within-sample agreement 1/3) under the default "pairs" normalisation
    assert out.returncode == 0 and 0.78 < float(out.stdout.split(":")[-1].split()[0]) < 0.87
    assert "(0 = indistinguishable, at most 1.414)" in out.stdout  # the score's reference points


def test_cli_bad_input_is_one_line_exit_2(files, tmp_path):
    ref, _, api = files
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"prompt": "Once upon"}\n')
    for args, needle in [
        (("test", "--ref", ref, "--api", str(bad)), "bad.jsonl:1: row is missing the field 'completion'"),
        (("test", "--ref", ref, "--api", api, "--kernel", "rbf"), "unknown statistic 'rbf'"),
        (("test", "--ref", ref, "--api", api, "--pvalue", "exact"), "unknown --pvalue 'exact'"),
        (("test", "--ref", api, "--api", ref, "--pvalue", "null"), "api.jsonl: prompt 0: the pool has 12"),
        (("test", "--ref", ref, "--api", api, "--alpha", "nan"), "--alpha must be a finite number in (0, 1]"),
        (("test", "--ref", ref, "--api", api, "--b", "0"), "--b"),
        (("test", "--ref", ref, "--api", api, "--L", "1000000000"), "--L"),
        (("test", "--ref", ref, "--api", api, "--seed", "-1"), "--seed"),
        (("test", "--ref", ref, "--api", api, "--denominator", "n2"), "unknown --denominator 'n2'"),
        (("distance", ref, str(tmp_path / "missing.jsonl")), "missing.jsonl"),
    ]:
        out = run_subprocess(*args) if needle.startswith("bad.jsonl") else run(*args)
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        err = out.stderr.strip()
        assert needle in err and len(err.splitlines()) == 1, err


@pytest.mark.skipif(shutil.which("bible") is None, reason="needs the KJV (apt-get install bible-kjv)")
def test_cli_simulate_then_test_and_power_from_a_config(tmp_path):
    out = run("simulate", "--out", str(tmp_path), "--profile", "smoke", "--reference", "tinygpt",
              "--endpoint", "swap", "--prompts", "3", "--n-ref", "8", "--n-api", "4", "--L", "12")
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in (tmp_path / "api.jsonl").read_text().splitlines()]
    assert len(rows) == 12 and all(set(r) == {"prompt", "completion"} for r in rows)
    out = run("test", "--ref", str(tmp_path / "ref.jsonl"), "--api", str(tmp_path / "api.jsonl"), "--b", "50",
              "--denominator", "paper")
    assert out.returncode == 0 and "decision:" in out.stdout and "paper denominator" in out.stdout, out.stderr
    cfg = tmp_path / "sim.toml"
    cfg.write_text("sims = 5\nfpr_sims = 5\nb = 20\nn_per_prompt = [1]\nheadline_n = 1\n")
    out = run("power", "--profile", "smoke", "--config", str(cfg), "--denominator", "paper")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[1].split() == ["endpoint", "TV/token", "N=1m"] and len(lines) == 2 + 9
    assert lines[2].startswith("same model") and lines[3].startswith("other pool")  # FPR, pool drift
    assert all(0.0 <= float(line.split()[-1]) <= 1.0 for line in lines[2:])
    for args, needle in [(("power", "--profile", "smoke", "--config", str(cfg), "--denominator", "n2"),
                          "unknown --denominator 'n2'"),
                         (("power", "--profile", "smoke", "--test", "rbf"), "unknown --test 'rbf'"),
                         (("simulate", "--out", str(tmp_path), "--endpoint", "gpt4"),
                          "unknown --endpoint 'gpt4'"),
                         (("simulate", "--out", str(tmp_path), "--reference", "llama"),
                          "unknown --reference 'llama'")]:
        out = run(*args)
        assert out.returncode == 2 and needle in out.stderr, (args, out.stderr)
    for text, needle in [("simz = 5\n", "unknown field 'simz'"), ('sims = "x"\n', "sims must be an integer"),
                         ("L_sweep = [1, 2.5]\n", "L_sweep must be a list of integers"),
                         ("m = 100000\n", "m must be in [1, 400]"), ("n_per_prompt = [2, 1]\n", "increasing"),
                         ("pool = 20\nn_per_prompt = [1, 5]\n", "pool 20 < 10 x the largest N/m 5"),
                         ("sims = [\n", "not a readable TOML file")]:
        cfg.write_text(text)
        out = run("power", "--profile", "smoke", "--config", str(cfg))
        err = out.stderr.strip()
        assert out.returncode == 2 and needle in err and len(err.splitlines()) == 1, (text, err)


def test_cli_test_documents_and_offers_a_rejecting_exit_code(files):
    ref, same, api = files
    assert "Exit status: 0 whether or not H0 is rejected" in run("test", "--help").stdout
    out = run("test", "--ref", ref, "--api", api, "--b", "200", "--fail-on-reject")
    assert out.returncode == 1 and "decision: REJECT" in out.stdout
    out = run("test", "--ref", ref, "--api", same, "--b", "200", "--fail-on-reject", "--L", "8")  # old --L
    assert out.returncode == 0 and "L = 8" in out.stdout
    out = run("test", "--ref", ref, "--api", same, "--length", "8", "--L", "6")
    assert out.returncode == 2 and "not both" in out.stderr


def test_cli_sample_size_power_vs_n_on_the_users_own_files(files, tmp_path):
    ref, same, api = files
    plot = tmp_path / "power.png"
    out = run("sample-size", "--ref", ref, "--api", api, "--sims", "20", "--b", "50", "-o", str(plot))
    assert out.returncode == 0, out.stderr
    assert "power 80% is reached at N = 2 (1 per prompt)" in out.stdout  # no shared symbol: one is enough
    assert plot.stat().st_size > 1000
    out = run("sample-size", "--ref", ref, "--api", same, "--sims", "20", "--b", "50", "--ns", "1,4,12")
    assert out.returncode == 0, out.stderr
    rows = [ln.split() for ln in out.stdout.splitlines() if ln.strip()[:1].isdigit()]
    assert [int(r[0]) for r in rows] == [1, 4, 12] and all(float(r[2]) <= 0.3 for r in rows)
    assert "is not reached up to N = 24" in out.stdout and "over half of the API file" in out.stdout
    out = run("sample-size", "--ref", ref, "--api", same, "--ns", "13")
    assert out.returncode == 2 and "at most 12" in out.stderr
