"""LLM unlearning (Yuan et al., ICLR 2025, "A Closer Look at Machine Unlearning for LLMs"): the maximising-
entropy (ME) and answer-preservation (AP) losses beside GA, NPO, IDK, DPO, GD and KL (13 methods), the
six-metric TOFU evaluation with MU / FE / Forget Quality, continual unlearning, and a TinyGPT world to try
them on CPU."""

from iclr25.core.lazy import lazy_package

__getattr__, __dir__, __all__ = lazy_package(__name__, {
    "data": ["World", "idk_templates", "load_tofu", "prompt", "tofu_world"],
    "evaluate": ["SETS", "SetResult", "UnlearningReport", "answer_items", "evaluate_set",
        "evaluate_unlearning",
        "forget_efficacy", "forget_quality", "hallucination_rate", "harmonic_mean",
        "model_utility"],
    "claims": ["CLAIMS"],
    "experiments": ["run"],
    "losses": ["ap_loss", "dpo_loss", "ga_loss", "gd_loss", "idk_loss", "kl_loss", "me_loss",
        "npo_loss", "sequence_nll"],
    "metrics": ["is_refusal", "rouge_l", "symbolic_entails", "token_entropy"],
    "model": ["FinetuneConfig", "PretrainConfig", "TinyGPT", "finetune_qa", "pretrain"],
    "unlearn": ["METHODS", "UnlearnConfig", "continual_unlearn", "unlearn"],
})
