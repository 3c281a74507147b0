"""The web app behind `iclr25 serve`: the report pages, plus each paper's own routes (a paper with a
`web.py` exposing `router` is mounted automatically; SoftMatcha search is the first)."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException
from fastapi.responses import HTMLResponse, Response
from fastapi.templating import Jinja2Templates

from iclr25.core import registry
from iclr25.core.records import figures_dir
from iclr25.core.report.render import render_index, render_paper
from iclr25.core.report.results import load_results

CORE_TEMPLATES = Path(__file__).parent / "templates"
# Host names the app answers to by default: a page on another name that resolves to 127.0.0.1 (DNS
# rebinding) gets 400, not our pages and APIs. `iclr25 serve --allow-host` adds names.
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "[::1]")
SERVE_ENV = "ICLR25_SERVE"  # `iclr25 serve`'s settings, for each of its worker processes


def app_from_env() -> FastAPI:
    """The app `iclr25 serve` runs in each worker process, from the settings it left in $ICLR25_SERVE."""
    import json
    import os
    cfg = json.loads(os.environ[SERVE_ENV])
    settings = {"softmatcha_index_dir": Path(cfg["indexes"])} if cfg.get("indexes") else {}
    return create_app(reports_dir=Path(cfg["reports"]), settings=settings, allowed_hosts=cfg["hosts"])


def paper_templates(directory: Path) -> Jinja2Templates:
    """Templates for a paper's pages: its own folder first, then core's (for `base.html`)."""
    import jinja2
    env = jinja2.Environment(loader=jinja2.FileSystemLoader([str(directory), str(CORE_TEMPLATES)]),
                             autoescape=True)
    return Jinja2Templates(env=env)


def create_app(reports_dir: Path = Path("reports"), settings: dict[str, Any] | None = None,
               allowed_hosts: list[str] | tuple[str, ...] = LOCAL_HOSTS) -> FastAPI:
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    app = FastAPI(title="iclr25", description="Reports and interactive tools for 19 ICLR 2025 papers.")
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))
    app.state.settings = dict(settings or {})
    reports_dir = Path(reports_dir)

    @app.get("/", response_class=HTMLResponse)
    def index() -> str:
        return render_index(load_results(reports_dir), link=lambda s: f"/papers/{s}", static=False)

    @app.get("/papers/{slug}", response_class=HTMLResponse)
    def paper(slug: str) -> str:
        if slug not in registry.BY_SLUG:
            raise HTTPException(404, f"unknown paper {slug!r}")
        result = next(r for r in load_results(reports_dir) if r.slug == slug)
        full = f"/files/{slug}/full" if result.full_local else f"/records/{slug}"
        return render_paper(result, asset=lambda p: f"/files/{result.run_dir}/{p}", static=False,
                            full_asset=lambda p: f"{full}/{p}")

    @app.get("/files/{path:path}")
    def files(path: str) -> Response:
        return _file_under(reports_dir, path)

    @app.get("/records/{slug}/{path:path}")
    def record_files(slug: str, path: str) -> Response:
        if slug not in registry.BY_SLUG:
            raise HTTPException(404, "no such file")
        return _file_under(figures_dir(slug), path)

    for p in registry.PAPERS:
        if p.has_web:
            app.include_router(importlib.import_module(f"iclr25.{p.slug}.web").router)
    return app


def _file_under(root: Path, path: str) -> Response:
    from fastapi.responses import FileResponse
    root = Path(root).resolve()
    try:  # NUL bytes raise ValueError, overlong names OSError: both are "no such file", not a 500
        target = (root / path).resolve()
        found = target.is_relative_to(root) and target.is_file()
    except (ValueError, OSError):
        found = False
    if not found:
        raise HTTPException(404, "no such file")
    return FileResponse(target)
