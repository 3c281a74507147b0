"""Cost of a reference model: time per unlearning step of the reference-free methods (ME+GD, IDK+AP)
against the reference-based ones (NPO+KL, DPO+GD) on the 4 x 128 TinyGPT, measured in one run.

    .venv/bin/python benchmarks/llm_unlearning/bench_reference_free.py [--quick]

The paper's only cost point (spec §7): ME and AP need no reference model, so a step takes about 2 forward
passes instead of 3-4, and no frozen copy of the model is held. Expected ratios < 1.
"""

from __future__ import annotations

import argparse
import copy
import time

import numpy as np
import torch

from iclr25.core.runtime import pin_threads
from iclr25.llm_unlearning.data import idk_templates
from iclr25.llm_unlearning.model import PretrainConfig, pretrain
from iclr25.llm_unlearning.unlearn import UnlearnConfig, unlearning_loss

CITIES = ["Oslo", "Rome", "Lima", "Pune", "Kyiv", "Baku", "Doha", "Riga", "Faro", "Nice"]


def facts(n: int) -> list[dict]:
    return [{"question": f"In which city was the novelist number {i} of the imaginary list born and raised?",
             "answer": f"The novelist number {i} was born in {CITIES[i % 10]} and later moved to "
                       f"{CITIES[(i * 7 + 3) % 10]}, where the family ran a small bookshop near the harbour."}
            for i in range(n)]


def step_time(model, method: str, forget, retain, repeat: int) -> tuple[float, int]:
    cfg = UnlearnConfig(method=method, lr=1e-4)
    ref = copy.deepcopy(model).eval().requires_grad_(False) if cfg.needs_reference else None
    net = copy.deepcopy(model).train().requires_grad_(True)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-4, weight_decay=0.01)
    idk = idk_templates()
    rng = np.random.default_rng(0)
    times = []
    for _ in range(repeat):
        idk_f = [idk[j] for j in rng.integers(len(idk), size=len(forget))]
        idk_r = [idk[j] for j in rng.integers(len(idk), size=len(retain))]
        t0 = time.perf_counter()
        loss = unlearning_loss(net, ref, cfg, forget, retain, idk_f, idk_r)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        times.append(time.perf_counter() - t0)
    held = sum(p.numel() * 4 for p in ref.parameters()) if ref is not None else 0
    return float(np.median(times)), held


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="batch 8, 3 repeats")
    args = ap.parse_args()
    pin_threads()
    batch, repeat = (8, 3) if args.quick else (32, 7)
    rows = facts(2 * batch)
    model = pretrain(rows, PretrainConfig(epochs=1), cache=False)  # 4 x 128; timing needs no training
    forget, retain = rows[:batch], rows[batch:]
    res = {m: step_time(model, m, forget, retain, repeat) for m in ("me+gd", "npo+kl", "idk+ap", "dpo+gd")}
    print(f"TinyGPT {model.n_params:,} parameters, batch {batch}, median of {repeat} steps")
    for m, (t, held) in res.items():
        print(f"  {m:<7} {t * 1000:8.1f} ms/step   reference model held: {held / 1e6:5.1f} MB")
    print(f"ratio ME+GD / NPO+KL  = {res['me+gd'][0] / res['npo+kl'][0]:.2f}")
    print(f"ratio IDK+AP / DPO+GD = {res['idk+ap'][0] / res['dpo+gd'][0]:.2f}")


if __name__ == "__main__":
    main()
