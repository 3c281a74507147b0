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
from iclr25.core.records import git_state
from iclr25.core.runtime import RunContext, atomic_write


@dataclass
class RunResult:
    slug: str
    wall_s: float
    error: str | None
    counts: dict[str, int]
    stopped: bool = False  # not finished within the run's budget (not a failure)


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
    code = git_state()  # the code that runs: taken before the run, which may outlast later commits
    t0 = time.perf_counter()
    claims: list[dict] = []
    findings: list[dict] = []
    error = None
    try:
        paper = registry.load(slug)
        claims = [c.to_dict() for c in paper.claims]
        ctx = RunContext(seed=seed, profile=profile, out_dir=run_dir, backend=backend,
                         ray_address=ray_address)
        findings = [f.to_dict() for f in paper.reproduce(profile, ctx)]
    except ImportError as e:  # the paper's extra is not installed
        if (e.name or "iclr25").split(".")[0] == "iclr25":
            error = traceback.format_exc()
        else:
            from iclr25.core.extras import missing_message
            error = missing_message(slug, e)
    except Exception:  # a paper's failure is a row in the report, not a crash of the run
        error = traceback.format_exc()
    wall = time.perf_counter() - t0
    _write_json(run_dir / "findings.json", {
        "slug": slug, "number": info.number, "title": info.title, "profile": profile, "seed": seed,
        "claims": claims, "findings": findings, "error": error})
    _write_json(run_dir / "run.json", {
        "started_at": started, "wall_s": round(wall, 3), "seed": seed, "profile": profile,
        "backend": backend, "host": platform.node(), "platform": platform.platform(),
        **code, "versions": _versions()})
    counts: dict[str, int] = {}
    for f in findings:
        counts[f["verdict"]] = counts.get(f["verdict"], 0) + 1
    return RunResult(slug, wall, error, counts)


def reproduce(slugs: list[str], profile: str, out: Path, backend: str = "serial",
              ray_address: str | None = None, seed: int = 0, jobs: int = 1,
              budget_s: float | None = None) -> list[RunResult]:
    """Run the papers, `jobs` at a time (each in its own process when > 1, its own tasks then serial so
    the cores are not oversubscribed), printing one status line per paper. With `budget_s`, papers not
    finished when it runs out are stopped (their worker processes killed; one by one, no paper starts
    after it) and returned with `stopped` set: the report then shows their last completed run, if any,
    and their committed full record."""
    from rich.console import Console
    from rich.markup import escape
    console = Console(stderr=True, soft_wrap=True)  # a piped status line stays one line
    jobs = max(1, min(jobs, len(slugs)))
    paper_backend = "serial" if jobs > 1 and backend == "process" else backend
    status = {s: "waiting" for s in slugs}
    results: dict[str, RunResult] = {}
    deadline = time.monotonic() + budget_s if budget_s is not None else float("inf")

    def report(r: RunResult) -> None:
        results[r.slug] = r
        if r.stopped:
            status[r.slug] = f"[yellow]⏸ stopped: over the {budget_s / 60:g}-min budget[/yellow]"
        elif r.error:
            last = escape(r.error.strip().splitlines()[-1])
            status[r.slug] = f"[red]✗ error after {r.wall_s:.0f} s: {last}[/red]"
        else:
            tally = ", ".join(f"{n} {v}" for v, n in sorted(r.counts.items()))
            status[r.slug] = f"[green]✓[/green] {tally} ({r.wall_s:.0f} s)"
        if not console.is_terminal:
            console.print(f"{r.slug}: {status[r.slug]}")

    def lines() -> str:
        return "\n".join(f"{s:<26} {status[s]}" for s in slugs)

    live = _live(console, lines)
    with live:
        if jobs == 1:
            for slug in slugs:
                if time.monotonic() >= deadline:
                    report(RunResult(slug, 0.0, None, {}, stopped=True))
                    continue
                status[slug] = f"running ({profile})…"
                live.update(lines())
                report(run_paper(slug, profile, out, paper_backend, ray_address, seed))
                live.update(lines())
        else:
            import multiprocessing as mp
            from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
            with ProcessPoolExecutor(jobs, mp_context=mp.get_context("fork")) as pool:
                pending = {pool.submit(run_paper, s, profile, out, paper_backend, ray_address, seed): s
                           for s in slugs}
                for s in slugs[:jobs]:
                    status[s] = f"running ({profile})…"
                live.update(lines())
                while pending:
                    timeout = None if deadline == float("inf") else max(0.0, deadline - time.monotonic())
                    done, _ = wait(pending, timeout=timeout, return_when=FIRST_COMPLETED)
                    if not done:  # out of budget: stop every unfinished paper
                        # Kill the workers and let the broken pool fail every future, started or not;
                        # cancelling queued futures first races the pool's manager thread, which then
                        # raises InvalidStateError setting the failure on a cancelled future.
                        for proc in mp.active_children():
                            proc.kill()
                        for slug in pending.values():
                            report(RunResult(slug, 0.0, None, {}, stopped=True))
                        pending.clear()
                        break
                    for fut in done:
                        slug = pending.pop(fut)
                        try:
                            report(fut.result())
                        except Exception as e:  # the worker itself died (killed, out of memory)
                            report(RunResult(slug, 0.0, f"worker failed: {type(e).__name__}: {e}", {}))
                    started = [s for s in slugs if s not in results][:jobs]
                    for s in started:
                        if status[s] == "waiting":
                            status[s] = f"running ({profile})…"
                    live.update(lines())
    return [results[s] for s in slugs]


def _live(console, render):
    """A live block of one line per paper on a terminal; a silent stand-in elsewhere (lines are then
    printed as each paper finishes)."""
    import contextlib
    if console.is_terminal:
        from rich.live import Live
        from rich.text import Text

        class _L(Live):
            def update(self, text: str) -> None:  # type: ignore[override]
                super().update(Text.from_markup(text))
        return _L(Text.from_markup(render()), console=console, refresh_per_second=2)

    class _Quiet(contextlib.nullcontext):
        def update(self, text: str) -> None:
            pass
    return _Quiet()
