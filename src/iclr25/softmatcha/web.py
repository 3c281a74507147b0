"""The SoftMatcha web tool (paper §2, "an accessible web tool"): a concordancer page at /softmatcha and the
JSON API behind it at /api/softmatcha/*, mounted by `iclr25 serve`.

Only indexes inside one configured folder can be opened (by folder name, never by path); every
parameter is validated and size-limited; hits are always paged (a page materialises at most
`MAX_PAGE` matches) and downloads stream in chunks up to `MAX_DOWNLOAD` hits.

>>> from fastapi import FastAPI
>>> app = FastAPI(); app.state.settings = {"softmatcha_index_dir": "my-indexes"}
>>> app.include_router(router)      # then GET /api/softmatcha/search?index=kjv&pattern=the+king&threshold=0.8
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, Response, StreamingResponse

from iclr25.core.errors import UserError

router = APIRouter(tags=["softmatcha"])

# ---- limits (every user-controlled size is bounded) --------------------------------------------------
MAX_PATTERN_CHARS = 200
MAX_PATTERN_TOKENS = 16
MAX_PAGE = 200
DEFAULT_PAGE = 50
MAX_OFFSET = 10**9
MAX_CONTEXT = 200
MAX_DOWNLOAD = 100_000  # hits per download; the response says when it was cut
MAX_CANDIDATES = 50_000_000  # a query whose rarest slot occurs more often than this is refused as too broad
MAX_VARIANTS = 50
MAX_OPEN_INDEXES = 4
INDEX_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")

TEMPLATES_DIR = Path(__file__).parent / "templates"
STATIC_DIR = Path(__file__).parent / "static"
STATIC_FILES = {"softmatcha.js": "text/javascript", "softmatcha.css": "text/css"}


# ---- the index folder and the open indexes -----------------------------------------------------------

def index_root(request: Request) -> Path:
    """settings["softmatcha_index_dir"], else $ICLR25_SOFTMATCHA_INDEXES, else
    cache_dir()/softmatcha/indexes."""
    settings = getattr(request.app.state, "settings", {}) or {}
    root = settings.get("softmatcha_index_dir") or os.environ.get("ICLR25_SOFTMATCHA_INDEXES")
    if not root:
        from iclr25.core.runtime import cache_dir
        root = cache_dir() / "softmatcha" / "indexes"
    return Path(root).expanduser().resolve()


def _kind(folder: Path) -> str | None:
    if (folder / "meta.json").is_file():
        return "index"
    from iclr25.softmatcha.sharded import MANIFEST
    if (folder / MANIFEST).is_file():
        return "sharded"
    return None


def list_indexes(root: Path) -> list[dict[str, Any]]:
    """The SoftMatcha indexes (plain or sharded) directly inside `root`, by name."""
    if not root.is_dir():
        return []
    out = []
    for d in sorted(root.iterdir()):
        if not d.is_dir() or not INDEX_NAME.match(d.name) or d.is_symlink():
            continue
        kind = _kind(d)
        if kind is None:
            continue
        info: dict[str, Any] = {"name": d.name, "kind": kind}
        try:
            meta = json.loads((d / ("meta.json" if kind == "index" else "sharded.json")).read_text())
            info.update(tokens=meta.get("n_tokens"), lines=meta.get("n_lines"),
                        embeddings=(meta.get("embeddings") or {}).get("name"),
                        tokenizer=meta.get("tokenizer"))
            if kind == "sharded":
                info["shards"] = len(meta.get("shards", []))
        except (OSError, ValueError):
            continue
        out.append(info)
    return out


class _OpenIndexes:
    """A small LRU of opened (memory-mapped) indexes, shared by the request threads."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._open: OrderedDict[Path, Any] = OrderedDict()

    def get(self, path: Path) -> Any:
        with self._lock:
            if path in self._open:
                self._open.move_to_end(path)
                return self._open[path]
        idx = _load(path)  # outside the lock: loading can take a while
        with self._lock:
            self._open[path] = idx
            self._open.move_to_end(path)
            while len(self._open) > self.size:
                self._open.popitem(last=False)
        return idx


def embeddings_file(index_dir: Path) -> Path:
    """Where the page looks for the vectors of an index built with custom embeddings: `<name>.embeddings.npz`
    beside the index folder (named tables such as GloVe need nothing)."""
    index_dir = Path(index_dir)
    return index_dir.parent / f"{index_dir.name}.embeddings.npz"


def export_embeddings(emb: Any, index_dir: str | os.PathLike) -> Path:
    """Save custom `Embeddings` beside an index so the web tool can open it (rows stored as they are, so
    the fingerprint the index recorded still matches)."""
    import numpy as np

    from iclr25.core.runtime import atomic_write
    out = embeddings_file(Path(index_dir))
    with atomic_write(out) as f:
        np.savez(f, words=np.array(list(emb.words)), vectors=np.asarray(emb.vectors), name=np.array(emb.name))
    return out


