"""One-off calibration of Data A's shift scale s (issue #21: "shifts are set once, from source-only F1
alone, into [0.35, 0.85]; never retuned"). Not part of `make bench` (leading underscore).

    .venv/bin/python benchmarks/tucker_sfda/_calibrate_shift.py [--workers 2]

For each (τ, s) on the grid and each seed, it trains the source model of each scenario with the
reproduction's protocol (600 series, 15 epochs) and prints the source-only macro-F1 on the 200 target test
series. Rule, fixed before running: choose the (τ, s) whose four scenario means (over the seeds) all lie in
[0.35, 0.85] and whose smallest distance to either end of that interval is largest. No adaptation is run.

Round 1 (the spec's generator, τ = 0.12·s, 3 seeds) found no s: 0→4 stays below 0.35 wherever 0→2 is
below 0.85 (s = 0.4: 0.923 / 0.855 / 0.525 / 0.896 for 0→2, 1→3, 0→4, 3→1; s = 0.55: 0.817 / 0.723 /
0.265 / 0.774; s = 1.0: 0.361 / 0.469 / 0.103 / 0.426). Round 2 decoupled the tempo τ from the nuisance
scale s (2 seeds; τ ∈ {0.03, 0.05} × s ∈ {1, 1.5, 2}): worse, 0→4 collapses to one predicted class
(F1 ≤ 0.10) at every point: gain, offset and noise, not tempo, make the 4-step shift hard.
Round 3 goes back to the spec's family, τ = 0.12·s: linear interpolation of round 1's means puts
0→2's crossing of 0.85 at s = 0.503 and 0→4's crossing of 0.35 at s = 0.501, so this round measures
that one point, s = 0.50 (τ = 0.06), on 3 seeds. The rule is unchanged: the point is taken if its
four means lie in the interval; if not, the least violating of all measured points (round 1's best:
s = 0.4, margin −0.073). Round 3 was started twice and stopped both times unfinished: on the shared
machine (load ~20) its 9 source trainings would have ended after the full profile was due. The rule's
fallback therefore set the committed constants (data.SHIFT = 0.4, data.TEMPO = 0.048): 0→2 (0.923) is
easier than the interval; the README says so. The printed table is also written to
shift_calibration.txt beside this script (committed)."""

from __future__ import annotations

import argparse
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

GRID = ((0.06, 0.50),)  # (τ, s), the spec's τ = 0.12·s
SEEDS = (0, 1, 2)
ROUND1_BEST = ((0.048, 0.4), -0.073)  # (τ, s) and margin of round 1's least violating point


def source_only(task: tuple[tuple[float, float], int, int, tuple[int, ...]]) -> dict:
    from iclr25.core.runtime import pin_threads
    pin_threads(1)
    from iclr25.tucker_sfda.data import SCENARIOS_A, SyntheticConfig, channel_stats, synthetic_domain, znorm
    from iclr25.tucker_sfda.training import SourceConfig, evaluate, train_source

    (tau, s), seed, src_d, targets = task
    cfg = SyntheticConfig(shift=s, tempo=tau)
    rng = np.random.default_rng([seed, src_d])
    src = synthetic_domain(src_d, 600, rng, cfg)
    mu, sd = channel_stats(src.X)
    model, _ = train_source(znorm(src, mu, sd), SourceConfig(), seed=seed)
    out = {}
    for t in targets:
        te = synthetic_domain(t, 200, np.random.default_rng([seed, t, 1]), cfg)
        out[(src_d, t)] = evaluate(model, znorm(te, mu, sd))
    assert all((a, b) in SCENARIOS_A for a, b in out)
    return {"s": (tau, s), "seed": seed, "f1": out}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args()
    os.environ["ICLR25_NO_PROGRESS"] = "1"
    from iclr25.tucker_sfda.data import SCENARIOS_A
    sources: dict[int, tuple[int, ...]] = {}
    for a, b in SCENARIOS_A:
        sources[a] = (*sources.get(a, ()), b)
    tasks = [(s, seed, a, ts) for s in GRID for seed in SEEDS for a, ts in sources.items()]
    with ProcessPoolExecutor(args.workers) as pool:
        res = list(pool.map(source_only, tasks))
    best, best_margin = ROUND1_BEST
    lines = [f"round 3: tau = 0.12 s, seeds {SEEDS}, 600 source series x 15 epochs, 200 target test series; "
             "mean source-only macro-F1 per scenario"]
    for s in GRID:
        means = {sc: float(np.mean([r["f1"][sc] for r in res if r["s"] == s and sc in r["f1"]]))
                 for sc in SCENARIOS_A}
        margin = min(min(m - 0.35, 0.85 - m) for m in means.values())
        per = "  ".join(f"{a}->{b}: {m:.3f}" for (a, b), m in means.items())
        lines.append(f"tau={s[0]:<6} s={s[1]:<4} {per}   margin {margin:+.3f}")
        for seed in SEEDS:
            f1 = {k: v for r in res if r["s"] == s and r["seed"] == seed for k, v in r["f1"].items()}
            lines.append(f"    seed {seed}: "
                         + "  ".join(f"{a}->{b}: {f1[a, b]:.3f}" for a, b in SCENARIOS_A))
        if margin > best_margin:
            best, best_margin = s, margin
    fits = "all four inside [0.35, 0.85]" if best_margin >= 0 else "none fits: the least violating point"
    lines.append(f"chosen (tau, s) = {best} (margin {best_margin:+.3f}; {fits})")
    print("\n".join(lines))
    (Path(__file__).parent / "shift_calibration.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
