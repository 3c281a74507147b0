"""Side-by-side timings for imagefolder, measured in one run and printed as ratios.

    .venv/bin/python benchmarks/imagefolder/bench_imagefolder.py [--quick]

1. Folded (30 positions) against unfolded (60 positions) KV-cached sampling at equal weights (spec §7):
   process CPU time, the layouts alternated within each of 7 repeats after a warm-up, batch 64, 1 thread,
   depth 3, width 128; KV-cache bytes and attention FLOPs by counting. Also: the same without the KV
   cache, and the pixel decoder's share.
2. AR steps: next-scale sampling takes S steps whatever the token count; a raster AR over the same tokens
   would take one step per position (counted).
3. Cosine VQ at one scale: ours against vector-quantize-pytorch's `VectorQuantize(use_cosine_sim=True)`
   (the optional peer), same codebook, same inputs; also checks that the indices agree.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import torch

from iclr25.core.runtime import pin_threads
from iclr25.imagefolder.quantizer import MultiScaleResidualQuantizer
from iclr25.imagefolder.timing import equal_weight_pair, sampling_benchmark, time_sampling
from iclr25.imagefolder.tokenizer import MSRQTokenizer


def median_time(fn, repeats: int = 5) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def tokenizer() -> MSRQTokenizer:
    """The default ImageFolder tokenizer shape (2 branches, scales 1-4, V = 256, d = 16); its weights do
    not matter for timing, so it is fitted for one epoch on 256 random 28x28 images."""
    x = np.random.default_rng(0).random((256, 1, 28, 28), dtype=np.float32)
    return MSRQTokenizer(semantic=None, epochs=1).fit(x)


def bench_folding(tok: MSRQTokenizer, batch: int, repeats: int) -> None:
    b = sampling_benchmark(tok, 10, 3, 128, batch, repeats)
    t_f = statistics.median(b["cpu_ms_per_image_folded"]) / 1e3
    t_u = statistics.median(b["cpu_ms_per_image_unfolded"]) / 1e3
    print(f"[fold] KV-cached sampling, batch {batch}, {repeats} alternated repeats, {b['threads']} thread, "
          f"CPU time: folded {1e3 * t_f:.2f} ms/image ({b['positions_folded']} positions), unfolded "
          f"{1e3 * t_u:.2f} ms/image ({b['positions_unfolded']}): unfolded/folded median "
          f"{b['time_ratio_median']:.2f}x, per repeat {', '.join(f'{r:.2f}' for r in b['time_ratio'])} "
          "(target >= 1.6x)")
    mib = 2 ** 20
    print(f"[fold] KV cache {b['kv_bytes_folded'] / mib:.1f} MiB vs {b['kv_bytes_unfolded'] / mib:.1f} MiB "
          f"= {b['kv_ratio']:.1f}x; attention FLOPs {b['attn_flops_folded'] / 1e6:.0f} M vs "
          f"{b['attn_flops_unfolded'] / 1e6:.0f} M = {b['attn_flops_ratio']:.1f}x")
    f, u = equal_weight_pair(tok, 10, 3, 128)
    nf, nu = time_sampling(f, batch, repeats, cache=False), time_sampling(u, batch, repeats, cache=False)
    print(f"[fold] without KV cache: folded {1e3 * nf:.2f} ms/image, unfolded {1e3 * nu:.2f} ms/image = "
          f"{nu / nf:.2f}x; the cache saves {nf / t_f:.2f}x (folded), {nu / t_u:.2f}x (unfolded)")
    codes = f.generate_codes(torch.arange(batch) % 10, seed=0)
    dec = median_time(lambda: tok.decode(codes), repeats) / batch
    print(f"[fold] pixel decoding {1e3 * dec:.2f} ms/image, the same for both layouts: with it the ratio is "
          f"{(t_u + dec) / (t_f + dec):.2f}x")


def bench_steps(tok: MSRQTokenizer) -> None:
    f, u = equal_weight_pair(tok, 10, 1, 32)
    print(f"[steps] next-scale AR: {len(tok.config.scales)} steps for {f.positions} folded positions "
          f"({f.positions * 2} tokens); a raster AR over the same tokens: {u.positions} steps "
          f"(unfolded) or {f.positions} (folded pairs)")


def bench_vq(n: int, repeats: int) -> None:
    torch.manual_seed(0)
    ours = MultiScaleResidualQuantizer((16,), codebook=256, dim=16, phi_ratio=0.0)
    f = torch.randn(n // 256, 16, 16, 16)
    try:
        from vector_quantize_pytorch import VectorQuantize
    except ImportError:
        t = median_time(lambda: ours.encode(f), repeats)
        print(f"[vq] ours {1e3 * t:.1f} ms for {n} vectors; vector-quantize-pytorch not installed, no peer")
        return
    peer = VectorQuantize(dim=16, codebook_size=256, use_cosine_sim=True).eval()
    with torch.no_grad():
        ours.embedding.weight.copy_(peer._codebook.embed[0])
    seq = f.flatten(2).transpose(1, 2)
    with torch.no_grad():
        agree = float((ours.encode(f)[0] == peer(seq)[1]).float().mean())
        t_ours = median_time(lambda: ours.encode(f), repeats)
        t_peer = median_time(lambda: peer(seq), repeats)
    print(f"[vq] cosine VQ of {n} 16-d vectors, V = 256: ours {1e3 * t_ours:.1f} ms, vector-quantize-pytorch "
          f"{1e3 * t_peer:.1f} ms, peer/ours = {t_peer / t_ours:.2f}x; indices agree on {100 * agree:.1f}%")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="batch 16, 3 repeats")
    args = ap.parse_args()
    pin_threads(1)
    batch, repeats = (16, 3) if args.quick else (64, 7)
    tok = tokenizer()
    bench_folding(tok, batch, repeats)
    bench_steps(tok)
    bench_vq(65536, repeats)


if __name__ == "__main__":
    main()
