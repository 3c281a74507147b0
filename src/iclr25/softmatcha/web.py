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

import contextlib
import csv
import io
import itertools
import json
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse

from iclr25.core.errors import UserError
from iclr25.softmatcha.pattern import MAX_EDITS, WILDCARDS, is_regex_token, pattern_tokens

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
HEAVY_CANDIDATES = 100_000  # above this a query is broad: it runs in the one-at-a-time heavy lane
MAX_HEAVY_WAITING = 2  # broad queries queued behind the running one; more are refused with 429
HEAVY_WAIT_SECONDS = 30.0
MAX_VARIANTS = 50
MAX_RANKED = 1000  # variants per /variants call
MAX_OPEN_INDEXES = 4
RANKED_BUDGET_S = 10.0  # a ranked request (variants, edits, wildcards) stops here and frees its lane
COUNT_BUDGET_S = 0.5  # a ranked page's total count is counted on this long, then given as ">= N"
MAX_COLLOCATE_HITS = 500_000  # hits a collocation table groups (O(hits x span) numpy work)
VARIANT_TABLE_MAX_HITS = 200_000  # a plain search's variants table groups at most this many hits
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
            info.update(tokens=int(meta["n_tokens"]), lines=int(meta["n_lines"]),
                        embeddings=str(meta["embeddings"]["name"]),
                        tokenizer=str(meta["tokenizer"]))
            if kind == "sharded":
                info["shards"] = len(meta["shards"])
        except (OSError, ValueError, TypeError, KeyError, RecursionError) as e:
            info["damaged"] = f"unreadable {'meta.json' if kind == 'index' else 'sharded.json'} " \
                              f"({type(e).__name__})"
        out.append(info)
    return out


def index_stamp(path: Path) -> tuple:
    """What identifies the files of the index at `path` as they are now: (name, inode, mtime, size) of
    every file in the folder (and in each shard's folder). A republished index (a new folder swapped in),
    an edited or a truncated file changes it. Costs one stat per file (~10 per index: microseconds)."""
    out = []
    folders = [path] + sorted(d for d in path.iterdir() if d.is_dir() and d.name.startswith("shard-")) \
        if (path / "sharded.json").is_file() else [path]
    for folder in folders:
        with os.scandir(folder) as it:
            for e in it:
                if e.is_file(follow_symlinks=False):
                    st = e.stat(follow_symlinks=False)
                    out.append((folder.name, e.name, st.st_ino, st.st_mtime_ns, st.st_size))
    return tuple(sorted(out))


