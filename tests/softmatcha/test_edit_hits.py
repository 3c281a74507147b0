"""Issue 51 item 2: an edit search counts and prints each place once. A hit is a start position; of the
variants that match there, the best-ranked one is the hit (its span, its score). Checked against a
brute-force matcher that tries every alignment at every start of random small corpora."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from iclr25.softmatcha import Embeddings, Index
from iclr25.softmatcha.variants import VariantConfig

WORDS = ["a", "b", "c", "d", "e"]
# cos(a, b) = 0.9, cos(c, d) = 0.85; e is alone
VECS = np.array([[1, 0, 0, 0], [0.9, np.sqrt(1 - 0.81), 0, 0], [0, 0, 1, 0],
                 [0, 0, 0.85, np.sqrt(1 - 0.7225)], [0, 0, 0, 1.0]])


def brute_force(lines: list[list[str]], pattern: list[str], sims: dict[tuple[str, str], float], alpha: float,
                max_insert: int, max_delete: int, lam: float = 0.9) -> dict[tuple[int, int], float]:
    """{(line, start): best score} over every alignment, by the definition in variants.py: each pattern
    token matched (similarity >= alpha) or deleted, each corpus token matching or inserted (never first or
    last), score = min of the matched similarities times lam^(insertions + deletions)."""
    out: dict[tuple[int, int], float] = {}

    def walk(toks, i, k, ins, dele, base, matched, last_ins, start, li):
        if i == len(pattern):
            if matched and not last_ins:
                key = (li, start)
                out[key] = max(out.get(key, 0.0), base * lam ** (ins + dele))
            return
        if k < len(toks):
            s = sims.get((pattern[i], toks[k]), 0.0)
            if s >= alpha:
                walk(toks, i + 1, k + 1, ins, dele, min(base, s), True, False, start, li)
        if dele < max_delete:
            walk(toks, i + 1, k, ins, dele + 1, base, matched, last_ins, start, li)
        if ins < max_insert and matched and k < len(toks):
            walk(toks, i, k + 1, ins + 1, dele, base, matched, True, start, li)

    for li, toks in enumerate(lines):
        for j in range(len(toks)):
            walk(toks, 0, j, 0, 0, 1.0, False, False, j, li)
    return out


@pytest.fixture(scope="module")
def emb():
    return Embeddings.from_arrays(WORDS, VECS, name="letters")


@pytest.mark.parametrize("seed", range(12))
def test_hits_equal_a_brute_force_matcher(emb, tmp_path, seed):
    rng = np.random.default_rng(seed)
    lines = [list(rng.choice(WORDS, int(rng.integers(1, 9)))) for _ in range(int(rng.integers(3, 12)))]
    idx = Index.from_lines([" ".join(x) for x in lines], tmp_path / "i", embeddings=emb)
    pattern = list(rng.choice(WORDS[:4], int(rng.integers(2, 4))))
    ins, dele = int(rng.integers(0, 3)), int(rng.integers(0, len(pattern)))
    alpha = 0.8
    unit = np.asarray(emb.vectors)
    sims = {(p, w): max(0.0, float(unit[emb.id(p)] @ unit[emb.id(w)])) if p != w else 1.0
            for p in WORDS for w in WORDS}
    want = brute_force(lines, pattern, sims, alpha, ins, dele)
    hits = idx.hits(" ".join(pattern), alpha, VariantConfig(max_insert=ins, max_delete=dele))
    line_of = np.searchsorted(idx.line_starts, hits.positions, side="right") - 1
    got = {(int(k), int(p - idx.line_starts[k] - 1)): hits.variants[int(v)].score
           for k, p, v in zip(line_of, hits.positions, hits.variant, strict=True)}
    assert set(got) == set(want), (lines, pattern, ins, dele)
    for key, score in want.items():
        assert got[key] == pytest.approx(score), key  # the hit's variant is the best at its start
    # the paged view (rank order) holds the same places, each once
    cfg = VariantConfig(max_insert=ins, max_delete=dele)
    page = idx.occurrences(" ".join(pattern), alpha, 0, 10_000, cfg)
    assert sorted(m.position for m in page.matches) == hits.positions.tolist()


def test_cli_counts_and_prints_each_place_once(emb, tmp_path):
    from iclr25.softmatcha.cli import app
    vec = tmp_path / "letters.txt"  # a word2vec text file: the index records it, the CLI reloads it
    vec.write_text("".join(f"{w} {' '.join(map(str, v))}\n" for w, v in zip(WORDS, VECS, strict=True)))
    idx = Index.from_lines(["a c e a c", "e e e", "a e c d"], tmp_path / "i",
                           embeddings=Embeddings.from_word2vec_text(vec))
    r = CliRunner()
    path = str(tmp_path / "i")
    # 'a c' with one deletion: 'a c' x2, 'a' x3, 'c' x3 (also 'c' of line 3) -> places: a@0, c@1, a@3, c@4,
    # a@0 (line 3), c@2 (line 3); each counted once although 'a' and 'a c' share a start
    hits = idx.hits("a c", 0.95, VariantConfig(max_delete=1))
    n = hits.count
    assert n == len(set(hits.positions.tolist()))
    out = r.invoke(app, ["search", path, "a c", "-t", "0.95", "--max-delete", "1", "--count-matches"])
    assert out.exit_code == 0, out.output
    assert int(out.stdout) == n
    out = r.invoke(app, ["search", path, "a c", "-t", "0.95", "--max-delete", "1", "-n"])
    lines = out.stdout.splitlines()
    assert len(lines) == len(set(lines)) == 2  # lines 1 and 3, each printed once
