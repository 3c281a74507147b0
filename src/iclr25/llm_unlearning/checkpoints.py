"""Which models `iclr25 llm_unlearning` can unlearn, and how they are saved: a TinyGPT trained here
(`pretrain`), SmolLM2-135M-Instruct (`smollm2`, through iclr25.core.models), any Llama-architecture GGUF
file (a local checkpoint, through iclr25.core.models.load_gguf), or a Llama saved by `unlearn -o`."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path
from typing import TYPE_CHECKING

from iclr25.core.errors import UserError

if TYPE_CHECKING:
    from iclr25.core.models import CausalLM

LLAMA_FORMAT = "iclr25.llm_unlearning.llama/1"
MAX_MODEL_BYTES = 2_000_000_000
MODEL_HELP = ("a TinyGPT saved by `pretrain`, a model saved by `unlearn -o`, smollm2 (SmolLM2-135M-Instruct "
              "from "
              "iclr25.core.models) or a Llama-architecture .gguf file")


def load_model(spec: str | Path, what: str = "--model") -> CausalLM:
    """The model named by `spec` (see MODEL_HELP); a one-line UserError for anything else."""
    import torch

    from iclr25.core.models import TinyGPT, load_gguf, small_lm
    if str(spec).lower() == "smollm2":
        return small_lm()
    path = Path(spec)
    if not path.is_file():
        raise UserError(f"{what}: file not found: {path} (or give smollm2)")
    if path.stat().st_size > MAX_MODEL_BYTES:
        raise UserError(f"{what}: {path} is larger than {MAX_MODEL_BYTES} bytes")
    if path.suffix.lower() == ".gguf":
        return load_gguf(path)
    blob = path.read_bytes()
    try:
        d = torch.load(io.BytesIO(blob), weights_only=True, map_location="cpu")
    except Exception:  # torch raises many types on foreign or damaged files
        raise UserError(f"{what}: {path} is not a TinyGPT or a model saved by this tool") from None
    if isinstance(d, dict) and d.get("format") == LLAMA_FORMAT:
        return _llama_from(d, path, what)
    try:
        return TinyGPT.from_state(blob)
    except Exception:
        raise UserError(f"{what}: {path} is not a TinyGPT or a model saved by this tool") from None


def _llama_from(d: dict, path: Path, what: str) -> CausalLM:
    import torch

    from iclr25.core.models import Llama, LlamaConfig, Tokenizer
    try:
        with torch.device("meta"):
            model = Llama(LlamaConfig(**d["config"]), Tokenizer.from_json(d["tokenizer"]),
                          d.get("chat_template"))
        model.load_state_dict(d["weights"], assign=True, strict=True)
    except Exception:
        raise UserError(f"{what}: {path} holds a damaged Llama checkpoint") from None
    return model.eval().requires_grad_(False)


def model_bytes(model: CausalLM) -> bytes:
    """The model as bytes `load_model` reads back: TinyGPT's own state, or a Llama's config, tokenizer,
    chat template and weights."""
    import torch

    from iclr25.core.models import Llama, TinyGPT
    if isinstance(model, TinyGPT):
        return model.state()
    if isinstance(model, Llama):
        buf = io.BytesIO()
        torch.save({"format": LLAMA_FORMAT, "config": dataclasses.asdict(model.cfg),
                    "tokenizer": model.tokenizer.to_json(), "chat_template": model.chat_template,
                    "weights": {k: v.contiguous() for k, v in model.state_dict().items()}}, buf)
        return buf.getvalue()
    raise UserError(f"cannot save a {type(model).__name__}; only TinyGPT and Llama models")


def default_lr(model: CausalLM) -> float:
    """The paper's 1e-5 for a pretrained LLM; 1e-3 for a TinyGPT of a few million parameters."""
    from iclr25.core.models import TinyGPT
    return 1e-3 if isinstance(model, TinyGPT) else 1e-5
