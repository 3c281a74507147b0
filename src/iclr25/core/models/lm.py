"""What every causal language model here shares (SmolLM2, TinyGPT, their distortions): masked attention
over a preallocated KV cache, batched sampling with left padding, per-token log-probs and next-token
distributions. A model only implements `forward(ids, positions, key_mask, cache)`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812
from torch import nn

from iclr25.core.errors import UserError
from iclr25.core.models.tokenizer import Tokenizer


class KVCache:
    """Keys and values of every layer, preallocated for `max_len` slots: (B, H_kv, max_len, D)."""

    def __init__(self, n_layer: int, batch: int, n_kv_head: int, max_len: int, head_dim: int) -> None:
        shape = (batch, n_kv_head, max_len, head_dim)
        self.k = [torch.zeros(shape) for _ in range(n_layer)]
        self.v = [torch.zeros(shape) for _ in range(n_layer)]
        self.length = 0  # slots filled before the current forward

    def update(self, layer: int, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Store this forward's (B, H, T, D) keys/values at the next slots; return all keys/values."""
        end = self.length + k.shape[2]
        self.k[layer][:, :, self.length:end] = k
        self.v[layer][:, :, self.length:end] = v
        return self.k[layer][:, :, :end], self.v[layer][:, :, :end]


def attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, key_mask: torch.Tensor) -> torch.Tensor:
    """Causal attention of T new queries (B, H, T, D) over S >= T keys (B, H_kv, S, D), the queries being
    the last T slots. Key j is visible to query i iff j <= i and key j is not padding; a padding query
    also sees itself, so its (unused) output stays finite instead of NaN."""
    T, S = q.shape[2], k.shape[2]  # noqa: N806
    q_slot = torch.arange(S - T, S)[:, None]  # (T, 1)
    k_slot = torch.arange(S)[None, :]  # (1, S)
    allowed = ((k_slot <= q_slot) & key_mask[:, None, None, :]) | (k_slot == q_slot)  # (B, 1, T, S)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, enable_gqa=k.shape[1] != q.shape[1])


def row_seed(seed: int, row: int) -> int:
    """The sampling seed of prompt number `row`: each prompt has its own random stream, so a completion
    does not depend on which other prompts share its batch."""
    return int(np.random.SeedSequence([int(seed) % 2**63, int(row)]).generate_state(2, np.uint64)[0] >> 1)


def top_p_filter(probs: torch.Tensor, top_p: float) -> torch.Tensor:
    """Nucleus sampling: keep the smallest set of most likely tokens whose mass reaches top_p; renormalise.

    >>> top_p_filter(torch.tensor([[0.5, 0.3, 0.15, 0.05]]), 0.7)
    tensor([[0.6250, 0.3750, 0.0000, 0.0000]])
    """
    sorted_p, order = probs.sort(dim=-1, descending=True)
    keep_sorted = (sorted_p.cumsum(-1) - sorted_p) < top_p
    keep = torch.zeros_like(keep_sorted).scatter(-1, order, keep_sorted)
    p = probs * keep
    return p / p.sum(-1, keepdim=True)


def _check_sampling(max_new_tokens: int, temperature: float, top_p: float, batch: int) -> None:
    if max_new_tokens < 1:
        raise UserError(f"max_new_tokens must be >= 1, got {max_new_tokens}")
    if not (temperature >= 0 and np.isfinite(temperature)):
        raise UserError(f"temperature must be a finite number >= 0, got {temperature}")
    if not 0 < top_p <= 1:
        raise UserError(f"top_p must be in (0, 1], got {top_p}")
    if batch < 1:
        raise UserError(f"batch must be >= 1, got {batch}")


