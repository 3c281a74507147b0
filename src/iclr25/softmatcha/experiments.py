"""Reproduction of SoftMatcha's headline claims at the scale of this machine.

Speed (§5, Table 3): synthetic Zipf(1.0) token streams over the GloVe vocabulary (word id = frequency
rank, as GloVe rows are), queried with rare / medium / frequent patterns of 2-4 tokens, soft (alpha 0.8)
and exact (alpha 1) on the same index. Recall (§1, §5 examples): the King James Bible with GloVe 6B 50-d,
a fixed list of 20 phrases chosen before measuring."""

from __future__ import annotations

import json
import math
import tempfile
import time
import warnings
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from iclr25.core.claims import (
    Claim,
    Finding,
    all_of,
    at_most,
    between,
    fraction_at_least,
    ratio_at_most,
)
from iclr25.core.errors import UserError
from iclr25.core.records import REPO
from iclr25.core.runtime import RunContext, cache_dir, progress, timer
from iclr25.softmatcha.latin import LATIN_CLAIM, measure_latin

PAPER_LATENCY_S = 1.0  # abstract and §5: "less than one second" per query, billion-token corpora, CPU
PAPER_CORPUS_TOKENS = 1.4e9  # §5: English Wikipedia, 1.4B tokens (Japanese Wikipedia 1.0B)
# Issue 29: the full profile also decides sub_second and variant_counts at 1e9 tokens, from what the scale
# benchmark (benchmarks/softmatcha/scale.py --tokens 1e9, ~2 h here) measured and committed.
SCALE_RECORD = REPO / "docs" / "full" / "softmatcha-scale.json"
SCALE_TOKENS = "1e+09"
VARIANTS_P95_S = 0.3  # SoftMatcha 2: p95 < 300 ms


@dataclass(frozen=True)
class ReproConfig:
    alpha: float = 0.8  # spec §4: GloVe 50-d needs ~0.8 where the paper's 300-d uses 0.5
    alpha_grid: tuple[float, ...] = (0.6, 0.7, 0.8, 0.9, 1.0)  # for hits(alpha) monotonicity
    recall_ratio: float = 1.2  # soft / exact hits per query ...
    recall_share: float = 0.7  # ... on at least this share of the 20 queries
    max_soft_exact: float = 10.0  # "comparable to exact": soft / exact latency per class
    target_soft_exact: float = 3.0  # issue 13's engineering target, reported beside the claim
    slope_matches: tuple[float, float] = (0.6, 1.3)  # latency ~ linear in matches (log-log slope)
    min_matches_fit: int = 1_000  # the slope is fitted where the enumeration, not a fixed cost, dominates
    max_slope_n: float = 0.3  # at a fixed match count, log-log slope of latency vs N: flat
    ladder_words: int = 48  # single-word queries spanning the frequency ranks (1 .. 1e5+ matches)
    zipf_s: float = 1.0
    vocab_size: int = 400_000  # the whole GloVe 6B vocabulary


CLASSES = ("rare", "medium", "frequent")
# frequency-rank bands (0 = most frequent GloVe word) for the rarest token of each query class
_BANDS = {"rare": (20_000, 150_000), "medium": (1_000, 10_000), "frequent": (0, 150)}
_FILLER = {"rare": (0, 5_000), "medium": (0, 1_000), "frequent": (0, 150)}

# Fixed before measuring (spec §4 B): common KJV phrases, 2-5 words.
RECALL_QUERIES = (
    "the king of israel", "the son of man", "the children of israel", "the word of the lord",
    "the house of david", "the land of egypt", "the kingdom of god", "a man of god", "the god of israel",
    "the king of judah", "the city of david", "the sons of aaron", "the house of the lord",
    "the people of israel", "the elders of israel", "the priests and the levites",
    "the heaven and the earth", "my beloved son", "the holy ghost", "eat bread",
)