class _OpenIndexes:
    """A small LRU of opened (memory-mapped) indexes, shared by the request threads. Every request checks
    the index's files (`index_stamp`): when they changed since it was opened (republished with `index -f`,
    edited, truncated) the index is opened again, with the load's verification, so a request is answered
    from what is on disk now or refused (409), never from a stale or shrunken mapping."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._open: OrderedDict[Path, tuple[Any, tuple]] = OrderedDict()

    def get(self, path: Path) -> Any:
        stamp = index_stamp(path)
        with self._lock:
            if path in self._open:
                idx, was = self._open[path]
                if was == stamp:
                    self._open.move_to_end(path)
                    return idx
                del self._open[path]  # changed on disk: open it again below
        idx = _load(path)  # outside the lock: loading can take a while
        with self._lock:
            self._open[path] = (idx, stamp)
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
    return Index.load(path, embeddings=custom, verify="auto")  # the CLI's verification (index_format)


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
    except UserError as e:  # e.g. a damaged or foreign folder; named by its index name, not its path
        raise HTTPException(409, str(e).replace(str(path), name).replace(str(root), ".")) from None
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as e:  # a damaged folder
        raise HTTPException(409, f"index {name!r} is damaged and cannot be opened "
                                 f"({type(e).__name__})") from None


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


MaxInsertQ = Annotated[int, Query(ge=0, le=MAX_EDITS, description="extra corpus tokens a match may contain "
                                  "between pattern tokens (each lowers the score by the penalty 0.9)")]
MaxDeleteQ = Annotated[int, Query(ge=0, le=MAX_EDITS, description="pattern tokens a match may skip")]
ScoreQ = Annotated[Literal["min", "product"], Query(description="variant score: min or product of the "
                                                                "token similarities")]


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


class HeavyLane:
    """Broad queries (enumerating more than HEAVY_CANDIDATES candidates, up to ~1e6 matches and seconds of
    CPU) run one at a time, with at most `max_waiting` queued; ordinary queries never wait for them, so
    a few clients sending broad queries cannot take every core from everyone else."""

    def __init__(self, max_waiting: int = MAX_HEAVY_WAITING,
                 wait_seconds: float = HEAVY_WAIT_SECONDS) -> None:
        self.max_waiting, self.wait_seconds = max_waiting, wait_seconds
        self._run = threading.Semaphore(1)
        self._lock = threading.Lock()
        self._waiting = 0

    @contextlib.contextmanager
    def slot(self) -> Iterator[None]:
        if not self._run.acquire(blocking=False):
            with self._lock:
                if self._waiting >= self.max_waiting:
                    raise HTTPException(429, f"too many broad queries at once (over {HEAVY_CANDIDATES:,} "
                                             "candidates each); retry shortly or raise the threshold",
                                        headers={"Retry-After": "2"})
                self._waiting += 1
            try:
                acquired = self._run.acquire(timeout=self.wait_seconds)
            finally:
                with self._lock:
                    self._waiting -= 1
            if not acquired:
                raise HTTPException(503, "the server is busy with broad queries; retry shortly",
                                    headers={"Retry-After": "5"})
        try:
            yield
        finally:
            self._run.release()


_HEAVY = HeavyLane()


_NESTED = re.compile(r"[*+}][^()]*\)[*+{]|\\[1-9]")  # (a+)+ style groups, back-references


def check_regex_tokens(pattern: str) -> None:
    """A /RE/ token runs over the whole vocabulary: the server refuses the forms that can backtrack
    exponentially (a quantified group holding a quantifier, a back-reference) and long ones."""
    for part in pattern.split():
        if is_regex_token(part) and (len(part) > 60 or _NESTED.search(part)):
            raise HTTPException(422, f"regex token {part[:60]!r} is refused here (nested quantifiers, "
                                     "back-references or over 60 characters); the CLI runs it")


def lane(idx: Any, pattern: str, alphas: float | list[float]) -> contextlib.AbstractContextManager:
    """Validate the pattern and admit the query: refused when too broad, the heavy lane when broad,
    no wait otherwise."""
    check_regex_tokens(pattern)
    try:
        toks = idx.tokenizer.tokenize(pattern)
        if len(toks) > MAX_PATTERN_TOKENS:
            raise HTTPException(422, f"pattern has {len(toks)} tokens; the limit here is "
                                     f"{MAX_PATTERN_TOKENS}")
        bound = candidate_bound(idx, pattern, alphas)
    except UserError as e:
        raise HTTPException(422, str(e)) from None
    if bound > MAX_CANDIDATES:
        raise HTTPException(422, "query too broad: its rarest token matches more than "
                            f"{MAX_CANDIDATES:,} positions; raise the threshold")
    return _HEAVY.slot() if bound > HEAVY_CANDIDATES else contextlib.nullcontext()


def is_ranked(idx: Any, pattern: str, max_insert: int, max_delete: int) -> bool:
    """Edits and wildcards are answered from the suffix array (occurrences in variant rank order)."""
    return bool(max_insert or max_delete or WILDCARDS.intersection(pattern_tokens(pattern,
                                                                                   idx.tokenizer.tokenize)))


def ranked_lane(idx: Any, pattern: str) -> contextlib.AbstractContextManager:
    """Ranked queries (variants, edits, wildcards): the pattern's size is checked, and they run in the
    one-at-a-time lane (their cost follows the variants, bounded by VariantConfig.max_states)."""
    if not hasattr(idx, "iter_variants"):
        raise HTTPException(422, "ranked variants and edits need a single (unsharded) index")
    check_regex_tokens(pattern)
    toks = idx.tokenizer.tokenize(pattern)
    if len(toks) > MAX_PATTERN_TOKENS:
        raise HTTPException(422, f"pattern has {len(toks)} tokens; the limit here is {MAX_PATTERN_TOKENS}")
    return _HEAVY.slot()


def run_variants(idx: Any, pattern: str, alphas: float | list[float], cfg: Any) -> Iterator[Any]:
    try:
        return idx.iter_variants(pattern, alphas, cfg)
    except UserError as e:
        raise HTTPException(422, str(e)) from None


def run_search(idx: Any, pattern: str, alphas: float | list[float]) -> Any:
    try:
        return idx.search(pattern, alphas, warn=False)
    except UserError as e:
        raise HTTPException(422, str(e)) from None


def source_root(idx: Any) -> str | None:
    """The folder the index's corpus files are named relative to in responses (their common folder), so
    the API never reveals where the server keeps them; None when no source is an absolute path."""
    meta = getattr(idx, "meta", {}) or {}
    names = [str(s.get("name", "")) for s in meta.get("sources", [])] or [str(meta.get("source", ""))]
    absolute = [n for n in names if os.path.isabs(n)]
    if not absolute:
        return None
    common = os.path.commonpath(absolute)
    return os.path.dirname(common) if common in absolute else common


def public_source(name: str, root: str | None) -> str:
    """`name` relative to `root` (a name outside it, or any absolute name, keeps only its file name)."""
    if not os.path.isabs(name):
        return name
    rel = os.path.relpath(name, root) if root else os.path.basename(name)
    return os.path.basename(name) if rel.startswith("..") else rel


def hit_json(m: Any, width: int, root: str | None = None) -> dict[str, Any]:
    a, b = m.char_span
    return {"source": public_source(m.source, root), "line": m.line, "left": m.text[max(0, a - width):a],
            "key": m.text[a:b], "right": m.text[b:b + width], "tokens": list(m.tokens),
            "scores": list(m.scores), "token_span": list(m.token_span), "char_span": [a, b]}


# ---- routes -------------------------------------------------------------------------------------------

@router.get("/softmatcha", response_class=HTMLResponse, include_in_schema=False)
def page(request: Request) -> Response:
    from iclr25.core.web import paper_templates
    root = index_root(request)
    templates = paper_templates(TEMPLATES_DIR)
    return templates.TemplateResponse(request, "softmatcha.html", {
        "indexes": list_indexes(root), "max_page": MAX_PAGE, "page": DEFAULT_PAGE,
        "max_pattern": MAX_PATTERN_CHARS, "max_edits": MAX_EDITS, "max_ranked": MAX_RANKED,
        "ranked_budget": RANKED_BUDGET_S, "static": False})


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
    max_insert: MaxInsertQ = 0, max_delete: MaxDeleteQ = 0, score: ScoreQ = "min",
) -> JSONResponse:
    """All matches of `pattern` (complete enumeration, corpus order); returns the count, the search time,
    one page of hits as KWIC rows (left | key | right) and, optionally, the variants table. With edits
    (`max_insert`, `max_delete`) or wildcards (`*`, `_`) the hits come from the suffix array instead, in
    variant rank order, and the page costs O(variants before it + page)."""
    idx = open_index(request, index)
    alphas = parse_thresholds(threshold, thresholds)
    if is_ranked(idx, pattern, max_insert, max_delete):
        return JSONResponse(_ranked_search(idx, index, pattern, alphas, offset, limit, context,
                                           variant_config(score, max_insert, max_delete), variants))
    with lane(idx, pattern, alphas):
        res = run_search(idx, pattern, alphas)
        page_hits = res[offset:offset + limit] if offset < res.count else []
        nxt = offset + limit if offset + limit < res.count else None
        root = source_root(idx)
        out: dict[str, Any] = {
            "index": index, "pattern": list(res.pattern), "thresholds": list(res.thresholds),
            "count": res.count, "seconds": res.seconds, "offset": offset, "limit": limit,
            "next_offset": nxt, "warnings": list(res.warnings),
            "hits": [hit_json(m, context, root) for m in page_hits]}
        if variants and res.count <= VARIANT_TABLE_MAX_HITS:
            out["variants"] = [{"string": v.string, "count": v.count, "min_score": round(v.min_score, 4),
                                "mean_score": round(v.mean_score, 4)} for v in res.variants(MAX_VARIANTS)]
        elif variants:  # grouping every hit would cost O(hits): the ranked table is O(variants shown)
            out["variants_note"] = (f"{res.count:,} hits: too many to group here; the ranked variants "
                                    "(/api/softmatcha/variants) list the best strings with exact counts")
    # plain JSON types throughout: rendered directly, not walked by FastAPI's encoder (2 ms of a ~5 ms
    # request for a page of 50 hits)
    return JSONResponse(out)


def _ranked_search(idx: Any, index: str, pattern: str, alphas: float | list[float], offset: int, limit: int,
                   context: int, cfg: Any, variants: bool) -> dict[str, Any]:
    """One page of hits in variant rank order (one hit per start position: `variants.distinct_hits`), at
    O(variants up to the page) cost; the total count is then counted on for at most COUNT_BUDGET_S and
    reported as a lower bound ("count_complete": false) when cut. The whole request stops at
    RANKED_BUDGET_S (`VariantConfig.max_seconds`): the lane is freed and the answer says so."""
    import numpy as np

    from iclr25.softmatcha.variants import OverBudget, page_occurrences
    t0 = time.perf_counter()
    edits = bool(cfg.max_insert or cfg.max_delete)
    seen: list[Any] = []

    def recording(it: Iterator[Any]) -> Iterator[Any]:
        for v in it:
            seen.append(v)
            yield v

    with ranked_lane(idx, pattern):
        try:
            _, warns = idx.elements(pattern, alphas)  # the OOV warnings a plain search gives too
        except UserError as e:
            raise HTTPException(422, str(e)) from None
        it = recording(run_variants(idx, pattern, alphas, cfg))
        try:
            pairs, more = page_occurrences(idx.suffix_ranges, it, offset, limit, dedupe=edits)
        except OverBudget as e:
            raise HTTPException(503, str(e).replace(" (--max-runtime)", ""),
                                headers={"Retry-After": "5"}) from None
        hits = [idx._match_at(p, len(v.type_ids), v.score) for v, p in pairs]
        complete = True
        stop = time.perf_counter() + COUNT_BUDGET_S
        try:
            for _ in it:  # count on, within the budget
                if time.perf_counter() > stop:
                    complete = False
                    break
        except OverBudget:
            complete = False
        ranges = idx.suffix_ranges
        if edits:
            pos = [ranges.positions(*v.sa_range) for v in seen]
            count = int(np.unique(np.concatenate(pos)).size) if pos else 0
        else:
            count = sum(v.count for v in seen)
    root = source_root(idx)
    out: dict[str, Any] = {
        "index": index, "pattern": idx.tokenizer.tokenize(pattern), "thresholds": alphas, "count": count,
        "count_complete": complete, "seconds": time.perf_counter() - t0, "offset": offset, "limit": limit,
        "next_offset": offset + limit if more else None, "warnings": list(warns), "ranked": True,
        "hits": [hit_json(m, context, root) for m in hits]}
    if variants:
        out["variants"] = [dict(v.to_dict(), rank=i) for i, v in enumerate(seen[:MAX_VARIANTS], 1)]
    return out


def variant_config(score: str, max_insert: int, max_delete: int) -> Any:
    from iclr25.softmatcha.variants import VariantConfig
    return VariantConfig(score=score, max_insert=max_insert, max_delete=max_delete,
                         max_seconds=RANKED_BUDGET_S)


@router.get("/api/softmatcha/variants", summary="Ranked variants with exact counts (suffix array)")
def api_variants(
    request: Request, index: IndexQ, pattern: PatternQ,
    threshold: Annotated[float | None, Query(ge=0.0, le=1.0, description="alpha for every token; omitted: "
                                             "no threshold, the k most similar variants")] = None,
    thresholds: ThresholdsQ = None,
    k: Annotated[int, Query(ge=1, le=MAX_RANKED, description="how many variants, best first")] = 20,
    max_insert: MaxInsertQ = 0, max_delete: MaxDeleteQ = 0, score: ScoreQ = "min",
    max_runtime: Annotated[float | None, Query(gt=0, le=RANKED_BUDGET_S, description="seconds to search; "
                                               "past it the best variants found so far are returned with "
                                               "partial: true")] = None,
) -> JSONResponse:
    """The top-k distinct matching strings (Rank | Score | #Match | String, SoftMatcha 2's table), ranked
    by score (min or product of the token similarities, times 0.9 per edit), then count; counts are exact
    (suffix-array ranges). `*` and `_` in the pattern match any one token."""
    idx = open_index(request, index)
    alphas = parse_thresholds(0.0 if threshold is None else threshold, thresholds)
    t0 = time.perf_counter()
    from iclr25.softmatcha.variants import OverBudget
    cfg = variant_config(score, max_insert, max_delete)
    if max_runtime is not None:
        cfg = replace(cfg, max_seconds=min(max_runtime, RANKED_BUDGET_S))
    top: list[Any] = []
    partial = False
    with ranked_lane(idx, pattern):
        try:
            top.extend(itertools.islice(run_variants(idx, pattern, alphas, cfg), k))
        except OverBudget:
            partial = True  # the best found so far, in rank order
    return JSONResponse({"index": index, "pattern": idx.tokenizer.tokenize(pattern), "k": k, "score": score,
                         "max_insert": max_insert, "max_delete": max_delete, "partial": partial,
                         "seconds": time.perf_counter() - t0,
                         "variants": [dict(v.to_dict(), rank=i) for i, v in enumerate(top, 1)]})


@router.get("/api/softmatcha/collocates", summary="Collocates of a query's hits: MI and log-likelihood")
def api_collocates(
    request: Request, index: IndexQ, pattern: PatternQ, threshold: ThresholdQ = 0.8,
    thresholds: ThresholdsQ = None,
    left: Annotated[int, Query(ge=0, le=50, description="words before each hit in the span")] = 5,
    right: Annotated[int, Query(ge=0, le=50, description="words after each hit in the span")] = 5,
    min_count: Annotated[int, Query(ge=1, le=10**9, description="list words counted at least this often "
                                    "in the span")] = 2,
    by: Annotated[Literal["g2", "mi", "freq"], Query(description="sort by signed log-likelihood (g2), "
                                                     "mutual information (mi) or window count")] = "g2",
    k: Annotated[int, Query(ge=1, le=MAX_RANKED, description="rows, best first")] = 30,
    punctuation: Annotated[bool, Query(description="count punctuation tokens as words")] = False,
    max_insert: MaxInsertQ = 0, max_delete: MaxDeleteQ = 0,
) -> JSONResponse:
    """The collocation table of every hit of `pattern` (CQPweb / AntConc): per word its count in the span
    (`left`/`right` words around each hit, within its line), its corpus frequency, the expected count,
    MI (Church & Hanks 1990) and signed G² (Dunning 1993); definitions in `collocates.py`. At most
    MAX_COLLOCATE_HITS hits (the CLI has no limit)."""
    import numpy as np

    from iclr25.softmatcha.collocates import collocates, reference
    from iclr25.softmatcha.variants import OverBudget
    idx = open_index(request, index)
    if not hasattr(idx, "tokens"):
        raise HTTPException(422, "collocates need a single (unsharded) index")
    if left + right == 0:
        raise HTTPException(422, "the span is empty: give left or right > 0")
    alphas = parse_thresholds(threshold, thresholds)
    t0 = time.perf_counter()
    if is_ranked(idx, pattern, max_insert, max_delete):
        with ranked_lane(idx, pattern):
            try:
                h = idx.hits(pattern, alphas, variant_config("min", max_insert, max_delete))
            except OverBudget as e:
                raise HTTPException(503, str(e).replace(" (--max-runtime)", ""),
                                    headers={"Retry-After": "5"}) from None
            except UserError as e:
                raise HTTPException(422, str(e)) from None
            positions, lengths = h.positions, h.lengths
    else:
        with lane(idx, pattern, alphas):
            res = run_search(idx, pattern, alphas)
            positions, lengths = res.positions, np.full(res.count, len(res.pattern), np.int64)
    if positions.size > MAX_COLLOCATE_HITS:
        raise HTTPException(422, f"{positions.size:,} hits: over the {MAX_COLLOCATE_HITS:,} this page "
                                 "groups; raise the threshold (the CLI's `collocates` has no limit)")
    table = collocates(idx, positions, lengths, left=left, right=right, min_count=min_count, by=by, top_k=k,
                       punctuation=punctuation, pattern=pattern)
    return JSONResponse({
        "index": index, "pattern": idx.tokenizer.tokenize(pattern), "count": int(positions.size),
        "left": left, "right": right, "span_tokens": table.span_tokens, "population": table.population,
        "by": by, "min_count": min_count, "seconds": time.perf_counter() - t0, "reference": reference(),
        "rows": [dict(c.to_dict(), rank=i) for i, c in enumerate(table.rows, 1)]})


@router.get("/api/softmatcha/download", summary="All hits as JSON or CSV (streamed)")
def api_download(
    request: Request, index: IndexQ, pattern: PatternQ, threshold: ThresholdQ = 0.8,
    thresholds: ThresholdsQ = None,
    format: Annotated[str, Query(pattern="^(json|csv)$", description="json or csv")] = "json",
) -> StreamingResponse:
    """Every hit (up to MAX_DOWNLOAD) with line, matched text, tokens and scores, streamed in chunks."""
    idx = open_index(request, index)
    alphas = parse_thresholds(threshold, thresholds)
    admitted = lane(idx, pattern, alphas)
    admitted.__enter__()  # held until the stream ends (released by _held)
    try:
        res = run_search(idx, pattern, alphas)
    except BaseException:
        admitted.__exit__(None, None, None)
        raise
    n = min(res.count, MAX_DOWNLOAD)
    fname = f"softmatcha-{index}.{format}"
    headers = {"Content-Disposition": f'attachment; filename="{fname}"', "X-Total-Hits": str(res.count),
               "X-Truncated": str(int(res.count > n))}
    root = source_root(idx)
    rows = _csv_rows(res, n, root) if format == "csv" else _json_chunks(res, n, root)
    return StreamingResponse(_held(rows, admitted), headers=headers,
                             media_type="text/csv" if format == "csv" else "application/json")


def _held(chunks: Iterator[str], admitted: contextlib.AbstractContextManager) -> Iterator[str]:
    """Stream `chunks`, then leave the admission lane (also when the client goes away)."""
    try:
        yield from chunks
    finally:
        admitted.__exit__(None, None, None)


def _pages(res: Any, n: int, step: int = 2048) -> Iterator[list[Any]]:
    for s in range(0, n, step):
        yield res[s:min(n, s + step)]


def _csv_rows(res: Any, n: int, root: str | None) -> Iterator[str]:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["source", "line", "matched_text", "tokens", "scores", "char_start", "char_end", "text"])
    for chunk in _pages(res, n):
        for m in chunk:
            w.writerow([public_source(m.source, root), m.line, m.matched_text, " ".join(m.tokens),
                        " ".join(f"{s:.4f}" for s in m.scores), m.char_span[0], m.char_span[1], m.text])
        yield buf.getvalue()
        buf.seek(0)
        buf.truncate()
    yield buf.getvalue()


def _json_chunks(res: Any, n: int, root: str | None) -> Iterator[str]:
    head = {"pattern": list(res.pattern), "thresholds": list(res.thresholds), "count": res.count,
            "truncated": res.count > n, "seconds": res.seconds}
    yield json.dumps(head, ensure_ascii=False)[:-1] + ', "matches": ['
    first = True
    for chunk in _pages(res, n):
        parts = [json.dumps({**m.to_dict(), "source": public_source(m.source, root)}, ensure_ascii=False)
                 for m in chunk]
        if parts:
            yield ("" if first else ",") + ",".join(parts)
            first = False
    yield "]}"
