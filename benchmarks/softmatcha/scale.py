"""SoftMatcha at scale (issue 29): build an index of N tokens (real text + a bigram model's text), then
time ranked variants (top 20), the first page of 50 occurrences and a full count per frequency class.

    flock /tmp/iclr25-heavy.lock .venv/bin/python benchmarks/softmatcha/scale.py --tokens 1e7
    ... --tokens 1e8 | 1e9                       (same code path; 1e9 needs ~10 GiB and ~1 h here)

Corpus: the real text we can install from a registry — the KJV (Debian bible-kjv), the GNU Collaborative
International Dictionary of English (Debian dict-gcide: definitions and quotations, one entry per line) and
the Perseus Latin corpus (shared data, if present) — tokenized by the default tokenizer, then text sampled
from a word bigram model fitted on them (line ends included) until N tokens; `--real-only` indexes the real
text alone (the "real" row). Reproducible: the model and the sampler are seeded (--seed). Queries: 2-3-token
n-grams drawn from the real text, classed by their rarest token's frequency per million tokens of the built
corpus (rare < 10, medium 10-1000, frequent > 1000), every word with a vector (in-vocabulary); n-grams with
a word that has none (Latin words, mostly: a plain exact lookup) are a separate "oov" row. Chosen before
timing. Times are CPU seconds of this process (another job's load does not enter): a first query of its
words (Step 1 scans the vocabulary, then every match enumerated) and warm repeats (lists kept) apart.
Every query's full count from the suffix array is checked against the occurrence enumerator. Results are
merged into
docs/full/softmatcha-scale.json (one entry per N) and rendered to docs/full/softmatcha-scale.md."""

from __future__ import annotations

import argparse
import gzip
import json
import platform
import re
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

from iclr25.core.runtime import pin_threads, progress
from iclr25.softmatcha.suffix import BACKENDS, build_suffix_array, choose_backend

ROOT = Path(__file__).resolve().parents[2]
OUT_JSON = ROOT / "docs" / "full" / "softmatcha-scale.json"
OUT_MD = ROOT / "docs" / "full" / "softmatcha-scale.md"
CLASSES = {"rare": (0, 10), "medium": (10, 1000), "frequent": (1000, float("inf"))}  # per million tokens
TARGETS = {"variants_p95_s": 0.3, "page_p95_s": 0.3, "build_s": 40 * 60, "bytes_per_token": 16.0}
ALPHA = 0.8
REAL = "real"  # the entry of the real text alone
LATIN_STEP = 4  # a spread quarter of the Latin corpus: tokenizing all of it took minutes of this run


GCIDE = Path("/usr/share/dictd/gcide.dict.dz")  # Debian dict-gcide (GPL), dictzip = gzip-readable
_PRON = re.compile(r"\\[^\\\n]*\\|\([^()\n]*\"[^()\n]*\)")  # \Ab"a*ca\ headwords, (-kuz"ment) sounds
_ACCENT = re.compile(r"\[([A-Za-z]{1,2})[\^=.`\"~:,'*]+\]|\[[\^=.`\"~:,'*]+([A-Za-z])\]")  # [a^] -> a
_SOURCE = re.compile(r"^\s*\[[^\]]*(?:Webster|PJC|Century|Suppl|WordNet|Chambers)[^\]]*\]\s*$")


def gcide_lines(path: Path = GCIDE) -> list[str]:
    """The dictionary's entries as running text, one entry per line (markup, accents codes, sound
    spellings and source tags removed)."""
    out, entry = [], []
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
        for raw in f:
            if not raw.strip():
                if entry:
                    out.append(" ".join(entry))
                entry = []
            elif not _SOURCE.match(raw):
                s = _ACCENT.sub(lambda m: m.group(1) or m.group(2), _PRON.sub(" ", raw))
                entry.append(s.replace("{", "").replace("}", "").strip())
    return out + ([" ".join(entry)] if entry else [])


def real_lines() -> tuple[list[str], list[str]]:
    """The real corpora we have: (lines, names of the sources used)."""
    from iclr25.softmatcha.corpus import kjv_lines
    from iclr25.softmatcha.latin import perseus_path, read_corpus
    lines, names = [v for _, v in kjv_lines()], ["KJV (bible-kjv)"]
    if GCIDE.is_file():
        lines += gcide_lines()
        names.append("GCIDE dictionary (dict-gcide)")
    if perseus_path().is_file():
        lines += read_corpus(perseus_path(), line_step=LATIN_STEP)
        names.append(f"Perseus Latin, every {LATIN_STEP}th line")
    return lines, names


