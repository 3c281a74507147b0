"""FoldedVAR: VAR-style next-scale autoregression over the tokenizer's token pyramid, with ImageFolder's
folded tokens (spec §2, "Generator").

One AR step is one scale: all positions of scale i are predicted at once, conditioned on the coarser
scales (block-causal mask in training, a KV cache in sampling). The input at scale i+1 is
word_embed(AreaDown_{s_{i+1}}(f_hat_{<=i})), where f_hat concatenates the branches: the `branches`
tokens of a position are folded into one embedding, and the head emits branches * V logits split into
one V-way softmax per branch. With `fold=False` each branch token is its own position (the unfolded
baseline: twice the sequence, one V-way head, a learned branch embedding). Class conditioning enters as
the start token and through AdaLN; sampling uses the CFG ramp and top-k / top-p."""

from __future__ import annotations

import io
import math
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from iclr25.core.errors import UserError
from iclr25.core.runtime import atomic_write, progress
from iclr25.imagefolder.data import as_labels
from iclr25.imagefolder.optim import warmup_cosine
from iclr25.imagefolder.quantizer import area_down
from iclr25.imagefolder.sampling import cfg_ramp, check_sampling, guide, sample
from iclr25.imagefolder.tokenizer import Codes, MSRQTokenizer, load_checkpoint

CHECKPOINT_KIND = "iclr25.imagefolder.ar"
CHECKPOINT_VERSION = 1


@dataclass(frozen=True)
class VARConfig:
    """Defaults: the issue's CPU scale (paper: VAR depth 17, 362M parameters); cond_drop 0.1, CFG 3.25
    and top-p 0.95 are the paper's; top-k 46 is the paper's 750 of 4,096 scaled to V = 256."""

    num_classes: int
    depth: int = 3
    width: int = 128
    heads: int = 4
    mlp_ratio: float = 4.0
    fold: bool = True
    cond_drop: float = 0.1

    def validate(self) -> VARConfig:
        if self.num_classes < 1:
            raise UserError(f"num_classes must be >= 1, got {self.num_classes}")
        for name in ("depth", "width", "heads"):
            if getattr(self, name) < 1:
                raise UserError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.width % self.heads:
            raise UserError(f"width {self.width} is not divisible by heads {self.heads}")
        if not 0.0 <= self.cond_drop < 1.0:
            raise UserError(f"cond_drop must be in [0, 1), got {self.cond_drop}")
        return self


class KVCache:
    """Keys and values of every position seen so far, (B, heads, L, head_dim) each."""

    def __init__(self) -> None:
        self.k: torch.Tensor | None = None
        self.v: torch.Tensor | None = None

    def extend(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        self.k = k if self.k is None else torch.cat([self.k, k], dim=2)
        self.v = v if self.v is None else torch.cat([self.v, v], dim=2)
        return self.k, self.v


class SelfAttention(nn.Module):
    def __init__(self, width: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)

    def forward(self, x: torch.Tensor, bias: torch.Tensor | None = None,
                cache: KVCache | None = None) -> torch.Tensor:
        b, n, c = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        if cache is not None:
            k, v = cache.extend(k, v)  # (B, h, L_so_far, hd)
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)  # (B, h, n, hd)
        return self.proj(o.transpose(1, 2).reshape(b, n, c))


class AdaLNBlock(nn.Module):
    """x += g1 * attn(LN(x)(1 + s1) + b1); x += g2 * ffn(LN(x)(1 + s2) + b2); (g, s, b) from the class.
    The AdaLN projection starts at zero, so every block starts as the identity."""

    def __init__(self, width: int, heads: int, mlp_ratio: float):
        super().__init__()
        hidden = int(width * mlp_ratio)
        self.ln1 = nn.LayerNorm(width, elementwise_affine=False, eps=1e-6)
        self.ln2 = nn.LayerNorm(width, elementwise_affine=False, eps=1e-6)
        self.attn = SelfAttention(width, heads)
        self.ffn = nn.Sequential(nn.Linear(width, hidden), nn.GELU(approximate="tanh"),
                                 nn.Linear(hidden, width))
        self.ada = nn.Sequential(nn.SiLU(), nn.Linear(width, 6 * width))
        nn.init.zeros_(self.ada[1].weight)
        nn.init.zeros_(self.ada[1].bias)

    def forward(self, x: torch.Tensor, cond: torch.Tensor, bias: torch.Tensor | None = None,
                cache: KVCache | None = None) -> torch.Tensor:
        g1, g2, s1, s2, b1, b2 = self.ada(cond).unsqueeze(1).chunk(6, dim=-1)  # each (B, 1, C)
        x = x + self.attn(self.ln1(x) * (1 + s1) + b1, bias, cache) * g1
        return x + self.ffn(self.ln2(x) * (1 + s2) + b2) * g2