CLAIMS = [
    Claim("sub_second",
          "Soft pattern matching enumerates every match of a query in under a second on a CPU, "
          "even on a very large corpus.",
          "< 1 s per query on 1.4B-token English Wikipedia (and 1.0B Japanese), CPU only (abstract, §5)",
          "median soft-query latency (alpha 0.8, GloVe 50-d, rare/medium/frequent queries of 2-4 tokens) "
          "< 1 s on a Zipf corpus of 1e8 tokens (full; 1e7 quick, 1e5 smoke); full also: median "
          "first-query latency < 1 s on the 1e9-token scale corpus (the scale benchmark's committed record)",
          timing=True),
    Claim("comparable_to_exact",
          "Soft matching is comparable in speed to exact (surface) matching.",
          "search time comparable to surface-level string matching (Table 3)",
          "per query class, median soft latency / median exact (alpha = 1) latency on the same index "
          "<= 10 at the largest N, Step 1 being a prefix lookup (the word's neighbour list already kept by "
          "the open index); first-query (cold) ratios reported beside", timing=True),
    Claim("scales_with_matches",
          "Search cost grows with the number of matches, not with the corpus size.",
          "inverted-index search whose cost is output-sensitive (§3)",
          "single-word soft queries spanning 1 to >= 1e5 matches: at the largest N, log-log slope of "
          "latency vs matches (queries with >= 1e3 matches) in [0.6, 1.3]; at a fixed match count "
          "(1e3-1e4), log-log slope of median latency vs N <= 0.3 (1e6 -> 1e8 full; 1e6 -> 1e7 quick)",
          timing=True),
    Claim("soft_recall",
          "Soft matching finds the exact matches plus semantically close variants that exact "
          "matching misses.",
          "qualitative: soft queries surface instances exact matching misses (§5, Figure 1)",
          "on the KJV with GloVe 50-d: soft (0.8) hits contain exact hits for all 20 fixed queries, "
          "hits(alpha) is non-increasing on 0.6..1.0, and soft/exact >= 1.2 on >= 70% of queries"),
    LATIN_CLAIM,  # claim C (§4): inflection recall on a Latin corpus, measured in latin.py
    Claim("variant_counts",
          "Ranked variant strings with exact counts answer a soft query in well under a second, whatever "
          "the number of hits (the successor system, SoftMatcha 2).",
          "median < 90 ms, p95 < 300 ms per query over trillion-token corpora, answering with ranked "
          "variants and their counts (Rank | Score | #Match | String)",
          "on the largest Zipf corpus (1e8 full, 1e7 quick): p95 latency of the top-20 ranked variants "
          "(suffix array, alpha 0.8, neighbour lists warm) < 0.3 s in every query class, and the counts of "
          "all variants sum to the occurrence enumerator's hits on every query; full also: the same at 1e9 "
          "tokens on the scale corpus (the scale benchmark's committed record)", timing=True),
]


# ---- query generation ---------------------------------------------------------------------------

def make_queries(words: list[str], n_per_class: int, rng: np.random.Generator) -> dict[str, list[str]]:
    """Patterns of 2-4 alphabetic GloVe words; the class is set by the frequency rank of the rarest one."""
    def pick(lo: int, hi: int) -> str:
        while True:
            w = words[int(rng.integers(lo, hi))]
            if w.isalpha():
                return w

    out: dict[str, list[str]] = {}
    for c in CLASSES:
        qs = []
        for _ in range(n_per_class):
            m = int(rng.integers(2, 5))
            toks = [pick(*_FILLER[c]) for _ in range(m - 1)]
            toks.insert(int(rng.integers(0, m)), pick(*_BANDS[c]))
            qs.append(" ".join(toks))
        out[c] = qs
    return out


def _latency(idx, q: str, alpha: float, repeats: int, cold: bool = False) -> tuple[float, int, int]:
    """Median search time of `q` over `repeats` runs; `cold`: each run first drops the neighbour lists
    the index keeps, so Step 1 scans the vocabulary as a first query of these words does."""
    ts, res = [], None
    for _ in range(repeats):
        if cold:
            idx.forget_lists()
        res = idx.search(q, alpha, warn=False)
        ts.append(res.seconds)
    assert res is not None
    return float(np.median(ts)), res.count, int(res.stats["candidates"])


def _variant_latency(idx, q: str, alpha: float, repeats: int) -> tuple[float, int]:
    """Median time of the top-20 ranked variants (suffix array) and the sum of the counts of all
    variants (to be equal to the enumerator's hits)."""
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        idx.variants(q, alpha, 20)
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts)), sum(v.count for v in idx.variants(q, alpha, None))


def _scan_latency(idx, q: str, alpha: float) -> float:
    """The same query without the index: Step 1, then a test of every window (grep-like scan)."""
    from iclr25.softmatcha.search import scan_positions
    t0 = time.perf_counter()
    slots, _ = idx.slots(q, alpha)
    scan_positions([s.mask for s in slots], idx.tokens)
    return time.perf_counter() - t0


