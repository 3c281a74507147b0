"""The `iclr25` command: papers, reproduce, report, serve, and each paper's own sub-commands.

Start-up stays lean: a paper's sub-app is imported only when its slug is the command being run."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from typer._click.exceptions import ClickException, NoArgsIsHelpError

from iclr25.core import registry
from iclr25.core.errors import UserError
from iclr25.core.paper import PROFILES

app = typer.Typer(help="iclr25: 19 ICLR 2025 papers as runnable methods and honest reproductions.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)


@app.command()
def papers(
    json_out: Annotated[bool, typer.Option("--json", help="one JSON list, for scripts")] = False,
) -> None:
    """List the 19 papers: slug, whether its extra is installed, the verdicts of its committed full-profile
    record, and its README."""
    from iclr25.core.extras import missing
    from iclr25.core.records import load_record
    rows = []
    for p in registry.PAPERS:
        record = load_record(p.slug) or {}
        counts: dict[str, int] = {}
        for f in record.get("findings", []):
            counts[f["verdict"]] = counts.get(f["verdict"], 0) + 1
        rows.append({"number": p.number, "slug": p.slug, "title": p.title, "full_record": counts,
                     "readme": str(p.readme), "cli": p.has_cli, "missing": missing(p.slug)})
    if json_out:
        import json
        typer.echo(json.dumps(rows, indent=2))
        return

    def tally(r: dict) -> str:
        return ", ".join(f"{n} {v}" for v, n in sorted(r["full_record"].items())) or "no record"

    def installed(r: dict) -> str:
        return "installed" if not r["missing"] else f"pip install 'iclr25[{r['slug']}]'"
    if not sys.stdout.isatty():  # a pipe gets plain tab-separated lines: whole cells, no box drawing
        for r in rows:
            typer.echo(f"{r['number']:02d}\t{r['slug']}\t{installed(r)}\t{tally(r)}\t{r['readme']}\t"
                       f"{r['title']}")
        return
    from rich.console import Console
    from rich.table import Table
    t = Table("#", "slug", "installed", "full-profile record", "README", "title")
    for r in rows:
        t.add_row(f"{r['number']:02d}", r["slug"], installed(r), tally(r), r["readme"], r["title"])
    Console().print(t)


@app.command()
def reproduce(
    slugs: Annotated[list[str] | None,
                     typer.Argument(help="papers to run (default: all 19)")] = None,
    profile: Annotated[str, typer.Option(help="smoke | quick | full")] = "quick",
    out: Annotated[Path, typer.Option(help="report folder")] = Path("reports"),
    backend: Annotated[str, typer.Option(help="serial | process | ray")] = "serial",
    ray_address: Annotated[str | None, typer.Option(help="existing Ray cluster, e.g. 'auto'")] = None,
    seed: Annotated[int, typer.Option(help="seed for every RNG (>= 0)")] = 0,
    record: Annotated[bool, typer.Option(
        help="full profile only: also write the commit-ready record docs/full/<slug>.json and .md "
             "(refused when src/ has uncommitted changes)")] = False,
    allow_dirty: Annotated[bool, typer.Option(
        help="with --record: write the record from an uncommitted tree anyway, marked as such")] = False,
    budget: Annotated[float | None, typer.Option(
        help="minutes; papers not finished by then are stopped (not failed) and the report shows their "
             "last completed run and committed full record ('make demo': 15)")] = None,
) -> None:
    """Run papers' reproductions, write findings, and rebuild the report.

    With --backend process and several papers, papers run side by side, one per core; with one paper,
    its own tasks (seeds, datasets, grid cells) fan out. Exits 1 when a paper failed."""
    from iclr25.core.executors import BACKENDS
    from iclr25.core.report import build_report
    from iclr25.core.runner import reproduce as run_papers
    if profile not in PROFILES:
        raise UserError(f"unknown profile {profile!r}; choose from {', '.join(PROFILES)}")
    if backend not in BACKENDS:
        raise UserError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
    if seed < 0:
        raise UserError(f"--seed must be >= 0, got {seed}")
    if budget is not None and not 0 < budget <= 10_000:
        raise UserError(f"--budget must be in (0, 10000] minutes, got {budget}")
    if record and profile != "full":
        raise UserError("--record writes full-profile records; add --profile full")
    chosen = slugs or [p.slug for p in registry.PAPERS]
    for s in chosen:
        if s not in registry.BY_SLUG:
            raise UserError(f"unknown paper {s!r}; run 'iclr25 papers' for the list")
    if record and not allow_dirty:
        from iclr25.core.records import git_state
        if git_state().get("dirty"):
            raise UserError("--record refuses a tree whose src/ has uncommitted changes (the record would "
                            "name a commit that is not what ran); commit first, or add --allow-dirty")
    if backend == "ray":  # join (or start) the cluster before any paper runs: a bad address fails fast
        from iclr25.core.executors import ray_init
        ray_init(ray_address)
    jobs = (os.cpu_count() or 1) if backend == "process" and len(chosen) > 1 else 1
    results = run_papers(chosen, profile=profile, out=out, backend=backend,
                         ray_address=ray_address, seed=seed, jobs=jobs,
                         budget_s=None if budget is None else budget * 60)
    errors = [r for r in results if r.error]
    stopped = [r.slug for r in results if r.stopped]
    if record:  # before the report: a record is what the run was for
        from iclr25.core.records import write_record
        for r in results:
            if not r.error and not r.stopped:
                for path in write_record(out / r.slug / "full", allow_dirty=allow_dirty):
                    typer.echo(f"wrote {path}")
    build_report(out)
    typer.echo(f"report: {out / 'index.html'} and {out / 'REPORT.md'}"
               + (f" ({len(errors)} paper(s) failed: {', '.join(r.slug for r in errors)})" if errors else "")
               + (f" ({len(stopped)} stopped at the {budget:g}-min budget: {', '.join(stopped)}; the report "
                  "shows their last completed run and committed full record)" if stopped else ""))
    if errors:
        raise typer.Exit(1)


@app.command()
def report(
    out: Annotated[Path, typer.Option(help="report folder with <slug>/<profile>/findings.json")] = Path(
        "reports"),
    docs: Annotated[bool, typer.Option(help="also rewrite docs/RESULTS.md and README's paper table")] = False,
    root: Annotated[Path, typer.Option(help="repository root for --docs")] = Path("."),
) -> None:
    """Rebuild reports/index.html and reports/REPORT.md from findings on disk."""
    from iclr25.core.report import build_report, write_docs
    if not out.is_dir():
        raise UserError(f"no report folder at {out}; run 'iclr25 reproduce' first")
    build_report(out)
    typer.echo(f"report: {out / 'index.html'}")
    if docs:
        for p in write_docs(out, root):
            typer.echo(f"wrote {p}")


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="bind address (localhost only by default)")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port")] = 8025,
    reports: Annotated[Path, typer.Option(help="report folder to show")] = Path("reports"),
    indexes: Annotated[Path | None, typer.Option(
        help="folder of SoftMatcha indexes the search page may open")] = None,
    allow_host: Annotated[list[str] | None, typer.Option(
        help="a Host name the server answers to besides localhost names (repeatable); needed when "
             "serving on another interface, e.g. --host 0.0.0.0 --allow-host myserver.lan")] = None,
    workers: Annotated[int | None, typer.Option(
        help="server processes, sharing the memory-mapped indexes (default: one per core)")] = None,
) -> None:
    """Serve the report and the interactive tools (SoftMatcha search) in a browser."""
    import json

    import uvicorn

    from iclr25.core.web import LOCAL_HOSTS, SERVE_ENV
    if not 0 < port < 65536:
        raise UserError(f"port must be in 1..65535, got {port}")
    n = workers if workers is not None else (os.cpu_count() or 1)
    if not 1 <= n <= 64:
        raise UserError(f"--workers must be in 1..64, got {n}")
    _check_bindable(host, port)
    hosts = [*LOCAL_HOSTS, *(allow_host or [])]
    if host not in LOCAL_HOSTS and not allow_host:
        typer.echo(f"iclr25: warning: serving on {host}, but only requests for {', '.join(LOCAL_HOSTS)} "
                   "are answered; add --allow-host NAME", err=True)
    typer.echo(f"serving on http://{host}:{port}/ ({n} worker process{'es' if n > 1 else ''})")
    # the worker processes build the app from this (uvicorn needs an import string to start several)
    os.environ[SERVE_ENV] = json.dumps({"reports": str(reports.resolve()), "hosts": hosts,
                                        "indexes": str(indexes.resolve()) if indexes else None})
    uvicorn.run("iclr25.core.web:app_from_env", factory=True, host=host, port=port, workers=n,
                log_level="warning")


def _check_bindable(host: str, port: int) -> None:
    """A port in use (or an address not on this machine) is a one-line error, exit 2, before uvicorn."""
    import socket
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as e:
        raise UserError(f"cannot serve on {host}: {e.strerror or e}") from None
    family, _, _, _, addr = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(addr)
        except OSError as e:
            raise UserError(f"cannot serve on {host}:{port}: {e.strerror or e}") from None


def _paper_help(p: registry.PaperInfo) -> str:
    return f"paper {p.number:02d}: {p.title}"


def _mount_papers() -> None:
    """Mount a light stand-in for each paper's sub-app: it only shows in `iclr25 --help`; running a paper's
    command goes straight to the real one (`_paper_command`)."""
    for p in registry.PAPERS:
        if p.has_cli:
            sub = typer.Typer()

            @sub.callback()
            def _stub() -> None: ...
            app.add_typer(sub, name=p.slug, help=_paper_help(p))


def _paper_command(argv: list[str]) -> Callable[[], object] | None:
    """`iclr25 <slug> ...` runs the paper's own command group alone: building only that group (not the
    whole tree) keeps a grep-like call's start-up short."""
    p = next((p for p in registry.PAPERS if p.has_cli and len(argv) > 1 and p.slug == argv[1]), None)
    if p is None:
        return None

    def run() -> object:
        try:
            group = typer.main.get_command(importlib.import_module(f"iclr25.{p.slug}.cli").app)
            group.help = _paper_help(p)
            return group(args=argv[2:], prog_name=f"iclr25 {p.slug}", standalone_mode=False)
        except ImportError as e:  # the paper's extra is not installed: say which, in one line
            if (e.name or "").split(".")[0] in ("iclr25", ""):
                raise
            from iclr25.core.extras import missing_message
            raise UserError(missing_message(p.slug, e)) from None
    return run


