"""The SSM layer of the paper: a linear time-invariant, input-independent state space model per channel,
h_t = A h_{t-1} + B x_t, y_t = C h_t, i.e. the depthwise convolution y_t = Σ_{s<U} K_s ⊙ x_{t-s} with
K_s = C A^s B and a finite window U (paper §2; spec §2). Three computations that agree to rounding: the
FFT (padded to 2L, so nothing wraps around), a direct sum over lags, and the recurrence itself."""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from iclr25.core.errors import UserError

PARAMS = ("free", "s4d")
DENSE_MAX_LEN = 64  # longer sequences go through the FFT


class LTISSMConv(nn.Module):
    """One LTI SSM layer of width `d` and window `window` (U), causal or two-sided.

    param="free": the kernel K_s is a free parameter per channel and lag. This *is* an SSM: with the
    (non-diagonal, nilpotent) shift matrix A, B = e_1 and C = (K_0..K_{U-1}), C A^s B = K_s, so the state
    is the last U inputs. param="s4d": a diagonal complex A (S4D-Lin), zero-order-hold discretised,
    the practical parameterisation the reviewers asked about; K_s = 2 Re Σ_n C_n Ā_n^s B̄_n (+ D at s = 0).

    Two-sided (causal=False) adds a backward SSM over the future, y_t += Σ_{1≤s<U} K'_s ⊙ x_{t+s}
    (a bidirectional SSM). `forward(x, future_mask)` lets the future side see only the masked inputs: a
    prefix-two-sided layer (two-sided over a source segment, causal after it).

    >>> conv = LTISSMConv(d=2, window=3, causal=True)
    >>> conv(torch.zeros(1, 5, 2)).shape
    torch.Size([1, 5, 2])
    """

    def __init__(self, d: int, window: int, causal: bool = True, param: str = "free",
                 state_size: int = 32) -> None:
        super().__init__()
        if d < 1:
            raise UserError(f"d must be >= 1, got {d}")
        if window < 1:
            raise UserError(f"window must be >= 1, got {window}")
        if param not in PARAMS:
            raise UserError(f"unknown SSM parameterisation {param!r}; choose from {', '.join(PARAMS)}")
        if param == "s4d" and (state_size < 2 or state_size % 2):
            raise UserError(f"state_size must be an even number >= 2 (conjugate pairs), got {state_size}")
        self.d, self.window, self.causal, self.param = d, window, causal, param
        sides = 1 if causal else 2
        if param == "free":
            # Decaying init: nearby lags start larger, as in long-convolution models; the sign is random.
            # Unit output variance at init for unit-variance inputs.
            decay = torch.exp(-torch.arange(window, dtype=torch.float32) / max(1.0, window / 4))
            decay = decay / decay.square().sum().mul(sides).sqrt()
            self.k_past = nn.Parameter(torch.randn(d, window) * decay)
            self.k_future = nn.Parameter(torch.randn(d, window - 1) * decay[1:]) if not causal else None
        else:
            n = state_size // 2
            # S4D-Lin init: A_n = -1/2 + i π n, Δ log-uniform in [1e-3, 1e-1] (Gu et al. 2022)
            self.log_a_re = nn.Parameter(torch.full((sides, d, n), math.log(0.5)))
            self.a_im = nn.Parameter(math.pi * torch.arange(n, dtype=torch.float32).repeat(sides, d, 1))
            self.log_dt = nn.Parameter(torch.rand(sides, d) * (math.log(0.1) - math.log(1e-3))
                                       + math.log(1e-3))
            self.c = nn.Parameter(torch.randn(sides, d, n, 2) * math.sqrt(0.5))  # complex C as (re, im)
            self.skip = nn.Parameter(torch.randn(d))  # D

    # ---- the kernel K_s = C A^s B ----------------------------------------------------------------

    def _s4d_discrete(self, side: int) -> tuple[Tensor, Tensor]:
        """ΔA and C·B̄ with Ā = exp(ΔA), B̄ = (Ā − 1) A⁻¹ B, B = 1 (zero-order hold), both (d, n) complex."""
        a = torch.complex(-torch.exp(self.log_a_re[side]), self.a_im[side])
        dt_a = torch.exp(self.log_dt[side])[:, None] * a
        cb = torch.view_as_complex(self.c[side].contiguous()) * (torch.exp(dt_a) - 1) / a
        return dt_a, cb

    def kernels(self, length: int) -> tuple[Tensor, Tensor | None]:
        """(K_past (d, min(U, L)) for lags 0, 1, ...; K_future (d, min(U, L) − 1) for lags −1, −2, ... or
        None when causal). Lags at or beyond the sequence length can never matter and are dropped."""
        u = min(self.window, length)
        if self.param == "free":
            past = self.k_past[:, :u]
            future = self.k_future[:, :u - 1] if self.k_future is not None else None
            return past, future
        powers = torch.arange(u, dtype=torch.float32)
        dt_a, cb = self._s4d_discrete(0)
        vander = torch.exp(dt_a[..., None] * powers)  # (d, n, u): Ā^s
        past = 2 * torch.einsum("dn,dns->ds", cb, vander).real
        past = past + torch.nn.functional.pad(self.skip[:, None], (0, u - 1))  # D x_t at lag 0
        if self.causal:
            return past, None
        dt_a, cb = self._s4d_discrete(1)
        vander = torch.exp(dt_a[..., None] * powers[:u - 1])  # lag −s uses Ā'^{s−1}
        return past, 2 * torch.einsum("dn,dns->ds", cb, vander).real

    # ---- three equal computations ----------------------------------------------------------------

    def forward(self, x: Tensor, future_mask: Tensor | None = None) -> Tensor:
        """y = K * x. x: (B, L, d); future_mask: (B, L) bool, which inputs the future side sees.
        Up to L = 64 as one dense Toeplitz product (2-3x faster than the FFT on a CPU at these
        lengths), beyond that by the FFT; both equal the defining sum (tests/ssm_selection)."""
        _check_input(x, self.d)
        past, future = self.kernels(x.shape[1])
        conv = toeplitz_conv if x.shape[1] <= DENSE_MAX_LEN else fft_conv
        return conv(x, past, future, future_mask)

    def forward_fft(self, x: Tensor, future_mask: Tensor | None = None) -> Tensor:
        """The FFT convolution at any length (padded to 2L)."""
        _check_input(x, self.d)
        past, future = self.kernels(x.shape[1])
        return fft_conv(x, past, future, future_mask)

    def forward_at(self, x: Tensor, t: Tensor, future_mask: Tensor | None = None) -> Tensor:
        """y_t for one position per sequence, t: (B,) → (B, d): what a readout at the last token needs
        from the last layer, at O(L d) instead of the whole output."""
        _check_input(x, self.d)
        length = x.shape[1]
        past, future = self.kernels(length)
        k = lag_kernel(past, future, length)  # (d, 2L − 1), index = lag + L − 1
        lag = t[:, None] - torch.arange(length)[None, :]  # (B, L): t_b − j
        w = k[:, lag + length - 1].permute(1, 2, 0)  # (B, L, d): K_{t_b − j}
        if future_mask is not None:
            w = w * ((lag >= 0) | future_mask)[..., None].to(w.dtype)
        return (w * x).sum(1)

    def forward_direct(self, x: Tensor, future_mask: Tensor | None = None) -> Tensor:
        """The defining sum y_t = Σ_s K_s ⊙ x_{t−s}, one lag at a time (O(B L U d))."""
        _check_input(x, self.d)
        past, future = self.kernels(x.shape[1])
        return direct_conv(x, past, future, future_mask)

    @torch.no_grad()
    def forward_recurrent(self, x: Tensor, future_mask: Tensor | None = None) -> Tensor:
        """The SSM as a recurrence over time (what a streaming implementation runs)."""
        _check_input(x, self.d)
        xf = x if future_mask is None else x * future_mask[..., None].to(x.dtype)
        if self.param == "free":
            y = _shift_register(x, self.k_past, self.window)
            if self.k_future is not None and self.window > 1:
                # the future side is the same register run backwards in time, one step ahead
                rev = _shift_register(xf.flip(1), self.k_future, self.window - 1).flip(1)
                y = y + torch.nn.functional.pad(rev[:, 1:], (0, 0, 0, 1))
            return y
        dt_a, cb = self._s4d_discrete(0)
        y = _diagonal_recurrence(x, torch.exp(dt_a), cb, self.window) + self.skip * x
        if not self.causal and self.window > 1:
            dt_a, cb = self._s4d_discrete(1)
            # g_t = Σ_{1≤s<U} Ā'^{s−1} B̄' x_{t+s}: the backward recurrence on x shifted one step
            shifted = torch.nn.functional.pad(xf[:, 1:], (0, 0, 0, 1))
            y = y + _diagonal_recurrence(shifted.flip(1), torch.exp(dt_a), cb, self.window - 1).flip(1)
        return y

    def extra_repr(self) -> str:
        return f"d={self.d}, window={self.window}, causal={self.causal}, param={self.param!r}"


