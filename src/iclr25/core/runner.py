"""Run papers' reproductions under a profile and write reports/<slug>/<profile>/{findings,run}.json.

A paper that raises is recorded as an error (with its traceback) and the others still run."""

from __future__ import annotations

import datetime as dt
import json
import platform
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from iclr25 import __version__
from iclr25.core import registry
from iclr25.core.runtime import RunContext, atomic_write


@dataclass
class RunResult:
    slug: str
    wall_s: float
    error: str | None
    counts: dict[str, int]


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version(), "iclr25": __version__}
    for mod in ("numpy", "torch", "scipy", "sklearn"):
        if mod in sys.modules:
            out[mod] = getattr(sys.modules[mod], "__version__", "?")
    return out


def _write_json(path: Path, obj: object) -> None:
    with atomic_write(path, "w") as f:
        json.dump(obj, f, indent=2, ensure_ascii=False)


def run_paper(slug: str, profile: str, out: Path, backend: str = "serial",
              ray_address: str | None = None, seed: int = 0) -> RunResult:
    """Run one paper; write its findings.json and run.json; never raise for the paper's own errors."""
    info = registry.info(slug)
    run_dir = Path(out) / slug / profile
    run_dir.mkdir(parents=True, exist_ok=True)
    started = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    claims: list[dict] = []
    findings: list[dict] = []
    error = None
    try:
        paper = registry.load(slug)
        claims = [c.__dict__.copy() for c in paper.claims]
        ctx = RunContext(seed=seed, profile=profile, out_dir=run_dir, backend=backend,
                         ray_address=ray_address)
        findings = [f.to_dict() for f in paper.check(paper.run(profile, ctx))]
    except Exception:  # a paper's failure is a row in the report, not a crash of the run
        error = traceback.format_exc()
    wall = time.perf_counter() - t0
    _write_json(run_dir / "findings.json", {
        "slug": slug, "number": info.number, "title": info.title, "profile": profile, "seed": seed,
        "claims": claims, "findings": findings, "error": error})
    _write_json(run_dir / "run.json", {
        "started_at": started, "wall_s": round(wall, 3), "seed": seed, "profile": profile,
        "backend": backend, "host": platform.node(), "platform": platform.platform(),
        "versions": _versions()})
    counts: dict[str, int] = {}
    for f in findings:
        counts[f["verdict"]] = counts.get(f["verdict"], 0) + 1
    return RunResult(slug, wall, error, counts)


def reproduce(slugs: list[str], profile: str, out: Path, backend: str = "serial",
              ray_address: str | None = None, seed: int = 0) -> list[RunResult]:
    """Run each paper in turn, printing one status line per paper."""
    from rich.console import Console
    console = Console(stderr=True)
    results = []
    for i, slug in enumerate(slugs, 1):
        with console.status(f"[{i}/{len(slugs)}] {slug} ({profile})…"):
            r = run_paper(slug, profile, out, backend, ray_address, seed)
        results.append(r)
        if r.error:
            last = r.error.strip().splitlines()[-1]
            console.print(f"[red]✗[/red] {slug}: error after {r.wall_s:.1f} s: {last}")
        else:
            tally = ", ".join(f"{n} {v}" for v, n in sorted(r.counts.items()))
            console.print(f"[green]✓[/green] {slug}: {tally} ({r.wall_s:.1f} s)")
    return results