def ladder_words(words: list[str], n: int, rng: np.random.Generator) -> list[str]:
    """`n` alphabetic words at log-uniform frequency ranks: single-word queries whose match counts span
    one to millions on a Zipf corpus (chosen before measuring)."""
    out: list[str] = []
    while len(out) < n:
        w = words[min(len(words) - 1, int(np.exp(rng.uniform(0, np.log(len(words))))))]
        if w.isalpha() and w not in out:
            out.append(w)
    return out


def measure_size(n_tokens: int, seed: int, queries: dict[str, list[str]], ladder: list[str], cfg: ReproConfig,
                 repeats: int, with_scan: bool) -> tuple[list[dict], list[dict]]:
    """Build a Zipf corpus of `n_tokens`, index it, time every query soft (cold and warm Step 1) and exact
    (+ scan), and the single-word ladder queries (warm). Returns (class rows, ladder rows)."""
    from iclr25.softmatcha.corpus import zipf_corpus
    from iclr25.softmatcha.embeddings import load_embeddings
    from iclr25.softmatcha.index import Index
    emb = load_embeddings()
    words = list(emb.words[1:cfg.vocab_size + 1])
    rng = np.random.default_rng(seed)
    ids, lens = zipf_corpus(n_tokens, len(words), rng, s=cfg.zipf_s)
    base = cache_dir() / "softmatcha" / "tmp"
    base.mkdir(parents=True, exist_ok=True)
    rows, steps = [], []
    with tempfile.TemporaryDirectory(dir=base) as d:
        with timer() as tb:
            idx = Index.from_token_ids(ids, lens, words, Path(d) / "zipf", emb)
        del ids, lens
        for c, qs in queries.items():
            for q in qs:
                cold_s, _, _ = _latency(idx, q, cfg.alpha, repeats, cold=True)
                soft_s, soft_hits, cand = _latency(idx, q, cfg.alpha, repeats)
                exact_s, exact_hits, _ = _latency(idx, q, 1.0, repeats)
                var_s, var_hits = (_variant_latency(idx, q, cfg.alpha, repeats) if with_scan
                                   else (math.nan, -1))
                rows.append({"n": n_tokens, "class": c, "query": q, "soft_s": soft_s, "soft_cold_s": cold_s,
                             "variants_s": var_s, "variant_hits": var_hits,
                             "exact_s": exact_s, "soft_hits": soft_hits, "exact_hits": exact_hits,
                             "candidates": cand, "types": idx.meta["n_types"],
                             "scan_s": _scan_latency(idx, q, cfg.alpha) if with_scan else float("nan"),
                             "exact_scan_s": _scan_latency(idx, q, 1.0) if with_scan else float("nan"),
                             "build_s": tb["s"], "bytes_per_token": idx.bytes_per_token()})
        for w in ladder:
            soft_s, hits, _ = _latency(idx, w, cfg.alpha, repeats)
            steps.append({"n": n_tokens, "query": w, "hits": hits, "soft_s": soft_s})
        del idx
    return rows, steps


def _slope(x: list[float], y: list[float]) -> float:
    if len(x) < 2 or min(y) <= 0:
        return float("nan")
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


# ---- the recall experiment on real text ---------------------------------------------------------

def measure_recall(cfg: ReproConfig, n_verses: int | None) -> dict:
    """Soft vs exact hits on the KJV for the fixed queries; superset and monotonicity checks."""
    from iclr25.softmatcha.corpus import kjv_lines
    from iclr25.softmatcha.index import Index
    verses = [v for _, v in kjv_lines()][:n_verses]
    base = cache_dir() / "softmatcha" / "tmp"
    base.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=base) as d:
        with timer() as tb:
            idx = Index.from_lines(verses, Path(d) / "kjv")
        per_query = []
        for q in RECALL_QUERIES:
            hits = {a: idx.search(q, a, warn=False) for a in cfg.alpha_grid}
            soft, exact = hits[cfg.alpha], hits[1.0]
            counts = [hits[a].count for a in cfg.alpha_grid]
            new = [v for v in soft.variants() if v.string != " ".join(exact.pattern)]
            per_query.append({
                "query": q, "exact": exact.count, "soft": soft.count,
                "superset": bool(np.isin(exact.positions, soft.positions).all()),
                "monotone": all(a >= b for a, b in zip(counts, counts[1:], strict=False)),
                "soft_s": soft.seconds, "exact_s": exact.seconds,
                "new_variants": "; ".join(f"{v.string} ({v.count})" for v in new[:3]),
            })
        out = {"rows": per_query, "tokens": idx.n_tokens, "lines": idx.n_lines, "build_s": tb["s"],
               "bytes_per_token": idx.bytes_per_token()}
        del idx
    return out


