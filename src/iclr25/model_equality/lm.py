"""A small causal character LM trained here, so that distortions are real transformations of real weights.

Corpus: docstrings of the Python standard library (every machine with Python has it). Model: a
Bengio-style MLP over the previous `context` characters; it trains in seconds on a CPU and samples
whole batches of completions per step. Checkpoints are cached under `cache_dir()` by config hash.
"""

from __future__ import annotations

import ast
import io
import json
import sysconfig
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from iclr25.core.runtime import atomic_write, cache_dir, config_hash, timer

ALPHABET = "\n" + "".join(chr(c) for c in range(32, 127))  # printable ASCII and newline
EOS = len(ALPHABET)  # end of a docstring
VOCAB = EOS + 1
_CHAR_TO_ID = {c: i for i, c in enumerate(ALPHABET)}


# ---- corpus -------------------------------------------------------------------------------------------

def _stdlib_files() -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    return sorted(p for p in root.glob("*.py") if not p.name.startswith(("test", "_")))


def stdlib_docstrings(max_chars: int) -> list[str]:
    """ASCII docstrings of top-level stdlib modules in sorted file order, until max_chars."""
    out, total = [], 0
    for path in _stdlib_files():
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                doc = ast.get_docstring(node)
                if doc and len(doc) >= 40 and all(c in _CHAR_TO_ID for c in doc):
                    out.append(doc)
                    total += len(doc)
        if total >= max_chars:
            break
    return out


def stdlib_code(max_chars: int, skip_files: int = 40) -> str:
    """ASCII source lines (no docstrings picked out) from later stdlib files: an out-of-distribution
    corpus for fine-tuning."""
    chunks, total = [], 0
    for path in _stdlib_files()[skip_files:]:
        text = path.read_text(encoding="utf-8", errors="replace")
        lines = [ln for ln in text.splitlines() if ln.strip() and all(c in _CHAR_TO_ID for c in ln)]
        chunk = "\n".join(lines)
        chunks.append(chunk)
        total += len(chunk)
        if total >= max_chars:
            break
    return "\n".join(chunks)[:max_chars]


def to_ids(text: str) -> np.ndarray:
    return np.array([_CHAR_TO_ID[c] for c in text], dtype=np.int64)


def to_text(ids: np.ndarray) -> str:
    """Ids back to text, stopping at EOS or the pad symbol (negative)."""
    chars = []
    for i in ids:
        if i < 0 or i >= EOS:
            break
        chars.append(ALPHABET[i])
    return "".join(chars)


@dataclass(frozen=True)
class CorpusConfig:
    max_chars: int = 300_000  # training docstrings
    prompt_chars: int = 32  # prompts are the first 32 chars of held-out docstrings (spec §4)
    holdout_every: int = 10  # every 10th docstring is held out for prompts


def build_corpus(cfg: CorpusConfig) -> tuple[np.ndarray, list[str]]:
    """(training ids with EOS between docstrings, held-out prompts), cached."""
    path = cache_dir() / "model_equality" / f"corpus-{config_hash(asdict(cfg))}.npz"
    if path.is_file():
        d = np.load(path)
        return d["train"], json.loads(str(d["prompts"]))
    docs = stdlib_docstrings(cfg.max_chars)
    train, prompts = [], []
    for i, doc in enumerate(docs):
        if i % cfg.holdout_every == cfg.holdout_every - 1:
            if len(doc) >= cfg.prompt_chars:
                prompts.append(doc[: cfg.prompt_chars])
        else:
            train.append(np.append(to_ids(doc), EOS))
    ids = np.concatenate(train)
    buf = io.BytesIO()
    np.savez(buf, train=ids, prompts=json.dumps(prompts))
    with atomic_write(path) as f:
        f.write(buf.getvalue())
    return ids, prompts


# ---- model --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LMConfig:
    context: int = 12  # characters of context
    emb: int = 24
    hidden: int = 192
    steps: int = 1500
    batch: int = 256
    lr: float = 3e-3
    seed: int = 0  # a different seed trains the "swapped" model
    corpus: CorpusConfig = CorpusConfig()


class CharMLP(nn.Module):
    """logits(next char | previous `context` chars) = W2 tanh(W1 [e(c_1); ...; e(c_k)] + b1) + b2."""

    def __init__(self, cfg: LMConfig) -> None:
        super().__init__()
        self.context = cfg.context
        self.emb = nn.Embedding(VOCAB, cfg.emb)
        self.fc1 = nn.Linear(cfg.context * cfg.emb, cfg.hidden)
        self.fc2 = nn.Linear(cfg.hidden, VOCAB)

    def forward(self, ctx: torch.Tensor) -> torch.Tensor:
        e = self.emb(ctx).flatten(1)  # (B, context * emb)
        h = torch.tanh(self.fc1(e))  # (B, hidden)
        return self.fc2(h)  # (B, VOCAB)


def random_windows(ids: np.ndarray, context: int, batch: int, rng: np.random.Generator):
    pos = rng.integers(context, len(ids), size=batch)
    x = np.stack([ids[p - context:p] for p in pos])
    return torch.from_numpy(x), torch.from_numpy(ids[pos])


def train_steps(model: CharMLP, ids: np.ndarray, steps: int, batch: int, lr: float, seed: int,
                weight_decay: float = 0.0) -> float:
    """`steps` AdamW steps of next-character cross-entropy on random windows; returns the last loss."""
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    loss = torch.tensor(float("nan"))
    model.train()
    for _ in range(steps):
        x, y = random_windows(ids, model.context, batch, rng)
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    return float(loss.detach())


def load_or_train(cfg: LMConfig) -> tuple[CharMLP, dict]:
    """The trained model for `cfg` (cached checkpoint) and its training info."""
    path = cache_dir() / "model_equality" / f"charmlp-{config_hash(asdict(cfg))}.pt"
    torch.manual_seed(cfg.seed)
    model = CharMLP(cfg)
    if path.is_file():
        blob = torch.load(path, weights_only=True)
        model.load_state_dict(blob["state"])
        model.eval()
        return model, dict(blob["info"])
    ids, _ = build_corpus(cfg.corpus)
    with timer() as t:
        loss = train_steps(model, ids, cfg.steps, cfg.batch, cfg.lr, cfg.seed)
    info = {"final_loss": loss, "train_s": t["s"], "train_chars": int(len(ids)),
            "params": sum(p.numel() for p in model.parameters())}
    buf = io.BytesIO()
    torch.save({"state": model.state_dict(), "info": info}, buf)
    with atomic_write(path) as f:
        f.write(buf.getvalue())
    return model, info
