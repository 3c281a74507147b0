"""Completion pools: for each endpoint, n completions of L tokens per prompt, sampled at temperature 1
with the KV cache, in the reference tokenizer's token space (cut at end-of-sequence, padded with PAD).

A pool is cached (atomic) under a key of (reference model, endpoint, seed, prompts, L). Completion r
of prompt j always comes from its own random stream, so a larger request extends a smaller cached pool
instead of starting over: the quick profile's pools are the first rows of the full profile's."""

from __future__ import annotations

import io
from dataclasses import asdict, dataclass

import numpy as np

from iclr25.core.runtime import atomic_write, cache_dir, config_hash
from iclr25.model_equality.encoding import PAD, CompletionSample
from iclr25.model_equality.endpoints import ENDPOINTS, ModelConfig, endpoint_model, reference_model

_VERSION = 1
_STREAMS_PER_PROMPT = 1_000_000  # stream id of completion r of prompt j: j * 1e6 + r


@dataclass(frozen=True)
class PoolRequest:
    """One endpoint's pool: `n` completions of `L` reference tokens for each prompt (module-level and
    picklable, so pools are built in parallel by ctx.map)."""

    endpoint: str
    prompts: tuple[str, ...]
    n: int
    L: int  # noqa: N815 - the paper's name
    seed: int
    models: ModelConfig
    batch: int = 50
    tv_contexts: int = 2  # reference completions per prompt over which the per-token TV is measured


def pool_seed(seed: int, endpoint: str) -> int:
    """Each endpoint samples from its own seed ("same" differs from "ref"): keyed by (seed, endpoint)."""
    return int(np.random.SeedSequence([seed, ENDPOINTS.index(endpoint)]).generate_state(1)[0])


def _endpoint_params(req: PoolRequest) -> dict:
    """The settings that make this endpoint's model (changing another endpoint's keeps this pool)."""
    c = asdict(req.models)
    names = {"int8": ("quant_group",), "nf4": ("quant_group",),
             "watermark": ("gamma", "delta", "watermark_key"),
             "finetune": ("finetune", "finetune_block", "finetune_chars"),
             "swap": ("gpt", "gpt_train", "gpt_verses", "swap_seed")}.get(req.endpoint, ())
    return {k: c[k] for k in names}


def _path(req: PoolRequest, fingerprint: str):
    key = config_hash({"ref": fingerprint, "endpoint": req.endpoint, "seed": req.seed, "prompts": req.prompts,
                       "L": req.L, "params": _endpoint_params(req), "v": _VERSION})
    return cache_dir() / "model_equality" / "pools" / f"{req.models.reference}-{req.endpoint}-{key}.npz"


def _fingerprint(cfg: ModelConfig) -> str:
    """Identifies the reference weights without loading them when possible (the GGUF's hash)."""
    if cfg.reference == "smollm2":
        from iclr25.core.models.gguf import file_sha256, smollm2_path
        return file_sha256(smollm2_path())[:16]
    return reference_model(cfg).fingerprint


def _read(path) -> tuple[np.ndarray, float] | None:
    try:
        with np.load(path) as d:
            return d["completions"], float(d["tv"])
    except (OSError, ValueError, KeyError):
        return None


def sample_completions(model, ref_tok, prompts: list[str], rows: list[tuple[int, int]], L: int, seed: int,  # noqa: N803
                       batch: int) -> np.ndarray:
    """Completions (len(rows), L) in the reference tokenizer's space for (prompt j, row r) pairs. A model
    with another tokenizer (a swap) is decoded to text and re-encoded, so all endpoints compare alike."""
    tok = model.tokenizer
    same_space = tok.to_json() == ref_tok.to_json()
    ctx = {j: model._context(p) for j, p in enumerate(prompts)}
    longest = max(len(c) for c in ctx.values())
    # a foreign tokenizer may cut text finer: sample up to 2L of its tokens (within its context)
    new = L if same_space else max(1, min(2 * L, model.max_length - longest))
    ids = model.generate_ids([ctx[j] for j, _ in rows], max_new_tokens=new, temperature=1.0, top_p=1.0,
                             seed=seed, batch=batch, streams=[j * _STREAMS_PER_PROMPT + r for j, r in rows])
    out = np.full((len(rows), L), PAD, dtype=np.int64)
    for i, x in enumerate(ids):
        y = x if same_space else ref_tok.encode(tok.decode(x))
        out[i, :min(L, len(y))] = y[:L]
    return out


def build_pool(req: PoolRequest) -> tuple[CompletionSample, float]:
    """The endpoint's pool (m prompts x n rows, row-major by prompt) and its mean per-token TV distance
    to the reference (0 for "ref"/"same"; NaN for a model with another vocabulary)."""
    m = len(req.prompts)
    path = _path(req, _fingerprint(req.models))
    cached = _read(path) if path.is_file() else None
    have = 0 if cached is None else cached[0].shape[1]
    if have >= req.n:
        comp, tv = cached
        return _as_sample(comp[:, :req.n]), tv
    ref = reference_model(req.models)
    model = endpoint_model(req.endpoint, ref, req.models)
    rows = [(j, r) for j in range(m) for r in range(have, req.n)]
    fresh = sample_completions(model, ref.tokenizer, list(req.prompts), rows, req.L,
                               pool_seed(req.seed, req.endpoint), req.batch).reshape(m, req.n - have, req.L)
    comp = fresh if cached is None else np.concatenate([cached[0], fresh], axis=1)  # (m, n, L)
    tv = cached[1] if cached is not None else _tv(ref, model, list(req.prompts), comp, req.tv_contexts)
    buf = io.BytesIO()
    np.savez(buf, completions=comp.astype(np.int32), tv=np.float64(tv))
    with atomic_write(path) as f:
        f.write(buf.getvalue())
    return _as_sample(comp), tv


def _as_sample(comp: np.ndarray) -> CompletionSample:
    m, n, L = comp.shape  # noqa: N806
    return CompletionSample(np.repeat(np.arange(m), n), comp.reshape(m * n, L).astype(np.int64), m)


def _tv(ref, model, prompts: list[str], comp: np.ndarray, k: int) -> float:
    """Mean per-token TV between the endpoint's and the reference's next-token distributions, over the
    prompt + completion contexts of the endpoint's first k completions per prompt."""
    from iclr25.core.models import per_token_tv
    if model is ref:
        return 0.0
    if model.vocab_size != ref.vocab_size or model.tokenizer.to_json() != ref.tokenizer.to_json():
        return float("nan")
    seqs = [ref._context(p) + [int(t) for t in comp[j, r] if t != PAD]
            for j, p in enumerate(prompts) for r in range(min(k, comp.shape[1]))]
    return float(per_token_tv(ref, model, seqs).mean())