# ---- run ----------------------------------------------------------------------------------------

def run(profile: str, ctx: RunContext) -> list[Finding]:
    cfg = ReproConfig()
    sizes = ctx.pick(smoke=[20_000, 100_000], quick=[1_000_000, 10_000_000],
                     full=[1_000_000, 10_000_000, 100_000_000])
    n_per_class = ctx.pick(smoke=2, quick=10, full=12)
    repeats = ctx.pick(smoke=1, quick=3, full=3)
    n_verses = ctx.pick(smoke=3_000, quick=None, full=None)
    findings: list[Finding] = []

    try:
        from iclr25.softmatcha.embeddings import load_embeddings
        words = list(load_embeddings().words[1:cfg.vocab_size + 1])
    except UserError as e:
        reason = f"GloVe vectors unavailable: {e}"
        return [Finding.not_testable(c.key, reason) for c in CLAIMS]
    queries = make_queries(words, n_per_class, ctx.rng(11))
    n_ladder = ctx.pick(smoke=12, quick=cfg.ladder_words, full=cfg.ladder_words)
    ladder = ladder_words(words, n_ladder, ctx.rng(12))
    band = ctx.pick(smoke=(10, 100), quick=(1_000, 10_000), full=(1_000, 10_000))
    rows: list[dict] = []
    steps: list[dict] = []
    for i, n in enumerate(progress(sizes, "softmatcha: Zipf corpora")):
        r, st = measure_size(n, ctx.seed * 1000 + i, queries, ladder, cfg, repeats,
                             with_scan=(n == sizes[-1]))
        rows += r
        steps += st
    findings += _speed_findings(rows, sizes, cfg, ctx.out_dir)
    findings.append(scaling_finding(steps, sizes, cfg, band, ctx.out_dir))

    try:
        rec = measure_recall(cfg, n_verses)
    except UserError as e:
        findings.append(Finding.not_testable("soft_recall", f"real corpus unavailable: {e}"))
    else:
        findings.append(_recall_finding(rec, cfg, n_verses))
        # the real corpus's latencies go beside the synthetic ones (context; the criterion is on Zipf)
        findings[0].measured["latency_s_p50_kjv"] = float(np.median([r["soft_s"] for r in rec["rows"]]))
        findings[0].measured["latency_s_max_kjv"] = float(max(r["soft_s"] for r in rec["rows"]))
        findings[1].measured["soft_over_exact_kjv_20_queries"] = (
            float(np.median([r["soft_s"] for r in rec["rows"]]))
            / float(np.median([r["exact_s"] for r in rec["rows"]])))
    _write_tables(ctx, rows, steps)
    findings.append(measure_latin(profile, ctx))
    findings.append(variant_finding(rows, sizes[-1]))
    if profile == "full":
        findings[0], findings[-1] = at_scale(findings[0], findings[-1], scale_entry())
    return findings


def scale_entry(path: Path = SCALE_RECORD, tokens: str = SCALE_TOKENS) -> dict | None:
    """The scale benchmark's committed measurements at `tokens`, or None (no record, or unreadable)."""
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))[tokens]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return entry if isinstance(entry, dict) else None


