"""Baseline reward models: response length, its negative, markdown-mark count, a seeded random score
and MiniLM zero-shot relevance. Each is a callable `scorer(prompts, responses) -> (n,) float array`,
the interface `evaluate` takes; none looks at whether the answer is correct, which is the point."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence

import numpy as np

from iclr25.core.errors import UserError

# One count per markdown construct: headings, list items, emphasis, code fences / inline code, tables,
# quotes, horizontal rules.
MARKDOWN_MARKS = re.compile(
    r"^\s{0,3}#{1,6}\s"           # heading
    r"|^\s*(?:[-*+]|\d+[.)])\s"   # bullet or numbered list item
    r"|\*\*[^*\n]+\*\*|__[^_\n]+__"  # bold
    r"|```|`[^`\n]+`"             # code fence, inline code
    r"|^\s*\|.*\|\s*$"            # table row
    r"|^\s*>\s"                   # block quote
    r"|^\s*(?:-{3,}|\*{3,})\s*$",  # horizontal rule
    re.MULTILINE)


def _check(prompts: Sequence[str], responses: Sequence[str]) -> tuple[list[str], list[str]]:
    prompts, responses = list(prompts), list(responses)
    if len(prompts) != len(responses):
        raise UserError(f"{len(prompts)} prompts for {len(responses)} responses")
    bad = next((x for x in (*prompts, *responses) if not isinstance(x, str)), None)
    if bad is not None:
        raise UserError(f"prompts and responses must be strings, got {type(bad).__name__}")
    return prompts, responses


def markdown_marks(text: str) -> int:
    """Number of markdown constructs in `text`.

    >>> markdown_marks("## Plan\\n1. **Mix** the `flour`\\n- bake")  # heading, 2 list items, bold, code
    5
    """
    return len(MARKDOWN_MARKS.findall(text))


class Length:
    """r(x, y) = number of characters of y: the style bias in its purest form."""

    name = "length"

    def __call__(self, prompts: Sequence[str], responses: Sequence[str]) -> np.ndarray:
        _, responses = _check(prompts, responses)
        return np.array([len(y) for y in responses], dtype=np.float64)


class NegLength(Length):
    """r(x, y) = −len(y): prefers the concise answer."""

    name = "neg-length"

    def __call__(self, prompts: Sequence[str], responses: Sequence[str]) -> np.ndarray:
        return -super().__call__(prompts, responses)


class Markdown:
    """r(x, y) = number of markdown constructs in y (headings, list items, bold, code, tables...)."""

    name = "markdown"

    def __call__(self, prompts: Sequence[str], responses: Sequence[str]) -> np.ndarray:
        _, responses = _check(prompts, responses)
        return np.array([markdown_marks(y) for y in responses], dtype=np.float64)


class Random:
    """r(x, y) ~ U(0, 1), a hash of (seed, x, y): the same response always gets the same score, so the
    result does not depend on item order or batching; expected 50 in every cell."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= seed < 2**63:
            raise UserError(f"seed must be an integer in [0, 2^63), got {seed!r}")
        self.seed = int(seed)

    def __call__(self, prompts: Sequence[str], responses: Sequence[str]) -> np.ndarray:
        prompts, responses = _check(prompts, responses)
        out = np.empty(len(responses))
        for i, (x, y) in enumerate(zip(prompts, responses, strict=True)):
            h = hashlib.blake2b(f"{self.seed}\x00{x}\x00{y}".encode("utf-8", "surrogatepass"), digest_size=8)
            out[i] = int.from_bytes(h.digest(), "little") / 2**64
        return out


class MiniLMRelevance:
    """r(x, y) = cos(e(x), e(y)) with all-MiniLM-L6-v2 sentence vectors truncated to `max_length` word
    pieces: a zero-shot "does the answer talk about the question" reward."""

    name = "minilm"

    def __init__(self, max_length: int = 128, mapper: Callable | None = None) -> None:
        self.max_length, self.mapper = max_length, mapper

    def __call__(self, prompts: Sequence[str], responses: Sequence[str]) -> np.ndarray:
        from iclr25.rm_bench.embed import minilm_vectors
        prompts, responses = _check(prompts, responses)
        e = minilm_vectors([*prompts, *responses], self.max_length, self.mapper)  # (2n, 384), unit norm
        n = len(prompts)
        return np.einsum("nd,nd->n", e[:n], e[n:]).astype(np.float64)