def run_guarded(command: Callable[[], object], prog: str = "iclr25") -> NoReturn:
    """Run a CLI entry point so that nothing but a one-line message ever reaches the user: bad input and
    OS errors exit 2 (the grep-like commands keep 1 for "no match"); an unexpected exception exits 2 with
    a line asking for a report (ICLR25_DEBUG=1 shows the traceback)."""
    _guard_standard_streams(prog)
    try:
        rc = command()
    except BrokenPipeError:  # `iclr25 ... | head -1`: the reader had enough, as with grep that is success
        _silence_stdout()
        sys.exit(0)
    except UserError as e:
        _die(prog, str(e))
    except OSError as e:  # missing file, disk full, read-only cache, a folder where a file should be
        what = e.strerror or str(e)
        _die(prog, f"{what}: {e.filename}" if e.filename else what)
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(130)
    except typer.Abort as e:
        if isinstance(e.__context__, EOFError):  # click turns EOFError (an empty or cut-off file) into Abort
            _die(prog, f"unexpected end of input: {e.__context__ or 'the file is empty or truncated'}")
        typer.echo("aborted", err=True)
        sys.exit(130)
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except NoArgsIsHelpError:  # a bare group (`iclr25 softmatcha`): its help is already shown
        sys.exit(2)
    except ClickException as e:  # usage errors (unknown option, bad type): one line, exit 2 like grep's
        ctx = getattr(e, "ctx", None)
        hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        _die(prog, " ".join(e.format_message().split()) + hint)
    except SystemExit as e:
        if isinstance(e.__context__, BrokenPipeError):  # click turned the broken pipe into exit 1
            _silence_stdout()
            sys.exit(0)
        raise
    except GeneratorExit:
        raise
    except MemoryError:
        _die(prog, "out of memory: the input or a size option is too large for this machine")
    except BaseException as e:
        if os.environ.get("ICLR25_DEBUG") == "1":
            raise
        msg = " ".join(str(e).split())[:300]
        _die(prog, f"internal error: {type(e).__name__}: {msg}, please report; "
                   "rerun with ICLR25_DEBUG=1 for the traceback")
    sys.exit(rc if isinstance(rc, int) else 0)


class _ClosedStdin:
    """What `sys.stdin` becomes when the process started with standard input closed (`<&-`): reading it
    is a one-line user error, not an AttributeError on None."""

    def __getattr__(self, name: str) -> object:
        if name in ("read", "readline", "readlines", "__iter__", "buffer", "fileno"):
            raise UserError("standard input is closed; give a file instead of '-'")
        raise AttributeError(name)

    def isatty(self) -> bool:
        return False


def _guard_standard_streams(prog: str) -> None:
    if sys.stderr is None:  # nowhere to say anything: errors can only be the exit code
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
    if sys.stdout is None:
        _die(prog, "standard output is closed; redirect it to a file or /dev/null")
    if sys.stdin is None:
        sys.stdin = _ClosedStdin()  # type: ignore[assignment]


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the interpreter's last flush does not fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _die(prog: str, message: str) -> NoReturn:
    typer.echo(f"{prog}: error: {message}", err=True)
    sys.exit(2)


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv if argv is None else argv)

    def command() -> object:
        paper = _paper_command(argv)
        if paper is not None:
            return paper()
        _mount_papers()
        return app(args=argv[1:], prog_name="iclr25", standalone_mode=False)

    run_guarded(command)


if __name__ == "__main__":
    main()