def at_scale(sub_second: Finding, variants: Finding, entry: dict | None) -> tuple[Finding, Finding]:
    """Both findings also decided at the scale benchmark's 1e9 tokens (all_of with the Zipf verdicts):
    median first-query latency < 1 s; per class p95 of the top-20 variants < 0.3 s and exact counts.
    Without a record the Zipf verdicts stand and the summaries say that 1e9 is missing."""
    if entry is None or "first_query_s_p50" not in entry:
        note = f"; {float(SCALE_TOKENS):.0e} tokens not measured (no scale record)"
        return (replace(sub_second, summary=sub_second.summary + note),
                replace(variants, summary=variants.summary + note))
    n = entry["tokens"]
    first = float(entry["first_query_s_p50"])
    sub = replace(sub_second, verdict=all_of(sub_second.verdict, at_most(first, PAPER_LATENCY_S)),
                  measured={**sub_second.measured, "scale_tokens": n, "scale_latency_s_p50": first},
                  summary=sub_second.summary + f"; at {n:,} tokens (scale corpus): median first query "
                  f"{first * 1000:.0f} ms")
    p95 = {c: float(entry[f"{c}_variants_s_p95"]) for c in CLASSES}
    bad = int(entry["count_mismatches"])
    scale_ok = [at_most(v, VARIANTS_P95_S) for v in p95.values()] + [at_most(bad, 0)]
    var = replace(variants, verdict=all_of(variants.verdict, *scale_ok),
                  measured={**variants.measured, "scale_tokens": n, "scale_count_mismatches": bad,
                            **{f"scale_variants_s_p95_{c}": v for c, v in p95.items()}},
                  summary=variants.summary + f"; at {n:,} tokens (scale corpus) p95 " + ", ".join(
                      f"{c} {v * 1000:.0f} ms" for c, v in p95.items())
                  + f", counts {'equal' if bad == 0 else 'DIFFER'}")
    return sub, var


def _med(rows: list[dict], key: str, **where) -> float:
    vals = [r[key] for r in rows if all(r[k] == v for k, v in where.items())]
    return float(np.median(vals)) if vals else float("nan")


def _speed_findings(rows: list[dict], sizes: list[int], cfg: ReproConfig,
                    out_dir: Path | None = None) -> list[Finding]:
    n_max = sizes[-1]
    top = [r for r in rows if r["n"] == n_max]
    med_soft = _med(top, "soft_cold_s")  # a first query: Step 1 scans the vocabulary
    m: dict[str, float | int | str] = {"tokens": n_max, "types": top[0]["types"], "queries": len(top),
                                       "alpha": cfg.alpha, "latency_s_p50": med_soft,
                                       "latency_s_p90": float(np.percentile([r["soft_cold_s"] for r in top],
                                                                            90)),
                                       "latency_s_max": max(r["soft_cold_s"] for r in top),
                                       "latency_s_p50_repeat_word": _med(top, "soft_s"),
                                       "build_s": top[0]["build_s"],
                                       "bytes_per_token": top[0]["bytes_per_token"]}
    for c in CLASSES:
        m[f"latency_s_p50_{c}"] = _med(top, "soft_cold_s", **{"class": c})
        scan = _med(top, "scan_s", **{"class": c})
        lat = _med(top, "soft_s", **{"class": c})
        m[f"scan_over_index_{c}"] = scan / lat if lat > 0 else float("nan")
    sub_second = Finding(
        "sub_second", at_most(med_soft, PAPER_LATENCY_S), m,
        f"median soft latency {med_soft * 1000:.0f} ms at {n_max:.0e} tokens, first query of its words "
        f"(rare {m['latency_s_p50_rare'] * 1000:.0f} / medium {m['latency_s_p50_medium'] * 1000:.0f} / "
        f"frequent {m['latency_s_p50_frequent'] * 1000:.0f} ms; "
        f"{m['latency_s_p50_repeat_word'] * 1000:.1f} ms once the words' neighbour lists are kept; "
        f"index vs soft scan {m['scan_over_index_rare']:.0f}x / {m['scan_over_index_medium']:.0f}x / "
        f"{m['scan_over_index_frequent']:.1f}x); paper < 1 s at {PAPER_CORPUS_TOKENS:.1e}")

    ce: dict[str, float | int | str] = {"tokens": n_max, "types": top[0]["types"]}
    verdicts = []
    for c in CLASSES:
        s, e = _med(top, "soft_s", **{"class": c}), _med(top, "exact_s", **{"class": c})
        cold = _med(top, "soft_cold_s", **{"class": c})
        ce[f"soft_s_p50_{c}"], ce[f"exact_s_p50_{c}"], ce[f"soft_cold_s_p50_{c}"] = s, e, cold
        ce[f"soft_over_exact_{c}"] = s / e if e > 0 else float("inf")
        ce[f"soft_cold_over_exact_{c}"] = cold / e if e > 0 else float("inf")
        ce[f"meets_3x_target_{c}"] = int(s <= cfg.target_soft_exact * e)
        # context: soft queries enumerate more (total hits over the class's queries)
        sel = [r for r in top if r["class"] == c]
        ce[f"hits_soft_{c}"] = sum(r["soft_hits"] for r in sel)
        ce[f"hits_exact_{c}"] = sum(r["exact_hits"] for r in sel)
        verdicts.append(ratio_at_most(s, e, cfg.max_soft_exact))
        ce[f"soft_index_over_exact_scan_{c}"] = s / _med(top, "exact_scan_s", **{"class": c})
    comparable = Finding(
        "comparable_to_exact", all_of(*verdicts), ce,
        "soft/exact latency " + ", ".join(f"{c} {ce[f'soft_over_exact_{c}']:.1f}x" for c in CLASSES)
        + f" at {n_max:.0e} tokens ({top[0]['types']:,} types) with Step 1 a prefix lookup (criterion "
        f"<= {cfg.max_soft_exact:g}x per class; target {cfg.target_soft_exact:g}x); first query of a word "
        + ", ".join(f"{ce[f'soft_cold_over_exact_{c}']:.0f}x" for c in CLASSES)
        + " (Step 1 scans every type once per word and index); hits soft/exact "
        + ", ".join(f"{ce[f'hits_soft_{c}']:,}/{ce[f'hits_exact_{c}']:,}" for c in CLASSES))
    return [sub_second, comparable]


