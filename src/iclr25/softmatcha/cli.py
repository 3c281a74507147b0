"""`iclr25 softmatcha index|search|grep|info`: a grep-compatible soft pattern matcher.

Exit codes as grep: 0 found, 1 not found, 2 error. Start-up stays lean: numpy and the engine are
imported inside the commands, the embeddings are memory-mapped from the cache."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from iclr25.core.options import count
from iclr25.softmatcha.pattern import MAX_EDITS, WILDCARDS

# One BLAS thread (the project convention): a multi-threaded gemv over ~1e4-1e5 types gains nothing and,
# on a busy machine, waiting for a second thread cost 20-30 ms per query here. Set before numpy loads.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, os.environ.get("ICLR25_THREADS", "1"))

if TYPE_CHECKING:
    from iclr25.softmatcha.results import SearchResult

app = typer.Typer(help="SoftMatcha: soft (embedding-aware) grep over corpora.", no_args_is_help=True,
                  add_completion=False, pretty_exceptions_enable=False)

KJV = "kjv"  # names the built-in default corpus (King James Bible, Debian bible-kjv)
DEFAULT_EMB = "glove-6b-50d-abtt3"  # embeddings.DEFAULT_EMBEDDINGS (not imported: numpy stays unloaded)
MAX_WIDTH = 10_000
DEFAULT_RUNTIME = 60.0  # seconds a ranked search (edits, wildcards, variants) may run before it stops

Threshold = Annotated[str | None, typer.Option(
    "--threshold", "-t", help="alpha in [0,1] for every token, or one per token: 1.0,0.7,0.7 (1 = exact); "
                              "default 0.8 (GloVe 50-d; the paper's 0.5 is for 300-d vectors)")]
LineNumber = Annotated[bool, typer.Option("--line-number", "-n", help="prefix each line with its number")]
WithFilename = Annotated[bool, typer.Option("--with-filename", "-H", help="prefix each line with its file")]
OnlyMatching = Annotated[bool, typer.Option("--only-matching", "-o", help="print only the matched parts")]
Count = Annotated[bool, typer.Option("--count", "-c", help="print the number of matching lines")]
CountMatches = Annotated[bool, typer.Option("--count-matches", help="print the number of matches")]
Json = Annotated[bool, typer.Option("--json", help="one JSON object per match (JSON lines)")]
Kwic = Annotated[bool, typer.Option("--kwic", help="key-word-in-context view: left | key | right")]
Sort = Annotated[str, typer.Option("--sort", help="KWIC order: none, left or right (context)")]
Width = Annotated[int, typer.Option("--width", min=0, max=MAX_WIDTH,
                                    help="KWIC context width in characters each side (0: none)")]
Variants = Annotated[bool, typer.Option("--variants", help="ranked table of the distinct matching strings "
                                                           "with exact counts (suffix array): rank, count, "
                                                           "score, edits, string")]
TopK = Annotated[int, count("how many variants --variants lists (best first)", 100_000, flag="--top-k")]
ScoreOpt = Annotated[str, typer.Option("--score", help="variant score: min (default) or product of the "
                                                       "token similarities, times penalty^edits")]
MaxInsert = Annotated[int, count("extra corpus tokens a match may contain between pattern tokens "
                                 "(ranked path)", MAX_EDITS, low=0, flag="--max-insert")]
MaxDelete = Annotated[int, count("pattern tokens a match may skip (ranked path; fewer than the pattern's)",
                                 MAX_EDITS, low=0, flag="--max-delete")]
Penalty = Annotated[float, typer.Option("--penalty", help="score factor per insertion or deletion, "
                                                         "in (0, 1]")]
MaxRuntime = Annotated[float | None, typer.Option(
    "--max-runtime", help="seconds a ranked search (--variants, edits, wildcards) may run (default 60): past "
                          "it --variants prints the best found so far and says it is partial; other output "
                          "stops with an error. Exit 2 either way")]
Offset = Annotated[int, count("skip this many matches first (paging)", 10**12, low=0, flag="--offset")]
Limit = Annotated[int | None, count("print at most this many matches (a page; with --offset)", 10**9,
                                    flag="--limit")]
MaxCount = Annotated[int | None, typer.Option("--max-count", "-m", help="stop after this many matches")]
Color = Annotated[str, typer.Option("--color", help="auto, always or never")]
Stats = Annotated[bool, typer.Option("--stats", help="print hits and search time to stderr")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="print nothing; the exit code says if found")]
IgnoreCase = Annotated[bool, typer.Option("--ignore-case", "-i", help="accepted for grep's habit: matching "
                                                                      "is always case-blind (tokens are "
                                                                      "lower-cased)")]
WordRegexp = Annotated[bool, typer.Option("--word-regexp", "-w", help="accepted for grep's habit: a pattern "
                                                                      "token always matches whole tokens")]
FilesWithMatches = Annotated[bool, typer.Option("--files-with-matches", "-l",
                                                help="print only the names of files with a match")]
InvertMatch = Annotated[bool, typer.Option("--invert-match", "-v", help="print the lines without a match")]
Context = Annotated[int, typer.Option("--context", "-C", min=0, max=1000,
                                      help="print N lines of context around each matching line")]
After = Annotated[int | None, typer.Option("--after-context", "-A", min=0, max=1000,
                                           help="print N lines after each matching line")]
Before = Annotated[int | None, typer.Option("--before-context", "-B", min=0, max=1000,
                                            help="print N lines before each matching line")]
Hidden = Annotated[bool, typer.Option("--hidden", help="also read hidden files and folders (.git/...) when "
                                                       "walking folders")]
Binary = Annotated[bool, typer.Option("--binary", help="also read binary files (NUL bytes); skipped with a "
                                                       "warning by default")]
Emb = Annotated[str, typer.Option("--emb", help="glove-6b-50d-abtt3 (default: GloVe 6B 50-d, centred, top 3 "
                                                 "principal directions removed), glove-6b-50d (as released), "
                                                 "minilm-l6-input, or a word2vec/GloVe text file")]
RemoveTop = Annotated[int, typer.Option("--remove-top", min=0, max=64,
                                        help="post-process a --emb FILE: centre it and remove its top N "
                                             "principal directions (all-but-the-top; the default has 3)")]
MixPunct = Annotated[bool, typer.Option("--mix-punctuation", help="let pattern words match punctuation and "
                                                                  "punctuation match words (off: each class "
                                                                  "matches only its own)")]
TokenizerOpt = Annotated[str, typer.Option("--tokenizer", help="glove (default: GloVe-compatible, king's -> "
                                                               "king 's), moses or word")]


def _labels(idx, line_number: bool) -> list[str] | None:
    """The KJV's book chapter:verse per line, when -n asks and the index is the built-in KJV."""
    if not (line_number and getattr(idx, "kjv_refs", False)):
        return None
    from iclr25.softmatcha.corpus import kjv_refs
    refs = kjv_refs()
    return refs if len(refs) == idx.n_lines else None


