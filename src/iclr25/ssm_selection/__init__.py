"""SSM token selection (Nishikawa & Suzuki, ICLR 2025): linear time-invariant SSM layers with token-wise
FNNs select tokens as attention does. The layer (FFT / direct / recurrent), the SSM+FNN network and its
baselines, the paper's tasks (associative recall, copying, dynamic-selection regression, DNA), training,
comparison and gradient × input saliency."""

from iclr25.core.registry import make_paper
from iclr25.ssm_selection.experiments import CLAIMS, run
from iclr25.ssm_selection.models import (
    FNNSSMFNN,
    FixedPositionMLP,
    LinearSSM,
    SSMFNNNet,
    TinyTransformer,
    TokenFNN,
    build_model,
)
from iclr25.ssm_selection.saliency import saliency, selection_sparsity, top_k_share, window_share
from iclr25.ssm_selection.ssm import LTISSMConv, direct_conv, fft_conv, toeplitz_conv
from iclr25.ssm_selection.tasks import (
    SeqData,
    encode_text,
    load_splice,
    make_associative_recall,
    make_copy,
    make_motif_dna,
    make_selection_regression,
    selection_target,
)
from iclr25.ssm_selection.train import TrainConfig, compare, evaluate, predict, train

PAPER = make_paper("ssm_selection", CLAIMS, run)

__all__ = [
    "CLAIMS", "FNNSSMFNN", "PAPER", "FixedPositionMLP", "LTISSMConv", "LinearSSM", "SSMFNNNet", "SeqData",
    "TinyTransformer", "TokenFNN", "TrainConfig", "build_model", "compare", "direct_conv", "encode_text",
    "evaluate", "fft_conv", "load_splice", "make_associative_recall", "make_copy", "make_motif_dna",
    "make_selection_regression", "predict", "run", "saliency", "selection_sparsity", "selection_target",
    "toeplitz_conv", "top_k_share", "train", "window_share",
]
