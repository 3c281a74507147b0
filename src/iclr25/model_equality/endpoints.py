"""What an API might serve instead of the reference model (paper §4): the reference's weights rounded to
fp16 / bf16, quantised to int8 / NF4, a KGW watermark, a short fine-tune on another text domain, or a
different model altogether. Models come from `iclr25.core.models`; trained and fine-tuned weights are
cached there or here, so each is made once."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from iclr25.core.errors import UserError
from iclr25.core.models.config import TinyGPTConfig, TrainConfig

REFERENCES = ("smollm2", "tinygpt")
DISTORTIONS = ("fp16", "bf16", "int8", "nf4", "watermark", "finetune", "swap")
LOCAL = ("fp16", "int8", "nf4", "watermark")  # the paper's local alternatives of Fig. 2 (left)
HALF = ("fp16", "bf16")
ENDPOINTS = ("ref", "same", *DISTORTIONS)  # "same": an independent sample of the reference itself
_VERSION = 1


@dataclass(frozen=True)
class ModelConfig:
    """The reference model and how each alternative is made from it (paper §4 where it applies)."""

    reference: str = "smollm2"  # SmolLM2-135M-Instruct, or "tinygpt": a TinyGPT trained here on the KJV
    gpt: TinyGPTConfig = TinyGPTConfig(vocab_size=4096, block_size=128, n_layer=4, n_head=4, d_model=128)
    gpt_train: TrainConfig = TrainConfig(steps=1500, batch=16, lr=3e-3, warmup=100)
    gpt_verses: int | None = None  # training verses (None: all but the held-out ones)
    swap_seed: int = 1  # the TinyGPT reference is swapped for a TinyGPT trained with this seed
    quant_group: int = 64  # weights per absmax scale (int8 and NF4)
    gamma: float = 0.25  # watermark: green share of the vocabulary (the issue; HF's default)
    delta: float = 2.0  # watermark: logit bias (the 2.0; the paper used 2.5)
    watermark_key: int = 15485863  # Kirchenbauer et al.'s hash key
    finetune: TrainConfig = field(default_factory=lambda: TrainConfig(  # the paper: 1 epoch = 42 steps
        steps=42, batch=4, lr=1e-5, warmup=1, weight_decay=0.0))
    finetune_block: int = 64
    finetune_chars: int = 200_000  # stdlib docstrings: another domain than the KJV prompts

    def __post_init__(self) -> None:
        if self.reference not in REFERENCES:
            raise UserError(f"unknown reference model {self.reference!r}; choose from "
                            f"{', '.join(REFERENCES)}")


def _tiny_gpt(cfg: ModelConfig, seed: int) -> Any:
    from iclr25.core.models import train_lm
    from iclr25.model_equality.corpus import training_verses
    return train_lm(training_verses(cfg.gpt_verses), cfg.gpt, dataclasses.replace(cfg.gpt_train, seed=seed))


def reference_model(cfg: ModelConfig) -> Any:
    """SmolLM2 (dequantised GGUF, fp32) or a TinyGPT trained here in fp32 on the KJV."""
    if cfg.reference == "smollm2":
        from iclr25.core.models import small_lm
        return small_lm()
    return _tiny_gpt(cfg, seed=0)


def swap_model(cfg: ModelConfig) -> Any:
    """A different model: for SmolLM2 the KJV TinyGPT (no other SmolLM2 checkpoint exists offline), for
    the TinyGPT another TinyGPT of the same shape trained with another seed."""
    return _tiny_gpt(cfg, seed=0 if cfg.reference == "smollm2" else cfg.swap_seed)


def finetuned_model(ref: Any, cfg: ModelConfig) -> Any:
    """The reference after `cfg.finetune.steps` AdamW steps on stdlib docstrings; weights cached."""
    import copy
    import json

    from safetensors.torch import load_file, save

    from iclr25.core.models import finetune
    from iclr25.core.runtime import atomic_write, cache_dir, config_hash
    from iclr25.model_equality.corpus import stdlib_docstrings
    key = config_hash({"ref": ref.fingerprint, "ft": dataclasses.asdict(cfg.finetune),
                       "block": cfg.finetune_block, "chars": cfg.finetune_chars, "v": _VERSION})
    path = cache_dir() / "model_equality" / "finetuned" / f"{cfg.reference}-{key}.safetensors"
    if path.is_file():
        try:
            out = copy.deepcopy(ref)
            out.load_state_dict(load_file(path), strict=True)
            info = path.with_suffix(".json")
            out.train_info = json.loads(info.read_text()) if info.is_file() else {}
            return out
        except (OSError, RuntimeError, ValueError):
            pass  # damaged: fine-tune again
    out = finetune(ref, stdlib_docstrings(cfg.finetune_chars), cfg.finetune, cfg.finetune_block)
    with atomic_write(path.with_suffix(".json"), "w") as f:
        json.dump(out.train_info, f)
    with atomic_write(path) as f:
        f.write(save({k: v.contiguous() for k, v in out.state_dict().items()}))
    return out


def endpoint_model(name: str, ref: Any, cfg: ModelConfig) -> Any:
    """The model behind endpoint `name` (see ENDPOINTS), built from the reference `ref`."""
    from iclr25.core.models import cast, quantize, watermark
    if name in ("ref", "same"):
        return ref
    if name in HALF:
        return cast(ref, name)
    if name in ("int8", "nf4"):
        return quantize(ref, name, cfg.quant_group)
    if name == "watermark":
        return watermark(ref, cfg.gamma, cfg.delta, cfg.watermark_key)
    if name == "finetune":
        return finetuned_model(ref, cfg)
    if name == "swap":
        return swap_model(cfg)
    raise UserError(f"unknown endpoint {name!r}; choose from {', '.join(ENDPOINTS)}")
