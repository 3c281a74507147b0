"""The `iclr25` command: papers, reproduce, report, serve, and each paper's own sub-commands.

Start-up stays lean: a paper's sub-app is imported only when its slug is the command being run."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Annotated

import typer
from typer._click.exceptions import ClickException

from iclr25.core import registry
from iclr25.core.errors import UserError
from iclr25.core.paper import PROFILES

app = typer.Typer(help="iclr25: 19 ICLR 2025 papers as runnable methods and honest reproductions.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)


@app.command()
def papers() -> None:
    """List the 19 papers, their slugs and whether they are implemented."""
    from rich.console import Console
    from rich.table import Table
    t = Table("#", "slug", "title", "status")
    for p in registry.PAPERS:
        t.add_row(f"{p.number:02d}", p.slug, p.title,
                  "implemented" if p.implemented else "[dim]not implemented yet[/dim]")
    Console().print(t)


@app.command()
def reproduce(
    slugs: Annotated[list[str] | None,
                     typer.Argument(help="papers to run (default: all implemented)")] = None,
    profile: Annotated[str, typer.Option(help="smoke | quick | full")] = "quick",
    out: Annotated[Path, typer.Option(help="report folder")] = Path("reports"),
    backend: Annotated[str, typer.Option(help="serial | process | ray")] = "serial",
    ray_address: Annotated[str | None, typer.Option(help="existing Ray cluster, e.g. 'auto'")] = None,
    seed: Annotated[int, typer.Option(help="seed for every RNG")] = 0,
) -> None:
    """Run papers' reproductions, write findings, and rebuild the report."""
    from iclr25.core.executors import BACKENDS
    from iclr25.core.report import build_report
    from iclr25.core.runner import reproduce as run_papers
    if profile not in PROFILES:
        raise UserError(f"unknown profile {profile!r}; choose from {', '.join(PROFILES)}")
    if backend not in BACKENDS:
        raise UserError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
    chosen = slugs or [p.slug for p in registry.implemented()]
    for s in chosen:
        if s not in registry.BY_SLUG:
            raise UserError(f"unknown paper {s!r}; run 'iclr25 papers' for the list")
        if not registry.BY_SLUG[s].implemented:
            raise UserError(f"paper {s!r} is not implemented yet")
    results = run_papers(chosen, profile=profile, out=out, backend=backend,
                         ray_address=ray_address, seed=seed)
    build_report(out)
    errors = [r for r in results if r.error]
    typer.echo(f"report: {out / 'index.html'} and {out / 'REPORT.md'}"
               + (f" ({len(errors)} paper(s) failed: {', '.join(r.slug for r in errors)})" if errors else ""))


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
) -> None:
    """Serve the report and the interactive tools (SoftMatcha search) in a browser."""
    import uvicorn

    from iclr25.core.web import create_app
    if not 0 < port < 65536:
        raise UserError(f"port must be in 1..65535, got {port}")
    typer.echo(f"serving on http://{host}:{port}/")
    settings = {"softmatcha_index_dir": indexes} if indexes else {}
    uvicorn.run(create_app(reports_dir=reports, settings=settings), host=host, port=port, log_level="warning")


def _mount_papers(argv: list[str]) -> None:
    """Mount each paper's sub-app: the real one for the paper being run, a light stand-in otherwise
    (it only shows in `iclr25 --help`; running it always goes through the real one)."""
    wanted = argv[1] if len(argv) > 1 else None
    for p in registry.PAPERS:
        if not p.has_cli:
            continue
        if p.slug == wanted:
            sub = importlib.import_module(f"iclr25.{p.slug}.cli").app
        else:
            sub = typer.Typer()

            @sub.callback()
            def _stub() -> None: ...
        app.add_typer(sub, name=p.slug, help=f"paper {p.number:02d}: {p.title}")


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv if argv is None else argv)
    _mount_papers(argv)
    try:
        rc = app(args=argv[1:], prog_name="iclr25", standalone_mode=False)
    except UserError as e:
        typer.echo(f"iclr25: error: {e}", err=True)
        sys.exit(2)
    except FileNotFoundError as e:
        typer.echo(f"iclr25: error: {e.strerror}: {e.filename}", err=True)
        sys.exit(2)
    except typer.Abort:
        typer.echo("aborted", err=True)
        sys.exit(130)
    except ClickException as e:  # usage errors (unknown option, bad type) carry exit code 2
        e.show()
        sys.exit(e.exit_code)
    sys.exit(rc if isinstance(rc, int) else 0)


if __name__ == "__main__":
    main()
