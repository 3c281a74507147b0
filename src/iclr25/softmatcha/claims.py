"""SoftMatcha's claims and the rules that decide them (pure data: `iclr25 report` reads this without
numpy's heavier paths). Timings are per query (one value per query of a class), decided on the log scale
(geometric means, t-intervals over queries); every condition is decided on its own, never pooled.

The scale benchmark's record (docs/full/softmatcha-scale.md) is reported beside `sub_second` and
`variant_counts`, not decided: no 1e9-token record was made with the vectors the engine now uses."""

from iclr25.core.claims import Claim
from iclr25.core.rules import All, AnyOf, Diff, Each, Mean, Named, Rule, Test, Value

CLASSES = ("rare", "medium", "frequent")
PAPER_LATENCY_S = 1.0  # abstract and §5: "less than one second" per query, billion-token corpora, CPU
MAX_SOFT_OVER_EXACT = 10.0  # "comparable to exact": soft / exact latency per class
SLOPE_MATCHES = (0.6, 1.3)  # latency ~ matches^slope: output-sensitive
MAX_SLOPE_N = 0.3  # at a fixed match count, latency ~ N^slope: flat
RECALL_RATIO = 1.2  # soft / exact hits
MIN_PRECISION = 0.5  # soft-only hits whose stand-in words are WordNet relatives: more often right than not
VARIANTS_MEDIAN_S = 0.09  # SoftMatcha 2: median < 90 ms (p95 < 300 ms)
LATIN_RATIO, LATIN_PARTIAL = 2.0, 1.2
LATIN_MIN_LEMMAS = 10

_Q = "queries"

LATIN_PRECISION = Test(Mean("latin_precision", "precision of the soft hits", over="lemmas"), ">=",
                       MIN_PRECISION)
LATIN_LEMMAS = Test(Value("n_lemmas", "evaluated lemmas"), ">=", LATIN_MIN_LEMMAS)
RECALL = Named("R", Test(Mean("soft_over_exact", "soft / exact hits", over=_Q, log=True), ">=", RECALL_RATIO))
PRECISION = Named("P", Test(Mean("precision_soft_only", "share of soft-only hits whose stand-in words are "
                                 "WordNet relatives", over="queries with soft-only hits"), ">=",
                            MIN_PRECISION))

