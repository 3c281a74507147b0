"""Tucker-SFT (ICLR 2025): decompose a time-series CNN once (Tucker-2 / HOSVD of every conv), then adapt
only the small core tensors to unlabelled target data with a source-free host (SHOT, NRC, AaD, MAPU)."""

from iclr25.core.lazy import lazy_package

__getattr__, __dir__, __all__ = lazy_package(__name__, {
    "adapt": ["AdaptConfig", "AdaptResult", "adapt"],
    "data": ["Domain", "SyntheticConfig", "basic_motions", "channel_stats", "load_npz",
        "other_wrist", "rotate_triads", "synthetic_domain", "znorm"],
    "efficiency": ["Efficiency", "delta_norm", "efficiency", "macs_formula", "macs_hooks", "trainable_count"],
    "claims": ["CLAIMS"],
    "experiments": ["run"],
    "hosts": ["METHODS", "AaDConfig", "MAPUConfig", "NRCConfig", "ShotConfig"],
    "lora": ["LoRAConv1d", "SubsetConv1d", "add_lora", "add_random_subset", "lora_ranks"],
    "model": ["AdaTimeCNN", "ModelConfig", "TemporalImputer"],
    "training": ["TUNE_MODES", "SourceConfig", "evaluate", "finetune_source", "macro_f1",
        "predict_logits", "select_trainable", "train_source"],
    "tucker": ["TuckerConv1d", "tucker2", "tucker_reparameterize"],
    "usermodel": ["UserModel", "load_module", "to_dense"],
})
