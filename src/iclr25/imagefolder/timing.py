"""Folded against unfolded sampling at equal weights (spec §7): the same transformer, class and level
embeddings, two sequence layouts. Measured: KV-cached sampling CPU time per image (this process's CPU time,
so that other processes' load does not count; the two layouts alternated within each repeat, after a
warm-up of both), and, by counting, the KV-cache bytes and the attention FLOPs."""

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


def _cpu_seconds(ar: FoldedVAR, labels: torch.Tensor, seed: int, cache: bool) -> float:
    t0 = time.process_time()
    ar.generate_codes(labels, seed=seed, cache=cache, batch_size=len(labels))
    return time.process_time() - t0


def time_sampling(ar: FoldedVAR, batch: int = 64, repeats: int = 5, cache: bool = True) -> float:
    """Median CPU seconds per image of token sampling (CFG on, top-k 46, top-p 0.95), after a warm-up.
    Pixel decoding is left out: it is the same for both layouts."""
    labels = torch.arange(batch) % ar.config.num_classes
    ar.generate_codes(labels, seed=0, cache=cache)
    return statistics.median(_cpu_seconds(ar, labels, r + 1, cache) for r in range(repeats)) / batch


def alternated_times(first: FoldedVAR, second: FoldedVAR, batch: int = 64, repeats: int = 7,
                     cache: bool = True) -> tuple[list[float], list[float]]:
    """CPU seconds per image of each model, measured in turns: repeat r times both, the order swapped on
    every other repeat, so that a slow spell of the machine falls on both layouts alike."""
    labels = torch.arange(batch) % first.config.num_classes
    for ar in (first, second):  # warm-up
        ar.generate_codes(labels, seed=0, cache=cache, batch_size=batch)
    a, b = [], []
    for r in range(repeats):
        pair = ((first, a), (second, b)) if r % 2 == 0 else ((second, b), (first, a))
        for ar, out in pair:
            out.append(_cpu_seconds(ar, labels, r + 1, cache) / batch)
    return a, b


def sampling_benchmark(tok: MSRQTokenizer, num_classes: int = 10, depth: int = 3, width: int = 128,
                       batch: int = 64, repeats: int = 7, seed: int = 0,
                       folded: FoldedVAR | None = None) -> dict[str, float | list[float]]:
    """Per repeat the ratio unfolded / folded of sampling CPU time (`time_ratio`, a list), its median, the
    raw times, and the counted KV-bytes and attention-FLOPs ratios."""
    f, u = equal_weight_pair(tok, num_classes, depth, width, seed, folded)
    t_f, t_u = alternated_times(f, u, batch, repeats)
    ratios = [x / y for x, y in zip(t_u, t_f, strict=True)]
    return {"positions_folded": f.positions, "positions_unfolded": u.positions,
            "cpu_ms_per_image_folded": [1e3 * t for t in t_f],
            "cpu_ms_per_image_unfolded": [1e3 * t for t in t_u],
            "time_ratio": ratios, "time_ratio_median": statistics.median(ratios),
            "kv_bytes_folded": f.kv_bytes(batch), "kv_bytes_unfolded": u.kv_bytes(batch),
            "kv_ratio": u.kv_bytes(batch) / f.kv_bytes(batch),
            "attn_flops_folded": f.attention_flops(batch), "attn_flops_unfolded": u.attention_flops(batch),
            "attn_flops_ratio": u.attention_flops(batch) / f.attention_flops(batch),
            "batch": batch, "repeats": repeats, "threads": torch.get_num_threads(),
            "depth": f.config.depth, "width": f.config.width}