def _custom_embeddings(path: Path) -> Any:
    import numpy as np

    from iclr25.softmatcha.embeddings import Embeddings
    with np.load(embeddings_file(path)) as z:
        return Embeddings([str(w) for w in z["words"]], np.array(z["vectors"]), str(z["name"]))


def _load(path: Path) -> Any:
    custom = _custom_embeddings(path) if embeddings_file(path).is_file() else None
    if _kind(path) == "sharded":
        from iclr25.softmatcha.sharded import ShardedIndex
        return ShardedIndex.load(path, embeddings=custom)
    from iclr25.softmatcha.index import Index
    return Index.load(path, embeddings=custom, verify="size")


_OPEN = _OpenIndexes(MAX_OPEN_INDEXES)


def open_index(request: Request, name: str) -> Any:
    """The index called `name` in the configured folder; 404 for anything else (no path traversal:
    the name is a single folder name, and the resolved folder must sit directly in the root)."""
    if not INDEX_NAME.match(name):
        raise HTTPException(422, f"invalid index name {name!r}")
    root = index_root(request)
    path = (root / name).resolve()
    if path.parent != root or not path.is_dir() or _kind(path) is None:
        raise HTTPException(404, f"no index named {name!r}")
    try:
        return _OPEN.get(path)
    except UserError as e:
        raise HTTPException(409, str(e)) from None


# ---- parameters ---------------------------------------------------------------------------------------

IndexQ = Annotated[str, Query(min_length=1, max_length=100, description="index name, as listed by "
                              "/api/softmatcha/indexes")]
PatternQ = Annotated[str, Query(min_length=1, max_length=MAX_PATTERN_CHARS,
                                description="the pattern, e.g. `the king of israel` (tokenized like "
                                            "the corpus)")]
ThresholdQ = Annotated[float, Query(ge=0.0, le=1.0, description="alpha for every token: a corpus word "
                                    "matches a "
                                    "pattern token when max(0, cos) >= alpha; 1 = exact")]
ThresholdsQ = Annotated[str | None, Query(max_length=400, description="optional per-token alphas, "
                                         "comma-separated (`1,0.7,0.7`); overrides `threshold`")]


def parse_thresholds(threshold: float, thresholds: str | None) -> float | list[float]:
    if thresholds is None or not thresholds.strip():
        return threshold
    out = []
    for part in thresholds.split(","):
        try:
            a = float(part)
        except ValueError:
            raise HTTPException(422, f"per-token threshold {part.strip()!r} is not a number") from None
        if not 0.0 <= a <= 1.0:
            raise HTTPException(422, f"per-token threshold must be in [0, 1], got {part.strip()}")
        out.append(a)
    if len(out) > MAX_PATTERN_TOKENS:
        raise HTTPException(422, f"at most {MAX_PATTERN_TOKENS} per-token thresholds")
    return out


def candidate_bound(idx: Any, pattern: str, alphas: float | list[float]) -> int:
    """An upper bound on the hits of `pattern` from Step 1 alone: the total frequency of the rarest
    slot's soft set (the candidates Step 2 would start from)."""
    if hasattr(idx, "candidate_bound"):
        return int(idx.candidate_bound(pattern, alphas))
    slots, _ = idx.slots(pattern, alphas)
    freq = idx.frequencies
    return min(int(freq[s.mask].sum()) for s in slots)


def run_search(idx: Any, pattern: str, alphas: float | list[float]) -> Any:
    """Validate the pattern, refuse queries that would enumerate too much, and search."""
    try:
        toks = idx.tokenizer.tokenize(pattern)
        if len(toks) > MAX_PATTERN_TOKENS:
            raise HTTPException(422, f"pattern has {len(toks)} tokens; the limit here is "
                                     f"{MAX_PATTERN_TOKENS}")
        if candidate_bound(idx, pattern, alphas) > MAX_CANDIDATES:
            raise HTTPException(422, "query too broad: its rarest token matches more than "
                                f"{MAX_CANDIDATES:,} positions; raise the threshold")
        return idx.search(pattern, alphas, warn=False)
    except UserError as e:
        raise HTTPException(422, str(e)) from None


def hit_json(m: Any, width: int) -> dict[str, Any]:
    a, b = m.char_span
    return {"source": m.source, "line": m.line, "left": m.text[max(0, a - width):a],
            "key": m.text[a:b], "right": m.text[b:b + width], "tokens": list(m.tokens),
            "scores": list(m.scores), "token_span": list(m.token_span), "char_span": [a, b]}


# ---- routes -------------------------------------------------------------------------------------------

