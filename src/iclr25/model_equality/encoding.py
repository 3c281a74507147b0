"""Completions as integer arrays: one row per (prompt, completion) pair, padded to length L with PAD.

Character space uses Unicode code points; token space uses the ids a tokenizer gave, cut at EOS.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from iclr25.core.errors import UserError

PAD = -1  # the pad symbol; pads compare equal to pads (paper §3, reference code)


@dataclass(frozen=True)
class CompletionSample:
    """N completions to m prompts: `prompt_ids[i]` in [0, m) is the prompt of row `completions[i]`.

    >>> s = CompletionSample(np.array([0, 0, 1]), encode_chars(["ab", "a", "xyz"], L=3), m=2)
    >>> s.N, s.L, s.counts().tolist()
    (3, 3, [2, 1])
    """

    prompt_ids: np.ndarray  # (N,) int64
    completions: np.ndarray  # (N, L) int64, PAD after the end of each completion
    m: int
    logprobs: np.ndarray | None = None  # (N,) log P_ref(completion | prompt), for goodness-of-fit tests

    def __post_init__(self) -> None:
        x = np.asarray(self.prompt_ids, dtype=np.int64).reshape(-1)
        y = np.asarray(self.completions, dtype=np.int64)
        if self.logprobs is not None:
            lp = np.asarray(self.logprobs, dtype=np.float64).reshape(-1)
            if lp.shape != x.shape or np.isnan(lp).any() or (lp > 1e-9).any():
                raise ValueError(f"logprobs must be {x.shape[0]} log-probabilities (<= 0, no NaN)")
            object.__setattr__(self, "logprobs", np.minimum(lp, 0.0))
        if y.ndim != 2 or y.shape[0] != x.shape[0]:
            raise ValueError(f"completions must be (N, L) with N = len(prompt_ids) = {x.shape[0]}, "
                             f"got shape {y.shape}")
        if x.size and (x.min() < 0 or x.max() >= self.m):
            raise ValueError(f"prompt ids must lie in [0, {self.m}), got range [{x.min()}, {x.max()}]")
        if y.size and y.min() < PAD:
            raise ValueError(f"symbols must be >= {PAD} (the pad symbol), got {y.min()}")
        object.__setattr__(self, "prompt_ids", x)
        object.__setattr__(self, "completions", y)

    @property
    def N(self) -> int:  # noqa: N802 - the paper's name
        return int(self.prompt_ids.shape[0])

    @property
    def L(self) -> int:  # noqa: N802
        return int(self.completions.shape[1])

    def counts(self) -> np.ndarray:
        """Samples per prompt, shape (m,)."""
        return np.bincount(self.prompt_ids, minlength=self.m)

    def subset(self, idx: np.ndarray) -> CompletionSample:
        lp = None if self.logprobs is None else self.logprobs[idx]
        return CompletionSample(self.prompt_ids[idx], self.completions[idx], self.m, lp)

    def truncate(self, L: int) -> CompletionSample:  # noqa: N803
        """The first L symbols of every completion (a shorter task on the same samples; the completions'
        log-probabilities no longer apply and are dropped)."""
        return CompletionSample(self.prompt_ids, self.completions[:, :L], self.m)


def concat(a: CompletionSample, b: CompletionSample) -> CompletionSample:
    """Rows of `a` then rows of `b` (same m and L)."""
    if a.m != b.m or a.L != b.L:
        raise ValueError(f"cannot concatenate samples with (m, L) = {(a.m, a.L)} and {(b.m, b.L)}")
    lp = None if a.logprobs is None or b.logprobs is None else np.concatenate([a.logprobs, b.logprobs])
    return CompletionSample(np.concatenate([a.prompt_ids, b.prompt_ids]),
                            np.concatenate([a.completions, b.completions]), a.m, lp)


def encode_chars(texts: Sequence[str], L: int) -> np.ndarray:  # noqa: N803
    """Character space: code points, truncated or padded with PAD to length L.

    >>> encode_chars(["hi"], L=3).tolist()
    [[104, 105, -1]]
    """
    out = np.full((len(texts), L), PAD, dtype=np.int64)
    for i, t in enumerate(texts):
        cps = [ord(c) for c in t[:L]]
        out[i, : len(cps)] = cps
    return out


def encode_tokens(token_ids: Iterable[Sequence[int]], L: int, eos_id: int | None = None) -> np.ndarray:  # noqa: N803
    """Token space: ids cut at the first EOS (EOS itself dropped), truncated or padded to L.

    >>> encode_tokens([[5, 7, 2, 9], [3]], L=3, eos_id=2).tolist()
    [[5, 7, -1], [3, -1, -1]]
    """
    rows = list(token_ids)
    out = np.full((len(rows), L), PAD, dtype=np.int64)
    for i, ids in enumerate(rows):
        ids = list(ids)
        if eos_id is not None and eos_id in ids:
            ids = ids[: ids.index(eos_id)]
        ids = ids[:L]
        if any(t < 0 for t in ids):
            raise UserError(f"row {i}: token ids must be non-negative, got {min(ids)}")
        out[i, : len(ids)] = ids
    return out


# ---- JSONL rows {"prompt": str, "completion": str}: the format users already collect ----------------

def read_jsonl(path: str | Path, logprobs: bool = False) -> list[tuple]:
    """(prompt, completion) pairs from a JSONL file, or (prompt, completion, logprob) triples with
    `logprobs` (a numeric field "logprob": log P_ref(completion | prompt), the reference model's score of
    the whole completion); any bad row is a one-line UserError naming it."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"{path}: no such file")
    rows: list[tuple[str, str]] = []
    with path.open("rb") as f:
        for lineno, raw in enumerate(f, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise UserError(f"{path}:{lineno}: line is not valid UTF-8") from None
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise UserError(f"{path}:{lineno}: not valid JSON ({e.msg})") from None
            except RecursionError:
                raise UserError(f"{path}:{lineno}: JSON nested too deeply") from None
            except ValueError as e:  # e.g. an integer too long to convert
                why = " ".join(str(e).split())[:80]
                raise UserError(f"{path}:{lineno}: unreadable JSON ({why})") from None
            if not isinstance(row, dict):
                raise UserError(f"{path}:{lineno}: expected an object with 'prompt' and 'completion'")
            for key in ("prompt", "completion"):
                if key not in row:
                    raise UserError(f"{path}:{lineno}: row is missing the field {key!r}")
                if not isinstance(row[key], str):
                    raise UserError(f"{path}:{lineno}: field {key!r} must be a string")
            if not row["completion"]:
                raise UserError(f"{path}:{lineno}: empty completion")
            if logprobs:
                lp = row.get("logprob")
                if isinstance(lp, bool) or not isinstance(lp, int | float) or not -1e9 < lp <= 1e-9:
                    raise UserError(f"{path}:{lineno}: goodness-of-fit tests need a field 'logprob' (the "
                                    "reference model's log-probability of the completion, <= 0)")
                rows.append((row["prompt"], row["completion"], float(lp)))
            else:
                rows.append((row["prompt"], row["completion"]))
    if not rows:
        raise UserError(f"{path}: no rows")
    return rows


def samples_from_rows(ref: list[tuple], api: list[tuple], L: int | None = None,  # noqa: N803
                      names: tuple[str, str] = ("ref", "api"), min_per_prompt: int = 2,
                      ) -> tuple[CompletionSample, CompletionSample, list[str]]:
    """Encode two row sets over one shared prompt index (character space).

    The prompt sets must be equal: a test of P(.|x) against Q(.|x) needs both for every x. L defaults to
    the longest completion in either set.
    """
    prompts_ref, prompts_api = {r[0] for r in ref}, {r[0] for r in api}
    if prompts_ref != prompts_api:
        only = sorted(prompts_ref - prompts_api) or sorted(prompts_api - prompts_ref)
        side = names[0] if prompts_ref - prompts_api else names[1]
        raise UserError(f"prompt sets differ: {len(only)} prompt(s) only in {side}, "
                        f"first {only[0][:60]!r}")
    prompts = sorted(prompts_ref)
    index = {p: i for i, p in enumerate(prompts)}
    if L is None:
        L = max(len(r[1]) for r in ref + api)  # noqa: N806
    if L < 1:
        raise UserError(f"L must be >= 1, got {L}")
    out = []
    for name, rows in zip(names, (ref, api), strict=True):
        ids = np.array([index[r[0]] for r in rows], dtype=np.int64)
        lp = np.array([r[2] for r in rows]) if all(len(r) > 2 for r in rows) else None
        s = CompletionSample(ids, encode_chars([r[1] for r in rows], L), len(prompts), lp)
        counts = s.counts()
        if counts.min() < min_per_prompt:
            bad = prompts[int(np.argmin(counts))]
            raise UserError(f"{name}: prompt {bad[:60]!r} has {counts.min()} sample(s); "
                            f"need at least {min_per_prompt} per prompt")
        out.append(s)
    return out[0], out[1], prompts