class AdaLNHead(nn.Module):
    """LN(x)(1 + s) + b with (s, b) from the class, then the logits."""

    def __init__(self, width: int, out: int):
        super().__init__()
        self.ln = nn.LayerNorm(width, elementwise_affine=False, eps=1e-6)
        self.ada = nn.Sequential(nn.SiLU(), nn.Linear(width, 2 * width))
        self.head = nn.Linear(width, out)

    def forward(self, x: torch.Tensor, cond: torch.Tensor) -> torch.Tensor:
        s, b = self.ada(cond).unsqueeze(1).chunk(2, dim=-1)
        return self.head(self.ln(x) * (1 + s) + b)


class FoldedVAR(nn.Module):
    """Class-conditional next-scale AR model over a fitted MSRQTokenizer's tokens.

    >>> import numpy as np
    >>> x = np.random.default_rng(0).random((32, 1, 8, 8), dtype=np.float32)
    >>> tok = MSRQTokenizer(patch=4, scales=(1, 2), codebook=8, dim=4, width=16, depth=1,
    ...                     semantic=None, epochs=1).fit(x)
    >>> ar = FoldedVAR(tok, num_classes=2, depth=1, width=16).fit(x, np.arange(32) % 2, epochs=1)
    >>> ar.positions, ar.generate([0, 1], seed=0).shape
    (5, (2, 1, 8, 8))
    """

    def __init__(self, tok: MSRQTokenizer, num_classes: int, depth: int = 3, width: int = 128,
                 fold: bool = True, *, heads: int = 4, mlp_ratio: float = 4.0, cond_drop: float = 0.1,
                 class_names: tuple[str, ...] | None = None):
        super().__init__()
        self.config = VARConfig(num_classes, depth, width, heads, mlp_ratio, fold, cond_drop).validate()
        if class_names is not None and len(class_names) != num_classes:
            raise UserError(f"{len(class_names)} class names for {num_classes} classes")
        self.class_names = tuple(class_names) if class_names is not None else None
        tcfg = tok.config
        tok.fingerprint()  # a UserError when the tokenizer is not fitted
        self.tok_proxy = (tok,)  # a reference, not a sub-module: the tokenizer stays frozen and unsaved
        self.tokenizer_fingerprint = tok.fingerprint()
        self.scales, self.nb, self.V, self.d = tcfg.scales, tcfg.branches, tcfg.codebook, tcfg.dim
        self.fold = fold
        per = 1 if fold else self.nb  # positions per token-map cell
        self.per_scale = [s * s * per for s in self.scales]
        L = self.positions = sum(self.per_scale)
        self.first = self.per_scale[0]
        init = math.sqrt(1 / width / 3)
        self.word_embed = nn.Linear(self.nb * self.d if fold else self.d, width)
        self.branch_embed = None if fold else nn.Embedding(self.nb, width)
        self.class_emb = nn.Embedding(num_classes + 1, width)  # the last row is the "no class" of CFG
        self.pos_start = nn.Parameter(torch.randn(1, self.first, width) * init)
        self.pos = nn.Parameter(torch.randn(1, L, width) * init)
        self.lvl_embed = nn.Embedding(len(self.scales), width)
        for emb in (self.class_emb, self.lvl_embed) + ((self.branch_embed,) if self.branch_embed else ()):
            nn.init.trunc_normal_(emb.weight, std=init)
        lvl = torch.cat([torch.full((n,), i) for i, n in enumerate(self.per_scale)])
        branch = torch.cat([torch.arange(per).repeat_interleave(s * s) for s in self.scales])
        self.register_buffer("lvl", lvl, persistent=False)
        self.register_buffer("branch", branch, persistent=False)
        # block-causal: position i sees j iff scale(j) <= scale(i)
        self.register_buffer("bias", torch.where(lvl[None, :] <= lvl[:, None], 0.0, -torch.inf),
                             persistent=False)
        self.blocks = nn.ModuleList(AdaLNBlock(width, heads, mlp_ratio) for _ in range(depth))
        self.head = AdaLNHead(width, self.nb * self.V if fold else self.V)
        self.history_: dict[str, list[float] | float] = {"loss": [], "seconds": 0.0}

    @property
    def tok(self) -> MSRQTokenizer:
        return self.tok_proxy[0]

    # ---- sequences ---------------------------------------------------------------------------------

    @torch.no_grad()
    def teacher_inputs(self, codes: Codes) -> torch.Tensor:
        """Inputs of scales 2..S: (B, L - first, branches*d) folded, (B, L - first, d) unfolded."""
        per_branch = [q.next_inputs(cb) for q, cb in zip(self.tok.net.quantizers, codes, strict=True)]
        per_scale = [torch.cat(parts, dim=-1 if self.fold else 1) for parts in zip(*per_branch, strict=True)]
        if not per_scale:  # a single scale: nothing but the start token
            return torch.zeros(len(codes[0][0]), 0, self.word_embed.in_features)
        return torch.cat(per_scale, dim=1)

    def targets(self, codes: Codes) -> torch.Tensor:
        """(B, L, branches) folded, (B, L) unfolded."""
        if self.fold:
            return torch.cat([torch.stack(zs, dim=-1) for zs in zip(*codes, strict=True)], dim=1)
        return torch.cat([torch.cat(zs, dim=1) for zs in zip(*codes, strict=True)], dim=1)

    def _embed(self, x_in: torch.Tensor, start: int) -> torch.Tensor:
        h = self.word_embed(x_in)
        if self.branch_embed is not None:
            h = h + self.branch_embed(self.branch[start:start + h.shape[1]])
        return h

    def forward(self, labels: torch.Tensor, x_in: torch.Tensor) -> torch.Tensor:
        """Teacher-forced logits: (B, L, branches*V) folded, (B, L, V) unfolded."""
        b = len(labels)
        cond = self.class_emb(labels)  # (B, C)
        sos = cond.unsqueeze(1).expand(b, self.first, -1) + self.pos_start
        x = torch.cat([sos, self._embed(x_in, self.first)], dim=1) + self.lvl_embed(self.lvl) + self.pos
        for blk in self.blocks:
            x = blk(x, cond, self.bias)
        return self.head(x, cond)

    def loss(self, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Cross-entropy over every token (both halves of the split head when folded)."""
        return F.cross_entropy(logits.reshape(-1, self.V), targets.reshape(-1))

    # ---- training -----------------------------------------------------------------------------------

    def fit(self, images, labels=None, epochs: int = 2, batch_size: int = 128, lr: float = 8e-3,
            seed: int = 0, steps: int | None = None) -> FoldedVAR:
        """Encode the images with the tokenizer and train on their token pyramids (`steps` optimiser steps
        in all when given, else `epochs` passes over the images)."""
        codes = self.tok.encode(images)
        return self.fit_codes(codes, labels, epochs, batch_size, lr, seed, steps)

    def fit_codes(self, codes: Codes, labels=None, epochs: int = 2, batch_size: int = 128,
                  lr: float = 8e-3, seed: int = 0, steps: int | None = None) -> FoldedVAR:
        import time

        n = len(codes[0][0])
        y = self._labels(labels, n)
        if epochs < 1 or batch_size < 1 or not lr > 0 or (steps is not None and steps < 1):
            raise UserError(f"epochs >= 1, steps >= 1, batch_size >= 1 and lr > 0 needed, "
                            f"got {epochs}, {steps}, {batch_size}, {lr}")
        x_in = torch.cat([self.teacher_inputs([[c[i:i + 1000] for c in cb] for cb in codes])
                          for i in range(0, n, 1000)])  # (N, L - first, in)
        tgt = self.targets(codes)
        g = torch.Generator().manual_seed(seed)
        torch.manual_seed(seed)
        bs = min(batch_size, n)
        per_epoch = -(-n // bs)
        total = steps if steps is not None else epochs * per_epoch
        opt = torch.optim.AdamW(self.parameters(), lr=lr, betas=(0.9, 0.95), weight_decay=0.05)
        sched = warmup_cosine(opt, total)
        t0 = time.perf_counter()
        self.train()
        perm, pos, tot, cnt = torch.randperm(n, generator=g), 0, 0.0, 0
        for step in progress(range(1, total + 1), "AR steps", total=total):
            if pos >= n:  # a new pass over the codes
                perm, pos = torch.randperm(n, generator=g), 0
            idx = perm[pos:pos + bs]
            pos += bs
            lab = y[idx].clone()
            drop = torch.rand(len(idx), generator=g) < self.config.cond_drop  # class dropout for CFG
            lab[drop] = self.config.num_classes
            loss = self.loss(self(lab, x_in[idx]), tgt[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            tot, cnt = tot + loss.item() * len(idx), cnt + len(idx)
            if step % per_epoch == 0 or step == total:  # the mean loss per pass (or its last part)
                self.history_["loss"].append(tot / cnt)
                tot, cnt = 0.0, 0
        self.eval()
        self.history_["seconds"] = time.perf_counter() - t0
        return self

    def _labels(self, labels, n: int) -> torch.Tensor:
        if labels is None:
            if self.config.num_classes != 1:
                raise UserError(f"labels are needed for {self.config.num_classes} classes "
                                "(or build the model with num_classes=1)")
            return torch.zeros(n, dtype=torch.long)
        y = as_labels(labels, n)
        self.check_classes(y)
        return torch.as_tensor(y)

    def class_index(self, name_or_index: str | int) -> int:
        """The class index of a class name (as the training folder's sub-folders named them; case does not
        matter), else of an index given as text ("3"). A name wins over an index: with sub-folders named
        1, 2, 3, "--class 1" is the folder "1"."""
        text = str(name_or_index).strip()
        names = self.class_names or ()
        for i, name in enumerate(names):
            if name.lower() == text.lower():
                return i
        if text.lstrip("-").isdigit() and len(text) < 12:
            idx = int(text)
            self.check_classes([idx])
            return idx
        known = (", ".join(names) if names else
                 f"none: this model knows indices 0..{self.config.num_classes - 1}")
        raise UserError(f"unknown class {text[:40]!r} (class names: {known[:200]})")

    def check_classes(self, y) -> None:
        y = np.asarray(y)
        if len(y) and (y.min() < 0 or y.max() >= self.config.num_classes):
            bad = int(y.max()) if y.max() >= self.config.num_classes else int(y.min())
            raise UserError(f"class {bad} is out of range: the model has "
                            f"num_classes={self.config.num_classes}")

    # ---- sampling -------------------------------------------------------------------------------------

    @torch.no_grad()
    def generate_codes(self, labels, cfg: float = 3.25, top_k: int = 46, top_p: float = 0.95,
                       seed: int = 0, cache: bool = True, batch_size: int = 250) -> Codes:
        """Sample token pyramids for the given classes: codes[branch][scale] (N, s*s)."""
        check_sampling(top_k, top_p, cfg)
        y = torch.as_tensor(np.asarray(labels, dtype=np.int64).reshape(-1))
        if len(y) == 0:
            raise UserError("no labels to sample for")
        self.check_classes(y.numpy())
        self.eval()
        g = torch.Generator().manual_seed(seed)
        parts = [self._sample_batch(y[i:i + batch_size], cfg, top_k, top_p, g, cache)
                 for i in range(0, len(y), batch_size)]
        return [[torch.cat([p[b][s] for p in parts]) for s in range(len(self.scales))]
                for b in range(self.nb)]

    def generate(self, labels, cfg: float = 3.25, top_k: int = 46, top_p: float = 0.95, seed: int = 0,
                 cache: bool = True) -> np.ndarray:
        """Sample images (N, C, H, W) in [0, 1] for the given classes."""
        return self.tok.decode(self.generate_codes(labels, cfg, top_k, top_p, seed, cache))

    def _sample_batch(self, y: torch.Tensor, cfg: float, top_k: int, top_p: float, g: torch.Generator,
                      use_cache: bool) -> Codes:
        b, n_s, quants = len(y), len(self.scales), self.tok.net.quantizers
        cond = self.class_emb(torch.cat([y, torch.full_like(y, self.config.num_classes)]))  # (2B, C)
        lvl_pos = self.lvl_embed(self.lvl) + self.pos  # (1, L, C)
        x = cond.unsqueeze(1).expand(2 * b, self.first, -1) + self.pos_start + lvl_pos[:, :self.first]
        caches = [KVCache() for _ in self.blocks] if use_cache else None
        seq = x  # the whole input so far, for the uncached path
        f_hat = [0.0] * self.nb
        codes: Codes = [[] for _ in range(self.nb)]
        cur = 0
        for si, s in enumerate(self.scales):
            n_pos = self.per_scale[si]
            if use_cache:
                h = x
                for blk, c in zip(self.blocks, caches, strict=True):
                    h = blk(h, cond, None, c)
            else:
                h, end = seq, cur + n_pos
                for blk in self.blocks:
                    h = blk(h, cond, self.bias[:end, :end])
                h = h[:, cur:end]
            logits = self.head(h, cond)  # (2B, n_pos, out)
            logits = guide(logits[:b], logits[b:], cfg_ramp(cfg, si, n_s))
            if self.fold:  # split head: one V-way softmax per branch
                zs = [sample(lg, top_k, top_p, g) for lg in logits.split(self.V, dim=-1)]
            else:  # branch-major positions within the scale
                zs = [sample(lg, top_k, top_p, g) for lg in logits.split(s * s, dim=1)]
            for bi, z in enumerate(zs):
                codes[bi].append(z)
                f_hat[bi] = f_hat[bi] + quants[bi].h(si, z)
            cur += n_pos
            if si < n_s - 1:
                nxt = [area_down(f, self.scales[si + 1]).flatten(2).transpose(1, 2) for f in f_hat]
                x_in = torch.cat(nxt, dim=-1 if self.fold else 1)
                x = (self._embed(x_in, cur) + lvl_pos[:, cur:cur + self.per_scale[si + 1]]).repeat(2, 1, 1)
                seq = torch.cat([seq, x], dim=1)
        return codes

    # ---- cost accounting (benchmark) -----------------------------------------------------------------

    def kv_bytes(self, batch: int = 1) -> int:
        """KV-cache size at the end of sampling: 2 (K, V) x blocks x 2B (CFG) x L x width x 4 bytes."""
        return 2 * len(self.blocks) * 2 * batch * self.positions * self.config.width * 4

    def attention_flops(self, batch: int = 1) -> int:
        """Multiply-adds x 2 of QK^T and AV in cached sampling, over all blocks and steps (with CFG)."""
        seen, total = 0, 0
        for n in self.per_scale:
            seen += n
            total += 2 * 2 * n * seen * self.config.width
        return total * len(self.blocks) * 2 * batch

    # ---- persistence ---------------------------------------------------------------------------------

    def save(self, path: str | Path) -> Path:
        state = {"kind": CHECKPOINT_KIND, "version": CHECKPOINT_VERSION, "config": asdict(self.config),
                 "tokenizer_fingerprint": self.tokenizer_fingerprint, "state_dict": self.state_dict(),
                 "history": self.history_, "class_names": list(self.class_names or [])}
        buf = io.BytesIO()
        torch.save(state, buf)
        path = Path(path)
        with atomic_write(path) as f:
            f.write(buf.getvalue())
        return path

    @classmethod
    def load(cls, path: str | Path, tok: MSRQTokenizer) -> FoldedVAR:
        state = load_checkpoint(path, "AR")
        if not isinstance(state, dict) or state.get("kind") != CHECKPOINT_KIND:
            raise UserError(f"{path} is not an ImageFolder AR checkpoint (wrong kind of file)")
        if state.get("version") != CHECKPOINT_VERSION:
            raise UserError(f"AR checkpoint version {state.get('version')} is not supported")
        if state.get("tokenizer_fingerprint") != tok.fingerprint():
            raise UserError(f"mismatched checkpoints: {path} was trained on tokenizer "
                            f"{state.get('tokenizer_fingerprint')}, this tokenizer is {tok.fingerprint()}")
        try:
            c = state["config"]
            names = tuple(str(x) for x in state.get("class_names") or ()) or None
            ar = cls(tok, c["num_classes"], c["depth"], c["width"], c["fold"], heads=c["heads"],
                     mlp_ratio=c["mlp_ratio"], cond_drop=c["cond_drop"], class_names=names)
            ar.load_state_dict(state["state_dict"])
        except (KeyError, TypeError, ValueError, RuntimeError) as e:  # a damaged or edited checkpoint
            raise UserError(f"damaged AR checkpoint {path}: {' '.join(str(e).split())[:120]}") from None
        ar.history_ = state.get("history", ar.history_)
        return ar.eval()
