"""The paper's architecture class, embedding → alternating SSM layers and token-wise FNNs → readout
(spec §2), and the baselines it is compared with: one linear SSM layer, FNN-SSM-FNN, a small Transformer
(attention + the same FNN) and an MLP on fixed positions.

Inputs are token ids (B, L) with 0 as padding (right-padded), or real tokens (B, L, in_features).
`future_mask` (B, L) restricts what a two-sided layer sees of the future (prefix-two-sided LMs)."""

from __future__ import annotations

import re

import torch
from torch import Tensor, nn

from iclr25.core.errors import UserError
from iclr25.ssm_selection.ssm import LTISSMConv

HEADS = ("classify", "lm", "regress")
POOLS = ("last", "mean")
PAD = 0


class TokenFNN(nn.Module):
    """A token-wise ReLU MLP d → hidden → d (the FNN layers of the paper)."""

    def __init__(self, d: int, hidden: int | None = None) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, hidden or 4 * d), nn.ReLU(), nn.Linear(hidden or 4 * d, d))

    def forward(self, x: Tensor) -> Tensor:
        return self.net(x)


class _SequenceModel(nn.Module):
    """Shared input handling (token ids or real tokens, padding) and the three readouts."""

    def __init__(self, vocab: int | None, d: int, head: str, n_out: int | None, in_features: int | None,
                 pool: str, norm_head: bool = True) -> None:
        super().__init__()
        if head not in HEADS:
            raise UserError(f"unknown head {head!r}; choose from {', '.join(HEADS)}")
        if pool not in POOLS:
            raise UserError(f"unknown pool {pool!r}; choose from {', '.join(POOLS)}")
        if (vocab is None) == (in_features is None):
            raise UserError("give exactly one of vocab (token ids) or in_features (real-valued tokens)")
        if vocab is not None and vocab < 2:
            raise UserError(f"vocab must be >= 2 (id 0 is padding), got {vocab}")
        if d < 1:
            raise UserError(f"d must be >= 1, got {d}")
        n_out = n_out or (1 if head == "regress" else vocab)
        if n_out is None or n_out < 1:
            raise UserError(f"n_out must be >= 1, got {n_out}")
        self.vocab, self.d, self.head, self.n_out, self.in_features, self.pool = (
            vocab, d, head, n_out, in_features, pool)
        self.embed = (nn.Embedding(vocab, d, padding_idx=PAD) if vocab is not None
                      else nn.Linear(in_features, d))
        self.head_norm = nn.LayerNorm(d) if norm_head else nn.Identity()
        self.readout = nn.Linear(d, n_out)

    def embed_input(self, x: Tensor) -> tuple[Tensor, Tensor]:
        """(embeddings (B, L, d), valid (B, L) bool)."""
        if self.vocab is not None:
            if x.dtype not in (torch.int64, torch.int32) or x.ndim != 2:
                raise UserError(f"token input must be integer ids of shape (batch, length), got "
                                f"{x.dtype} {tuple(x.shape)}")
            if x.numel() and (int(x.min()) < 0 or int(x.max()) >= self.vocab):
                raise UserError(f"token ids must lie in [0, {self.vocab}), got [{int(x.min())}, "
                                f"{int(x.max())}]")
            valid = x != PAD
        else:
            if x.ndim != 3 or x.shape[-1] != self.in_features:
                raise UserError(f"real-valued input must have shape (batch, length, {self.in_features}), "
                                f"got {tuple(x.shape)}")
            valid = torch.ones(x.shape[:2], dtype=torch.bool)
        if x.shape[1] < 1:
            raise UserError("empty sequence (length 0)")
        if not bool(valid[:, 0].all()):
            raise UserError("a sequence is empty or left-padded (position 0 is padding)")
        return self.embed(x), valid

    def readout_from(self, h: Tensor, valid: Tensor) -> Tensor:
        """h: (B, L, d) → logits (B, L, n_out) for "lm", else pooled → (B, n_out) or (B,) (regression)."""
        h = self.head_norm(h)
        if self.head == "lm":
            return self.readout(h)  # (B, L, n_out)
        if self.pool == "last":
            return self._out(h[torch.arange(h.shape[0]), valid.sum(1) - 1])
        w = valid[..., None].to(h.dtype)
        return self._out((h * w).sum(1) / w.sum(1))

    def _out(self, pooled: Tensor) -> Tensor:
        out = self.readout(pooled)  # (B, n_out)
        return out.squeeze(-1) if self.head == "regress" and self.n_out == 1 else out

    def hidden(self, emb: Tensor, valid: Tensor, future_mask: Tensor | None) -> Tensor:
        """(B, L, d) → (B, L, d)."""
        raise NotImplementedError

    def hidden_at(self, emb: Tensor, valid: Tensor, future_mask: Tensor | None, t: Tensor) -> Tensor:
        """The last hidden state at one position per sequence, (B, d); subclasses skip the work the
        readout never reads."""
        return self.hidden(emb, valid, future_mask)[torch.arange(emb.shape[0]), t]

    def forward(self, x: Tensor, future_mask: Tensor | None = None) -> Tensor:
        emb, valid = self.embed_input(x)
        if self.head != "lm" and self.pool == "last":
            return self._out(self.head_norm(self.hidden_at(emb, valid, future_mask, valid.sum(1) - 1)))
        return self.readout_from(self.hidden(emb, valid, future_mask), valid)

    def n_params(self) -> int:
        return sum(p.numel() for p in self.parameters())


