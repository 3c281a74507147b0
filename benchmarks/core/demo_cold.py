"""Cold cost of each paper's quick profile, the budget `make demo` lives by: each paper alone, in a fresh
process, with an empty ICLR25_CACHE (nothing trained, indexed or dequantised before), on one thread; CPU
seconds (user + system of the whole process tree) and wall seconds. The quick profile's budget is 90 s of
CPU cold per paper.

usage: python benchmarks/core/demo_cold.py [SLUG ...] [--write]
  --write   merge the rows into docs/demo_cold.json and rewrite docs/DEMO_COLD.md (the README's paper
            table shows the CPU column after `make docs`)"""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
JSON_OUT = ROOT / "docs" / "demo_cold.json"
MD_OUT = ROOT / "docs" / "DEMO_COLD.md"
BUDGET_CPU_S = 90.0


def cold_run(slug: str) -> dict:
    """One paper's quick profile in a fresh process on an empty cache."""
    iclr25 = Path(sys.executable).parent / "iclr25"
    with tempfile.TemporaryDirectory(prefix="iclr25-cold-") as tmp:
        env = {**os.environ, "ICLR25_CACHE": f"{tmp}/cache", "ICLR25_THREADS": "1", "ICLR25_NO_PROGRESS": "1"}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        argv = [str(iclr25), "reproduce", slug, "--profile", "quick", "--out", f"{tmp}/reports"]
        proc = subprocess.run(argv, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        status = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else ""
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"slug": slug, "cpu_s": round(cpu, 1), "wall_s": round(wall, 1), "ok": proc.returncode == 0,
            "status": status[-200:]}


def render(rows: list[dict], meta: dict) -> str:
    lines = ["# Cold quick profiles", "",
             f"Written by `python benchmarks/core/demo_cold.py --write` ({meta['host']}, {meta['date']}): "
             "each "
             "paper's quick profile alone, in a fresh process, with an empty `ICLR25_CACHE`, one thread. "
             f"Budget: {BUDGET_CPU_S:.0f} s of CPU per paper, so that `make demo` runs all 19 side by side "
             "on 2 "
             "cores within its 15 minutes.", "",
             "| paper | CPU s | wall s | within budget | status |", "|---|---|---|---|---|"]
    for r in rows:
        ok = "yes" if r["ok"] and r["cpu_s"] <= BUDGET_CPU_S else "**no**"
        lines.append(f"| `{r['slug']}` | {r['cpu_s']:.0f} | {r['wall_s']:.0f} | {ok} | {r['status']} |")
    total = sum(r["cpu_s"] for r in rows)
    lines += ["", f"Total CPU: {total:.0f} s ({total / 60:.1f} min); on 2 cores at least {total / 120:.1f} "
                  "min "
                  "of wall time for `make demo`.", ""]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    write = "--write" in argv
    slugs = [a for a in argv if not a.startswith("--")]
    sys.path.insert(0, str(ROOT / "src"))
    from iclr25.core import registry
    slugs = slugs or [p.slug for p in registry.PAPERS]
    rows = []
    for slug in slugs:
        r = cold_run(slug)
        rows.append(r)
        print(f"{slug:<26} cpu {r['cpu_s']:7.1f} s  wall {r['wall_s']:7.1f} s  "
              f"{'ok' if r['ok'] else 'FAILED'}"
              f"{'' if r['cpu_s'] <= BUDGET_CPU_S else '  OVER BUDGET'}", flush=True)
    if write:
        JSON_OUT.parent.mkdir(parents=True, exist_ok=True)
        with open(JSON_OUT.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            old = json.loads(JSON_OUT.read_text()) if JSON_OUT.is_file() else {"papers": []}
            merged = {r["slug"]: r for r in old["papers"]} | {r["slug"]: r for r in rows}
            order = [p.slug for p in registry.PAPERS]
            meta = {"host": platform.node(), "date": dt.date.today().isoformat(), "cpus": os.cpu_count()}
            data = {**meta, "papers": sorted(merged.values(), key=lambda r: order.index(r["slug"]))}
            JSON_OUT.write_text(json.dumps(data, indent=2) + "\n")
            MD_OUT.write_text(render(data["papers"], meta))
        print(f"wrote {JSON_OUT.relative_to(ROOT)} and {MD_OUT.relative_to(ROOT)}")
    return 0 if all(r["ok"] and r["cpu_s"] <= BUDGET_CPU_S for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