CLAIMS = [
    Claim(key="sub_second",
          statement="Soft pattern matching enumerates every match of a query in under a second on a CPU, "
                    "even on a very large corpus.",
          paper="< 1 s per query on 1.4B-token English Wikipedia (and 1.0B Japanese), CPU only "
                "(abstract, §5)",
          setup="first query of its words (Step 1 scans the vocabulary, then every match enumerated), CPU "
                "seconds of the process, alpha 0.8, GloVe 50-d (all-but-the-top), per frequency class of the "
                "rarest pattern word (2-4 in-vocabulary words), on a Zipf corpus of 1e8 tokens (full; 1e7 "
                "quick); the scale benchmark's record is reported beside",
          rule=Each(Rule(Test(Mean("first_query_s_{c}", "first-query latency in s", over=_Q, log=True), "<",
                              PAPER_LATENCY_S)), CLASSES, "query class"),
          timing=True),
    Claim(key="comparable_to_exact",
          statement="Soft matching is comparable in speed to exact (surface) matching.",
          paper="search time comparable to surface-level string matching (Table 3)",
          setup="per query class at the largest N, soft (alpha 0.8, the word's neighbour list kept by the "
                "open index: Step 1 a prefix lookup) and exact (alpha 1) searches of each query alternated, "
                "3 repeats, CPU seconds, median per query; first-query (cold) ratios reported beside",
          rule=Each(Rule(Test(Diff("soft_s_{c}", "exact_s_{c}", "soft / exact latency", over=_Q, log=True),
                              "<=", MAX_SOFT_OVER_EXACT)), CLASSES, "query class"),
          timing=True),
    Claim(key="scales_with_matches",
          statement="Search cost grows with the number of matches, not with the corpus size.",
          paper="inverted-index search whose cost is output-sensitive (§3)",
          setup="single-word soft queries spanning 1 to >= 1e5 matches (CPU seconds, warm lists): at the "
                "largest N the least-squares log-log slope of latency vs matches over queries with >= 1e3 "
                "matches, with its standard error; at 1e3-1e4 matches the slope of latency vs N over the "
                "queries of every size (1e6 -> 1e8 full; 1e6 -> 1e7 quick)",
          rule=Rule(All(
              Test(Value("slope_latency_vs_matches", "slope vs matches", se="slope_latency_vs_matches_se"),
                   ">=", SLOPE_MATCHES[0]),
              Test(Value("slope_latency_vs_matches", "slope vs matches", se="slope_latency_vs_matches_se"),
                   "<=", SLOPE_MATCHES[1]),
              Test(Value("slope_latency_vs_n", "slope vs N at a fixed match count",
                         se="slope_latency_vs_n_se"), "<=", MAX_SLOPE_N))),
          timing=True),
    Claim(key="soft_recall",
          statement="Soft matching finds the exact matches plus semantically close variants that exact "
                    "matching misses.",
          paper="qualitative: soft queries surface instances exact matching misses (§5, Figure 1)",
          setup="the KJV, 20 fixed phrases, GloVe 50-d after all-but-the-top (centred, top 3 directions "
                "removed) at the default alpha 0.8 (both chosen on held-out word pairs, not these phrases); "
                "words match words and punctuation punctuation; a soft-only hit is judged by WordNet 3.0 (it "
                "is right when each pattern word WordNet knows was replaced by one of its relatives: lemma, "
                "synonym, hypernym/hyponym within 2 links, sibling or cousin, part of one whole); the raw "
                "vectors' precision and recall are reported beside; superset and monotonicity are checked",
          rule=Rule(All(RECALL, PRECISION), partial=AnyOf(RECALL, PRECISION))),
    Claim(key="latin_inflection_recall",
          statement="On a Latin corpus, a soft query in one inflected form also retrieves the lemma's other "
                    "inflections (fastText vectors), which exact matching misses.",
          paper="qualitative demo on Perseus (~5M tokens) with fastText-la vectors (paper §4 / demo "
                "softmatcha-docker-la); no recall number is given",
          setup="fastText trained here on Perseus; >= 10 evaluation lemmas with known paradigms, alpha "
                "calibrated on 2 other lemmas (best mean F1); per lemma: recall of all forms, exact-form "
                "recall and precision",
          rule=Rule(All(Test(Diff("latin_recall_soft", "latin_recall_exact", "soft / exact recall",
                                  over="lemmas", log=True), ">=", LATIN_RATIO),
                        LATIN_PRECISION, LATIN_LEMMAS),
                    partial=All(Test(Diff("latin_recall_soft", "latin_recall_exact", "soft / exact recall",
                                          over="lemmas", log=True), ">=", LATIN_PARTIAL),
                                LATIN_PRECISION, LATIN_LEMMAS))),
    Claim(key="variant_counts",
          statement="Ranked variant strings with exact counts answer a soft query in well under a second, "
                    "whatever the number of hits (the successor system, SoftMatcha 2).",
          paper="median < 90 ms, p95 < 300 ms per query over trillion-token corpora, answering with ranked "
                "variants and their counts (Rank | Score | #Match | String)",
          setup="top-20 ranked variants (suffix array, alpha 0.8, neighbour lists warm), CPU seconds, median "
                "of 3 repeats per query, per query class on the largest Zipf corpus (1e8 full, 1e7 quick); "
                "the counts of all variants against the occurrence enumerator's hits on every query; the "
                "scale benchmark's record is reported beside",
          rule=Each(Rule(All(Test(Mean("variants_s_{c}", "top-20 latency in s", over=_Q, log=True), "<",
                                  VARIANTS_MEDIAN_S),
                             Test(Value("count_mismatches_{c}", "queries whose counts differ"), "<=", 0))),
                    CLASSES, "query class"),
          timing=True),
]