class SSMFNNBlock(nn.Module):
    """x ← x + SSM(LN x); x ← x + FNN(LN x) (pre-norm residual). Padding is zeroed before the
    convolution, so valid positions never read it."""

    def __init__(self, d: int, window: int, causal: bool, param: str, mlp_ratio: int) -> None:
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ssm = LTISSMConv(d, window, causal=causal, param=param)
        self.fnn = TokenFNN(d, mlp_ratio * d)

    def forward(self, x: Tensor, valid: Tensor, future_mask: Tensor | None) -> Tensor:
        u = self.norm1(x) * valid[..., None].to(x.dtype)
        x = x + self.ssm(u, future_mask)
        return x + self.fnn(self.norm2(x))

    def forward_at(self, x: Tensor, valid: Tensor, future_mask: Tensor | None, t: Tensor) -> Tensor:
        """The block's output at position t_b of each sequence only: (B, d)."""
        u = self.norm1(x) * valid[..., None].to(x.dtype)
        y = x[torch.arange(x.shape[0]), t] + self.ssm.forward_at(u, t, future_mask)
        return y + self.fnn(self.norm2(y))


class SSMFNNNet(_SequenceModel):
    """Embedding → n_layers × [LTI SSM + FNN] → readout: the paper's SSM+FNN class.

    >>> net = SSMFNNNet(vocab=10, d=8, n_layers=2, causal=False, window=6, n_out=3)
    >>> net(torch.tensor([[1, 2, 3, 4, 0, 0]])).shape
    torch.Size([1, 3])
    """

    def __init__(self, vocab: int | None, d: int = 64, n_layers: int = 3, causal: bool = True,
                 head: str = "classify", n_out: int | None = None, window: int = 256, param: str = "free",
                 in_features: int | None = None, pool: str = "last", mlp_ratio: int = 4,
                 pre_fnn: bool = False) -> None:
        super().__init__(vocab, d, head, n_out, in_features, pool)
        if n_layers < 1:
            raise UserError(f"n_layers must be >= 1, got {n_layers}")
        self.causal = causal
        self.pre_fnn = nn.Sequential(nn.LayerNorm(d), TokenFNN(d, mlp_ratio * d)) if pre_fnn else None
        self.blocks = nn.ModuleList(SSMFNNBlock(d, window, causal, param, mlp_ratio) for _ in range(n_layers))

    def hidden(self, emb: Tensor, valid: Tensor, future_mask: Tensor | None) -> Tensor:
        h = emb  # (B, L, d)
        if self.pre_fnn is not None:
            h = h + self.pre_fnn(h)
        for block in self.blocks:
            h = block(h, valid, future_mask)
        return h

    def hidden_at(self, emb: Tensor, valid: Tensor, future_mask: Tensor | None, t: Tensor) -> Tensor:
        h = emb
        if self.pre_fnn is not None:
            h = h + self.pre_fnn(h)
        for block in self.blocks[:-1]:
            h = block(h, valid, future_mask)
        return self.blocks[-1].forward_at(h, valid, future_mask, t)


class FNNSSMFNN(SSMFNNNet):
    """FNN → one SSM layer → FNN: the smallest network of the class that can select a token."""

    def __init__(self, vocab: int | None, d: int = 64, causal: bool = True, head: str = "classify",
                 **kwargs) -> None:
        super().__init__(vocab, d, n_layers=1, causal=causal, head=head, pre_fnn=True, **kwargs)


