"""Generation throughput of the power study's models, measured first to size the study (issue #14).

1. SmolLM2-135M load time: cold (parse + dequantise the GGUF, write the cache) vs warm (read the cache).
2. Batched sampling with the KV cache (temperature 1, 32 new tokens after a 16-token KJV prompt):
   tokens per CPU-second at batch 1, 32, 128, 200 on 1 thread (ratios to batch 1), and the wall-clock
   speed-up of 2 threads over 1 at batch 128.
3. Peer: transformers' LlamaForCausalLM.generate (its KV cache, sampling) on the same weights, batch 32.
4. The TinyGPT (the swapped model / second reference) at batch 200.

Run under the shared lock (about 4 CPU-minutes):
    flock /tmp/iclr25-heavy.lock .venv/bin/python benchmarks/model_equality/bench_generation.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

PROMPT = "And Boaz said unto the elders, and unto all the people, Ye are witnesses this day"


def load_times() -> tuple[float, float]:
    """(cold, warm) wall seconds of small_lm() in fresh processes (cold: an empty cache folder)."""
    code = ("import time; t = time.perf_counter(); from iclr25.core.models import small_lm; small_lm(); "
            "print(time.perf_counter() - t)")
    out = []
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "ICLR25_CACHE": cache, "ICLR25_THREADS": "1"}
        for _ in range(2):  # the first call fills the cache, the second reads it
            r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                               check=True)
            out.append(float(r.stdout.strip().splitlines()[-1]))
    return out[0], out[1]


def tokens_per_s(model, batch: int, new: int = 32, cpu: bool = True) -> float:
    """Sampled tokens per CPU-second of this process (cpu=True: steady on a shared machine, equal to
    tokens/s on an idle core with 1 thread) or per wall-clock second."""
    ids = model.tokenizer.encode(PROMPT)
    clock = time.process_time if cpu else time.perf_counter
    t = clock()
    out = model.generate_ids([ids] * batch, max_new_tokens=new, seed=1, batch=batch, stop_at_eos=False)
    return sum(map(len, out)) / (clock() - t)


def transformers_tokens_per_s(model, batch: int, new: int = 32) -> float | None:
    """transformers' generate on our weights (GGUF rotary rows un-permuted), tokens per CPU-second, or
    None without it."""
    try:
        import transformers  # noqa: F401
    except ImportError:
        return None
    import torch

    from iclr25.core.models.llama import to_transformers
    hf = to_transformers(model)
    ids = torch.tensor([model.tokenizer.encode(PROMPT)] * batch)
    t = time.process_time()
    with torch.no_grad():
        out = hf.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=new, min_new_tokens=new,
                          do_sample=True, temperature=1.0, top_p=1.0, top_k=0, pad_token_id=2)
    return (out.shape[1] - ids.shape[1]) * batch / (time.process_time() - t)


def main() -> None:
    import torch

    from iclr25.core.models import small_lm
    from iclr25.core.runtime import pin_threads
    cold, warm = load_times()
    print(f"SmolLM2 load: cold {cold:.1f} s, warm {warm:.1f} s (cold / warm = {cold / warm:.1f}x)",
          flush=True)
    pin_threads(1)
    lm = small_lm()
    rates = {b: tokens_per_s(lm, b) for b in (1, 32, 128, 200)}
    for b, r in rates.items():
        print(f"SmolLM2 sampling, 1 thread, batch {b:>3}: {r:6.1f} tok per CPU-s "
              f"({r / rates[1]:.1f}x batch 1)", flush=True)
    w1 = tokens_per_s(lm, 128, cpu=False)
    torch.set_num_threads(2)
    w2 = tokens_per_s(lm, 128, cpu=False)
    print(f"SmolLM2 sampling, batch 128, wall: 1 thread {w1:6.1f} tok/s, 2 threads {w2:6.1f} tok/s "
          f"({w2 / w1:.2f}x)", flush=True)
    torch.set_num_threads(1)
    peer = transformers_tokens_per_s(lm, 32)
    if peer is not None:
        print(f"transformers generate, 1 thread, batch 32: {peer:6.1f} tok per CPU-s (ours / transformers = "
              f"{rates[32] / peer:.2f}x)", flush=True)
    from iclr25.model_equality.endpoints import ModelConfig, swap_model
    gpt = swap_model(ModelConfig())
    rg = tokens_per_s(gpt, 200)
    print(f"TinyGPT ({gpt.n_params / 1e6:.1f}M params) sampling, 1 thread, batch 200: {rg:7.0f} tok per "
          f"CPU-s ({rg / rates[200]:.0f}x SmolLM2)", flush=True)


if __name__ == "__main__":
    main()