def _left_pad(seqs: Sequence[Sequence[int]], pad: int, extra: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(ids (B, T), key_mask (B, T + extra)): sequences right-aligned, padding on the left."""
    T = max(len(s) for s in seqs)  # noqa: N806
    ids = torch.full((len(seqs), T), pad, dtype=torch.long)
    mask = torch.zeros((len(seqs), T + extra), dtype=torch.bool)
    for i, s in enumerate(seqs):
        if len(s):
            ids[i, T - len(s):] = torch.as_tensor(list(s), dtype=torch.long)
            mask[i, T - len(s):T] = True
    return ids, mask


class CausalLM(nn.Module):
    """Base of every language model here. Subclasses set `tokenizer`, `max_length`, `vocab_size` and
    implement `forward` and `new_cache`; distortions that act on logits override `bias_logits`."""

    tokenizer: Tokenizer
    max_length: int  # positions the model can attend over
    vocab_size: int

    def forward(self, ids: torch.Tensor, positions: torch.Tensor, key_mask: torch.Tensor,
                cache: KVCache | None = None) -> torch.Tensor:
        """Logits (B, T, V) of the token after each of `ids` (B, T), given positions (B, T), which key
        slots are real (B, S) and the cache of earlier slots (S = cached + T); a forward with a cache
        stores its keys/values and advances `cache.length` by T."""
        raise NotImplementedError

    def new_cache(self, batch: int, max_len: int) -> KVCache:
        raise NotImplementedError

    def bias_logits(self, prev: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
        """Logits (B, T, V) after the model's own post-processing, given the token before each
        position (B, T); identity except for logit-level distortions (a watermark)."""
        return logits

    # ---- helpers ----------------------------------------------------------------------------------
    def _context(self, prompt: str) -> list[int]:
        """Prompt ids; an empty prompt starts from the end-of-sequence token (a document boundary), and a
        prompt longer than half the context keeps its last tokens (room is left to generate)."""
        return (self.tokenizer.encode(prompt) or [self.tokenizer.eos_ids[0]])[-(self.max_length // 2):]

    def _check_ids(self, seqs: Sequence[Sequence[int]], extra: int = 0) -> None:
        for i, s in enumerate(seqs):
            if len(s) == 0:
                raise UserError(f"sequence {i} is empty")
            if len(s) + extra > self.max_length:
                raise UserError(f"sequence {i} needs {len(s) + extra} positions; the model has "
                                f"{self.max_length}")
            lo, hi = min(s), max(s)
            if lo < 0 or hi >= self.vocab_size:
                raise UserError(f"sequence {i} holds token id {lo if lo < 0 else hi} outside "
                                f"[0, {self.vocab_size})")

    def score(self, ids: torch.Tensor, key_mask: torch.Tensor) -> torch.Tensor:
        """Log-probs (B, T, V) of the next token at every position of left-padded `ids` (no cache)."""
        positions = (key_mask.long().cumsum(1) - 1).clamp_min(0)
        logits = self(ids, positions, key_mask)
        prev = ids  # the token before position t+1 is ids[:, t]
        return torch.log_softmax(self.bias_logits(prev, logits).float(), dim=-1)

    # ---- public API -------------------------------------------------------------------------------
    @torch.no_grad()
    def distributions(self, seqs: Sequence[Sequence[int]], batch: int = 8,
                      ) -> Iterator[tuple[list[int], torch.Tensor, torch.Tensor]]:
        """For each batch: (rows, log-probs (B, T, V), valid (B, T)); position t predicts the token after
        ids[t] of the left-padded rows. Feeds per-token divergences between models."""
        self._check_ids(seqs)
        for start in range(0, len(seqs), batch):
            rows = list(range(start, min(start + batch, len(seqs))))
            ids, mask = _left_pad([seqs[r] for r in rows], self.tokenizer.pad_id, 0)
            yield rows, self.score(ids, mask), mask

    @torch.no_grad()
    def logprobs(self, texts: Sequence[str], prompts: Sequence[str] | None = None,
                 batch: int = 8) -> list[np.ndarray]:
        """log p(token_i | prompt, tokens before i) for every token of each text (float32 arrays).
        Without prompts the context starts at the end-of-sequence token, so every token is scored."""
        texts = list(texts)
        if prompts is not None and len(prompts) != len(texts):
            raise UserError(f"{len(prompts)} prompts for {len(texts)} texts")
        targets = self.tokenizer.encode_batch(texts)
        ctxs = [self._context(p) for p in prompts] if prompts is not None else \
            [[self.tokenizer.eos_ids[0]]] * len(texts)
        seqs = [c + t for c, t in zip(ctxs, targets, strict=True)]
        out: list[np.ndarray] = [np.zeros(0, np.float32)] * len(texts)
        for rows, logp, _ in self.distributions(seqs, batch):
            T = logp.shape[1]  # noqa: N806
            for b, r in enumerate(rows):
                n = len(targets[r])
                if n == 0:
                    continue
                tgt = torch.as_tensor(targets[r], dtype=torch.long)
                lp = logp[b, T - 1 - n:T - 1].gather(-1, tgt[:, None])[:, 0]  # predictions of the targets
                out[r] = lp.numpy().astype(np.float32)
        return out

    @torch.no_grad()
    def generate_ids(self, prompts: Sequence[Sequence[int]], max_new_tokens: int = 50,
                     temperature: float = 1.0, top_p: float = 1.0, seed: int = 0, batch: int = 16,
                     stop_at_eos: bool = True, streams: Sequence[int] | None = None) -> list[list[int]]:
        """Sampled continuations (token ids, end-of-sequence excluded) of each prompt. Batched with left
        padding and a KV cache; prompt number i samples from its own seeded stream `row_seed(seed,
        streams[i])` (default streams[i] = i), so a completion does not depend on its batch, and a
        larger sample can extend a smaller one. Temperature 0 is greedy decoding."""
        _check_sampling(max_new_tokens, temperature, top_p, batch)
        self._check_ids(prompts, max_new_tokens)
        streams = list(range(len(prompts))) if streams is None else [int(s) for s in streams]
        if len(streams) != len(prompts):
            raise UserError(f"{len(streams)} streams for {len(prompts)} prompts")
        order = sorted(range(len(prompts)), key=lambda i: -len(prompts[i]))  # similar lengths together
        out: list[list[int]] = [[] for _ in prompts]
        from iclr25.core.runtime import progress
        for start in progress(range(0, len(order), batch), "sampling", total=-(-len(order) // batch)):
            rows = order[start:start + batch]
            new = self._generate_batch([prompts[r] for r in rows], [streams[r] for r in rows], max_new_tokens,
                                       temperature, top_p, seed, stop_at_eos)
            for r, ids in zip(rows, new, strict=True):
                out[r] = ids
        return out

    def _generate_batch(self, prompts: list[Sequence[int]], rows: list[int], max_new: int,
                        temperature: float, top_p: float, seed: int, stop_at_eos: bool) -> list[list[int]]:
        B = len(prompts)  # noqa: N806
        ids, mask = _left_pad(prompts, self.tokenizer.pad_id, max_new)
        T = ids.shape[1]  # noqa: N806
        positions = (mask[:, :T].long().cumsum(1) - 1).clamp_min(0)
        cache = self.new_cache(B, T + max_new)
        logits = self(ids, positions, mask[:, :T], cache)[:, -1:]  # (B, 1, V)
        gens = [torch.Generator().manual_seed(row_seed(seed, r)) for r in rows]
        eos = torch.tensor(self.tokenizer.eos_ids if stop_at_eos else [], dtype=torch.long)
        prev, pos = ids[:, -1:], positions[:, -1:]
        out = torch.full((B, max_new), -1, dtype=torch.long)
        done = torch.zeros(B, dtype=torch.bool)
        for t in range(max_new):
            nxt = _sample(self.bias_logits(prev, logits)[:, 0].float(), temperature, top_p, gens)  # (B,)
            done |= torch.isin(nxt, eos)
            out[:, t] = torch.where(done, -1, nxt)
            if bool(done.all()) or t == max_new - 1:
                break
            mask[:, T + t] = True
            prev, pos = nxt[:, None], pos + 1
            logits = self(prev, pos, mask[:, :T + t + 1], cache)
        return [[int(x) for x in row if x >= 0] for row in out]

    def generate(self, prompts: Sequence[str], max_new_tokens: int = 50, temperature: float = 1.0,
                 top_p: float = 1.0, seed: int = 0, batch: int = 16) -> list[str]:
        """Sampled text continuations of each prompt (see `generate_ids`)."""
        ids = self.generate_ids([self._context(p) for p in prompts], max_new_tokens, temperature, top_p,
                                seed, batch)
        return [self.tokenizer.decode(x) for x in ids]

    def loss(self, ids: torch.Tensor) -> torch.Tensor:
        """Mean next-token cross-entropy on full windows (B, T + 1) (training)."""
        x, y = ids[:, :-1], ids[:, 1:]
        positions = torch.arange(x.shape[1]).expand_as(x)
        logits = self(x, positions, torch.ones_like(x, dtype=torch.bool))
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))

    @property
    def n_params(self) -> int:
        return sum(p.numel() for p in self.parameters())


def _sample(logits: torch.Tensor, temperature: float, top_p: float, gens: list[torch.Generator],
            ) -> torch.Tensor:
    """One token per row (B, V) -> (B,): inverse-CDF sampling with one uniform per row from its own
    generator; temperature 0 is argmax."""
    if temperature == 0:
        return logits.argmax(-1)
    probs = torch.softmax(logits / temperature, dim=-1)
    if top_p < 1:
        probs = top_p_filter(probs, top_p)
    cdf = probs.double().cumsum(-1)
    u = torch.stack([torch.rand((), generator=g, dtype=torch.float64) for g in gens])  # (B,)
    idx = torch.searchsorted(cdf, (u * cdf[:, -1])[:, None]).squeeze(1)
    return idx.clamp_max(logits.shape[-1] - 1)
