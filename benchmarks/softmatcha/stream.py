"""SoftMatcha like grep at scale (issue 51 items 1 and 5): time to the first line and peak RSS of the CLI
beside ripgrep, counts without keeping hits, and 2 shard processes against one index.

    .venv/bin/python benchmarks/softmatcha/stream.py                 # 1e7 tokens (make bench)
    .venv/bin/python benchmarks/softmatcha/stream.py --tokens 1e8 --write

Corpus: i.i.d. Zipf(1.0) tokens over GloVe's 100,000 most frequent words (seeded), lines of 1 + Poisson(24)
tokens; the same text is written to a file for ripgrep. Commands are whole processes (start-up included):
`iclr25 softmatcha search IDX PATTERN -t ALPHA | head -1` is timed to its first line, then the pipe is
closed; peak RSS is the process's ru_maxrss (wait4). Shards: the corpus split in 2 at line boundaries,
each a process (`ShardedIndex(backend="process")`, workers kept between queries); every query's top-20
variants and its whole variant table must equal the single index's; latencies are medians of repeats with
the two arms alternated, CPU-bound work on 2 shared cores (the parallel win needs more cores)."""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
OUT_JSON = ROOT / "docs" / "full" / "softmatcha-stream.json"
OUT_MD = ROOT / "docs" / "full" / "softmatcha-stream.md"
N_WORDS = 100_000
QUERIES = {  # (pattern, alpha): a frequent soft query (the issue's), a frequent exact one, a rare one
    "frequent soft": ("the", 0.6), "frequent exact": ("of the", 1.0), "rare soft": ("violin", 0.8)}
SHARD_QUERIES = ["the king of", "a small town", "violin player", "of the", "in new york", "the best"]


def corpus(n: int, seed: int, work: Path) -> tuple[Path, Path, dict]:
    from iclr25.softmatcha import Index, load_embeddings
    from iclr25.softmatcha.corpus import zipf_corpus
    emb = load_embeddings()
    words = [str(w) for w in emb.words[1:N_WORDS + 1]]
    ids, lens = zipf_corpus(n, len(words), np.random.default_rng(seed))
    text = work / "corpus.txt"
    vocab = np.array(words, dtype=object)
    with open(text, "w", encoding="utf-8") as f:
        ends = np.cumsum(lens)
        for a in range(0, lens.size, 100_000):
            b = min(lens.size, a + 100_000)
            lo = int(ends[a - 1]) if a else 0
            chunk = vocab[ids[lo:int(ends[b - 1])]]
            cut = np.cumsum(lens[a:b])[:-1]
            f.write("\n".join(" ".join(x) for x in np.split(chunk, cut)) + "\n")
    t0 = time.perf_counter()
    idx = Index.from_token_ids(ids, lens, words, work / "idx", emb)
    info = {"tokens": int(ids.size), "lines": int(lens.size), "types": int(idx.meta["n_types"]),
            "build_s": round(time.perf_counter() - t0, 1), "text_mb": round(text.stat().st_size / 2**20, 1)}
    del idx
    return text, work / "idx", {**info, "ids": ids, "lens": lens, "words": words}


TIME = "/usr/bin/time"  # GNU time: the child's own peak RSS (a fork of this big process would count ours)