def variant_finding(rows: list[dict], n_max: int, p95_bound: float = VARIANTS_P95_S) -> Finding:
    """variant_counts: per class p95 of the top-20 latency at the largest N, and exact counts."""
    top = [r for r in rows if r["n"] == n_max]
    m: dict[str, float | int | str] = {"tokens": n_max, "queries": len(top), "p95_bound_s": p95_bound}
    verdicts = []
    for c in CLASSES:
        v = [r["variants_s"] for r in top if r["class"] == c]
        m[f"variants_s_p50_{c}"] = float(np.median(v)) if v else float("nan")
        m[f"variants_s_p95_{c}"] = float(np.percentile(v, 95)) if v else float("nan")
        verdicts.append(at_most(m[f"variants_s_p95_{c}"], p95_bound))
    m["count_mismatches"] = sum(r["variant_hits"] != r["soft_hits"] for r in top)
    verdicts.append(at_most(m["count_mismatches"], 0))
    return Finding(
        "variant_counts", all_of(*verdicts), m,
        "top-20 ranked variants p50/p95 " + ", ".join(
            f"{c} {m[f'variants_s_p50_{c}'] * 1000:.0f}/{m[f'variants_s_p95_{c}'] * 1000:.0f} ms"
            for c in CLASSES)
        + f" at {n_max:.0e} tokens (criterion p95 < {p95_bound * 1000:.0f} ms per class); variant counts "
        f"{'equal' if m['count_mismatches'] == 0 else 'DIFFER from'} the enumerator's hits on "
        f"{len(top) - m['count_mismatches']}/{len(top)} queries; paper (SoftMatcha 2) p95 < 300 ms at 1e12+")


def scaling_finding(steps: list[dict], sizes: list[int], cfg: ReproConfig, band: tuple[int, int],
                    out_dir: Path | None = None) -> Finding:
    """scales_with_matches from the single-word ladder: latency against matches at the largest N, and
    latency against N at a fixed match count (the `band`)."""
    n_max = sizes[-1]
    top = [r for r in steps if r["n"] == n_max and r["hits"] >= cfg.min_matches_fit]
    slope_m = _slope([float(r["hits"]) for r in top], [r["soft_s"] for r in top]) if len(top) >= 3 \
        else float("nan")
    in_band = {n: [r["soft_s"] for r in steps if r["n"] == n and band[0] <= r["hits"] <= band[1]]
               for n in sizes}
    have = [n for n in sizes if in_band[n]]
    slope_n = _slope([float(n) for n in have], [float(np.median(in_band[n])) for n in have]) \
        if len(have) >= 2 else float("nan")
    hits = [r["hits"] for r in steps if r["n"] == n_max]
    sc: dict[str, float | int | str] = {
        "slope_latency_vs_matches": slope_m, "queries_fitted": len(top),
        "min_matches_fitted": cfg.min_matches_fit,
        "matches_min": min(hits, default=0), "matches_max": max(hits, default=0),
        "slope_latency_vs_n_fixed_matches": slope_n, "match_band": f"{band[0]}-{band[1]}",
        "sizes": " ".join(f"{n:.0e}" for n in sizes)}
    for n in have:
        sc[f"latency_s_p50_band_at_{n:.0e}"] = float(np.median(in_band[n]))
        sc[f"band_queries_at_{n:.0e}"] = len(in_band[n])
    if not (math.isfinite(slope_m) and math.isfinite(slope_n)):
        return Finding.deferred(
            "scales_with_matches", f"too few ladder queries to fit ({len(top)} with >= "
            f"{cfg.min_matches_fit} matches; {len(have)} sizes with queries in the band)", **sc)
    figures = [_plot_scaling(steps, sizes, out_dir)] if out_dir is not None else []
    v = all_of(between(slope_m, *cfg.slope_matches), at_most(slope_n, cfg.max_slope_n))
    return Finding(
        "scales_with_matches", v, sc,
        f"at {n_max:.0e} tokens latency grows with matches with log-log slope {slope_m:.2f} "
        f"({len(top)} single-word queries with {cfg.min_matches_fit:,}-{max(hits, default=0):,} matches; "
        f"need {cfg.slope_matches[0]}-{cfg.slope_matches[1]}); at {band[0]:,}-{band[1]:,} matches latency vs "
        f"N has slope {slope_n:.2f} over {have[0]:.0e}->{have[-1]:.0e} (need <= {cfg.max_slope_n})", figures)


