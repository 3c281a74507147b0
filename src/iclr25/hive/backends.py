"""The language backends every route shares. A backend scores closed options for a request
(`score(query, options) -> one float per option`, higher = more likely):

- `MiniLM`: cosine similarity of sentence vectors (the options are the domain files' `;` comments);
- `SmolLM2`: mean log-likelihood of each option as the answer to one chat prompt; the prompt prefix is
  run once and its keys/values are reused for every option (no free-form generation: the 135M model
  cannot write PDDL, spec §4);
- `OpenAICompatible(url, model)`: any chat-completions endpoint; it picks options by number, and for
  Hive writes the PDDL problem itself, which is re-parsed and checked, with at most 3 retries.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from iclr25.core.errors import UserError
from iclr25.hive.pddl import Domain, Problem, check_problem, parse_problem

BACKENDS = ("minilm", "smollm2", "openai")
# A request is refused above this size (one line, exit 2). MuSE itself holds a 31,044-character request
# (query 68: a document to summarise), so the bound sits well above real requests.
MAX_QUERY_CHARS = 100_000


def clip(query: str, head: int = 320, tail: int = 160) -> str:
    """Requests put instructions at the start and sometimes the end; long passages in between are cut."""
    q = " ".join(query.split())
    return q if len(q) <= head + tail else f"{q[:head]} ... {q[-tail:]}"


class MiniLM:
    name = "minilm"

    def __init__(self, encoder: Any | None = None) -> None:
        self._encoder = encoder
        self._cache: dict[str, np.ndarray] = {}

    @property
    def encoder(self) -> Any:
        if self._encoder is None:
            from iclr25.core.models import sentence_encoder

            self._encoder = sentence_encoder()
        return self._encoder

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        new = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if new:
            for t, v in zip(new, self.encoder.encode(new), strict=True):
                self._cache[t] = v
        return np.stack([self._cache[t] for t in texts])  # (n, 384)

    def score(self, query: str, options: Sequence[str]) -> np.ndarray:
        q = self.embed([clip(query)])[0]
        return self.embed(list(options)) @ q  # cosine: the vectors are unit-norm


class SmolLM2:
    name = "smollm2"
    by_name = True  # options are tool names in words: short closed answers (each costs tokens)
    system = "You route user requests to AI tools. Name the tool the request needs."

    def __init__(self, lm: Any | None = None, batch: int = 16) -> None:
        self._lm, self.batch = lm, batch
        self._opt_ids: dict[str, list[int]] = {}

    @property
    def lm(self) -> Any:
        if self._lm is None:
            from iclr25.core.models import small_lm

            self._lm = small_lm()
        return self._lm

    def prompt(self, query: str) -> str:
        return self.lm.apply_chat(
            [
                {"role": "system", "content": self.system},
                {"role": "user", "content": f"Request: {clip(query)}\nWhich tool?"},
            ]
        )

    def score(self, query: str, options: Sequence[str]) -> np.ndarray:
        """Mean log p(option tokens | prompt) per option; the prompt's KV cache is computed once."""
        import torch

        lm, tok = self.lm, self.lm.tokenizer
        prefix = tok.encode(self.prompt(query))
        opts = [self._opt_ids.setdefault(o, tok.encode(o)[:48] or [tok.eos_ids[0]]) for o in options]
        P, L = len(prefix), max(len(o) for o in opts)  # noqa: N806
        out = np.zeros(len(opts), np.float64)
        with torch.no_grad():
            cache = lm.new_cache(1, P + L)
            ids = torch.tensor([prefix])
            full = torch.ones((1, P), dtype=torch.bool)
            first = torch.log_softmax(lm(ids, torch.arange(P)[None], full, cache)[0, -1].float(), -1)  # (V,)
            for s in range(0, len(opts), self.batch):
                chunk = opts[s : s + self.batch]
                B = len(chunk)  # noqa: N806
                sub = lm.new_cache(B, P + L)
                for layer in range(len(sub.k)):
                    sub.k[layer][:, :, :P] = cache.k[layer][:, :, :P]
                    sub.v[layer][:, :, :P] = cache.v[layer][:, :, :P]
                sub.length = P
                x = torch.full((B, L), tok.pad_id, dtype=torch.long)
                mask = torch.zeros((B, P + L), dtype=torch.bool)
                mask[:, :P] = True
                for b, o in enumerate(chunk):
                    x[b, : len(o)] = torch.tensor(o)
                    mask[b, P : P + len(o)] = True
                pos = torch.arange(P, P + L)[None].expand(B, L)
                logp = torch.log_softmax(lm(x, pos, mask, sub).float(), -1)  # (B, L, V)
                for b, o in enumerate(chunk):
                    lps = [float(first[o[0]])] + [float(logp[b, i - 1, o[i]]) for i in range(1, len(o))]
                    out[s + b] = float(np.mean(lps))
        return out