def _plain_only(files: bool, invert: bool, context: tuple[int, int]) -> None:
    from iclr25.core.errors import UserError
    if files or invert or any(context):
        raise UserError("-l, -v and -C/-A/-B list plain searches: drop --variants, --max-insert/--max-delete "
                        "and wildcards")


def _context(context: int, after: int | None, before: int | None) -> tuple[int, int]:
    """(lines before, lines after) each matching line, as grep reads -C, -B and -A."""
    return (context if before is None else before, context if after is None else after)


def _closed_pipe() -> None:
    """The reader went away (`| head -1`): what it read was found, as grep and ripgrep exit then."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # the interpreter's final flush must not raise again
    raise typer.Exit(0)


def _thresholds(raw: str | None) -> float | list[float] | None:
    from iclr25.core.errors import UserError
    if raw is None:
        return None
    try:
        vals = [float(x) for x in raw.split(",")]
    except ValueError:
        raise UserError(f"threshold must be a number or a comma-separated list, got {raw!r}") from None
    return vals[0] if len(vals) == 1 else vals


def _embeddings(emb: str, remove_top: int):
    """The --emb table, post-processed when --remove-top asks (a file; named tables say it in their name)."""
    if not remove_top:
        return emb
    from iclr25.softmatcha.embeddings import load_embeddings
    return load_embeddings(emb).postprocessed(remove_top)


def _index_for(path: str, verify: str = "auto", mix_punctuation: bool = False):
    """The index a command names. One query per process: no neighbour lists are kept (see SearchConfig)."""
    from iclr25.softmatcha.index import Index, SearchConfig
    kjv = path == KJV and not Path(path).exists()
    if kjv:
        from iclr25.softmatcha.demo import kjv_index
        idx = kjv_index(verify=verify)
    else:
        idx = Index.load(path, verify=verify)
    idx.kjv_refs = kjv  # -n prints the KJV's book chapter:verse (read only then: `_labels`)
    idx.config = SearchConfig(list_cache=0, mix_punctuation=mix_punctuation)
    return idx


def _emit(res: SearchResult, *, line_number: bool, with_filename: bool, only_matching: bool, count: bool,
          count_matches: bool, json_out: bool, kwic: bool, sort: str, width: int, variants: bool,
          max_count: int | None, color: str, stats: bool, quiet: bool = False, offset: int = 0,
          page: int | None = None) -> None:
    hi = _highlighter(color, max_count)
    for w in res.warnings:
        typer.echo(f"iclr25: warning: {w}", err=True)
    limit = res.count if max_count is None else min(max_count, res.count)
    if page is not None:
        limit = min(limit, offset + page)
    out = sys.stdout
    if quiet:
        pass
    elif count or count_matches:
        if count_matches:
            out.write(f"{limit}\n")
        else:  # hits are in corpus order, so their lines are sorted: count the changes (np.unique's
            # first call imports numpy.ma, a third of a CLI call)
            lines = res.line_indices()[:limit]
            out.write(f"{int(lines.size and 1 + (lines[1:] != lines[:-1]).sum())}\n")
    elif kwic:
        for line in res.kwic(width=width, sort=sort, limit=limit)[offset:]:
            out.write(line + "\n")
    elif json_out:
        import json
        for m in res[offset:limit]:
            out.write(json.dumps(m.to_dict(), ensure_ascii=False) + "\n")
    else:
        _print_lines(out, res[offset:limit], hi, line_number, with_filename, only_matching, False)
    out.flush()
    if stats:
        typer.echo(f"{res.count} hits in {res.seconds * 1000:.1f} ms", err=True)
    raise typer.Exit(0 if limit > 0 else 1)


def _emit_stream(idx, pattern: str, thr, *, line_number: bool, with_filename: bool, only_matching: bool,
                 count: bool, count_matches: bool, json_out: bool, max_count: int | None, color: str,
                 stats: bool, quiet: bool, offset: int, page: int | None, files: bool = False,
                 invert: bool = False, context: tuple[int, int] = (0, 0)) -> None:
    """The plain (unranked) output as grep produces it: hits in corpus order, printed window by window
    as they are found (`Index.search_stream`), memory bounded by a window's hits; counts add up the
    windows without keeping any hit; -q and -m stop at the first hits they need."""
    import time
    t0 = time.perf_counter()
    hi = _highlighter(color, max_count)
    st = idx.search_stream(pattern, thr)
    for w in st.warnings:
        typer.echo(f"iclr25: warning: {w}", err=True)
    stop = max_count  # hits to consider (-m), then the page [offset, offset + page)
    end = None if page is None else offset + page
    if stop is not None:
        end = stop if end is None else min(end, stop)
    if not count_matches and (invert or files or (count and with_filename) or any(context)):
        _emit_by_line(idx, st, hi, line_number=line_number, with_filename=with_filename, count=count,
                      quiet=quiet, files=files, invert=invert, context=context, max_count=max_count,
                      stats=stats, t0=t0)
    seen = found = lines = 0
    labels: list[str] | None = None  # read at the first line printed
    out = sys.stdout
    for res in st.chunks():
        n = res.count
        a, b = max(0, offset - seen), n if end is None else max(0, min(n, end - seen))
        seen += n
        if b > a:
            found += b - a
            if quiet:
                break
            if count_matches:
                pass
            elif count:
                ln = res.line_indices()[a:b]  # sorted; a line never spans two windows
                lines += int(ln.size and 1 + (ln[1:] != ln[:-1]).sum())
            else:  # a few thousand Match objects at a time, cut where the line changes
                ln = res.line_indices()
                cut = a
                while cut < b:
                    nxt = min(b, cut + 2048)
                    while nxt < b and ln[nxt] == ln[nxt - 1]:
                        nxt += 1
                    if labels is None:
                        labels = _labels(idx, line_number) or []
                    _print_lines(out, res[cut:nxt], hi, line_number, with_filename, only_matching, json_out,
                                 labels or None)
                    out.flush()
                    cut = nxt
        if end is not None and seen >= end:
            break
    if count_matches:
        out.write(f"{found}\n")
    elif count:
        out.write(f"{lines}\n")
    out.flush()
    if stats:
        typer.echo(f"{found} hits in {(time.perf_counter() - t0) * 1000:.1f} ms", err=True)
    if found == 0 and not quiet and not count and not count_matches:
        _nearest(idx, pattern, thr)
    raise typer.Exit(0 if found > 0 else 1)


def _nearest(idx, pattern: str, thr) -> None:
    """No match: say on stderr what comes closest (the best variants at any threshold, with their scores),
    so the user sees whether to lower the threshold or rephrase."""
    from iclr25.core.errors import UserError
    from iclr25.softmatcha.variants import VariantConfig
    best: list = []
    try:
        for v in idx.iter_variants(pattern, 0.0, VariantConfig(max_seconds=2.0)):
            best.append(v)
            if len(best) >= 3:
                break
    except UserError:  # a hint only (over its budget, or a pattern the ranked path refuses)
        pass
    if best:
        at = thr if thr is not None else idx.config.threshold
        typer.echo(f"iclr25: no match at alpha {at}; nearest: "
                   + "; ".join(f"{v.string} ({v.score:.2f}, {v.count}x)" for v in best), err=True)


def _emit_by_line(idx, st, hi, *, line_number: bool, with_filename: bool, count: bool, quiet: bool,
                  files: bool, invert: bool, context: tuple[int, int], max_count: int | None, stats: bool,
                  t0: float) -> None:
    """grep's line-level outputs over a stream of hits: -l (files with a match), -c per file, -v (lines
    without a match), -C N (context lines, '--' between groups). Hits are streamed; only the set of
    matching lines is kept."""
    import time

    import numpy as np
    sources = idx.meta["sources"]
    firsts = np.array([s["first_line"] for s in sources], dtype=np.int64)
    labels = _labels(idx, line_number)
    matched: dict[int, list] = {}  # line -> its hits (spans), in corpus order
    n_lines = 0
    for res in st.chunks():
        lines = res.line_indices()
        for k in np.unique(lines).tolist():
            if max_count is not None and n_lines >= max_count:
                break
            matched[k] = [] if (files or count or invert) else [m.char_span for m in res[
                int(np.searchsorted(lines, k)):int(np.searchsorted(lines, k, side="right"))]]
            n_lines += 1
        if quiet and matched:
            break
        if max_count is not None and n_lines >= max_count:
            break
    out = sys.stdout

    def src_of(k: int) -> int:
        return int(np.searchsorted(firsts, k, side="right")) - 1

    def prefix(k: int, sep: str) -> str:
        s = sources[src_of(k)]
        num = labels[k] if labels else str(k - s["first_line"] + 1)
        return (f"{s['name']}{sep}" if with_filename else "") + (f"{num}{sep}" if line_number else "")

    found = bool(matched) if not invert else len(matched) < idx.n_lines
    if quiet:
        pass
    elif files:
        for i in sorted({src_of(k) for k in matched}) if not invert else \
                [i for i, s in enumerate(sources) if sum(src_of(k) == i for k in matched) < s["n_lines"]]:
            out.write(f"{sources[i]['name']}\n")
    elif count:
        per = np.bincount([src_of(k) for k in matched], minlength=len(sources)) if matched else \
            np.zeros(len(sources), dtype=np.int64)
        for i, s in enumerate(sources):
            n = int(s["n_lines"] - per[i]) if invert else int(per[i])
            out.write((f"{s['name']}:" if with_filename else "") + f"{n}\n")
    elif invert:
        for k in range(idx.n_lines):
            if k not in matched:
                out.write(prefix(k, ":") + idx.line_text(k) + "\n")
    else:  # -C N: each matching line with N lines around it (within its file), '--' between groups
        show: set[int] = set()
        for k in matched:
            src = sources[src_of(k)]
            show.update(range(max(k - context[0], src["first_line"]),
                              min(k + context[1], src["first_line"] + src["n_lines"] - 1) + 1))
        last = None
        for j in sorted(show):
            if last is not None and (j > last + 1 or src_of(j) != src_of(last)):
                out.write("--\n")
            last = j
            text = idx.line_text(j)
            if j not in matched:
                out.write(prefix(j, "-") + text + "\n")
                continue
            pos, parts = 0, []
            for a_, b_ in matched[j]:
                a_ = max(a_, pos)
                parts += [text[pos:a_], hi(text[a_:b_])]
                pos = max(pos, b_)
            out.write(prefix(j, ":") + "".join(parts) + text[pos:] + "\n")
    out.flush()
    if stats:
        typer.echo(f"{len(matched)} matching lines in {(time.perf_counter() - t0) * 1000:.1f} ms", err=True)
    raise typer.Exit(0 if found else 1)


def _print_lines(out, ms, hi, line_number: bool, with_filename: bool, only_matching: bool,
                 json_out: bool, labels: list[str] | None = None) -> None:
    """Matches in corpus order as grep prints them: each line once, every match on it highlighted
    (`-o`: each match alone; `--json`: one object per match)."""
    if json_out:
        import json
        for m in ms:
            out.write(json.dumps(m.to_dict(), ensure_ascii=False) + "\n")
        return
    i = 0
    while i < len(ms):
        m = ms[i]
        num = labels[m.line - 1] if labels else m.line  # the KJV: book chapter:verse
        prefix = (f"{m.source}:" if with_filename else "") + (f"{num}:" if line_number else "")
        if only_matching:
            out.write(prefix + hi(m.matched_text) + "\n")
            i += 1
            continue
        j = i  # all matches on this line: print it once, every match highlighted (as grep)
        while j < len(ms) and (ms[j].source, ms[j].line) == (m.source, m.line):
            j += 1
        text, pos, parts = m.text, 0, []
        for k in range(i, j):
            a, b = ms[k].char_span
            if a < pos:  # overlapping soft matches: highlight the union
                a = pos
            parts += [text[pos:a], hi(text[a:b])]
            pos = max(pos, b)
        parts.append(text[pos:])
        out.write(prefix + "".join(parts) + "\n")
        i = j


def _highlighter(color: str, max_count: int | None):
    from iclr25.core.errors import UserError
    if color not in ("auto", "always", "never"):
        raise UserError(f"--color must be auto, always or never, got {color!r}")
    if max_count is not None and max_count < 0:
        raise UserError(f"--max-count must be >= 0, got {max_count}")
    use_color = color == "always" or (color == "auto" and sys.stdout.isatty())
    return (lambda s: f"\x1b[1;31m{s}\x1b[0m") if use_color else (lambda s: s)


def _check_ranked_options(score: str, penalty: float) -> None:
    """Validated on every call, also where a plain search does not use them."""
    from iclr25.core.errors import UserError
    from iclr25.core.options import finite
    if score not in ("min", "product"):
        raise UserError(f"--score must be min or product, got {score!r}")
    finite(penalty, "--penalty", 0.0, 1.0, low_open=True)


def _is_ranked(idx, pattern: str, variants: bool, max_insert: int, max_delete: int) -> bool:
    """Variants, edits and wildcards are answered from the suffix array (ranked order)."""
    return bool(variants or max_insert or max_delete
                or WILDCARDS.intersection(idx.tokenizer.tokenize(pattern)))


def _emit_ranked(idx, pattern: str, threshold: str | None, *, variants: bool, top_k: int, score: str,
                 max_insert: int, max_delete: int, penalty: float, offset: int, page: int | None,
                 max_count: int | None, line_number: bool, with_filename: bool, only_matching: bool,
                 count: bool, count_matches: bool, json_out: bool, kwic: bool, color: str, stats: bool,
                 quiet: bool, max_runtime: float | None = None) -> None:
    """The ranked path: `--variants` prints Rank | Count | Score | Edits | String; otherwise the hits,
    one per start position (the best variant there), in corpus order as grep prints them, paged by
    --offset/--limit (and -m)."""
    import time

    from iclr25.core.errors import UserError
    from iclr25.core.options import finite
    from iclr25.softmatcha.variants import VariantConfig
    hi = _highlighter(color, max_count)
    if kwic:
        raise UserError("--kwic lists plain searches: drop --variants, --max-insert/--max-delete and "
                        "wildcards")
    t0 = time.perf_counter()
    budget = DEFAULT_RUNTIME if max_runtime is None else finite(max_runtime, "--max-runtime", 0.0, 86_400.0,
                                                                low_open=True)
    cfg = VariantConfig(score=score, max_insert=max_insert, max_delete=max_delete,
                        penalty=finite(penalty, "--penalty", 0.0, 1.0, low_open=True), max_seconds=budget)
    # the k most similar variants need no threshold: without -t, --variants ranks every variant (alpha 0)
    thr = _thresholds(threshold) if threshold is not None or not variants else 0.0
    _, warns = idx.elements(pattern, thr)
    for w in warns:
        typer.echo(f"iclr25: warning: {w}", err=True)
    out = sys.stdout
    if variants:
        from iclr25.softmatcha.variants import OverBudget
        rows: list = []
        partial = None
        try:
            for v in idx.iter_variants(pattern, thr, cfg):
                rows.append(v)
                if len(rows) >= top_k:
                    break
        except OverBudget as e:
            partial = e
        found = sum(v.count for v in rows)
        if not quiet:
            out.write(f"{'rank':>4}  {'count':>8}  {'score':>6}  {'edits':>5}  string\n")
            for i, v in enumerate(rows, 1):
                out.write(f"{i:>4}  {v.count:>8}  {v.score:6.4f}  {f'+{v.inserted}/-{v.deleted}':>5}  "
                          f"{v.string}\n")
        if partial is not None:
            out.flush()
            typer.echo(f"iclr25: partial: {len(rows)} of the {top_k} variants asked for, the best found in "
                       f"{partial.seconds:g} s (--max-runtime); the ranking above is exact, the rest unknown",
                       err=True)
            raise typer.Exit(2)
    else:
        # one hit per start position (the best variant there), printed in corpus order like grep
        import numpy as np
        hits = idx.hits(pattern, thr, cfg)
        stop = hits.count if max_count is None else min(max_count, hits.count)
        end = stop if page is None else min(stop, offset + page)
        sel = np.arange(min(offset, end), end)
        found = int(sel.size)
        lines = np.searchsorted(idx.line_starts, hits.positions[sel], side="right") - 1
        if quiet:
            pass
        elif count_matches:
            out.write(f"{found}\n")
        elif count:
            out.write(f"{int(np.unique(lines).size)}\n")
        else:
            ms = [idx._match_at(int(hits.positions[i]), int(hits.lengths[i]),
                                hits.variants[int(hits.variant[i])].score) for i in sel]
            _print_lines(out, ms, hi, line_number, with_filename, only_matching, json_out)
    out.flush()
    if stats:
        typer.echo(f"{found} hits in {(time.perf_counter() - t0) * 1000:.1f} ms (ranked)", err=True)
    raise typer.Exit(0 if found > 0 else 1)


@app.command()
def index(
    files: Annotated[list[Path], typer.Argument(help="text files or folders (one document line per line); "
                                                     "- reads standard input")],
    output: Annotated[Path | None, typer.Option("--out", "-o", help="index folder to write")] = None,
    output_old: Annotated[Path | None, typer.Option("--output", hidden=True)] = None,
    emb: Emb = DEFAULT_EMB, remove_top: RemoveTop = 0,
    tokenizer: TokenizerOpt = "glove",
    force: Annotated[bool, typer.Option("--force", "-f", help="replace an existing index")] = False,
    hidden: Hidden = False, binary: Binary = False,
) -> None:
    """Build an index folder from FILES (atomic: an interrupted build leaves nothing that loads)."""
    import warnings

    from iclr25.core.errors import UserError
    output = output or output_old
    if output is None:
        raise UserError("say where to write the index: -o/--out FOLDER")
    from iclr25.softmatcha.index import Index
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        idx = Index.build(output, files=files, embeddings=_embeddings(emb, remove_top), tokenizer=tokenizer,
                          overwrite=force,
                          hidden=hidden, binary=binary)
    for w in caught:
        typer.echo(f"iclr25: warning: {w.message}", err=True)
    bpt = idx.bytes_per_token()
    typer.echo(f"indexed {idx.n_tokens} tokens, {idx.n_lines} lines, {idx.meta['n_types']} types "
               f"({idx.meta['n_oov_types']} without embedding) in {idx.meta['build_seconds']:.2f} s; "
               f"{bpt:.2f} B/token (+ text {idx.bytes_per_token(True) - bpt:.2f}) -> {output}", err=True)


@app.command()
def search(
    index_path: Annotated[str, typer.Argument(metavar="INDEX", help="index folder, or 'kjv' (built-in)")],
    pattern: Annotated[str, typer.Argument(help="the pattern, e.g. 'the king of israel'")],
    threshold: Threshold = None, line_number: LineNumber = False, with_filename: WithFilename = False,
    only_matching: OnlyMatching = False, count: Count = False, count_matches: CountMatches = False,
    json_out: Json = False, kwic: Kwic = False, sort: Sort = "none", width: Width = 40,
    variants: Variants = False, max_count: MaxCount = None, color: Color = "auto", stats: Stats = False,
    quiet: Quiet = False, top_k: TopK = 20, score: ScoreOpt = "min", max_insert: MaxInsert = 0,
    max_delete: MaxDelete = 0, penalty: Penalty = 0.9, offset: Offset = 0, limit: Limit = None,
    mix_punctuation: MixPunct = False, max_runtime: MaxRuntime = None, ignore_case: IgnoreCase = False,
    word_regexp: WordRegexp = False, files_with_matches: FilesWithMatches = False,
    invert_match: InvertMatch = False, context: Context = 0, after_context: After = None,
    before_context: Before = None,
) -> None:
    """Search an index for PATTERN: every window whose tokens are each close enough to the pattern's.
    `*` or `_` in PATTERN match any one token; with --variants, --max-insert/--max-delete or a wildcard
    the answer comes from the suffix array, best-scoring variant first."""
    _check_ranked_options(score, penalty)
    idx = _index_for(index_path, mix_punctuation=mix_punctuation)
    try:
        if _is_ranked(idx, pattern, variants, max_insert, max_delete):
            _plain_only(files_with_matches, invert_match, _context(context, after_context, before_context))
            _emit_ranked(idx, pattern, threshold, variants=variants, top_k=top_k, score=score,
                         max_insert=max_insert, max_delete=max_delete, penalty=penalty, offset=offset,
                         page=limit, max_count=max_count, line_number=line_number,
                         with_filename=with_filename,
                         only_matching=only_matching, count=count, count_matches=count_matches,
                         json_out=json_out, kwic=kwic, color=color, stats=stats, quiet=quiet,
                         max_runtime=max_runtime)
        if not kwic:
            _emit_stream(idx, pattern, _thresholds(threshold), line_number=line_number,
                         with_filename=with_filename, only_matching=only_matching, count=count,
                         count_matches=count_matches, json_out=json_out, max_count=max_count, color=color,
                         stats=stats, quiet=quiet, offset=offset, page=limit, files=files_with_matches,
                         invert=invert_match, context=_context(context, after_context, before_context))
        res = idx.search(pattern, _thresholds(threshold), warn=False)
        _emit(res, line_number=line_number, with_filename=with_filename, only_matching=only_matching,
              count=count, count_matches=count_matches, json_out=json_out, kwic=kwic, sort=sort, width=width,
              variants=variants, max_count=max_count, color=color, stats=stats, quiet=quiet, offset=offset,
              page=limit)
    except BrokenPipeError:
        _closed_pipe()


@app.command()
def grep(
    pattern: Annotated[str, typer.Argument(help="the pattern")],
    files: Annotated[list[Path], typer.Argument(help="files or folders to scan; - reads standard input")],
    threshold: Threshold = None, line_number: LineNumber = False, with_filename: WithFilename = False,
    only_matching: OnlyMatching = False, count: Count = False, count_matches: CountMatches = False,
    json_out: Json = False, kwic: Kwic = False, sort: Sort = "none", width: Width = 40,
    variants: Variants = False, max_count: MaxCount = None, color: Color = "auto", stats: Stats = False,
    quiet: Quiet = False,
    emb: Emb = DEFAULT_EMB, remove_top: RemoveTop = 0, mix_punctuation: MixPunct = False,
    tokenizer: TokenizerOpt = "glove", hidden: Hidden = False, binary: Binary = False,
    top_k: TopK = 20, score: ScoreOpt = "min", max_insert: MaxInsert = 0, max_delete: MaxDelete = 0,
    penalty: Penalty = 0.9, offset: Offset = 0, limit: Limit = None, max_runtime: MaxRuntime = None,
    ignore_case: IgnoreCase = False, word_regexp: WordRegexp = False,
    files_with_matches: FilesWithMatches = False, invert_match: InvertMatch = False, context: Context = 0,
    after_context: After = None, before_context: Before = None,
) -> None:
    """Soft grep without an index (scans every window; fine for files up to a few million tokens).
    Wildcards, --variants and --max-insert/--max-delete build an in-memory suffix array (see search)."""
    import warnings
    from dataclasses import replace

    from iclr25.softmatcha.scan import memory_corpus
    _check_ranked_options(score, penalty)
    thr = _thresholds(threshold)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        idx = memory_corpus(files, embeddings=_embeddings(emb, remove_top), tokenizer=tokenizer,
                            hidden=hidden, binary=binary)
    idx.config = replace(idx.config, mix_punctuation=mix_punctuation)
    for w in idx.read_warnings:
        typer.echo(f"iclr25: warning: {w}", err=True)
    with_filename = with_filename or len(idx.meta["sources"]) > 1
    try:
        if _is_ranked(idx, pattern, variants, max_insert, max_delete):
            _plain_only(files_with_matches, invert_match, _context(context, after_context, before_context))
            _emit_ranked(idx, pattern, threshold, variants=variants, top_k=top_k, score=score,
                         max_insert=max_insert, max_delete=max_delete, penalty=penalty, offset=offset,
                         page=limit, max_count=max_count, line_number=line_number,
                         with_filename=with_filename,
                         only_matching=only_matching, count=count, count_matches=count_matches,
                         json_out=json_out, kwic=kwic, color=color, stats=stats, quiet=quiet,
                         max_runtime=max_runtime)
        if not kwic:
            _emit_stream(idx, pattern, thr, line_number=line_number, with_filename=with_filename,
                         only_matching=only_matching, count=count, count_matches=count_matches,
                         json_out=json_out, max_count=max_count, color=color, stats=stats, quiet=quiet,
                         offset=offset, page=limit, files=files_with_matches, invert=invert_match,
                         context=_context(context, after_context, before_context))
        res = idx.search(pattern, thr, warn=False)
        _emit(res, line_number=line_number, with_filename=with_filename, only_matching=only_matching,
              count=count, count_matches=count_matches, json_out=json_out, kwic=kwic, sort=sort, width=width,
              variants=variants, max_count=max_count, color=color, stats=stats, quiet=quiet, offset=offset,
              page=limit)
    except BrokenPipeError:
        _closed_pipe()


@app.command()
def info(index_path: Annotated[str, typer.Argument(metavar="INDEX", help="index folder or 'kjv'")],
         verify: Annotated[bool, typer.Option("--verify", help="check every file's SHA-256 (every load "
                                                              "checks sizes and CRC-32s)")] = False
         ) -> None:
    """Describe an index (and verify its checksums with --verify)."""
    idx = _index_for(index_path, verify="full" if verify else "auto")
    m = idx.meta
    typer.echo(f"{idx.path}\n  format v{m['version']}, tokenizer {m['tokenizer']}, embeddings "
               f"{m['embeddings']['name']} ({m['embeddings']['fingerprint']})\n  {m['n_tokens']} tokens, "
               f"{m['n_lines']} lines, {m['n_types']} types ({m['n_oov_types']} without embedding), "
               f"{m['invalid_utf8_lines']} lines with invalid UTF-8\n  {idx.bytes_per_token():.2f} B/token "
               f"(+ stored text {idx.bytes_per_token(True) - idx.bytes_per_token():.2f})"
               + ("\n  SHA-256 of every file OK" if verify else "")
               + ("\n  format v1: rebuild it (index --force) to load faster" if m["version"] == 1 else ""))
