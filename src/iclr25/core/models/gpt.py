"""A small GPT trained here (nanoGPT's shape: learned positions, pre-LayerNorm blocks, GELU MLP, tied
embeddings), with a BPE or word-level tokenizer fitted to the training text. It shares `logprobs` /
`generate` with SmolLM2, so a paper can swap one for the other. `train_lm` caches the trained model."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import math
from collections.abc import Sequence

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812
from torch import nn

from iclr25.core.errors import UserError
from iclr25.core.models.config import TinyGPTConfig, TrainConfig
from iclr25.core.models.lm import CausalLM, KVCache, attend
from iclr25.core.models.tokenizer import Tokenizer

_CACHE_VERSION = 1


class _Block(nn.Module):
    def __init__(self, cfg: TinyGPTConfig) -> None:
        super().__init__()
        self.n_head = cfg.n_head
        self.ln_1 = nn.LayerNorm(cfg.d_model)
        self.c_attn = nn.Linear(cfg.d_model, 3 * cfg.d_model)
        self.c_proj = nn.Linear(cfg.d_model, cfg.d_model)
        self.ln_2 = nn.LayerNorm(cfg.d_model)
        self.c_fc = nn.Linear(cfg.d_model, 4 * cfg.d_model)
        self.mlp_proj = nn.Linear(4 * cfg.d_model, cfg.d_model)

    def forward(self, x: torch.Tensor, key_mask: torch.Tensor, cache: KVCache | None, layer: int):
        B, T, C = x.shape  # noqa: N806
        q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
                   for t in (q, k, v))  # (B, H, T, d)
        if cache is not None:
            k, v = cache.update(layer, k, v)
        x = x + self.c_proj(attend(q, k, v, key_mask).transpose(1, 2).reshape(B, T, C))
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x))))


class TinyGPT(CausalLM):
    """logits = W_e LN(h_L), h_0 = W_e[ids] + W_p[positions] (nanoGPT, Radford et al. 2019)."""

    def __init__(self, cfg: TinyGPTConfig, tokenizer: Tokenizer) -> None:
        super().__init__()
        if tokenizer.vocab_size > cfg.vocab_size:
            raise UserError(f"tokenizer has {tokenizer.vocab_size} tokens, config allows {cfg.vocab_size}")
        self.cfg, self.tokenizer = cfg, tokenizer
        self.max_length, self.vocab_size = cfg.block_size, cfg.vocab_size
        self.wte = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.wpe = nn.Embedding(cfg.block_size, cfg.d_model)
        self.blocks = nn.ModuleList(_Block(cfg) for _ in range(cfg.n_layer))
        self.ln_f = nn.LayerNorm(cfg.d_model)
        self.apply(self._init)
        self.train_info: dict[str, float] = {}

    @staticmethod
    def _init(m: nn.Module) -> None:
        if isinstance(m, nn.Linear | nn.Embedding):
            nn.init.normal_(m.weight, 0.0, 0.02)
        if isinstance(m, nn.Linear) and m.bias is not None:
            nn.init.zeros_(m.bias)

    def forward(self, ids: torch.Tensor, positions: torch.Tensor, key_mask: torch.Tensor,
                cache: KVCache | None = None) -> torch.Tensor:
        x = self.wte(ids) + self.wpe(positions)  # (B, T, d)
        for i, block in enumerate(self.blocks):
            x = block(x, key_mask, cache, i)
        if cache is not None:
            cache.length += ids.shape[1]
        return F.linear(self.ln_f(x), self.wte.weight)  # (B, T, V)

    def new_cache(self, batch: int, max_len: int) -> KVCache:
        d = self.cfg.d_model // self.cfg.n_head
        return KVCache(self.cfg.n_layer, batch, self.cfg.n_head, max_len, d)

    def state(self) -> bytes:
        buf = io.BytesIO()
        torch.save({"cfg": dataclasses.asdict(self.cfg), "tokenizer": self.tokenizer.to_json(),
                    "weights": self.state_dict(), "info": self.train_info}, buf)
        return buf.getvalue()

    @classmethod
    def from_state(cls, blob: bytes) -> TinyGPT:
        return cls.from_dict(torch.load(io.BytesIO(blob), weights_only=True))

    @classmethod
    def from_dict(cls, d: dict) -> TinyGPT:
        """The model `state()` saved, from its already-loaded dict."""
        model = cls(TinyGPTConfig(**d["cfg"]), Tokenizer.from_json(d["tokenizer"]))
        model.load_state_dict(d["weights"])
        model.train_info = dict(d["info"])
        return model.eval()


def tiny_gpt(config: TinyGPTConfig | None = None, tokenizer: Tokenizer | None = None) -> TinyGPT:
    """An untrained TinyGPT; with no tokenizer, a byte-level one (256 bytes + end of text)."""
    cfg = config or TinyGPTConfig()
    if tokenizer is None:
        tokenizer = Tokenizer.train([bytes(range(32, 127)).decode()], kind="bpe", vocab_size=257)
    return TinyGPT(cfg, tokenizer)


# ---- training -----------------------------------------------------------------------------------------

def token_stream(tokenizer: Tokenizer, texts: Sequence[str]) -> np.ndarray:
    """All texts as one id stream, an end-of-text token after each."""
    eos = tokenizer.eos_ids[0]
    ids = [x for doc in tokenizer.encode_batch(list(texts)) for x in (*doc, eos)]
    return np.asarray(ids, dtype=np.int64)


def fit(model: CausalLM, ids: np.ndarray, cfg: TrainConfig, block: int) -> float:
    """Train `model` in place on random (block + 1)-token windows of `ids`; returns the final loss
    (mean of the last 5% of steps). One loop serves training from scratch and fine-tuning."""
    from iclr25.core.runtime import progress
    if len(ids) < block + 2:
        raise UserError(f"training text has {len(ids)} tokens; need more than {block + 1}")
    rng = np.random.default_rng(cfg.seed)
    torch.manual_seed(cfg.seed)
    params = [p for p in model.parameters()]
    for p in params:
        p.requires_grad_(True)
    opt = torch.optim.AdamW(params, lr=cfg.lr, weight_decay=cfg.weight_decay, betas=(0.9, 0.95))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / max(cfg.warmup, 1)) * 0.5 * (
        1 + math.cos(math.pi * min(s, cfg.steps) / cfg.steps)))
    model.train()
    losses = []
    offsets = np.arange(block + 1)
    for _ in progress(range(cfg.steps), "training", total=cfg.steps):
        starts = rng.integers(0, len(ids) - block - 1, size=cfg.batch)
        x = torch.from_numpy(ids[starts[:, None] + offsets])  # (B, block + 1)
        loss = model.loss(x)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        sched.step()
        losses.append(float(loss.detach()))
    model.eval().requires_grad_(False)
    return float(np.mean(losses[-max(1, cfg.steps // 20):]))


def _text_hash(texts: Sequence[str]) -> str:
    h = hashlib.sha256()
    for t in texts:
        h.update(t.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()[:16]


def train_lm(texts: Sequence[str], config: TinyGPTConfig | None = None, train: TrainConfig | None = None,
             cache: bool = True) -> TinyGPT:
    """A TinyGPT with a tokenizer fitted to `texts`, trained on them; cached under cache_dir() by
    (texts, config, training config), so a second call loads it. `model.train_info` holds the final
    loss, the token count and the training time."""
    from iclr25.core.runtime import atomic_write, cache_dir, config_hash, timer
    cfg, tcfg = config or TinyGPTConfig(), train or TrainConfig()
    texts = [t for t in texts if isinstance(t, str) and t.strip()]
    if not texts:
        raise UserError("train_lm needs at least one non-empty text")
    key = config_hash({"cfg": dataclasses.asdict(cfg), "train": dataclasses.asdict(tcfg),
                       "texts": _text_hash(texts), "v": _CACHE_VERSION})
    path = cache_dir() / "models" / f"tiny-gpt-{key}.pt"
    if cache and path.is_file():
        try:
            model = TinyGPT.from_state(path.read_bytes())
            model.fingerprint = key
            return model
        except (RuntimeError, KeyError, ValueError, OSError):
            pass  # damaged: retrain
    tok = Tokenizer.train(texts, kind=cfg.tokenizer, vocab_size=cfg.vocab_size)
    model = TinyGPT(cfg, tok)
    model.fingerprint = key  # identifies (texts, config, training) for caches built on the model
    ids = token_stream(tok, texts)
    with timer() as t:
        loss = fit(model, ids, tcfg, cfg.block_size)
    model.train_info = {"final_loss": loss, "train_tokens": int(len(ids)), "train_s": t["s"],
                        "params": model.n_params}
    if cache:
        with atomic_write(path) as f:
            f.write(model.state())
    return model


def finetune(model: CausalLM, texts: Sequence[str], train: TrainConfig, block: int = 64) -> CausalLM:
    """A copy of any model after `train.steps` AdamW steps of next-token loss on `texts` (a fine-tune on
    another domain); the original is untouched."""
    import copy
    tok = model.tokenizer
    out = copy.deepcopy(model)
    ids = token_stream(tok, [t for t in texts if t])
    info = {"final_loss": fit(out, ids, train, min(block, model.max_length - 1)), "train_tokens": len(ids)}
    out.train_info = info
    return out