class OpenAICompatible:
    """A chat-completions endpoint (`POST {url}/chat/completions`), e.g. a local vLLM or llama.cpp server."""

    name = "openai"
    retries = 3

    def __init__(self, url: str, model: str, api_key: str | None = None, timeout: float = 60.0) -> None:
        if not re.match(r"^https?://[^\s/]+", url or ""):
            raise UserError(f"--url must be an http(s) URL, got {url!r}"[:200])
        if not model:
            raise UserError("an OpenAI-compatible backend needs a model name")
        self.url, self.model, self.api_key, self.timeout = url.rstrip("/"), model, api_key, timeout

    def complete(self, messages: list[dict[str, str]]) -> str:
        import httpx

        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        try:
            r = httpx.post(
                f"{self.url}/chat/completions",
                headers=headers,
                timeout=self.timeout,
                json={"model": self.model, "messages": messages, "temperature": 0},
            )
            r.raise_for_status()
            return str(r.json()["choices"][0]["message"]["content"])
        except (httpx.HTTPError, KeyError, IndexError, TypeError, ValueError) as e:
            raise UserError(f"LLM endpoint {self.url} failed: {type(e).__name__}: {str(e)[:120]}") from None

    def score(self, query: str, options: Sequence[str]) -> np.ndarray:
        listing = "\n".join(f"{i + 1}. {o}" for i, o in enumerate(options))
        reply = self.complete(
            [
                {
                    "role": "user",
                    "content": (
                        f"Request: {clip(query, 2000, 500)}\nTools:\n{listing}\n"
                        "Answer with the numbers of every tool the request needs, comma-separated, "
                        "nothing else."
                    ),
                }
            ]
        )
        picked = {int(n) - 1 for n in re.findall(r"\d+", reply)}
        return np.array([1.0 if i in picked else 0.0 for i in range(len(options))])

    def problem(self, query: str, domain: Domain) -> tuple[Problem, int]:
        """The PDDL problem for `query` written by the LLM, re-parsed and checked against `domain`;
        a failure is sent back with the error, at most `retries` times. Returns (problem, retries used)."""
        messages = [
            {
                "role": "system",
                "content": "You write PDDL problems. Reply with one (define (problem "
                "...)) form and nothing else.",
            },
            {
                "role": "user",
                "content": f"Domain:\n{domain.to_pddl()}\nRequest: {clip(query, 2000, 500)}\n"
                "Write the problem: typed objects for the inputs, :init with "
                "their type facts, :goal with the effects the request needs.",
            },
        ]
        error = ""
        for attempt in range(self.retries + 1):
            reply = self.complete(messages)
            m = re.search(r"\(define\s*\(problem.*\)", reply, re.DOTALL | re.IGNORECASE)
            try:
                if not m:
                    raise UserError("no (define (problem ...)) form in the reply")
                prob = parse_problem(m.group(0), "<llm>")
                check_problem(domain, prob)
                return prob, attempt
            except UserError as e:
                error = str(e)
                messages += [
                    {"role": "assistant", "content": reply},
                    {"role": "user", "content": f"That problem is invalid: {error}. Fix it."},
                ]
        raise UserError(
            f"the LLM wrote no valid PDDL problem in {self.retries + 1} tries (last error: {error})"
        )


def make_backend(name: str, url: str | None = None, model: str | None = None) -> Any:
    if name == "minilm":
        return MiniLM()
    if name == "smollm2":
        return SmolLM2()
    if name == "openai":
        if not url or not model:
            raise UserError("backend 'openai' needs --url and --model")
        return OpenAICompatible(url, model)
    raise UserError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}")