def _plot_scaling(steps: list[dict], sizes: list[int], out_dir: Path) -> str:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for k, n in enumerate(sizes):
        pts = sorted((r["hits"], r["soft_s"]) for r in steps if r["n"] == n and r["hits"] > 0)
        if pts:
            ax.plot(*zip(*pts, strict=True), "o", ms=3, color=f"C{k}", label=f"N = {n:.0e}")
    ax.set(xscale="log", yscale="log", xlabel="matches", ylabel="latency (s)",
           title="SoftMatcha: latency vs matches (single-word soft queries)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    name = "softmatcha_scaling.png"
    fig.savefig(out_dir / name, dpi=120)
    plt.close(fig)
    return name


def _recall_finding(rec: dict, cfg: ReproConfig, n_verses: int | None) -> Finding:
    rows = rec["rows"]
    ratio_ok = [r["exact"] > 0 and r["soft"] / r["exact"] >= cfg.recall_ratio for r in rows]
    superset = [r["superset"] for r in rows]
    monotone = [r["monotone"] for r in rows]
    verdict = all_of(fraction_at_least(superset, 1.0), fraction_at_least(monotone, 1.0),
                     fraction_at_least(ratio_ok, cfg.recall_share))
    king = next(r for r in rows if r["query"] == "the king of israel")
    m: dict[str, float | int | str] = {
        "queries": len(rows), "tokens": rec["tokens"], "alpha": cfg.alpha,
        "share_ratio_at_least_1.2": sum(ratio_ok) / len(rows), "share_superset": sum(superset) / len(rows),
        "share_monotone": sum(monotone) / len(rows),
        "median_soft_over_exact": float(np.median([r["soft"] / r["exact"] for r in rows if r["exact"]])),
        "king_of_israel_exact": king["exact"], "king_of_israel_soft": king["soft"],
        "king_of_israel_new": king["new_variants"],
        "median_latency_s_real": float(np.median([r["soft_s"] for r in rows])),
        "build_s": rec["build_s"], "bytes_per_token": rec["bytes_per_token"],
    }
    for r in rows:
        m[f"hits_{r['query'].replace(' ', '_')}"] = f"{r['exact']}->{r['soft']}"
    scope = "the KJV" if n_verses is None else f"the first {n_verses} KJV verses"
    return Finding(
        "soft_recall", verdict, m,
        f"on {scope} ({rec['tokens']:,} tokens): soft/exact >= {cfg.recall_ratio} on "
        f"{sum(ratio_ok)}/{len(rows)} queries, superset {sum(superset)}/{len(rows)}, monotone "
        f"{sum(monotone)}/{len(rows)}; 'the king of israel' {king['exact']} -> {king['soft']} "
        f"(new: {king['new_variants'] or 'none'})")


def _write_tables(ctx: RunContext, rows: list[dict], steps: list[dict]) -> None:
    import csv
    for name, table in (("softmatcha_latency.csv", rows), ("softmatcha_matches.csv", steps)):
        if table:
            with open(ctx.out_dir / name, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(table[0]))
                w.writeheader()
                w.writerows(table)


warnings.filterwarnings("ignore", message="pattern token .* has no embedding")