class LinearSSM(_SequenceModel):
    """Embedding → one LTI SSM layer → linear readout, with nothing nonlinear: its output is an affine
    function of the token embeddings, so it cannot compare a query with keys (paper §3)."""

    def __init__(self, vocab: int | None, d: int = 64, causal: bool = True, head: str = "classify",
                 n_out: int | None = None, window: int = 256, param: str = "free",
                 in_features: int | None = None, pool: str = "last") -> None:
        super().__init__(vocab, d, head, n_out, in_features, pool, norm_head=False)
        self.causal = causal
        self.ssm = LTISSMConv(d, window, causal=causal, param=param)

    def hidden(self, emb: Tensor, valid: Tensor, future_mask: Tensor | None) -> Tensor:
        return self.ssm(emb * valid[..., None].to(emb.dtype), future_mask)

    def hidden_at(self, emb: Tensor, valid: Tensor, future_mask: Tensor | None, t: Tensor) -> Tensor:
        return self.ssm.forward_at(emb * valid[..., None].to(emb.dtype), t, future_mask)


class AttentionBlock(nn.Module):
    """x ← x + MHA(LN x); x ← x + FNN(LN x), with PyTorch's scaled-dot-product attention."""

    def __init__(self, d: int, n_heads: int, mlp_ratio: int) -> None:
        super().__init__()
        if d % n_heads:
            raise UserError(f"d = {d} must be divisible by n_heads = {n_heads}")
        self.n_heads = n_heads
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fnn = TokenFNN(d, mlp_ratio * d)

    def forward(self, x: Tensor, mask: Tensor) -> Tensor:
        """x: (B, L, d); mask: (B, 1, L | 1, L) bool, True where query i may attend to key j."""
        b, length, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, length, 3, self.n_heads, d // self.n_heads).unbind(2)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))  # (B, H, L, d/H)
        a = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        x = x + self.proj(a.transpose(1, 2).reshape(b, length, d))
        return x + self.fnn(self.norm2(x))

    def forward_at(self, x: Tensor, mask: Tensor, t: Tensor) -> Tensor:
        """The block's output for the query at position t_b only: (B, d)."""
        b, length, d = x.shape
        rows = torch.arange(b)
        _, k, v = self.qkv(self.norm1(x)).view(b, length, 3, self.n_heads, d // self.n_heads).unbind(2)
        q = self.qkv(self.norm1(x[rows, t]))[:, :d].view(b, 1, self.n_heads, d // self.n_heads)
        q, k, v = (z.transpose(1, 2) for z in (q, k, v))  # (B, H, 1 | L, d/H)
        row = mask[rows, :, t if mask.shape[2] > 1 else 0][:, :, None]  # (B, 1, 1, L)
        a = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=row)
        y = x[rows, t] + self.proj(a.reshape(b, d))
        return y + self.fnn(self.norm2(y))


class TinyTransformer(_SequenceModel):
    """Embedding + learned positions → n_layers × [attention + FNN] → readout (the baseline)."""

    def __init__(self, vocab: int | None, d: int = 64, n_layers: int = 2, causal: bool = True,
                 head: str = "classify", n_out: int | None = None, max_len: int = 256, n_heads: int = 4,
                 in_features: int | None = None, pool: str = "last", mlp_ratio: int = 4) -> None:
        super().__init__(vocab, d, head, n_out, in_features, pool)
        if n_layers < 1:
            raise UserError(f"n_layers must be >= 1, got {n_layers}")
        self.causal, self.max_len = causal, max_len
        self.pos = nn.Parameter(torch.randn(max_len, d))  # on the scale of the token embeddings
        self.blocks = nn.ModuleList(AttentionBlock(d, n_heads, mlp_ratio) for _ in range(n_layers))

    def _mask(self, valid: Tensor, future_mask: Tensor | None) -> Tensor:
        length = valid.shape[1]
        if length > self.max_len:
            raise UserError(f"sequence length {length} exceeds the Transformer's max_len {self.max_len}")
        allowed = valid[:, None, None, :]  # keys that are not padding, (B, 1, 1, L)
        if self.causal or future_mask is not None:
            lower = torch.ones(length, length, dtype=torch.bool).tril()
            if not self.causal:  # two-sided over the prefix only
                lower = lower | future_mask[:, None, None, :]
            allowed = allowed & lower  # key j ≤ i (or j in the prefix): (B, 1, L, L)
        return allowed

    def hidden(self, emb: Tensor, valid: Tensor, future_mask: Tensor | None) -> Tensor:
        mask = self._mask(valid, future_mask)
        h = emb + self.pos[:emb.shape[1]]
        for block in self.blocks:
            h = block(h, mask)
        return h

    def hidden_at(self, emb: Tensor, valid: Tensor, future_mask: Tensor | None, t: Tensor) -> Tensor:
        mask = self._mask(valid, future_mask)
        h = emb + self.pos[:emb.shape[1]]
        for block in self.blocks[:-1]:
            h = block(h, mask)
        return self.blocks[-1].forward_at(h, mask, t)


class FixedPositionMLP(_SequenceModel):
    """An MLP on the first `positions` tokens (concatenated): it can only read fixed positions, so it
    cannot follow an important token that moves with the input."""

    def __init__(self, vocab: int | None, d: int = 64, positions: int = 4, head: str = "classify",
                 n_out: int | None = None, in_features: int | None = None, hidden: int | None = None) -> None:
        if head == "lm":
            raise UserError("FixedPositionMLP has no per-token (lm) head")
        super().__init__(vocab, d, head, n_out, in_features, "mean")
        if positions < 1:
            raise UserError(f"positions must be >= 1, got {positions}")
        self.positions = positions
        hidden = hidden or 4 * d
        self.mlp = nn.Sequential(nn.Linear(positions * d, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                                 nn.ReLU(), nn.Linear(hidden, d))

    def hidden(self, emb: Tensor, valid: Tensor, future_mask: Tensor | None) -> Tensor:
        first = emb[:, :self.positions] * valid[:, :self.positions, None].to(emb.dtype)
        first = nn.functional.pad(first, (0, 0, 0, self.positions - first.shape[1]))  # short inputs
        return self.mlp(first.flatten(1))[:, None]  # (B, 1, d): one "token" the readout pools

    def forward(self, x: Tensor, future_mask: Tensor | None = None) -> Tensor:
        emb, valid = self.embed_input(x)
        return self.readout_from(self.hidden(emb, valid, future_mask), valid[:, :1])


_NAME = re.compile(r"^(ssm1|fnnssmfnn|ssmfnn(\d+)|tf(\d+)|mlp(\d+))((?:-causal|-bi|-s4d)*)$")
MAX_LAYERS = 64  # ssmfnn<k>, tf<k>: far above any model here, far below a hang (issue #49)
MAX_POSITIONS = 65_536  # mlp<k>
MODEL_NAMES = ("ssm1", "fnnssmfnn", "ssmfnn<k>", "tf<k>", "mlp<k>")
MODEL_HELP = ("ssm1 (one linear SSM layer), fnnssmfnn (FNN-SSM-FNN), ssmfnn<k> (k × [SSM + FNN]), "
              "tf<k> (k-layer Transformer), mlp<k> (MLP on the first k tokens); suffixes -causal "
              "(default two-sided), -s4d (diagonal S4D kernels instead of free ones)")


def build_model(name: str, *, vocab: int | None = None, in_features: int | None = None,
                head: str = "classify", n_out: int | None = None, length: int = 256, d: int = 64,
                pool: str = "last", window: int | None = None) -> _SequenceModel:
    """A model by name, e.g. "ssmfnn3", "ssmfnn3-causal", "ssm1-s4d", "tf2", "mlp4" (see MODEL_HELP).
    `length` is the longest sequence it will see: the Transformer's max_len and the default SSM window
    (the whole sequence); `window` sets a shorter SSM window U.

    >>> build_model("ssmfnn2-causal", vocab=6, n_out=2, length=8, d=8).causal
    True
    """
    m = _NAME.match(name.strip().lower())
    if m is None:
        raise UserError(f"unknown model {name!r}; choose from {MODEL_HELP}")
    if length < 1:
        raise UserError(f"length (longest sequence) must be >= 1, got {length}")
    window = length if window is None else window
    if window < 1:
        raise UserError(f"window must be >= 1, got {window}")
    k = int(m.group(2) or m.group(3) or 0)
    if (m.group(2) or m.group(3)) and not 1 <= k <= MAX_LAYERS:
        raise UserError(f"model {name!r}: the number of layers must be in [1, {MAX_LAYERS}], got {k}")
    if m.group(4) and not 1 <= int(m.group(4)) <= MAX_POSITIONS:
        raise UserError(f"model {name!r}: mlp<k> reads k positions, k in [1, {MAX_POSITIONS:,}], "
                        f"got {int(m.group(4)):,}")
    suffixes = set(m.group(5).split("-")) - {""}
    causal, param = "causal" in suffixes, "s4d" if "s4d" in suffixes else "free"
    common = {"vocab": vocab, "in_features": in_features, "head": head, "n_out": n_out, "d": d}
    kind = m.group(1)
    if kind == "ssm1":
        return LinearSSM(causal=causal, window=window, param=param, pool=pool, **common)
    if kind == "fnnssmfnn":
        return FNNSSMFNN(causal=causal, window=window, param=param, pool=pool, **common)
    if m.group(2):
        return SSMFNNNet(n_layers=int(m.group(2)), causal=causal, window=window, param=param, pool=pool,
                         **common)
    if m.group(3):
        return TinyTransformer(n_layers=int(m.group(3)), causal=causal, max_len=length, pool=pool, **common)
    return FixedPositionMLP(positions=int(m.group(4)), **common)
