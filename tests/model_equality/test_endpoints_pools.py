"""Endpoints are real transformations of a real model, and completion pools are what the power study
needs: reproducible by seed, independent across endpoints, extendable without changing earlier rows,
cached, in the reference tokenizer's space (a swapped model's text is re-encoded)."""

import shutil
from dataclasses import replace

import numpy as np
import pytest

from iclr25.core.errors import UserError
from iclr25.model_equality.encoding import PAD
from iclr25.model_equality.endpoints import (
    DISTORTIONS,
    ENDPOINTS,
    ModelConfig,
    endpoint_model,
    reference_model,
)
from iclr25.model_equality.experiments import PROFILES
from iclr25.model_equality.pools import PoolRequest, build_pool, pool_seed, sample_completions

pytestmark = pytest.mark.skipif(shutil.which("bible") is None,
                                reason="needs the KJV (apt-get install bible-kjv bible-kjv-text)")
TINY = PROFILES["smoke"][0][1].models  # a TinyGPT trained for a few steps on KJV verses


@pytest.fixture(scope="module")
def task():
    from iclr25.model_equality.corpus import prompts
    return tuple(prompts(3))


def test_prompts_are_held_out_fixed_openings(task):
    from iclr25.model_equality.corpus import PROMPT_WORDS, prompts, training_verses
    assert prompts(3) == list(task) and prompts(5)[:3] == list(task)  # quick's task is a prefix of full's
    assert all(len(p.split()) == PROMPT_WORDS for p in task)
    train = training_verses(limit=None)
    assert not any(v.startswith(p) for p in task for v in train)


def test_every_endpoint_is_a_real_model(task):
    ref = reference_model(TINY)
    ids = [ref._context(task[0])]
    base = next(ref.distributions(ids))[1]
    for name in DISTORTIONS:
        model = endpoint_model(name, ref, TINY)
        if name == "swap":
            assert model is not ref and model.fingerprint != ref.fingerprint
            continue
        diff = float((next(model.distributions(ids))[1] - base).abs().max())
        assert diff > 0, name
    assert endpoint_model("same", ref, TINY) is ref
    with pytest.raises(UserError, match="unknown endpoint"):
        endpoint_model("gpt4", ref, TINY)
    with pytest.raises(UserError, match="unknown reference"):
        ModelConfig(reference="llama")


def test_pools_are_seeded_independent_extendable_and_cached(task, tmp_path, monkeypatch):
    monkeypatch.setenv("ICLR25_CACHE", str(tmp_path))
    small, tv = build_pool(PoolRequest("ref", task, 3, 6, 0, TINY))
    assert small.N == 9 and small.L == 6 and small.counts().tolist() == [3, 3, 3] and tv == 0.0
    big, _ = build_pool(PoolRequest("ref", task, 5, 6, 0, TINY))  # extends the cached 3 rows per prompt
    assert np.array_equal(big.completions.reshape(3, 5, 6)[:, :3], small.completions.reshape(3, 3, 6))
    again, _ = build_pool(PoolRequest("ref", task, 5, 6, 0, TINY))  # from the cache
    assert np.array_equal(again.completions, big.completions)
    same, _ = build_pool(PoolRequest("same", task, 5, 6, 0, TINY))  # the same model, its own seed
    other, _ = build_pool(PoolRequest("ref", task, 5, 6, 1, TINY))
    assert not np.array_equal(same.completions, big.completions)
    assert not np.array_equal(other.completions, big.completions)
    assert len({pool_seed(0, e) for e in ENDPOINTS}) == len(ENDPOINTS)
    rows = big.completions
    for r in rows:  # once padded (end of sequence), always padded
        pad = np.flatnonzero(r == PAD)
        assert pad.size == 0 or np.all(r[pad[0]:] == PAD)


def test_a_swapped_model_is_compared_in_the_reference_token_space(task):
    ref = reference_model(TINY)
    other_tok = replace(TINY, gpt=replace(TINY.gpt, vocab_size=280))
    swap = reference_model(other_tok)  # another tokenizer (280 tokens)
    assert swap.tokenizer.to_json() != ref.tokenizer.to_json()
    out = sample_completions(swap, ref.tokenizer, list(task), [(0, 0), (1, 0)], 6, seed=3, batch=2)
    assert out.shape == (2, 6) and out.max() < ref.vocab_size
    text = ref.tokenizer.decode([t for t in out[0] if t != PAD])
    assert text  # re-encoded text of the swapped model


def test_generation_is_reproducible_by_seed_whatever_the_batch(task):
    ref = reference_model(TINY)
    rows = [(j, r) for j in range(3) for r in range(2)]
    a = sample_completions(ref, ref.tokenizer, list(task), rows, 6, seed=3, batch=6)
    b = sample_completions(ref, ref.tokenizer, list(task), rows, 6, seed=3, batch=1)
    c = sample_completions(ref, ref.tokenizer, list(task), rows, 6, seed=4, batch=6)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
