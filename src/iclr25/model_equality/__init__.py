"""Model Equality Testing (Gao, Liang, Guestrin; ICLR 2025): MMD two-sample tests that tell whether an
API serves the model it claims, from completions you collect.

>>> import numpy as np
>>> from iclr25.model_equality import CompletionSample, encode_chars, two_sample_test
>>> ref = CompletionSample(np.zeros(20, int), encode_chars(["the cat"] * 10 + ["the dog"] * 10, 8), 1)
>>> api = CompletionSample(np.zeros(20, int), encode_chars(["a bird!"] * 20, 8), 1)
>>> two_sample_test(ref, api, "hamming", b=200).reject
True
"""

from iclr25.core.lazy import lazy_package

__getattr__, __dir__, __all__ = lazy_package(__name__, {
    "encoding": ["PAD", "CompletionSample", "concat", "encode_chars", "encode_tokens", "read_jsonl",
        "samples_from_rows"],
    "endpoints": ["DISTORTIONS", "ENDPOINTS", "ModelConfig", "endpoint_model", "reference_model"],
    "claims": ["CLAIMS"],
    "experiments": ["run"],
    "official": ["read_official", "safe_load"],
    "pools": ["PoolRequest", "build_pool"],
    "sample_size": ["PowerPoint", "power_curve"],
    "power": ["PowerResult", "audit_endpoint", "estimate_power"],
    "pvalues": ["NullSimulator", "PoolSampler", "TestResult", "composite_test", "empirical_pvalue",
        "permutation_null", "pool_test", "two_sample_test"],
    "statistics": ["DENOMINATORS", "GOF_KINDS", "STATISTICS", "AllSubstringsMMD", "Chi2Stat", "GoodnessOfFit",
        "HammingMMD", "HammingMMDGram", "L1Stat", "L2Stat", "OneHotMMD", "Statistic", "all_substrings_kernel",
        "get_statistic", "hamming_gram", "mmd_distance"],
    "study": ["Study", "StudyConfig", "run_study"],
})
