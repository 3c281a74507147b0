"""Model Equality Testing (Gao, Liang, Guestrin; ICLR 2025): MMD two-sample tests that tell whether an
API serves the model it claims, from completions you collect.

>>> import numpy as np
>>> from iclr25.model_equality import CompletionSample, encode_chars, two_sample_test
>>> ref = CompletionSample(np.zeros(20, int), encode_chars(["the cat"] * 10 + ["the dog"] * 10, 8), 1)
>>> api = CompletionSample(np.zeros(20, int), encode_chars(["a bird!"] * 20, 8), 1)
>>> two_sample_test(ref, api, "hamming", b=200).reject
True
"""

from iclr25.core.registry import make_paper
from iclr25.model_equality.encoding import (
    PAD,
    CompletionSample,
    concat,
    encode_chars,
    encode_tokens,
    read_jsonl,
    samples_from_rows,
)
from iclr25.model_equality.endpoints import (
    DISTORTIONS,
    ENDPOINTS,
    ModelConfig,
    endpoint_model,
    reference_model,
)
from iclr25.model_equality.experiments import CLAIMS, run
from iclr25.model_equality.pools import PoolRequest, build_pool
from iclr25.model_equality.power import PowerResult, audit_endpoint, estimate_power
from iclr25.model_equality.pvalues import (
    NullSimulator,
    PoolSampler,
    TestResult,
    composite_test,
    empirical_pvalue,
    permutation_null,
    pool_test,
    two_sample_test,
)
from iclr25.model_equality.statistics import (
    DENOMINATORS,
    STATISTICS,
    AllSubstringsMMD,
    Chi2Stat,
    HammingMMD,
    HammingMMDGram,
    L1Stat,
    OneHotMMD,
    Statistic,
    all_substrings_kernel,
    get_statistic,
    hamming_gram,
    mmd_distance,
)
from iclr25.model_equality.study import Study, StudyConfig, run_study

PAPER = make_paper("model_equality", CLAIMS, run)

__all__ = [
    "DENOMINATORS", "DISTORTIONS", "ENDPOINTS", "ModelConfig", "PoolRequest", "Study", "StudyConfig",
    "build_pool", "endpoint_model", "reference_model", "run_study",
    "PAD", "PAPER", "STATISTICS", "AllSubstringsMMD", "Chi2Stat", "CompletionSample", "HammingMMD",
    "HammingMMDGram", "L1Stat", "NullSimulator", "OneHotMMD", "PoolSampler", "PowerResult", "Statistic",
    "TestResult", "all_substrings_kernel", "audit_endpoint", "composite_test", "concat", "empirical_pvalue",
    "encode_chars", "encode_tokens", "estimate_power", "get_statistic", "hamming_gram", "mmd_distance",
    "permutation_null", "pool_test", "read_jsonl", "samples_from_rows", "two_sample_test",
]
