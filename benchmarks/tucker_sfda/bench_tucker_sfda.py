"""What the Tucker reparameterisation buys, measured in one run on 1 thread and printed as ratios
decomposed / dense (spec §7, issue #21):

    .venv/bin/python benchmarks/tucker_sfda/bench_tucker_sfda.py [--quick]

1. trainable parameters (cores vs the dense feature extractor) and model bytes, exact;
2. inference MACs of one series: our formula and hooks, ptflops and thop (peers; each with its own
   convention for BN, pooling and biases, so their totals differ from ours but the ratios agree);
3. adaptation time per epoch (SHOT, 600 series of the synthetic HAR-shaped data), SFT (cores) vs FT (all);
4. inference latency at batch 1 and 64.
Timings alternate decomposed and dense passes and take medians, so load on a shared machine hits both.
Targets at RF 8: parameter and MAC ratios <= 0.10, batch-64 latency ratio <= 1.0.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time

import numpy as np
import torch
from torch import nn

from iclr25.core.runtime import pin_threads
from iclr25.tucker_sfda import (
    AdaptConfig,
    AdaTimeCNN,
    adapt,
    efficiency,
    select_trainable,
    synthetic_domain,
    tucker_reparameterize,
)

C, T, K = 3, 128, 5
RFS = (2, 4, 8, 16)


def peer_macs(model: nn.Module) -> tuple[float | None, float | None]:
    """Total MACs by ptflops and thop (None when the peer is not installed)."""
    pt = th = None
    try:
        from ptflops import get_model_complexity_info
        pt, _ = get_model_complexity_info(copy.deepcopy(model), (C, T), as_strings=False,
                                          print_per_layer_stat=False)
    except ImportError:
        pass
    try:
        from thop import profile
        th, _ = profile(copy.deepcopy(model).eval(), inputs=(torch.zeros(1, C, T),), verbose=False)
    except ImportError:
        pass
    return pt, th


def paired_medians(fa, fb, repeat: int) -> tuple[float, float]:
    """Median seconds of fa() and fb(), timed alternately so that load on a shared machine hits both."""
    fa(), fb()  # warm-up
    ta, tb = [], []
    for _ in range(repeat):
        for f, ts in ((fa, ta), (fb, tb)):
            t0 = time.perf_counter()
            f()
            ts.append(time.perf_counter() - t0)
    return statistics.median(ta), statistics.median(tb)


def forward(model: nn.Module, batch: int):
    x = torch.randn(batch, C, T)
    model.eval()

    def run() -> None:
        with torch.no_grad():
            model(x)
    return run


def adapt_epoch(model: nn.Module, X: np.ndarray, tune: str):
    return lambda: adapt(model, X, "shot", tune, AdaptConfig(epochs=1))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer repeats and a smaller adaptation set")
    args = ap.parse_args()
    pin_threads(1)
    torch.manual_seed(0)
    repeat = 7 if args.quick else 31
    n_adapt, epochs = (200, 1) if args.quick else (600, 3)
    X = synthetic_domain(2, n_adapt, np.random.default_rng(0)).X

    dense = AdaTimeCNN(C, T, K)
    select_trainable(dense, "all")
    e0 = efficiency(dense, (C, T))
    pt0, th0 = peer_macs(dense)
    print(f"dense AdaTime CNN ({C}×{T}, {K} classes): {e0.trainable:,} extractor params, {e0.macs:,} MACs "
          f"(ptflops {pt0:,.0f}, thop {th0:,.0f}; they also count BN, pooling and biases), "
          f"{e0.bytes / 1024:.0f} KiB")
    print("RF  params  MACs(ours)  MACs(ptflops)  MACs(thop)  bytes  lat(b=1)  lat(b=64)  epoch SFT/FT")
    for rf in RFS:
        dec = tucker_reparameterize(dense, rf)
        select_trainable(dec, "core")
        e = efficiency(dec, (C, T))
        assert e.macs == e.macs_hooks
        pt, th = peer_macs(dec)
        lat = [paired_medians(forward(dec, b), forward(dense, b), repeat) for b in (1, 64)]
        ep = paired_medians(adapt_epoch(dec, X, "core"), adapt_epoch(dense, X, "all"), epochs)
        ratios = [e.trainable / e0.trainable, e.macs / e0.macs, pt / pt0 if pt else float("nan"),
                  th / th0 if th else float("nan"), e.bytes / e0.bytes, lat[0][0] / lat[0][1],
                  lat[1][0] / lat[1][1], ep[0] / ep[1]]
        print(f"{rf:<3} " + "  ".join(f"{r:>{w}.3f}" for r, w in zip(ratios, (6, 10, 13, 10, 5, 8, 9, 12),
                                                                      strict=True))
              + f"   (dense: {1e3 * lat[0][1]:.2f} / {1e3 * lat[1][1]:.1f} ms, FT epoch {ep[1]:.2f} s)")
        if rf == 8:
            met = ratios[0] <= 0.10 and ratios[1] <= 0.10 and ratios[6] <= 1.0
            print("    RF 8 targets (params, MACs <= 0.10; batch-64 latency <= 1.0): "
                  + ("met" if met else "NOT met"))

if __name__ == "__main__":
    main()