def _check_input(x: Tensor, d: int) -> None:
    if x.ndim != 3 or x.shape[-1] != d:
        raise UserError(f"SSM input must have shape (batch, length, {d}), got {tuple(x.shape)}")
    if x.shape[1] < 1:
        raise UserError("SSM input is an empty sequence (length 0)")


def lag_kernel(past: Tensor, future: Tensor | None, length: int) -> Tensor:
    """All lags −(L−1)..(L−1) in one (d, 2L − 1) array (zeros outside the window or the causal side)."""
    k = past.new_zeros(past.shape[0], 2 * length - 1)
    k[:, length - 1:length - 1 + past.shape[1]] = past
    if future is not None and future.shape[1]:
        k[:, length - 1 - future.shape[1]:length - 1] = future.flip(1)
    return k


def fft_conv(x: Tensor, past: Tensor, future: Tensor | None = None,
             future_mask: Tensor | None = None) -> Tensor:
    """y_t = Σ_{s≥0} past_s ⊙ x_{t−s} + Σ_{s≥1} future_s ⊙ x'_{t+s} via the FFT, padded to n = 2L so the
    circular convolution equals the linear one: lag −s is stored at index n − s, where it wraps onto
    x_{t+s}, and every wrap of a non-negative lag lands in the zero padding. x: (B, L, d);
    past: (d, ≤ L); future: (d, ≤ L − 1); x' = x ⊙ future_mask (or x)."""
    length, d = x.shape[1], x.shape[2]
    n = 2 * length

    def circular(xs: Tensor, k: Tensor) -> Tensor:
        xt = xs.transpose(1, 2)  # (B, d, L): the FFT runs along contiguous memory
        return torch.fft.irfft(torch.fft.rfft(xt, n=n) * torch.fft.rfft(k, n=n), n=n)[..., :length]

    def placed(past: Tensor | None, future: Tensor | None) -> Tensor:
        k = x.new_zeros(d, n)
        if past is not None:
            k[:, :past.shape[1]] = past
        if future is not None and future.shape[1]:
            k[:, n - future.shape[1]:] = future.flip(1)  # lag −s at index n − s
        return k

    if future_mask is None:
        y = circular(x, placed(past, future))
    else:
        y = circular(x, placed(past, None))
        if future is not None and future.shape[1]:
            y = y + circular(x * future_mask[..., None].to(x.dtype), placed(None, future))
    return y.transpose(1, 2)  # (B, L, d)