def _timed(cmd: list[str], first: bool) -> tuple[float, float, float, str]:
    """Run `cmd` under GNU time: wall seconds (to its first line when `first`, the pipe then closed as
    `| head -1` does), CPU seconds (user + system, what another job's load does not inflate), peak RSS in
    MiB, and the (first) output line."""
    t0 = time.perf_counter()
    p = subprocess.Popen([TIME, "-f", "TIME %M %U %S", *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout is not None and p.stderr is not None
    out = p.stdout.readline() if first else p.stdout.read()
    t = time.perf_counter() - t0
    p.stdout.close()
    err = p.stderr.read().decode()
    p.wait()
    last = [x for x in err.splitlines() if x.startswith("TIME ")][-1].split()
    line = out.decode("utf-8", "replace").strip()[:60]
    return t, float(last[2]) + float(last[3]), int(last[1]) / 1024, line


def grep_rows(text: Path, idx: Path, repeats: int) -> list[dict]:
    iclr25 = str(Path(sys.executable).parent / "iclr25")
    rg = shutil.which("rg")
    rows = []
    for name, (pat, alpha) in QUERIES.items():
        ours = [iclr25, "softmatcha", "search", str(idx), pat, "-t", str(alpha)]
        row: dict = {"query": name, "pattern": pat, "alpha": alpha}
        for what, first, extra in (("first_line", True, []), ("count", False, ["--count-matches"])):
            # rg matches the literal pattern: for a first line the same work; a soft count has no rg twin
            with_rg = rg is not None and (first or alpha >= 1.0)
            for _ in range(repeats):  # alternated: ours, rg, ours, rg, ...
                arms = [("ours", ours + extra)] + ([("rg", [rg, "-w", "-F", pat, str(text), *extra])]
                                                   if with_rg else [])
                for who, cmd in arms:
                    t, cpu, rss, out = _timed(cmd, first)
                    row.setdefault(f"{who}_{what}_s", []).append(t)
                    row.setdefault(f"{who}_{what}_cpu_s", []).append(cpu)
                    row[f"{who}_{what}_rss_mib"] = max(row.get(f"{who}_{what}_rss_mib", 0), rss)
                    row[f"{who}_{what}_out"] = out
        for k in [k for k in row if isinstance(row[k], list)]:
            row[k] = statistics.median(row[k])
        rows.append(row)
    return rows


def shard_rows(c: dict, work: Path, repeats: int, n_shards: int) -> dict:
    from iclr25.softmatcha import Index, ShardedIndex, load_embeddings
    emb = load_embeddings()
    one = Index.load(work / "idx")
    t0 = time.perf_counter()
    sh = ShardedIndex.from_token_ids(c["ids"], c["lens"], c["words"], work / "shards", emb, n_shards,
                                     backend="process", workers=n_shards)
    out: dict = {"shards": n_shards, "backend": f"{n_shards} processes (kept between queries)",
                 "build_s": round(time.perf_counter() - t0, 1), "queries": []}

    def key(vs):
        return [(v.string, v.count, round(v.score, 9)) for v in vs]

    with sh:
        for q in SHARD_QUERIES:
            sh.variants(q, 0.8, 20)  # workers up, shards mapped, lists kept: warm on both arms
            one.variants(q, 0.8, 20)
            same = key(sh.variants(q, 0.8, 20)) == key(one.variants(q, 0.8, 20)) and \
                key(sh.variants(q, 0.8, None)) == key(one.variants(q, 0.8, None))
            ts_one, ts_sh = [], []
            for _ in range(repeats):
                t = time.perf_counter()
                one.variants(q, 0.8, 20)
                ts_one.append(time.perf_counter() - t)
                t = time.perf_counter()
                sh.variants(q, 0.8, 20)
                ts_sh.append(time.perf_counter() - t)
            out["queries"].append({"query": q, "equal": same, "single_s": statistics.median(ts_one),
                                   "sharded_s": statistics.median(ts_sh)})
    r = [x["sharded_s"] / x["single_s"] for x in out["queries"]]
    out["sharded_over_single_geomean"] = float(np.exp(np.mean(np.log(r))))
    out["all_equal"] = all(x["equal"] for x in out["queries"])
    return out


def render(entries: dict) -> str:
    lines = ["# SoftMatcha streaming and shards (issue 51)", "",
             "Written by `benchmarks/softmatcha/stream.py` on this shared 2-core machine (other jobs "
             "running: wall times are inflated, ratios measured in one run with the arms alternated).", ""]
    for n in sorted(entries, key=float):
        e = entries[n]
        lines += [f"## {float(n):.0e} tokens", "", *([e["note"], ""] if e.get("note") else []),
                  f"Zipf corpus: {e['tokens']:,} tokens, {e['lines']:,} lines, {e['types']:,} types; "
                  f"text for ripgrep {e['text_mb']} MiB; index built in {e['build_s']} s.", "",
                  "Whole processes (start-up included); wall seconds are inflated by the other jobs, "
                  "CPU seconds (user + system of the process) are not.", "",
                  "| query | first line, wall: ours / rg | first line, CPU: ours / rg | "
                  "peak RSS: ours / rg | "
                  "count, CPU: ours / rg | count, peak RSS: ours |", "|---|---|---|---|---|---|"]
        nan = float("nan")
        for r in e["grep"]:
            rg_c = f"{r['rg_count_cpu_s']:.2f} s" if "rg_count_cpu_s" in r else "— (soft: no rg twin)"
            lines.append(f"| {r['pattern']} (α {r['alpha']:g}) | {r['ours_first_line_s']:.2f} / "
                         f"{r.get('rg_first_line_s', nan):.2f} s | {r['ours_first_line_cpu_s']:.2f} / "
                         f"{r.get('rg_first_line_cpu_s', nan):.2f} s | {r['ours_first_line_rss_mib']:.0f} / "
                         f"{r.get('rg_first_line_rss_mib', nan):.0f} MiB | {r['ours_count_cpu_s']:.2f} s / "
                         f"{rg_c} | {r['ours_count_rss_mib']:.0f} MiB |")
        s = e.get("sharded")
        if s:
            lines += ["", f"Shards: {s['backend']}, built in {s['build_s']} s. Top-20 variants and whole "
                      "tables equal to the single index on every query: "
                      f"{'yes' if s['all_equal'] else 'NO'}. "
                      f"Sharded / single top-20 latency, geometric mean over {len(s['queries'])} queries: "
                      f"{s['sharded_over_single_geomean']:.2f}× (target ≤ 2×: "
                      f"{'met' if s['sharded_over_single_geomean'] <= 2 else 'missed'}).", "",
                      "| query | single | sharded |", "|---|---|---|"]
            lines += [f"| {q['query']} | {q['single_s'] * 1000:.1f} ms | {q['sharded_s'] * 1000:.1f} ms |"
                      for q in s["queries"]]
        lines.append("")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=float, default=1e7)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--write", action="store_true", help="merge into docs/full/softmatcha-stream.{json,md}")
    ap.add_argument("--note", default="", help="the run's conditions, printed under its heading")
    a = ap.parse_args()
    from iclr25.core.runtime import pin_threads
    pin_threads()
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        text, idx, c = corpus(int(a.tokens), a.seed, work)
        entry = {k: v for k, v in c.items() if k not in ("ids", "lens", "words")} | {"note": a.note}
        entry["grep"] = grep_rows(text, idx, a.repeats)
        if a.shards:
            entry["sharded"] = shard_rows(c, work, a.repeats, a.shards)
    entries = json.loads(OUT_JSON.read_text()) if OUT_JSON.is_file() and a.write else {}
    entries[f"{int(a.tokens):.0e}"] = entry
    md = render(entries)
    if a.write:
        OUT_JSON.write_text(json.dumps(entries, indent=1))
        OUT_MD.write_text(md)
    print(md)


if __name__ == "__main__":
    main()
