"""Two-sample statistics on completions: MMD with the Hamming, all-substrings and one-hot kernels
(paper Eq. 4 with k(z, z') = 1{x = x'} k~(y, y')), and the count-based L1 and centered chi^2.

Every statistic has a *prepared* form: `prepare(pooled)` precomputes what depends only on the rows
(symbol keys, row ids, a Gram matrix) so that permutations and null draws are index sets into it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from iclr25.core.errors import UserError
from iclr25.model_equality.encoding import PAD, CompletionSample, concat

DENOMINATORS = ("pairs", "paper")  # default: the official code's; "paper": Eq. 4 as printed


def _safe_div(a: float, b: float) -> float:
    return a / b if b > 0 else 0.0


def _mmd_from_sums(s_pp: float, s_qq: float, s_pq: float, x_p: np.ndarray, x_q: np.ndarray, m: int,
                   denominator: str) -> float:
    """Eq. 4 from the three kernel sums over z != z' (PP, QQ) and all (z, z') (PQ).

    "paper": divide by N(N-1), M(M-1), NM (Eq. 4). "pairs": divide by the number of same-prompt pairs,
    as the reference code does (the kernel is 0 across prompts, so those pairs carry no information).
    """
    n, k = len(x_p), len(x_q)
    if denominator == "paper":
        d_pp, d_qq, d_pq = n * (n - 1), k * (k - 1), n * k
    else:
        a = np.bincount(x_p, minlength=m).astype(np.float64)
        b = np.bincount(x_q, minlength=m).astype(np.float64)
        d_pp, d_qq, d_pq = float(a @ a - n), float(b @ b - k), float(a @ b)
    return float(_safe_div(s_pp, d_pp) + _safe_div(s_qq, d_qq) - 2.0 * _safe_div(s_pq, d_pq))


@dataclass(frozen=True)
class Statistic:
    """Base: `stat(p, q)` is the statistic; larger means more different (one-sided tests)."""

    name = "statistic"

    def prepare(self, pooled: CompletionSample) -> Any:
        raise NotImplementedError

    def value(self, prep: Any, idx_p: np.ndarray, idx_q: np.ndarray) -> float:
        raise NotImplementedError

    def __call__(self, p: CompletionSample, q: CompletionSample) -> float:
        prep = self.prepare(concat(p, q))
        return self.value(prep, np.arange(p.N), p.N + np.arange(q.N))


# ---- Hamming MMD, counting form: O(N L) --------------------------------------------------------------

@dataclass(frozen=True)
class _HammingPrep:
    keys: np.ndarray  # (rows, L) dense id of (prompt, position, symbol)
    n_keys: int
    prompt_ids: np.ndarray
    m: int
    L: int


@dataclass(frozen=True)
class HammingMMD(Statistic):
    """MMD with the normalised Hamming kernel k~(y, y') = (1/L) sum_i 1{y_i = y'_i}.

    Counting form: the kernel's feature map is the per-position one-hot, so for counts c(x, i, s) of
    symbol s at position i among completions of prompt x,
        sum_{z != z'} k(z, z') = (sum_{x,i,s} c^2 - N L) / L,   sum_{z, z'} k = sum c_P c_Q / L,
    which costs O(N L) instead of the O(N^2 L) Gram matrix.

    >>> from iclr25.model_equality.encoding import encode_chars
    >>> p = CompletionSample(np.array([0, 0]), encode_chars(["ab", "ab"], 2), 1)
    >>> q = CompletionSample(np.array([0, 0]), encode_chars(["xy", "xy"], 2), 1)
    >>> HammingMMD()(p, q)   # 1 + 1 - 2 * 0
    2.0
    """

    denominator: str = "pairs"
    name = "hamming"

    def prepare(self, pooled: CompletionSample) -> _HammingPrep:
        _check_denominator(self.denominator)
        y = pooled.completions
        rows, L = y.shape  # noqa: N806
        sym = y - PAD  # symbols >= PAD, so sym >= 0
        n_sym = int(sym.max()) + 1 if sym.size else 1
        raw = (pooled.prompt_ids[:, None] * L + np.arange(L)[None, :]) * n_sym + sym  # (rows, L)
        uniq, dense = np.unique(raw, return_inverse=True)
        return _HammingPrep(dense.reshape(rows, L), len(uniq), pooled.prompt_ids, pooled.m, L)

    def value(self, prep: _HammingPrep, idx_p: np.ndarray, idx_q: np.ndarray) -> float:
        c_p = np.bincount(prep.keys[idx_p].ravel(), minlength=prep.n_keys).astype(np.float64)
        c_q = np.bincount(prep.keys[idx_q].ravel(), minlength=prep.n_keys).astype(np.float64)
        L = prep.L  # noqa: N806
        s_pp = (c_p @ c_p - len(idx_p) * L) / L
        s_qq = (c_q @ c_q - len(idx_q) * L) / L
        s_pq = (c_p @ c_q) / L
        return _mmd_from_sums(s_pp, s_qq, s_pq, prep.prompt_ids[idx_p], prep.prompt_ids[idx_q], prep.m,
                              self.denominator)


# ---- Gram-matrix MMD (any kernel given its Gram matrix): O(N^2) memory -------------------------------

@dataclass(frozen=True)
class _GramPrep:
    K: np.ndarray  # (rows, rows) normalised kernel, 0 across prompts
    prompt_ids: np.ndarray
    m: int


def _mmd_gram_value(prep: _GramPrep, idx_p: np.ndarray, idx_q: np.ndarray, denominator: str) -> float:
    K = prep.K  # noqa: N806
    kpp = K[np.ix_(idx_p, idx_p)]
    kqq = K[np.ix_(idx_q, idx_q)]
    s_pp = kpp.sum() - np.trace(kpp)
    s_qq = kqq.sum() - np.trace(kqq)
    s_pq = K[np.ix_(idx_p, idx_q)].sum()
    return _mmd_from_sums(s_pp, s_qq, s_pq, prep.prompt_ids[idx_p], prep.prompt_ids[idx_q], prep.m,
                          denominator)


def _normalise(K: np.ndarray) -> np.ndarray:  # noqa: N803
    """k(y, y') / sqrt(k(y, y) k(y', y')): unit diagonal (reference code)."""
    d = np.sqrt(np.diag(K)).copy()
    d[d == 0] = 1.0
    return K / np.outer(d, d)


def hamming_gram(pooled: CompletionSample) -> np.ndarray:
    """The normalised Hamming Gram matrix, 0 across prompts: O(N^2 L), for checks and benchmarks."""
    y, x = pooled.completions, pooled.prompt_ids
    K = np.zeros((pooled.N, pooled.N))  # noqa: N806
    for i in range(pooled.N):  # one row at a time keeps memory at O(N L)
        K[i] = (y[i][None, :] == y).sum(axis=1)
    return K / max(pooled.L, 1) * (x[:, None] == x[None, :])


@dataclass(frozen=True)
class _GramMMD(Statistic):
    """An MMD computed from a precomputed (N, N) Gram matrix of the pooled sample."""

    denominator: str = "pairs"

    def gram(self, pooled: CompletionSample) -> np.ndarray:
        raise NotImplementedError

    def prepare(self, pooled: CompletionSample) -> _GramPrep:
        _check_denominator(self.denominator)
        return _GramPrep(self.gram(pooled), pooled.prompt_ids, pooled.m)

    def value(self, prep: _GramPrep, idx_p: np.ndarray, idx_q: np.ndarray) -> float:
        return _mmd_gram_value(prep, idx_p, idx_q, self.denominator)


@dataclass(frozen=True)
class HammingMMDGram(_GramMMD):
    """The same statistic as `HammingMMD` computed from the O(N^2 L) Gram matrix (reference form)."""

    name = "hamming_gram"

    def gram(self, pooled: CompletionSample) -> np.ndarray:
        return hamming_gram(pooled)


# ---- all-substrings kernel: exact, O(L^2) per pair by longest-common-prefix DP -----------------------

def all_substrings_kernel(a: np.ndarray, b: np.ndarray, max_cells: int = 2_000_000) -> np.ndarray:
    """k(y, y') = sum_{s in V^{<=L}} n_s(y) n_s(y') for row pairs (a[r], b[r]); shape (P,).

    Every common substring occurrence y[i:i+l] = y'[j:j+l] is counted once per l <= lcp(y[i:], y'[j:]),
    so k = sum_{i,j} lcp(i, j), with lcp(i, j) = 1{y_i = y'_j} (1 + lcp(i+1, j+1)). Pads are symbols.

    >>> all_substrings_kernel(np.array([[1, 2]]), np.array([[1, 2]])).tolist()   # "a","b","ab"
    [3.0]
    """
    a, b = np.atleast_2d(a), np.atleast_2d(b)
    P, L = a.shape  # noqa: N806
    out = np.zeros(P)
    step = max(1, max_cells // max(L, 1))
    for s in range(0, P, step):
        A, B = a[s:s + step], b[s:s + step]  # noqa: N806
        nxt = np.zeros((len(A), L + 1), dtype=np.int32)  # lcp(i+1, .), with lcp(., L) = 0
        total = np.zeros(len(A))
        for i in range(L - 1, -1, -1):
            cur = np.zeros_like(nxt)
            cur[:, :L] = (A[:, i:i + 1] == B) * (1 + nxt[:, 1:])
            total += cur.sum(axis=1)
            nxt = cur
        out[s:s + step] = total
    return out


def all_substrings_gram(pooled: CompletionSample) -> np.ndarray:
    """Normalised all-substrings Gram matrix; only same-prompt pairs are computed (k = 0 across)."""
    n = pooled.N
    K = np.zeros((n, n))  # noqa: N806
    ii, jj = [], []
    for x in range(pooled.m):
        rows = np.flatnonzero(pooled.prompt_ids == x)
        iu, ju = np.triu_indices(len(rows))
        ii.append(rows[iu])
        jj.append(rows[ju])
    i, j = np.concatenate(ii), np.concatenate(jj)
    vals = all_substrings_kernel(pooled.completions[i], pooled.completions[j])
    K[i, j] = vals
    K[j, i] = vals
    return _normalise(K)


@dataclass(frozen=True)
class AllSubstringsMMD(_GramMMD):
    """MMD with the (universal) all-substrings kernel, normalised to unit diagonal; slow: O(N^2 L^2)."""

    name = "all_substrings"

    def gram(self, pooled: CompletionSample) -> np.ndarray:
        return all_substrings_gram(pooled)


# ---- whole-sequence count statistics: one-hot MMD, L1, centered chi^2 -------------------------------

@dataclass(frozen=True)
class _CountPrep:
    ids: np.ndarray  # (rows,) dense id of the distinct (prompt, completion) row
    n_ids: int
    prompt_ids: np.ndarray
    m: int


def _prepare_counts(pooled: CompletionSample) -> _CountPrep:
    z = np.concatenate([pooled.prompt_ids[:, None], pooled.completions], axis=1)
    _, ids = np.unique(z, axis=0, return_inverse=True)
    ids = ids.reshape(-1)
    return _CountPrep(ids, int(ids.max()) + 1 if ids.size else 0, pooled.prompt_ids, pooled.m)


def _counts(prep: _CountPrep, idx_p: np.ndarray, idx_q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return (np.bincount(prep.ids[idx_p], minlength=prep.n_ids).astype(np.float64),
            np.bincount(prep.ids[idx_q], minlength=prep.n_ids).astype(np.float64))


@dataclass(frozen=True)
class OneHotMMD(Statistic):
    """MMD with k~(y, y') = 1{y = y'}: the classical multinomial test; 0 when nothing repeats."""

    denominator: str = "pairs"
    name = "onehot"

    def prepare(self, pooled: CompletionSample) -> _CountPrep:
        _check_denominator(self.denominator)
        return _prepare_counts(pooled)

    def value(self, prep: _CountPrep, idx_p: np.ndarray, idx_q: np.ndarray) -> float:
        c_p, c_q = _counts(prep, idx_p, idx_q)
        s_pp, s_qq, s_pq = c_p @ c_p - len(idx_p), c_q @ c_q - len(idx_q), c_p @ c_q
        return _mmd_from_sums(s_pp, s_qq, s_pq, prep.prompt_ids[idx_p], prep.prompt_ids[idx_q], prep.m,
                              self.denominator)


@dataclass(frozen=True)
class L1Stat(Statistic):
    """Two-sample L1 distance of empirical frequencies: sum_z |n_P(z)/N - n_Q(z)/M|."""

    name = "l1"

    def prepare(self, pooled: CompletionSample) -> _CountPrep:
        return _prepare_counts(pooled)

    def value(self, prep: _CountPrep, idx_p: np.ndarray, idx_q: np.ndarray) -> float:
        c_p, c_q = _counts(prep, idx_p, idx_q)
        return float(np.abs(c_p / len(idx_p) - c_q / len(idx_q)).sum())


@dataclass(frozen=True)
class L2Stat(Statistic):
    """Two-sample L2 distance of empirical frequencies: sum_z (n_P(z)/N - n_Q(z)/M)^2 (the official
    code's `two_sample_L2`; Balakrishnan & Wasserman 2017)."""

    name = "l2"

    def prepare(self, pooled: CompletionSample) -> _CountPrep:
        return _prepare_counts(pooled)

    def value(self, prep: _CountPrep, idx_p: np.ndarray, idx_q: np.ndarray) -> float:
        c_p, c_q = _counts(prep, idx_p, idx_q)
        return float(np.square(c_p / len(idx_p) - c_q / len(idx_q)).sum())


@dataclass(frozen=True)
class Chi2Stat(Statistic):
    """Centered chi^2 for unequal sizes (Bhattacharya & Valiant 2015, as in the reference code):
    sum_z [(M n_P - N n_Q)^2 - M^2 n_P - N^2 n_Q] / (n_P + n_Q); 0 when nothing repeats."""

    name = "chi2"

    def prepare(self, pooled: CompletionSample) -> _CountPrep:
        return _prepare_counts(pooled)

    def value(self, prep: _CountPrep, idx_p: np.ndarray, idx_q: np.ndarray) -> float:
        c_p, c_q = _counts(prep, idx_p, idx_q)
        n, k = len(idx_p), len(idx_q)
        tot = c_p + c_q
        keep = tot > 0
        num = (k * c_p - n * c_q) ** 2 - k * k * c_p - n * n * c_q
        return float((num[keep] / tot[keep]).sum())


# ---- goodness of fit with the reference's log-probabilities (paper App. C.3) --------------------------

GOF_KINDS = ("g2", "pearson", "gof_l1")


@dataclass(frozen=True)
class _GofPrep:
    ids: np.ndarray  # (rows,) dense id of the distinct (prompt, completion)
    n_ids: int
    log_joint: np.ndarray  # (n_ids,) log pi(x) + log P(y | x), pi uniform over the m prompts


@dataclass(frozen=True)
class GoodnessOfFit(Statistic):
    """One-sample goodness of fit of the API sample Q to the reference P, whose probability of every
    observed completion is known (a "logprob" per row: log P(y | x) under the reference model). It reads
    only the API sample (the `idx_q` rows); its null is simulated from reference rows with their own
    log-probabilities, so `NullSimulator(ref_pool_with_logprobs, GoodnessOfFit(...))` calibrates it. With
    o_z the API's count of the distinct pair z = (x, y), n the API's size and p_z = P(y | x) / m:

    - "g2" (the likelihood-ratio G^2): -2 sum_z o_z log(n p_z / o_z);
    - "pearson" (chi^2): sum_z (o_z - n p_z)^2 / (n p_z) + n (1 - sum_z p_z): the unobserved completions'
      terms (n p_z)^2 / (n p_z) sum to n times their probability mass, so only observed ones are needed;
    - "gof_l1": sum_z |o_z - n p_z| + n (1 - sum_z p_z), by the same argument.

    The paper finds these the most powerful tests at small N (with completion probabilities known), and
    useless once completions rarely repeat.

    >>> from iclr25.model_equality.encoding import encode_chars
    >>> q = CompletionSample(np.zeros(4, int), encode_chars(["a", "a", "b", "b"], 1), 1,
    ...                      np.log([0.5, 0.5, 0.5, 0.5]))
    >>> GoodnessOfFit("g2")(q, q), GoodnessOfFit("pearson")(q, q)   # the sample matches P exactly
    (0.0, 0.0)
    """

    kind: str = "g2"
    name = "gof"

    def prepare(self, pooled: CompletionSample) -> _GofPrep:
        if self.kind not in GOF_KINDS:
            raise UserError(f"unknown goodness-of-fit statistic {self.kind!r}; choose from "
                            f"{', '.join(GOF_KINDS)}")
        if pooled.logprobs is None:
            raise UserError("goodness-of-fit tests need the reference model's log-probability of every "
                            "completion (a 'logprob' field in every row of both files)")
        cp = _prepare_counts(pooled)
        log_joint = np.full(cp.n_ids, np.nan)
        log_joint[cp.ids] = pooled.logprobs - np.log(pooled.m)
        spread = np.zeros(cp.n_ids)
        np.maximum.at(spread, cp.ids, np.abs(pooled.logprobs - log_joint[cp.ids] - np.log(pooled.m)))
        if (spread > 1e-4).any():
            raise UserError("rows with the same completion carry different log-probabilities (is --length "
                            "shorter than the completions? goodness-of-fit needs whole completions)")
        return _GofPrep(cp.ids, cp.n_ids, log_joint)

    def value(self, prep: _GofPrep, idx_p: np.ndarray, idx_q: np.ndarray) -> float:
        o = np.bincount(prep.ids[idx_q], minlength=prep.n_ids).astype(np.float64)
        seen = o > 0
        n = float(len(idx_q))
        o, logp = o[seen], prep.log_joint[seen]
        np_ = n * np.exp(logp)
        unseen = max(0.0, 1.0 - float(np.exp(logp).sum()))
        if self.kind == "g2":
            return 0.0 + float(-2.0 * (o * (np.log(n) + logp - np.log(o))).sum())  # 0.0 + : no -0.0
        if self.kind == "pearson":
            return float((np.square(o - np_) / np_).sum() + n * unseen)
        return float(np.abs(o - np_).sum() + n * unseen)


# ---- lookup and effect size ---------------------------------------------------------------------------

STATISTICS: dict[str, type[Statistic]] = {
    "hamming": HammingMMD, "hamming_gram": HammingMMDGram, "all_substrings": AllSubstringsMMD,
    "onehot": OneHotMMD, "l1": L1Stat, "l2": L2Stat, "chi2": Chi2Stat,
}


def _check_denominator(d: str) -> None:
    if d not in DENOMINATORS:
        raise UserError(f"unknown denominator {d!r}; choose from {', '.join(DENOMINATORS)}")


def get_statistic(name: str | Statistic, **kwargs: Any) -> Statistic:
    """A statistic by name: hamming | hamming_gram | all_substrings | onehot | l1 | l2 | chi2, or a
    goodness-of-fit statistic g2 | pearson | gof_l1 (these need log-probabilities)."""
    if isinstance(name, Statistic):
        return name
    if name in GOF_KINDS:
        return GoodnessOfFit(name)
    if name not in STATISTICS:
        raise UserError(f"unknown statistic {name!r}; choose from {', '.join([*STATISTICS, *GOF_KINDS])}")
    return STATISTICS[name](**kwargs)


def mmd_distance(p: CompletionSample, q: CompletionSample, kernel: str = "hamming") -> float:
    """Effect size: sqrt(max(MMD^2_hat, 0)) with the normalised kernel; 0 = indistinguishable, and
    sqrt(2) is the largest possible (disjoint supports, unit-diagonal kernel).

    >>> from iclr25.model_equality.encoding import encode_chars
    >>> p = CompletionSample(np.array([0, 0]), encode_chars(["ab", "ab"], 2), 1)
    >>> round(mmd_distance(p, p), 6)
    0.0
    """
    stat = get_statistic(kernel)
    if not isinstance(stat, HammingMMD | HammingMMDGram | AllSubstringsMMD | OneHotMMD):
        raise UserError(f"mmd_distance needs an MMD kernel, got {kernel!r}")
    return float(np.sqrt(max(stat(p, q), 0.0)))
