"""SSM token selection (Nishikawa & Suzuki, ICLR 2025): linear time-invariant SSM layers with token-wise
FNNs select tokens as attention does. The layer (FFT / direct / recurrent), the SSM+FNN network and its
baselines, the paper's tasks (associative recall, copying, dynamic-selection regression, DNA), training,
comparison and gradient × input saliency."""

from iclr25.core.lazy import lazy_package

__getattr__, __dir__, __all__ = lazy_package(__name__, {
    "claims": ["CLAIMS"],
    "experiments": ["run"],
    "models": ["FNNSSMFNN", "FixedPositionMLP", "LinearSSM", "SSMFNNNet", "TinyTransformer",
        "TokenFNN", "build_model"],
    "saliency": ["saliency", "selection_sparsity", "top_k_share", "window_share"],
    "ssm": ["LTISSMConv", "direct_conv", "fft_conv", "toeplitz_conv"],
    "tasks": ["SeqData", "encode_text", "load_splice", "make_associative_recall", "make_copy",
        "make_motif_dna", "make_selection_regression", "selection_target"],
    "train": ["TrainConfig", "compare", "evaluate", "predict", "train"],
})
