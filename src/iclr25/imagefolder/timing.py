"""Folded against unfolded sampling at equal weights (spec §7): the same transformer, class and level
embeddings, two sequence layouts. Measured: KV-cached sampling time per image (median of repeats, after
a warm-up), and, by counting, the KV-cache bytes and the attention FLOPs."""

from __future__ import annotations

import statistics
import time

import torch

from iclr25.imagefolder.tokenizer import MSRQTokenizer
from iclr25.imagefolder.var import FoldedVAR


def equal_weight_pair(tok: MSRQTokenizer, num_classes: int, depth: int = 3, width: int = 128,
                      seed: int = 0, folded: FoldedVAR | None = None) -> tuple[FoldedVAR, FoldedVAR]:
    """(folded, unfolded) models sharing every weight whose name and shape agree (blocks, head body,
    class and level embeddings); only the layout-specific input/position/head weights differ."""
    torch.manual_seed(seed)
    if folded is None:
        folded = FoldedVAR(tok, num_classes, depth, width, fold=True)
    unfolded = FoldedVAR(tok, num_classes, folded.config.depth, folded.config.width, fold=False,
                         heads=folded.config.heads, mlp_ratio=folded.config.mlp_ratio)
    own = unfolded.state_dict()
    shared = {k: v for k, v in folded.state_dict().items() if k in own and own[k].shape == v.shape}
    unfolded.load_state_dict(shared, strict=False)
    return folded.eval(), unfolded.eval()


def time_sampling(ar: FoldedVAR, batch: int = 64, repeats: int = 5, cache: bool = True) -> float:
    """Median wall seconds per image of token sampling (CFG on, top-k 46, top-p 0.95), after a warm-up.
    Pixel decoding is left out: it is the same for both layouts."""
    labels = torch.arange(batch) % ar.config.num_classes
    ar.generate_codes(labels, seed=0, cache=cache)
    times = []
    for r in range(repeats):
        t0 = time.perf_counter()
        ar.generate_codes(labels, seed=r + 1, cache=cache, batch_size=batch)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) / batch


def sampling_benchmark(tok: MSRQTokenizer, num_classes: int = 10, depth: int = 3, width: int = 128,
                       batch: int = 64, repeats: int = 5, seed: int = 0,
                       folded: FoldedVAR | None = None) -> dict[str, float]:
    """Ratios unfolded / folded of sampling time, KV bytes and attention FLOPs, with the raw numbers."""
    f, u = equal_weight_pair(tok, num_classes, depth, width, seed, folded)
    t_f, t_u = time_sampling(f, batch, repeats), time_sampling(u, batch, repeats)
    return {"positions_folded": f.positions, "positions_unfolded": u.positions,
            "ms_per_image_folded": 1e3 * t_f, "ms_per_image_unfolded": 1e3 * t_u,
            "time_ratio": t_u / t_f,
            "kv_bytes_folded": f.kv_bytes(batch), "kv_bytes_unfolded": u.kv_bytes(batch),
            "kv_ratio": u.kv_bytes(batch) / f.kv_bytes(batch),
            "attn_flops_folded": f.attention_flops(batch), "attn_flops_unfolded": u.attention_flops(batch),
            "attn_flops_ratio": u.attention_flops(batch) / f.attention_flops(batch),
            "batch": batch, "repeats": repeats, "threads": torch.get_num_threads(),
            "depth": f.config.depth, "width": f.config.width}
