"""LLM unlearning (Yuan et al., ICLR 2025, "A Closer Look at Machine Unlearning for LLMs"): the maximising-
entropy (ME) and answer-preservation (AP) losses beside GA, NPO, IDK, DPO, GD and KL (13 methods), the
six-metric TOFU evaluation with MU / FE / Forget Quality, continual unlearning, and a TinyGPT world to try
them on CPU."""

from iclr25.core.registry import make_paper
from iclr25.llm_unlearning.data import World, idk_templates, load_tofu, prompt, tofu_world
from iclr25.llm_unlearning.evaluate import (
    SETS,
    SetResult,
    UnlearningReport,
    evaluate_set,
    evaluate_unlearning,
    forget_efficacy,
    forget_quality,
    hallucination_rate,
    harmonic_mean,
    model_utility,
)
from iclr25.llm_unlearning.experiments import CLAIMS, run
from iclr25.llm_unlearning.losses import (
    ap_loss,
    dpo_loss,
    ga_loss,
    gd_loss,
    idk_loss,
    kl_loss,
    me_loss,
    npo_loss,
    sequence_nll,
)
from iclr25.llm_unlearning.metrics import is_refusal, rouge_l, symbolic_entails, token_entropy
from iclr25.llm_unlearning.model import PretrainConfig, TinyGPT, pretrain
from iclr25.llm_unlearning.unlearn import METHODS, UnlearnConfig, continual_unlearn, unlearn

PAPER = make_paper("llm_unlearning", CLAIMS, run)

__all__ = [
    "CLAIMS", "METHODS", "PAPER", "SETS", "PretrainConfig", "SetResult", "TinyGPT", "UnlearnConfig",
    "UnlearningReport", "World", "ap_loss", "continual_unlearn", "dpo_loss", "evaluate_set",
    "evaluate_unlearning", "forget_efficacy", "forget_quality", "ga_loss", "gd_loss", "hallucination_rate",
    "harmonic_mean", "idk_loss", "idk_templates", "is_refusal", "kl_loss", "load_tofu", "me_loss",
    "model_utility", "npo_loss", "pretrain", "prompt", "rouge_l", "run", "sequence_nll", "symbolic_entails",
    "tofu_world", "token_entropy", "unlearn",
]