def encode(lines: list[str]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Token ids (0 = line end) of the real lines, their line lengths, and the word list (id - 1)."""
    from iclr25.softmatcha.tokenize import get_tokenizer
    tok = get_tokenizer("glove")
    vocab: dict[str, int] = {}
    ids, lens = [], []
    for toks in tok.tokenize_lines(lines):
        ids += [vocab.setdefault(t, len(vocab) + 1) for t in toks]
        ids.append(0)
        lens.append(len(toks))
    return np.asarray(ids, dtype=np.int64), np.asarray(lens, dtype=np.int64), list(vocab)


def bigram_sampler(stream: np.ndarray, n_words: int):
    """A word bigram model of the stream (0 = line end, which also starts a line): CSR of successor
    counts. Returns sample(n, rng) -> stream of n ids (line ends included)."""
    prev, nxt = np.r_[0, stream[:-1]], stream
    order = np.lexsort((nxt, prev))
    pairs = np.stack([prev[order], nxt[order]])
    change = np.r_[True, (pairs[:, 1:] != pairs[:, :-1]).any(axis=0)]
    starts = np.flatnonzero(change)
    succ = pairs[1, starts]
    cnt = np.diff(np.r_[starts, pairs.shape[1]])
    row_of = pairs[0, starts]
    indptr = np.searchsorted(row_of, np.arange(n_words + 2))
    cum = np.cumsum(cnt).astype(np.float64)
    base = np.r_[0.0, cum][indptr[:-1]]
    total = np.r_[0.0, cum][indptr[1:]] - base

    def sample(n: int, rng: np.random.Generator, chains: int = 4096) -> np.ndarray:
        steps = -(-n // chains)
        cur = np.zeros(chains, dtype=np.int64)
        out = np.empty((steps, chains), dtype=np.int64)
        for s in range(steps):
            target = base[cur] + rng.random(chains) * total[cur]
            cur = succ[np.minimum(np.searchsorted(cum, target, side="right"), succ.size - 1)]
            out[s] = cur
        return out.T.reshape(-1)[:n]  # each chain is a contiguous text

    return sample


def real_stream() -> tuple[np.ndarray, np.ndarray, list[str], list[str]]:
    """`encode(real_lines())`, cached (tokenizing the Latin corpus takes minutes here)."""
    from iclr25.core.runtime import cache_dir
    f = cache_dir() / "softmatcha" / f"scale-real-v2-latin{LATIN_STEP}-gcide{int(GCIDE.is_file())}.npz"
    if f.is_file():
        z = np.load(f, allow_pickle=False)
        return z["stream"], z["lens"], z["words"].tolist(), z["names"].tolist()
    lines, names = real_lines()
    stream, lens, words = encode(lines)
    f.parent.mkdir(parents=True, exist_ok=True)
    tmp = f.with_suffix(".tmp.npz")
    np.savez(tmp, stream=stream, lens=lens, words=np.array(words), names=np.array(names))
    tmp.replace(f)
    return stream, lens, words, names


def make_corpus(n_tokens: int, seed: int) -> dict:
    """(word_ids, line_lengths, words) of n_tokens: the real text first, the bigram model's after. Word ids
    go straight into one preallocated uint32 array (4 B/token: 4 GiB at 1e9), line ends dropped chunk by
    chunk, so the peak stays near the corpus itself."""
    stream, lens, words, names = real_stream()
    real = int(lens.sum())
    rng = np.random.default_rng(seed)
    word_ids = np.empty(max(n_tokens, real), dtype=np.uint32)
    word_ids[:real] = stream[stream != 0] - 1
    line_parts, made = [lens], real
    if made < n_tokens:
        sample = bigram_sampler(stream, len(words))
        for _ in progress(range(-(-(n_tokens - made) // 10_000_000)), "sampling the bigram model"):
            left = n_tokens - made
            g = sample(int(min(10_000_000, left) * 1.25) + 4096, rng)  # ~20% of ids are line ends
            g = g[:np.flatnonzero(g == 0)[-1] + 1]
            glens = np.diff(np.r_[-1, np.flatnonzero(g == 0)]) - 1
            glens = glens[np.cumsum(glens) <= left]
            w = g[:int(glens.sum() + glens.size)]
            w = w[w != 0] - 1
            word_ids[made:made + w.size] = w
            line_parts.append(glens)
            made += int(w.size)
            if made >= n_tokens:
                break
    return {"word_ids": word_ids[:made], "line_lengths": np.concatenate(line_parts), "words": words,
            "real_tokens": real, "sources": names}


def word_counts(word_ids: np.ndarray, n_words: int, chunk: int = 1 << 24) -> np.ndarray:
    """Occurrences of each word id, chunk by chunk (bincount copies its input to int64: 8 GB at 1e9)."""
    counts = np.zeros(n_words, dtype=np.int64)
    for s in range(0, word_ids.size, chunk):
        counts += np.bincount(word_ids[s:s + chunk], minlength=n_words)
    return counts


def pick_queries(word_ids: np.ndarray, real_tokens: int, lens: np.ndarray, words: list[str], per_class: int,
                 rng: np.random.Generator, has_vec: np.ndarray | None = None) -> dict[str, list[str]]:
    """2-3-token n-grams of alphabetic words from the real text, classed by their rarest token; with
    `has_vec` (per word id), n-grams with a word without a vector go to the separate class "oov"."""
    freq = word_counts(word_ids, len(words)) * (1e6 / word_ids.size)
    alpha = np.array([w.isalpha() for w in words])
    ends = np.cumsum(lens)
    out: dict[str, list[str]] = {c: [] for c in [*CLASSES, *(["oov"] if has_vec is not None else [])]}
    for _ in range(200_000):
        if all(len(v) >= per_class for v in out.values()):
            break
        m = int(rng.integers(2, 4))
        p = int(rng.integers(0, real_tokens - m))
        if np.searchsorted(ends, p, "right") != np.searchsorted(ends, p + m - 1, "right"):
            continue  # crosses a line
        g = word_ids[p:p + m]
        if not alpha[g].all():
            continue
        low = float(freq[g].min())
        q = " ".join(words[i] for i in g)
        if has_vec is not None and not has_vec[g].all():
            if len(out["oov"]) < per_class and q not in out["oov"]:
                out["oov"].append(q)
            continue
        for c, (a, b) in CLASSES.items():
            if a <= low < b and len(out[c]) < per_class and q not in out[c]:
                out[c].append(q)
    return out


def timed(fn, repeats: int) -> tuple[float, object]:
    """Median CPU seconds of `repeats` calls (process time: another job's load does not enter)."""
    best, val = [], None
    for _ in range(repeats):
        t0 = time.process_time()
        val = fn()
        best.append(max(time.process_time() - t0, 1e-6))
    return float(np.median(best)), val


def run(n_tokens: int, seed: int, per_class: int, repeats: int, compare: bool, workdir: Path,
        shards: int = 0) -> dict:
    from iclr25.softmatcha.build import BuildConfig
    from iclr25.softmatcha.embeddings import DEFAULT_EMBEDDINGS, load_embeddings
    from iclr25.softmatcha.index import Index
    pin_threads()
    t0 = time.perf_counter()
    c = make_corpus(n_tokens, seed)
    gen_s = time.perf_counter() - t0
    emb = load_embeddings()
    n_types = int((word_counts(c["word_ids"], len(c["words"])) > 0).sum())
    entry: dict = {"tokens": int(c["word_ids"].size), "lines": int(c["line_lengths"].size), "types": n_types,
                   "real_tokens": c["real_tokens"], "sources": c["sources"], "generate_s": round(gen_s, 1),
                   "machine": f"{platform.machine()}, shared 2-core VM", "alpha": ALPHA,
                   "embeddings": DEFAULT_EMBEDDINGS, "times": "CPU seconds",
                   "real_share": round(c["real_tokens"] / c["word_ids"].size, 4)}
    t0, c0 = time.perf_counter(), time.process_time()
    idx = Index.from_token_ids(c["word_ids"], c["line_lengths"], c["words"], workdir / "idx", emb,
                               config=BuildConfig(suffix_array="auto"))
    entry["sa_backend"] = choose_backend("auto", idx.meta["n_positions"])
    entry["build_s"] = round(time.perf_counter() - t0, 1)
    entry["build_cpu_s"] = round(time.process_time() - c0, 1)
    entry["bytes_per_token"] = round(idx.bytes_per_token(), 2)
    entry["sa_bytes_per_token"] = round(idx.meta["files"]["sa.bin"]["bytes"] / idx.n_tokens, 2)
    if compare:
        toks = np.asarray(idx.tokens)
        for b in BACKENDS[1:]:  # not 'auto'
            c0 = time.process_time()
            t0 = time.perf_counter()
            build_suffix_array(toks, b, token_file=idx.path / "tokens.bin")
            entry[f"sa_{b}_s"] = round(time.perf_counter() - t0, 1)
            entry[f"sa_{b}_cpu_s"] = round(time.process_time() - c0, 1)
    has_vec = emb.ids(c["words"]) > 0
    queries = pick_queries(c["word_ids"], c["real_tokens"], c["line_lengths"], c["words"], per_class,
                           np.random.default_rng(seed + 1), has_vec)
    if shards:
        entry["sharded"] = shard_check(c, idx, queries, workdir, shards, emb, repeats)
    del c
    rows, mismatches = [], 0
    for cls, qs in queries.items():
        for q in progress(qs, f"queries ({cls})"):
            idx.forget_lists()  # a first query of its words: Step 1 scans the vocabulary (sub_second)
            first_s, _ = timed(lambda q=q: idx.search(q, ALPHA, warn=False), 1)
            warm_s, _ = timed(lambda q=q: idx.search(q, ALPHA, warn=False), repeats)  # lists kept
            var_s, top = timed(lambda q=q: idx.variants(q, ALPHA, 20), repeats)
            page_s, page = timed(lambda q=q: idx.occurrences(q, ALPHA, 0, 50), repeats)
            count_s, allv = timed(lambda q=q: sum(v.count for v in idx.variants(q, ALPHA, None)), repeats)
            enum_s, res = timed(lambda q=q: idx.search(q, ALPHA, warn=False), 1)
            mismatches += int(allv != res.count)
            rows.append({"class": cls, "query": q, "variants_s": var_s, "page_s": page_s, "count_s": count_s,
                         "enumerate_s": enum_s, "first_query_s": first_s, "warm_s": warm_s, "hits": int(allv),
                         "n_variants": len(top), "in_vocabulary": cls != "oov"})
    entry["queries"] = rows
    entry["count_mismatches"] = mismatches
    for cls in [*CLASSES, "oov"]:
        sel = [r for r in rows if r["class"] == cls]
        if sel:
            first = [r["first_query_s"] for r in sel]
            entry[f"{cls}_first_query_s_p50"] = float(np.median(first))
            entry[f"{cls}_first_query_s_max"] = float(max(first))
            entry[f"{cls}_first_query_over_1s"] = sum(x >= 1.0 for x in first)
            entry[f"{cls}_warm_s_p50"] = float(np.median([r["warm_s"] for r in sel]))
        for key in ("variants_s", "page_s", "count_s", "enumerate_s"):
            v = [r[key] for r in sel]
            entry[f"{cls}_{key}_p50"] = float(np.median(v)) if v else float("nan")
            entry[f"{cls}_{key}_p95"] = float(np.percentile(v, 95)) if v else float("nan")
        entry[f"{cls}_hits_p50"] = float(np.median([r["hits"] for r in sel])) if sel else float("nan")
    entry["peak_rss_gib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2)
    return entry


def shard_check(c: dict, idx, queries: dict[str, list[str]], workdir: Path, n_shards: int, emb,
                repeats: int) -> dict:
    """Issue 51 item 5: the same corpus over `n_shards` shards, each a worker process kept between queries
    (`backend="process"`). Every query's ranked variants, top 20 and the whole table (each shard's top k
    with ties, merged by string with counts added), must equal the single index's; latencies are wall
    medians of repeats with the two arms alternated (the shards work in other processes)."""
    from iclr25.softmatcha.sharded import ShardedIndex

    def key(vs):
        return [(v.string, v.count, round(v.score, 9)) for v in vs]

    t0 = time.perf_counter()
    sh = ShardedIndex.from_token_ids(c["word_ids"], c["line_lengths"], c["words"], workdir / "shards", emb,
                                     n_shards, backend="process", workers=n_shards)
    out: dict = {"shards": n_shards, "backend": f"{n_shards} worker processes", "method": "variants top-20",
                 "build_s": round(time.perf_counter() - t0, 1)}
    rows, mismatches = [], 0
    with sh:
        for cls, qs in queries.items():
            for q in progress(qs, f"sharded queries ({cls})"):
                sh.variants(q, ALPHA, 20)  # workers started, shards mapped, Step 1's lists kept
                one_t, sh_t = [], []
                for _ in range(repeats):  # alternated arms, wall clock (the shards are other processes)
                    t0 = time.perf_counter()
                    want = idx.variants(q, ALPHA, 20)
                    one_t.append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    got = sh.variants(q, ALPHA, 20)
                    sh_t.append(time.perf_counter() - t0)
                one_s, sh_s = float(np.median(one_t)), float(np.median(sh_t))
                same = key(got) == key(want) and \
                    key(sh.variants(q, ALPHA, None)) == key(idx.variants(q, ALPHA, None))
                mismatches += int(not same)
                rows.append({"class": cls, "sharded_s": sh_s, "single_s": one_s})
    out["mismatches"] = mismatches
    for cls in CLASSES:
        sel = [r for r in rows if r["class"] == cls]
        if sel:
            out[f"{cls}_single_p50"] = float(np.median([r["single_s"] for r in sel]))
            out[f"{cls}_sharded_p50"] = float(np.median([r["sharded_s"] for r in sel]))
    return out


def render(entries: dict[str, dict]) -> str:
    out = ["# SoftMatcha at scale (issues 29, 51)", "",
           "Written by `benchmarks/softmatcha/scale.py`; every number below was measured by it on this "
           "machine (2 cores shared by several engineers). alpha = 0.8; times are CPU seconds of the process "
           "unless marked wall. Entries made before issue 51 (raw GloVe 50-d, wall seconds, classes that "
           "mixed in words without vectors) say so and are kept as they were measured.", ""]
    for n in sorted(entries, key=lambda k: -1.0 if k == REAL else float(k)):
        e = entries[n]
        new = "embeddings" in e
        share = e.get("real_share", e["real_tokens"] / e["tokens"])
        old = " (before issue 51: raw GloVe 50-d, wall seconds)"
        rest = (f", the rest sampled from their word bigram model (generated in {e['generate_s']} s)"
                if share < 1 else f", nothing generated (read in {e['generate_s']} s)")
        out += [(f"## Real text only: {e['tokens']:.2g} tokens" if n == REAL else f"## {float(n):.0e} tokens")
                + ("" if new else old),
                "", *([e["note"], ""] if e.get("note") else []),
                f"- corpus: {e['tokens']:,} tokens, {e['lines']:,} lines, {e['types']:,} types; real text "
                f"{e['real_tokens']:,} tokens ({share:.1%}: {', '.join(e['sources'])}){rest}",
                f"- embeddings {e.get('embeddings', 'glove-6b-50d (raw)')}",
                f"- build (tokens, postings, suffix array by {e.get('sa_backend', 'divsufsort')}): "
                f"{e['build_s']} s wall, "
                f"{e['build_cpu_s']} s CPU (target <= {TARGETS['build_s'] / 60:.0f} min at 1e9); peak RSS of "
                f"the whole run {e['peak_rss_gib']} GiB",
                f"- index size {e['bytes_per_token']} B/token incl. the suffix array "
                f"({e['sa_bytes_per_token']} B/token) (target <= {TARGETS['bytes_per_token']:g})",
                f"- full counts from the suffix array equal the occurrence enumerator on every query: "
                f"{'yes' if e['count_mismatches'] == 0 else 'NO, ' + str(e['count_mismatches']) + ' differ'}"]
        if "sa_divsufsort_s" in e:
            out.append(f"- suffix-array libraries on these tokens: pydivsufsort {e['sa_divsufsort_s']} s "
                       f"wall ({e['sa_divsufsort_cpu_s']} s CPU), tokengrams {e['sa_tokengrams_s']} s wall "
                       f"({e['sa_tokengrams_cpu_s']} s CPU of this process; its Rust threads not counted)")
        out += ["", "| class | queries | hits p50 | first query p50 / max (> 1 s) | warm p50 | "
                "variants top-20 "
                "p50 / p95 | first page of 50 p50 / p95 | full count p50 / p95 | enumerator p50 |",
                "|---|---|---|---|---|---|---|---|---|"]
        for cls in [*CLASSES, "oov"]:
            sel = [r for r in e["queries"] if r["class"] == cls]
            if not sel:
                continue
            ms = {key: e[f"{cls}_{key}"] * 1000 for key in
                  ("variants_s_p50", "variants_s_p95", "page_s_p50", "page_s_p95", "count_s_p50",
                   "count_s_p95", "enumerate_s_p50")}
            first = (f"{e[f'{cls}_first_query_s_p50'] * 1000:.1f} / "
                     f"{e[f'{cls}_first_query_s_max'] * 1000:.0f} "
                     f"ms ({e[f'{cls}_first_query_over_1s']})" if f"{cls}_first_query_s_p50" in e else "—")
            warm = f"{e[f'{cls}_warm_s_p50'] * 1000:.2f} ms" if f"{cls}_warm_s_p50" in e else "—"
            label = "OOV (a word without a vector)" if cls == "oov" else cls
            out.append(f"| {label} | {len(sel)} | {e[f'{cls}_hits_p50']:,.0f} | {first} | {warm} | "
                       f"{ms['variants_s_p50']:.1f} / {ms['variants_s_p95']:.1f} ms | "
                       f"{ms['page_s_p50']:.1f} / "
                       f"{ms['page_s_p95']:.1f} ms | {ms['count_s_p50']:.1f} / {ms['count_s_p95']:.1f} ms | "
                       f"{ms['enumerate_s_p50']:.1f} ms |")
        if not new:
            out += ["", "(This entry's classes include n-grams with Latin words that have no GloVe vector: "
                    "plain "
                    "exact lookups. Its first-query median over all classes was "
                    f"{e.get('first_query_s_p50', float('nan')) * 1000:.0f} ms wall.)"]
        sh = e.get("sharded")
        if sh:
            ratio = [sh[f"{c}_sharded_p50"] / sh[f"{c}_single_p50"] for c in CLASSES
                     if f"{c}_single_p50" in sh]
            out += ["", f"Sharded over {sh['shards']} shards, {sh['backend']} (built in {sh['build_s']} s): "
                    f"variants and counts equal to the single index on every query: "
                    f"{'yes' if sh['mismatches'] == 0 else 'NO, ' + str(sh['mismatches']) + ' differ'}. "
                    f"{sh.get('method', 'Enumerator + variants table')}, p50 single / sharded (wall): "
                    + "; ".join(
                        f"{cls} {sh[f'{cls}_single_p50'] * 1000:.1f} / "
                        f"{sh[f'{cls}_sharded_p50'] * 1000:.1f} ms"
                        for cls in CLASSES if f"{cls}_single_p50" in sh)
                    + f" (sharded / single, worst class {max(ratio):.2f}x; target <= 2x)."]
        worst = max(e[f"{c}_{k}_p95"] for c in CLASSES for k in ("variants_s", "page_s"))
        out += ["", f"Worst p95 of variants/first page: {worst * 1000:.1f} ms (target < 300 ms at 1e9 "
                f"tokens; {'met' if worst < 0.3 else 'missed'} at this size).", ""]
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=float, default=1e7)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-class", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--compare-backends", action="store_true", help="also time both suffix-array libraries")
    ap.add_argument("--shards", type=int, default=0, help="also check and time S shard processes")
    ap.add_argument("--workdir", type=Path, default=None, help="where the index is built (deleted after)")
    ap.add_argument("--real-only", action="store_true", help="index the real text alone (the 'real' row)")
    ap.add_argument("--note", default="", help="the run's conditions, printed under its heading")
    a = ap.parse_args()
    n = 0 if a.real_only else int(a.tokens)
    if not a.real_only and not 1_000 <= n <= 2 * 10**9:
        raise SystemExit(f"--tokens must be in [1e3, 2e9], got {a.tokens}")
    with tempfile.TemporaryDirectory(dir=a.workdir) as d:
        entry = run(n, a.seed, a.per_class, a.repeats, a.compare_backends, Path(d), a.shards)
    entry["note"] = a.note
    entries = json.loads(OUT_JSON.read_text()) if OUT_JSON.is_file() else {}
    entries[REAL if a.real_only else f"{n:.0e}"] = entry
    OUT_JSON.write_text(json.dumps(entries, indent=1))
    OUT_MD.write_text(render(entries))
    print(render(entries))


if __name__ == "__main__":
    main()
