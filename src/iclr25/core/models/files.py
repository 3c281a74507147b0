"""Language models a user names on the command line, and how a model trained or edited here is saved.

`load_lm(spec)` reads `smollm2` (SmolLM2-135M-Instruct, `small_lm`), a Llama-architecture `.gguf` file
(`load_gguf`), a TinyGPT's state (`TinyGPT.state()`), or a Llama saved by `lm_bytes` (its config,
tokenizer, chat template and weights); anything else is a one-line UserError naming these formats."""

from __future__ import annotations

import dataclasses
import io
import os
from pathlib import Path
from typing import TYPE_CHECKING

from iclr25.core.errors import UserError

if TYPE_CHECKING:
    from iclr25.core.models.lm import CausalLM

LLAMA_FORMAT = "iclr25.llm_unlearning.llama/1"  # the tag of files `llm_unlearning unlearn -o` has written
LM_HELP = ("smollm2 (SmolLM2-135M-Instruct), a Llama-architecture .gguf file, a TinyGPT checkpoint or a "
           "model saved by this tool")
MAX_LM_BYTES = 4_000_000_000


def load_lm(spec: str | os.PathLike, what: str = "--model", max_bytes: int = MAX_LM_BYTES) -> CausalLM:
    """The language model named by `spec` (see the module docstring)."""
    from iclr25.core.models import TinyGPT, load_gguf, small_lm
    if str(spec).lower() == "smollm2":
        return small_lm()
    path = Path(spec)
    try:
        found = path.is_file()
    except OSError as e:  # a name too long, a permission error on a parent
        raise UserError(f"{what}: cannot read {str(path)[:80]!r}: {e.strerror or e}") from None
    if not found:
        raise UserError(f"{what}: file not found: {str(path)[:200]} (expected {LM_HELP})")
    if path.stat().st_size > max_bytes:
        raise UserError(f"{what}: {path} is larger than {max_bytes:,} bytes")
    if path.suffix.lower() == ".gguf":
        return load_gguf(path)
    saved = _torch_dict(path)  # read once: a Llama saved here, or a TinyGPT's state
    if isinstance(saved, dict) and saved.get("format") == LLAMA_FORMAT:
        return _llama_from(saved, path, what)
    try:
        return TinyGPT.from_dict(saved)
    except Exception:  # not a dict, or a foreign or damaged one
        raise UserError(f"{what}: {path} is not a language model: expected {LM_HELP}") from None


def lm_bytes(model: CausalLM) -> bytes:
    """`model` as bytes `load_lm` reads back: a TinyGPT's own state, or a Llama's config, tokenizer, chat
    template and weights."""
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


def _torch_dict(path: Path) -> object:
    import torch
    try:
        return torch.load(path, weights_only=True, map_location="cpu")
    except Exception:  # not a torch file (or code in a pickle, refused by weights_only)
        return None


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