def toeplitz_conv(x: Tensor, past: Tensor, future: Tensor | None = None,
                  future_mask: Tensor | None = None) -> Tensor:
    """The same convolution as one dense product per channel with the Toeplitz matrix
    T[d, t, j] = K_{t−j}: y[:, t, d] = Σ_j T[d, t, j] x[:, j, d]."""
    length = x.shape[1]
    k = lag_kernel(past, future, length)
    pos = torch.arange(length)
    lag = pos[:, None] - pos[None, :]  # (L, L): t − j
    # w[d, t] = k[d, t − j + L − 1] over j: windows of the reversed kernel, a view (its backward sums
    # windows, ~2x cheaper than the scatter-add of an index gather)
    w = k.flip(1).unfold(1, length, 1).flip(1)  # (d, L, L)

    def product(xs: Tensor, w: Tensor) -> Tensor:  # a plain bmm over channels (einsum copies slices)
        return torch.bmm(xs.permute(2, 0, 1).contiguous(), w.transpose(1, 2).contiguous()).permute(1, 2, 0)

    if future_mask is None or future is None:
        return product(x, w)
    causal = (lag >= 0).to(x.dtype)
    xf = x * future_mask[..., None].to(x.dtype)
    return product(x, w * causal) + product(xf, w * (1 - causal))


def direct_conv(x: Tensor, past: Tensor, future: Tensor | None = None,
                future_mask: Tensor | None = None) -> Tensor:
    """The same convolution as `fft_conv`, summed lag by lag."""
    length = x.shape[1]
    y = past[:, 0] * x
    for s in range(1, past.shape[1]):
        y = y + torch.nn.functional.pad(past[:, s] * x[:, :length - s], (0, 0, s, 0))
    if future is not None:
        xf = x if future_mask is None else x * future_mask[..., None].to(x.dtype)
        for s in range(1, future.shape[1] + 1):
            y = y + torch.nn.functional.pad(future[:, s - 1] * xf[:, s:], (0, 0, 0, s))
    return y


def _shift_register(x: Tensor, k: Tensor, window: int) -> Tensor:
    """Recurrence of the free kernel's SSM: state h_t = (x_t, …, x_{t−U+1}) (A shifts, B writes x_t),
    y_t = C h_t = Σ_s K_s h_t[s]."""
    b, length, d = x.shape
    h = x.new_zeros(b, d, window)
    out = []
    for t in range(length):
        h = torch.cat([x[:, t, :, None], h[..., :-1]], dim=-1)  # h_t = A h_{t−1} + B x_t
        out.append((h * k).sum(-1))  # y_t = C h_t
    return torch.stack(out, 1)


def _diagonal_recurrence(x: Tensor, a_bar: Tensor, cb: Tensor, window: int) -> Tensor:
    """h_t = Ā h_{t−1} + x_t (B̄ folded into C), y_t = 2 Re C (h_t − Ā^U h_{t−U}): the windowed kernel
    Σ_{s<U} C Ā^s B̄ x_{t−s} exactly, since Ā^U h_{t−U} holds precisely the lags ≥ U."""
    b, length, d = x.shape
    h = torch.zeros(b, d, a_bar.shape[-1], dtype=a_bar.dtype)
    a_u = a_bar ** window
    states, out = [], []
    for t in range(length):
        h = a_bar * h + x[:, t, :, None]
        states.append(h)
        hw = h - a_u * states[t - window] if t >= window else h
        out.append(2 * (cb * hw).sum(-1).real)
    return torch.stack(out, 1).to(x.dtype)
