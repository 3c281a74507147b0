"""CATE benchmark (Yu & Sun, ICLR 2025): score CATE models on real trials with Q̂, and benchmark them on
confounded samples carved out of RCTs by observational sampling.

>>> import numpy as np
>>> from iclr25.cate_benchmark import q_hat
>>> q_hat([1.0, 1.0], y=[3.0, 1.0], w=[1, 0], e=0.5).value
-3.0
"""

from iclr25.cate_benchmark.benchmark import Benchmark, BenchmarkConfig, GridPoint, paper_grid, run_variant
from iclr25.cate_benchmark.datasets import DATASETS, RCTData, from_frame, load_rct
from iclr25.cate_benchmark.experiments import CLAIMS, run
from iclr25.cate_benchmark.learners import (
    CONSTANT_BASELINE,
    LEARNERS,
    BaseConfig,
    CATELearner,
    ConstantATE,
    DMLLearner,
    DRLearner,
    RLearner,
    SLearner,
    TLearner,
    XLearner,
    ZeroModel,
    make_learner,
)
from iclr25.cate_benchmark.q_hat import (
    QHat,
    compare_to_constant,
    constant_q,
    is_degenerate,
    pseudo_outcome,
    q_hat,
    q_hat_terms,
)
from iclr25.cate_benchmark.sampling import NONLINEARITY, ObservationalSample, observational_sample
from iclr25.cate_benchmark.summaries import (
    avg_rank,
    degenerate_rate,
    mrr,
    orthogonal_win_share,
    summarize,
    win_share,
    worse_than_constant_rate,
)
from iclr25.core.registry import make_paper

PAPER = make_paper("cate_benchmark", CLAIMS, run)

__all__ = [
    "Benchmark", "BenchmarkConfig", "GridPoint", "paper_grid", "run_variant",
    "DATASETS", "RCTData", "from_frame", "load_rct",
    "CONSTANT_BASELINE", "LEARNERS", "BaseConfig", "CATELearner", "ConstantATE", "DMLLearner", "DRLearner",
    "RLearner", "SLearner", "TLearner", "XLearner", "ZeroModel", "make_learner",
    "QHat", "compare_to_constant", "constant_q", "is_degenerate", "pseudo_outcome", "q_hat", "q_hat_terms",
    "NONLINEARITY", "ObservationalSample", "observational_sample",
    "avg_rank", "degenerate_rate", "mrr", "orthogonal_win_share", "summarize", "win_share",
    "worse_than_constant_rate", "PAPER", "CLAIMS",
]