@router.get("/softmatcha", response_class=HTMLResponse, include_in_schema=False)
def page(request: Request) -> Response:
    from iclr25.core.web import paper_templates
    root = index_root(request)
    templates = paper_templates(TEMPLATES_DIR)
    return templates.TemplateResponse(request, "softmatcha.html", {
        "indexes": list_indexes(root), "root": str(root), "max_page": MAX_PAGE, "page": DEFAULT_PAGE,
        "max_pattern": MAX_PATTERN_CHARS, "static": False})


@router.get("/softmatcha/static/{name}", include_in_schema=False)
def static(name: str) -> Response:
    if name not in STATIC_FILES:
        raise HTTPException(404, "no such file")
    return Response((STATIC_DIR / name).read_bytes(), media_type=STATIC_FILES[name],
                    headers={"Cache-Control": "no-cache"})


@router.get("/api/softmatcha/indexes", summary="The indexes this server may open")
def api_indexes(request: Request) -> dict[str, Any]:
    """Names and sizes of the SoftMatcha indexes in the configured folder."""
    return {"indexes": list_indexes(index_root(request))}


@router.get("/api/softmatcha/search", summary="Soft pattern search, one page of KWIC hits")
def api_search(
    request: Request, index: IndexQ, pattern: PatternQ, threshold: ThresholdQ = 0.8,
    thresholds: ThresholdsQ = None,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET, description="first hit of the page (0-based)")] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description="hits per page")] = DEFAULT_PAGE,
    context: Annotated[int, Query(ge=0, le=MAX_CONTEXT, description="characters of context each side")] = 60,
    variants: Annotated[bool, Query(description="include the variants table (distinct matched "
                                                "strings)")] = True,
) -> dict[str, Any]:
    """All matches of `pattern` (complete enumeration, corpus order); returns the count, the search time,
    one page of hits as KWIC rows (left | key | right) and, optionally, the variants table."""
    idx = open_index(request, index)
    res = run_search(idx, pattern, parse_thresholds(threshold, thresholds))
    page_hits = res[offset:offset + limit] if offset < res.count else []
    nxt = offset + limit if offset + limit < res.count else None
    out: dict[str, Any] = {
        "index": index, "pattern": list(res.pattern), "thresholds": list(res.thresholds),
        "count": res.count, "seconds": res.seconds, "offset": offset, "limit": limit, "next_offset": nxt,
        "warnings": list(res.warnings), "hits": [hit_json(m, context) for m in page_hits]}
    if variants:
        out["variants"] = [{"string": v.string, "count": v.count, "min_score": round(v.min_score, 4),
                            "mean_score": round(v.mean_score, 4)} for v in res.variants()[:MAX_VARIANTS]]
    return out


@router.get("/api/softmatcha/download", summary="All hits as JSON or CSV (streamed)")
def api_download(
    request: Request, index: IndexQ, pattern: PatternQ, threshold: ThresholdQ = 0.8,
    thresholds: ThresholdsQ = None,
    format: Annotated[str, Query(pattern="^(json|csv)$", description="json or csv")] = "json",
) -> StreamingResponse:
    """Every hit (up to MAX_DOWNLOAD) with line, matched text, tokens and scores, streamed in chunks."""
    idx = open_index(request, index)
    res = run_search(idx, pattern, parse_thresholds(threshold, thresholds))
    n = min(res.count, MAX_DOWNLOAD)
    fname = f"softmatcha-{index}.{format}"
    headers = {"Content-Disposition": f'attachment; filename="{fname}"', "X-Total-Hits": str(res.count),
               "X-Truncated": str(int(res.count > n))}
    if format == "csv":
        return StreamingResponse(_csv_rows(res, n), media_type="text/csv", headers=headers)
    return StreamingResponse(_json_chunks(res, n), media_type="application/json", headers=headers)


def _pages(res: Any, n: int, step: int = 2048) -> Iterator[list[Any]]:
    for s in range(0, n, step):
        yield res[s:min(n, s + step)]


def _csv_rows(res: Any, n: int) -> Iterator[str]:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["source", "line", "matched_text", "tokens", "scores", "char_start", "char_end", "text"])
    for chunk in _pages(res, n):
        for m in chunk:
            w.writerow([m.source, m.line, m.matched_text, " ".join(m.tokens),
                        " ".join(f"{s:.4f}" for s in m.scores), m.char_span[0], m.char_span[1], m.text])
        yield buf.getvalue()
        buf.seek(0)
        buf.truncate()
    yield buf.getvalue()


def _json_chunks(res: Any, n: int) -> Iterator[str]:
    head = {"pattern": list(res.pattern), "thresholds": list(res.thresholds), "count": res.count,
            "truncated": res.count > n, "seconds": res.seconds}
    yield json.dumps(head, ensure_ascii=False)[:-1] + ', "matches": ['
    first = True
    for chunk in _pages(res, n):
        parts = [json.dumps(m.to_dict(), ensure_ascii=False) for m in chunk]
        if parts:
            yield ("" if first else ",") + ",".join(parts)
            first = False
    yield "]}"
