"""Which models `iclr25 llm_unlearning` can unlearn (any language model `iclr25.core.models.load_lm`
reads: a TinyGPT trained here by `pretrain`, SmolLM2-135M-Instruct, a Llama-architecture GGUF file, or a
model saved by `unlearn -o`), and the learning rate each starts from."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from iclr25.core.models import CausalLM

MAX_MODEL_BYTES = 2_000_000_000
MODEL_HELP = ("a TinyGPT saved by `pretrain`, a model saved by `unlearn -o`, smollm2 (SmolLM2-135M-Instruct "
              "from iclr25.core.models) or a Llama-architecture .gguf file")


def load_model(spec: str, what: str = "--model") -> CausalLM:
    """The model named by `spec` (see MODEL_HELP); a one-line UserError for anything else."""
    from iclr25.core.models import load_lm
    return load_lm(spec, what, MAX_MODEL_BYTES)


def default_lr(model: CausalLM) -> float:
    """The paper's 1e-5 for a pretrained LLM; 1e-3 for a TinyGPT of a few million parameters."""
    from iclr25.core.models import TinyGPT
    return 1e-3 if isinstance(model, TinyGPT) else 1e-5
