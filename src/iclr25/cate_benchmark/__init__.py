"""CATE benchmark (Yu & Sun, ICLR 2025): score CATE models on real trials with Q̂, and benchmark them on
confounded samples carved out of RCTs by observational sampling.

>>> import numpy as np
>>> from iclr25.cate_benchmark import q_hat
>>> q_hat([1.0, 1.0], y=[3.0, 1.0], w=[1, 0], e=0.5).value
-3.0
"""

from iclr25.core.lazy import lazy_package

__getattr__, __dir__, __all__ = lazy_package(__name__, {
    "benchmark": ["Benchmark", "BenchmarkConfig", "GridPoint", "paper_grid", "run_variant"],
    "datasets": ["DATASETS", "RCTData", "from_frame", "load_rct"],
    "claims": ["CLAIMS"],
    "experiments": ["run"],
    "learners": ["ALL_LEARNERS", "CONSTANT_BASELINE", "LEARNERS", "TUNED_LEARNERS", "BaseConfig",
        "CATELearner", "ConstantATE",
        "DMLLearner", "DRLearner", "RLearner", "SLearner", "TLearner", "XLearner",
        "ZeroModel", "make_learner"],
    "q_hat": ["QHat", "compare_to_constant", "constant_q", "is_degenerate", "pseudo_outcome",
        "q_hat", "q_hat_terms"],
    "sampling": ["NONLINEARITY", "ObservationalSample", "observational_sample"],
    "uplift": ["Calibration", "PluginRisk", "Uplift", "calibration", "plugin_risk", "plugin_tau",
        "uplift_curve"],
    "summaries": ["avg_rank", "dataset_bootstrap_se", "degenerate_rate", "mrr", "orthogonal_win_share",
        "summarize",
        "win_share", "worse_than_constant_rate"],
})
