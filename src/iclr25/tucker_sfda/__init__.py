"""Tucker-SFT (ICLR 2025): decompose a time-series CNN once (Tucker-2 / HOSVD of every conv), then adapt
only the small core tensors to unlabelled target data with a source-free host (SHOT, NRC, AaD, MAPU)."""

from iclr25.core.registry import make_paper
from iclr25.tucker_sfda.adapt import AdaptConfig, AdaptResult, adapt
from iclr25.tucker_sfda.data import (
    Domain,
    SyntheticConfig,
    basic_motions,
    channel_stats,
    load_npz,
    other_wrist,
    rotate_triads,
    synthetic_domain,
    znorm,
)
from iclr25.tucker_sfda.efficiency import Efficiency, delta_norm, efficiency, macs_formula, macs_hooks
from iclr25.tucker_sfda.experiments import CLAIMS, run
from iclr25.tucker_sfda.hosts import METHODS, AaDConfig, MAPUConfig, NRCConfig, ShotConfig
from iclr25.tucker_sfda.lora import LoRAConv1d, add_lora
from iclr25.tucker_sfda.model import AdaTimeCNN, ModelConfig, TemporalImputer
from iclr25.tucker_sfda.training import (
    TUNE_MODES,
    SourceConfig,
    evaluate,
    finetune_source,
    macro_f1,
    predict_logits,
    select_trainable,
    train_source,
)
from iclr25.tucker_sfda.tucker import TuckerConv1d, tucker2, tucker_reparameterize

PAPER = make_paper("tucker_sfda", CLAIMS, run)

__all__ = [
    "CLAIMS", "METHODS", "PAPER", "TUNE_MODES", "AaDConfig", "AdaTimeCNN", "AdaptConfig", "AdaptResult",
    "Domain", "Efficiency", "LoRAConv1d", "MAPUConfig", "ModelConfig", "NRCConfig", "ShotConfig",
    "SourceConfig", "SyntheticConfig", "TemporalImputer", "TuckerConv1d", "adapt", "add_lora",
    "basic_motions", "channel_stats", "delta_norm", "efficiency", "evaluate", "finetune_source", "load_npz",
    "macro_f1", "macs_formula", "macs_hooks", "other_wrist", "predict_logits", "rotate_triads", "run",
    "select_trainable", "synthetic_domain", "train_source", "tucker2", "tucker_reparameterize", "znorm",
]
