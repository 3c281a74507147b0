"""Forward + backward time and peak memory of one [LTI SSM + FNN] block against one attention block
(PyTorch SDPA + the same FNN), d = 64, batch 1, one thread, L ∈ {256, 1k, 4k, 16k}; the selective SSM of
mambapy (pure-PyTorch Mamba, optional peer) beside them. Each (block, L) runs in a fresh process, so
peak RSS is that block's own. One run; ratios printed, figure bench_scaling.png.

    .venv/bin/python benchmarks/ssm_selection/bench_ssm_vs_attention.py [--quick] [--out DIR]

Spec §7: the SSM costs O(L log L) (FFT), attention O(L²): t_attn / t_ssm should rise with L, ≥ 1 by 1k
and ≥ 10 at 16k.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import time
from pathlib import Path

D = 64
BLOCKS = ("ssm+fnn", "attention+fnn", "mamba (mambapy)")


def _rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def _measure(block: str, length: int, repeat: int, queue) -> None:
    from iclr25.core.runtime import pin_threads

    pin_threads(1)
    import torch

    from iclr25.ssm_selection.models import AttentionBlock, SSMFNNBlock

    torch.manual_seed(0)
    x = torch.randn(1, length, D, requires_grad=True)
    valid = torch.ones(1, length, dtype=torch.bool)
    if block == "ssm+fnn":
        net = SSMFNNBlock(D, window=length, causal=False, param="free", mlp_ratio=4)
        fn = lambda: net(x, valid, None)  # noqa: E731
    elif block == "attention+fnn":
        net = AttentionBlock(D, n_heads=4, mlp_ratio=4)
        fn = lambda: net(x, None)  # noqa: E731  (no mask: full attention, SDPA's fused CPU kernel)
    else:
        try:
            from mambapy.mamba import MambaBlock, MambaConfig
        except ImportError:
            queue.put(None)
            return
        net = MambaBlock(MambaConfig(d_model=D, n_layers=1))
        fn = lambda: net(x)  # noqa: E731
    base = _rss_mib()
    times = []
    for _ in range(repeat + 1):  # the first run warms up
        t0 = time.perf_counter()
        fn().square().mean().backward()
        times.append(time.perf_counter() - t0)
        net.zero_grad(set_to_none=True)
        x.grad = None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB → MiB on Linux
    queue.put({"s": min(times[1:]), "peak_mib": peak - base})


def measure(block: str, length: int, repeat: int) -> dict | None:
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_measure, args=(block, length, repeat, q))
    p.start()
    out = q.get()
    p.join()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="L up to 4k only")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent, help="folder for bench_scaling.png")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)  # before the measurements, so they are never lost
    lengths = [256, 1024, 4096] if args.quick else [256, 1024, 4096, 16384]
    res: dict[str, dict[int, dict | None]] = {b: {} for b in BLOCKS}
    for length in lengths:
        for b in BLOCKS:
            res[b][length] = measure(b, length, repeat=3 if length <= 4096 else 1)
        s, a, m = (res[b][length] for b in BLOCKS)
        mamba = (f", mamba {m['s'] * 1e3:8.1f} ms {m['peak_mib']:7.1f} MiB (mamba/ssm {m['s'] / s['s']:.1f})"
                 if m else ", mamba n/a (pip install mambapy)")
        print(f"L={length:6d}: ssm+fnn {s['s'] * 1e3:8.1f} ms {s['peak_mib']:7.1f} MiB, attention+fnn "
              f"{a['s'] * 1e3:8.1f} ms {a['peak_mib']:7.1f} MiB; t_attn/t_ssm = {a['s'] / s['s']:6.2f}, "
              f"mem_attn/mem_ssm = {a['peak_mib'] / max(s['peak_mib'], 1e-9):5.2f}{mamba}", flush=True)
    ratios = [res["attention+fnn"][L]["s"] / res["ssm+fnn"][L]["s"] for L in lengths]
    rising = all(b > a for a, b in zip(ratios, ratios[1:], strict=False))
    at_1k = ratios[lengths.index(1024)]
    line = f"t_attn/t_ssm rising in L: {rising}; at 1k: {at_1k:.2f} (≥ 1 expected)"
    if 16384 in lengths:
        line += f"; at 16k: {ratios[-1]:.1f} (≥ 10 expected)"
    print(line)
    _plot(args.out / "bench_scaling.png", lengths, res, ratios)
    print(f"wrote {args.out / 'bench_scaling.png'}")


def _plot(path: Path, lengths, res, ratios) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    for b in BLOCKS:
        pts = [(L, res[b][L]) for L in lengths if res[b][L]]
        if pts:
            axes[0].plot([p[0] for p in pts], [p[1]["s"] for p in pts], marker="o", label=b)
            axes[1].plot([p[0] for p in pts], [p[1]["peak_mib"] for p in pts], marker="o", label=b)
    axes[0].set(xscale="log", yscale="log", xlabel="sequence length L", ylabel="forward + backward (s)",
                title=f"one block, d = {D}, 1 thread")
    axes[1].set(xscale="log", yscale="log", xlabel="sequence length L", ylabel="peak extra RSS (MiB)",
                title="memory")
    axes[2].plot(lengths, ratios, marker="o", c="C1")
    axes[2].axhline(1, ls=":", c="gray")
    axes[2].set(xscale="log", yscale="log", xlabel="sequence length L", ylabel="t_attn / t_ssm",
                title="attention / SSM time")
    for ax in axes[:2]:
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    main()
