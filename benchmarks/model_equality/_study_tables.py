"""The README's study tables, printed as markdown from a run's findings.json or the committed record:

    .venv/bin/python benchmarks/model_equality/_study_tables.py docs/full/model_equality.json \
        [reports/model_equality/quick/findings.json]

(Not a benchmark: the leading underscore keeps `make bench` from running it.)"""

from __future__ import annotations

import json
import sys
from pathlib import Path

DISTORTIONS = ("fp16", "bf16", "int8", "nf4", "watermark", "finetune", "swap")
TESTS = ("hamming", "onehot", "l1", "chi2")


def findings(path: str) -> dict[str, dict]:
    return {f["claim"]: f for f in json.loads(Path(path).read_text(encoding="utf-8"))["findings"]}


def verdicts(runs: dict[str, dict]) -> None:
    print("| claim | " + " | ".join(runs) + " |\n|---|" + "---|" * len(runs))
    for claim in next(iter(runs.values())):
        print(f"| `{claim}` | " + " | ".join(f"**{r[claim]['verdict']}**: {r[claim]['summary']}"
                                              for r in runs.values()) + " |")


def power_table(name: str, run: dict) -> None:
    m = run["hamming_power_small_n"]["measured"]
    g = run["power_grows_with_n"]["measured"]
    level = run["level_control"]["measured"]
    n0 = m["n_per_prompt"]
    ns = sorted({int(k.rsplit("_n", 1)[1]) for k in g if k.startswith("power_hamming_fp16_n")}) or [n0]
    print(f"\n{name}: power by distortion ({m['reference']}, m = {m['m']}, L = {m['L_tokens']} tokens, "
          f"{m['sims']} sims)\n")
    head = (["endpoint", "TV / token"] + [f"Hamming N={n}m" for n in ns]
            + [f"Hamming Eq. 4 N={n}m" for n in ns] + [f"{t} N={n0}m" for t in TESTS[1:]])
    print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    fpr = ["same (FPR)", "0"] + [f"{level[f'fpr_hamming_n{n}']:.3f}" for n in ns] + ["" for _ in ns]
    print("| " + " | ".join(fpr + [f"{level[f'fpr_{t}_n{n0}']:.3f}" for t in TESTS[1:]]) + " |")
    for d in DISTORTIONS:
        if f"power_hamming_{d}" not in m:
            continue
        tv = m.get(f"tv_per_token_{d}")
        row = [d, f"{tv:.2g}" if tv is not None else "other vocabulary"]
        row += [f"{g.get(f'power_hamming_{d}_n{n}', m[f'power_hamming_{d}']):.2f}" for n in ns]
        row += [f"{g.get(f'power_hamming_eq4_{d}_n{n}', m[f'power_hamming_eq4_{d}']):.2f}" for n in ns]
        row += [f"{m[f'power_{t}_{d}']:.2f}" for t in TESTS[1:]]
        print("| " + " | ".join(row) + " |")
    r = run["robust_to_length"]["measured"]
    lengths = sorted({int(k.rsplit("_L", 1)[1]) for k in r if k.startswith("mean_power_hamming_L")})
    print(f"\n{name}: mean power over distortions at N = {n0}m by completion length L (tokens)\n")
    print("| test | " + " | ".join(f"L={L}" for L in lengths) + " |\n|---|" + "---|" * len(lengths))
    for t in TESTS:
        print(f"| {t} | " + " | ".join(f"{r[f'mean_power_{t}_L{L}']:.2f}" for L in lengths) + " |")


def main(paths: list[str]) -> None:
    runs = {}
    for p in paths:
        f = findings(p)
        runs[json.loads(Path(p).read_text(encoding="utf-8"))["profile"]] = f
    verdicts(runs)
    for name, run in runs.items():
        power_table(name, run)


if __name__ == "__main__":
    main(sys.argv[1:])
