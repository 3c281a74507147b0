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
from iclr25.softmatcha.pattern import MAX_EDITS, WILDCARDS, pattern_tokens

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
MAX_PATTERNS = 10_000  # patterns of one call (-e, -f)
MAX_PATTERN_FILE = 16_000_000  # bytes of a -f FILE
DEFAULT_RUNTIME = 60.0  # seconds a ranked search (edits, wildcards, variants) may run before it stops

Threshold = Annotated[str | None, typer.Option(
    "--threshold", "-t", help="default 0.8 (GloVe 50-d; the paper's 0.5 is for 300-d vectors): alpha in "
                              "[0,1] for every token, or one per token: 1.0,0.7,0.7 (1 = exact)")]
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
IgnoreCase = Annotated[bool, typer.Option("--ignore-case", "-i", help="case-blind matching: the default "
                                                                      "(tokens are lower-cased); see -s")]
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
Regexp = Annotated[list[str] | None, typer.Option("--regexp", "-e", help="a pattern; repeat for several "
                                                                      "(a line matches if any does)")]
PatternFile = Annotated[Path | None, typer.Option(
    "--file", "-f", help="read patterns from FILE, one per line (blank lines skipped; - is standard input)")]
FilesWithout = Annotated[bool, typer.Option("--files-without-match", "-L",
                                            help="print only the names of files without a match (exit 0 "
                                                 "when one is listed)")]
CaseSensitive = Annotated[bool, typer.Option(
    "--case-sensitive", "-s", help="match the case written in the pattern: the pattern's own words exactly "
                                   "(Israel is not israel), a soft stand-in by case shape (King matches "
                                   "Queen, not queen), a /RE/ token case-sensitively. Plain searches only")]
NoIgnore = Annotated[bool, typer.Option("--no-ignore", help="also read the files that .gitignore excludes "
                                                            "when walking folders")]
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
                                                               "king 's), moses, word, or mecab (Japanese; "
                                                               "needs iclr25[softmatcha-ja])")]


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


def _emit_stream(idx, pattern: str | list[str], thr, *, line_number: bool, with_filename: bool,
                 only_matching: bool, count: bool, count_matches: bool, json_out: bool, max_count: int | None,
                 color: str, stats: bool, quiet: bool, offset: int, page: int | None, files: bool = False,
                 invert: bool = False, context: tuple[int, int] = (0, 0), files_without: bool = False,
                 case_sensitive: bool = False) -> None:
    """The plain (unranked) output as grep produces it: hits in corpus order, printed window by window
    as they are found (`Index.search_stream`), memory bounded by a window's hits; counts add up the
    windows without keeping any hit; -q and -m stop at the first hits they need. Several patterns
    (-e/-f) are merged in corpus order (`_emit_merged`)."""
    import time
    t0 = time.perf_counter()
    hi = _highlighter(color, max_count)
    patterns = [pattern] if isinstance(pattern, str) else list(pattern)
    streams = [idx.search_stream(p, thr, case_sensitive=case_sensitive) for p in patterns]
    st = streams[0]
    for w in dict.fromkeys(w for s in streams for w in s.warnings):
        typer.echo(f"iclr25: warning: {w}", err=True)
    stop = max_count  # hits to consider (-m), then the page [offset, offset + page)
    end = None if page is None else offset + page
    if stop is not None:
        end = stop if end is None else min(end, stop)
    line_level = invert or files or files_without or any(context) or \
        (count and (with_filename or len(streams) > 1))
    if not count_matches and line_level:
        _emit_by_line(idx, streams, hi, line_number=line_number, with_filename=with_filename, count=count,
                      quiet=quiet, files=files, invert=invert, context=context, max_count=max_count,
                      stats=stats, t0=t0, files_without=files_without)
    if len(streams) > 1:
        _emit_merged(idx, streams, patterns, hi, line_number=line_number, with_filename=with_filename,
                     only_matching=only_matching, count_matches=count_matches, json_out=json_out,
                     max_count=max_count, stats=stats, quiet=quiet, offset=offset, page=page, t0=t0)
    pattern = patterns[0]
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


def _emit_by_line(idx, streams, hi, *, line_number: bool, with_filename: bool, count: bool, quiet: bool,
                  files: bool, invert: bool, context: tuple[int, int], max_count: int | None, stats: bool,
                  t0: float, files_without: bool = False) -> None:
    """grep's line-level outputs over streams of hits (one per pattern; a line matches if any pattern
    does): -l / -L (files with / without a selected line), -c (per file with -H, else the total), -v
    (lines without a match), -C N (context lines, '--' between groups). Hits are streamed; only the set
    of matching lines is kept (with -m, at most m lines per pattern, then the first m of their union)."""
    import time

    import numpy as np
    sources = idx.meta["sources"]
    firsts = np.array([s["first_line"] for s in sources], dtype=np.int64)
    labels = _labels(idx, line_number)
    matched: dict[int, list] = {}  # line -> its hits (spans)
    spans_needed = not (files or files_without or count or invert)
    for st in streams:
        n_lines = 0
        for res in st.chunks():
            lines = res.line_indices()
            for k in np.unique(lines).tolist():
                if max_count is not None and n_lines >= max_count:
                    break
                got = matched.setdefault(k, [])
                if spans_needed:
                    got += [m.char_span for m in res[int(np.searchsorted(lines, k)):
                                                     int(np.searchsorted(lines, k, side="right"))]]
                n_lines += 1
            if quiet and matched:
                break
            if max_count is not None and n_lines >= max_count:
                break
        if quiet and matched:
            break
    if max_count is not None and len(matched) > max_count:
        matched = {k: matched[k] for k in sorted(matched)[:max_count]}
    out = sys.stdout

    def src_of(k: int) -> int:
        return int(np.searchsorted(firsts, k, side="right")) - 1

    def prefix(k: int, sep: str) -> str:
        s = sources[src_of(k)]
        num = labels[k] if labels else str(k - s["first_line"] + 1)
        return (f"{s['name']}{sep}" if with_filename else "") + (f"{num}{sep}" if line_number else "")

    per = np.bincount([src_of(k) for k in matched], minlength=len(sources)) if matched else \
        np.zeros(len(sources), dtype=np.int64)
    selected = [int(s["n_lines"] - per[i]) if invert else int(per[i]) for i, s in enumerate(sources)]
    found = bool(matched) if not invert else len(matched) < idx.n_lines
    if files_without:
        found = any(n == 0 for n in selected)
    if quiet:
        pass
    elif files or files_without:
        for i, s in enumerate(sources):
            if (selected[i] > 0) == files:
                out.write(f"{s['name']}\n")
    elif count:
        if with_filename:
            for i, s in enumerate(sources):
                out.write(f"{s['name']}:{selected[i]}\n")
        else:
            out.write(f"{sum(selected)}\n")
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
            for a_, b_ in sorted(matched[j]):
                a_ = max(a_, pos)
                parts += [text[pos:a_], hi(text[a_:b_])]
                pos = max(pos, b_)
            out.write(prefix(j, ":") + "".join(parts) + text[pos:] + "\n")
    out.flush()
    if stats:
        typer.echo(f"{len(matched)} matching lines in {(time.perf_counter() - t0) * 1000:.1f} ms", err=True)
    raise typer.Exit(0 if found else 1)


def _emit_merged(idx, streams, patterns: list[str], hi, *, line_number: bool, with_filename: bool,
                 only_matching: bool, count_matches: bool, json_out: bool, max_count: int | None,
                 stats: bool, quiet: bool, offset: int, page: int | None, t0: float) -> None:
    """Several patterns' hits merged into corpus order (a hit is a pattern at a start position; two
    patterns at one place are two hits): each line printed once with every hit highlighted, `-o` each
    hit, `--json` each hit with its pattern; --offset/--limit/-m count merged hits."""
    import heapq
    import itertools
    import json
    import time
    end = None if page is None else offset + page
    if max_count is not None:
        end = max_count if end is None else min(end, max_count)
    out = sys.stdout
    if count_matches or quiet:
        total = 0
        for st in streams:
            for res in st.chunks():
                total += res.count
                if quiet or (end is not None and total >= end):
                    break
        found = max(0, (total if end is None else min(total, end)) - offset)
        if count_matches and not quiet:
            out.write(f"{found}\n")
    else:
        def hits(i: int, st):
            for res in st.chunks():
                for a in range(0, res.count, 2048):
                    for m in res[a:a + 2048]:
                        yield m.position, i, m

        labels = _labels(idx, line_number)
        found = 0
        buf: list = []
        for _, i, m in itertools.islice(heapq.merge(*(hits(i, st) for i, st in enumerate(streams))),
                                          offset, end):
            found += 1
            if json_out:
                out.write(json.dumps({**m.to_dict(), "pattern": patterns[i]}, ensure_ascii=False) + "\n")
                continue
            if buf and len(buf) >= 2048 and (buf[-1].source, buf[-1].line) != (m.source, m.line):
                _print_lines(out, buf, hi, line_number, with_filename, only_matching, False, labels)
                buf = []
            buf.append(m)
        if buf:
            _print_lines(out, buf, hi, line_number, with_filename, only_matching, False, labels)
    out.flush()
    if stats:
        typer.echo(f"{found} hits in {(time.perf_counter() - t0) * 1000:.1f} ms", err=True)
    raise typer.Exit(0 if found > 0 else 1)


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
                or WILDCARDS.intersection(pattern_tokens(pattern, idx.tokenizer.tokenize)))


def _emit_ranked(idx, pattern: str | list[str], threshold: str | None, *, variants: bool, top_k: int,
                 score: str, max_insert: int, max_delete: int, penalty: float, offset: int, page: int | None,
                 max_count: int | None, line_number: bool, with_filename: bool, only_matching: bool,
                 count: bool, count_matches: bool, json_out: bool, kwic: bool, color: str, stats: bool,
                 quiet: bool, max_runtime: float | None = None, case_sensitive: bool = False) -> None:
    """The ranked path: `--variants` prints Rank | Count | Score | Edits | String; otherwise the hits,
    one per start position (the best variant there), in corpus order as grep prints them, paged by
    --offset/--limit (and -m). Several patterns (-e/-f): one variants table each, under `# PATTERN`."""
    import time

    from iclr25.core.errors import UserError
    from iclr25.core.options import finite
    from iclr25.softmatcha.variants import VariantConfig
    hi = _highlighter(color, max_count)
    if kwic:
        raise UserError("--kwic lists plain searches: drop --variants, --max-insert/--max-delete and "
                        "wildcards")
    if case_sensitive:
        raise UserError("-s/--case-sensitive applies to plain searches (the suffix array is case-blind): "
                        "drop --variants, --max-insert/--max-delete and wildcards")
    if isinstance(pattern, list):
        if len(pattern) == 1:
            pattern = pattern[0]
        elif not variants:
            raise UserError("with several patterns (-e/-f), edits and wildcards need --variants (one table "
                            "per pattern)")
        else:
            found_any, worst = False, 0
            for p in pattern:
                sys.stdout.write(f"# {p}\n")
                try:
                    _emit_ranked(idx, p, threshold, variants=True, top_k=top_k, score=score,
                                 max_insert=max_insert, max_delete=max_delete, penalty=penalty, offset=offset,
                                 page=page, max_count=max_count, line_number=line_number,
                                 with_filename=with_filename, only_matching=only_matching, count=count,
                                 count_matches=count_matches, json_out=json_out, kwic=False, color=color,
                                 stats=stats, quiet=quiet, max_runtime=max_runtime)
                except typer.Exit as e:
                    found_any |= e.exit_code == 0
                    worst = max(worst, 2 if e.exit_code == 2 else 0)
            raise typer.Exit(worst or (0 if found_any else 1))
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
    hidden: Hidden = False, binary: Binary = False, no_ignore: NoIgnore = False,
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
                          overwrite=force, hidden=hidden, binary=binary, ignore=not no_ignore)
    for w in caught:
        typer.echo(f"iclr25: warning: {w.message}", err=True)
    bpt = idx.bytes_per_token()
    typer.echo(f"indexed {idx.n_tokens} tokens, {idx.n_lines} lines, {idx.meta['n_types']} types "
               f"({idx.meta['n_oov_types']} without embedding) in {idx.meta['build_seconds']:.2f} s; "
               f"{bpt:.2f} B/token (+ text {idx.bytes_per_token(True) - bpt:.2f}) -> {output}", err=True)


def _read_patterns(first: str | None, regexp: list[str] | None, pattern_file: Path | None) -> list[str]:
    """The patterns of a call: the positional one, each -e, each non-blank line of -f FILE (- is
    standard input), in that order."""
    from iclr25.core.errors import UserError
    pats = ([first] if first is not None else []) + list(regexp or [])
    if pattern_file is not None:
        try:
            if str(pattern_file) == "-":
                raw = sys.stdin.buffer.read(MAX_PATTERN_FILE + 1)
            else:
                with open(pattern_file, "rb") as f:
                    raw = f.read(MAX_PATTERN_FILE + 1)
        except OSError as e:
            raise UserError(f"cannot read the pattern file {pattern_file}: {e.strerror or e}") from None
        if len(raw) > MAX_PATTERN_FILE:
            raise UserError(f"the pattern file {pattern_file} is over {MAX_PATTERN_FILE // 1_000_000} MB; "
                            "expected one pattern per line")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise UserError(f"the pattern file {pattern_file} is not UTF-8 text (one pattern per "
                            "line)") from None
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        if not lines:
            raise UserError(f"the pattern file {pattern_file} has no pattern (one per line, blank lines "
                            "skipped)")
        pats += lines
    if not pats:
        raise UserError("give a pattern: as an argument, with -e PATTERN or with -f FILE")
    if len(pats) > MAX_PATTERNS:
        raise UserError(f"{len(pats)} patterns; at most {MAX_PATTERNS} at once")
    return pats


def _case(case_sensitive: bool, ignore_case: bool) -> bool:
    from iclr25.core.errors import UserError
    if case_sensitive and ignore_case:
        raise UserError("-s/--case-sensitive and -i/--ignore-case contradict each other: give one")
    return case_sensitive


def _dispatch(idx, patterns: list[str], threshold: str | None, o: dict) -> None:
    """What `search` and `grep` share once the corpus is open: the ranked path (variants, edits,
    wildcards), the streamed plain output, or the KWIC view."""
    from iclr25.core.errors import UserError
    ctx = _context(o["context"], o["after_context"], o["before_context"])
    ranked = [p for p in patterns if _is_ranked(idx, p, o["variants"], o["max_insert"], o["max_delete"])]
    common = dict(line_number=o["line_number"], with_filename=o["with_filename"],
                  only_matching=o["only_matching"], count=o["count"], count_matches=o["count_matches"],
                  json_out=o["json_out"], max_count=o["max_count"], color=o["color"], stats=o["stats"],
                  quiet=o["quiet"], offset=o["offset"], page=o["limit"])
    if ranked:
        _plain_only(o["files_with_matches"] or o["files_without_match"], o["invert_match"], ctx)
        _emit_ranked(idx, patterns, threshold, variants=o["variants"], top_k=o["top_k"], score=o["score"],
                     max_insert=o["max_insert"], max_delete=o["max_delete"], penalty=o["penalty"],
                     kwic=o["kwic"], max_runtime=o["max_runtime"], case_sensitive=o["case_sensitive"],
                     **common)
    if not o["kwic"]:
        _emit_stream(idx, patterns, _thresholds(threshold), files=o["files_with_matches"],
                     invert=o["invert_match"], context=ctx, files_without=o["files_without_match"],
                     case_sensitive=o["case_sensitive"], **common)
    if len(patterns) > 1:
        raise UserError("--kwic takes one pattern")
    res = idx.search(patterns[0], _thresholds(threshold), warn=False, case_sensitive=o["case_sensitive"])
    _emit(res, kwic=True, sort=o["sort"], width=o["width"], variants=o["variants"], **common)


@app.command()
def search(
    index_path: Annotated[str, typer.Argument(metavar="INDEX", help="index folder, or 'kjv' (built-in)")],
    pattern: Annotated[str | None, typer.Argument(help="the pattern, e.g. 'the king of israel' (or give "
                                                       "-e/-f)")] = None,
    threshold: Threshold = None, line_number: LineNumber = False, with_filename: WithFilename = False,
    only_matching: OnlyMatching = False, count: Count = False, count_matches: CountMatches = False,
    json_out: Json = False, kwic: Kwic = False, sort: Sort = "none", width: Width = 40,
    variants: Variants = False, max_count: MaxCount = None, color: Color = "auto", stats: Stats = False,
    quiet: Quiet = False, top_k: TopK = 20, score: ScoreOpt = "min", max_insert: MaxInsert = 0,
    max_delete: MaxDelete = 0, penalty: Penalty = 0.9, offset: Offset = 0, limit: Limit = None,
    mix_punctuation: MixPunct = False, max_runtime: MaxRuntime = None, ignore_case: IgnoreCase = False,
    word_regexp: WordRegexp = False, files_with_matches: FilesWithMatches = False,
    files_without_match: FilesWithout = False,
    invert_match: InvertMatch = False, context: Context = 0, after_context: After = None,
    before_context: Before = None, regexp: Regexp = None, pattern_file: PatternFile = None,
    case_sensitive: CaseSensitive = False,
) -> None:
    """Search an index for PATTERN: every window whose tokens are each close enough to the pattern's.
    `*` or `_` in PATTERN match any one token, a token written /RE/ matches by regular expression; with
    --variants, --max-insert/--max-delete or a wildcard the answer comes from the suffix array,
    best-scoring variant first. Several patterns (-e, -f): a line matches if any does."""
    _check_ranked_options(score, penalty)
    opts = dict(locals())
    opts["case_sensitive"] = _case(case_sensitive, ignore_case)
    patterns = _read_patterns(pattern, regexp, pattern_file)
    idx = _index_for(index_path, mix_punctuation=mix_punctuation)
    try:
        _dispatch(idx, patterns, threshold, opts)
    except BrokenPipeError:
        _closed_pipe()


@app.command()
def grep(
    pattern: Annotated[str | None, typer.Argument(help="the pattern (with -e/-f, the first file)")] = None,
    files: Annotated[list[Path] | None, typer.Argument(help="files or folders to scan; - reads standard "
                                                            "input")] = None,
    threshold: Threshold = None, line_number: LineNumber = False, with_filename: WithFilename = False,
    only_matching: OnlyMatching = False, count: Count = False, count_matches: CountMatches = False,
    json_out: Json = False, kwic: Kwic = False, sort: Sort = "none", width: Width = 40,
    variants: Variants = False, max_count: MaxCount = None, color: Color = "auto", stats: Stats = False,
    quiet: Quiet = False,
    emb: Emb = DEFAULT_EMB, remove_top: RemoveTop = 0, mix_punctuation: MixPunct = False,
    tokenizer: TokenizerOpt = "glove", hidden: Hidden = False, binary: Binary = False,
    no_ignore: NoIgnore = False,
    top_k: TopK = 20, score: ScoreOpt = "min", max_insert: MaxInsert = 0, max_delete: MaxDelete = 0,
    penalty: Penalty = 0.9, offset: Offset = 0, limit: Limit = None, max_runtime: MaxRuntime = None,
    ignore_case: IgnoreCase = False, word_regexp: WordRegexp = False,
    files_with_matches: FilesWithMatches = False, files_without_match: FilesWithout = False,
    invert_match: InvertMatch = False, context: Context = 0,
    after_context: After = None, before_context: Before = None, regexp: Regexp = None,
    pattern_file: PatternFile = None, case_sensitive: CaseSensitive = False,
) -> None:
    """Soft grep without an index (scans every window; fine for files up to a few million tokens).
    Wildcards, --variants and --max-insert/--max-delete build an in-memory suffix array (see search).
    Folders are walked honouring .gitignore (--no-ignore reads everything)."""
    import warnings
    from dataclasses import replace

    from iclr25.core.errors import UserError
    from iclr25.softmatcha.scan import memory_corpus
    _check_ranked_options(score, penalty)
    opts = dict(locals())
    opts["case_sensitive"] = _case(case_sensitive, ignore_case)
    files = list(files or [])
    if regexp or pattern_file is not None:  # as grep: with -e/-f every argument is a file
        files = ([Path(pattern)] if pattern is not None else []) + files
        pattern = None
    patterns = _read_patterns(pattern, regexp, pattern_file)
    if not files:
        raise UserError("name the files or folders to search (- reads standard input)")
    if pattern_file is not None and str(pattern_file) == "-" and any(str(f) == "-" for f in files):
        raise UserError("standard input (-) can be read once: as the pattern file or as a file to search")
    thr = _thresholds(threshold)  # checked before the files are read
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        idx = memory_corpus(files, embeddings=_embeddings(emb, remove_top), tokenizer=tokenizer,
                            hidden=hidden, binary=binary, ignore=not no_ignore)
    idx.config = replace(idx.config, mix_punctuation=mix_punctuation)
    for w in idx.read_warnings:
        typer.echo(f"iclr25: warning: {w}", err=True)
    opts["with_filename"] = with_filename or len(idx.meta["sources"]) > 1
    del thr
    try:
        _dispatch(idx, patterns, threshold, opts)
    except BrokenPipeError:
        _closed_pipe()


def _node(idx, patterns: list[str], threshold: str | None, *, case_sensitive: bool, max_insert: int,
          max_delete: int, max_runtime: float | None):
    """(start positions, lengths, warnings) of every hit of the patterns (plain, or ranked for edits and
    wildcards: one hit per place, `Index.hits`), for the corpus-linguistic tables."""
    import numpy as np

    from iclr25.core.errors import UserError
    from iclr25.core.options import finite
    pos, lens, warns = [], [], []
    for p in patterns:
        if _is_ranked(idx, p, False, max_insert, max_delete):
            if case_sensitive:
                raise UserError("-s/--case-sensitive applies to plain searches: drop "
                                "--max-insert/--max-delete and wildcards")
            from iclr25.softmatcha.variants import VariantConfig
            budget = DEFAULT_RUNTIME if max_runtime is None else finite(max_runtime, "--max-runtime", 0.0,
                                                                        86_400.0, low_open=True)
            thr = _thresholds(threshold)
            warns += idx.elements(p, thr)[1]
            h = idx.hits(p, thr, VariantConfig(max_insert=max_insert, max_delete=max_delete,
                                               max_seconds=budget))
            pos.append(h.positions)
            lens.append(h.lengths)
        else:
            res = idx.search(p, _thresholds(threshold), warn=False, case_sensitive=case_sensitive)
            warns += res.warnings
            pos.append(res.positions)
            lens.append(np.full(res.count, len(res.pattern), dtype=np.int64))
    for w in dict.fromkeys(warns):
        typer.echo(f"iclr25: warning: {w}", err=True)
    return np.concatenate(pos), np.concatenate(lens)


def _write_out(path: Path, text: str, what: str) -> None:
    from iclr25.core.errors import UserError
    try:
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    except OSError as e:
        raise UserError(f"cannot write {what} to {path}: {e.strerror or e}") from None
    typer.echo(f"iclr25: wrote {what} to {path}", err=True)


MinCount = Annotated[int, count("list only words counted at least this often", 10**12, flag="--min-count")]
RowsK = Annotated[int, count("rows to list, best first", 1_000_000, flag="--top-k")]
OutCsv = Annotated[Path | None, typer.Option("--out", "-o", help="also write the rows listed as CSV")]
Punct = Annotated[bool, typer.Option("--punctuation", help="count punctuation tokens as words (off: they are "
                                                           "skipped, as AntConc's word lists do)")]


@app.command()
def collocates(
    index_path: Annotated[str, typer.Argument(metavar="INDEX", help="index folder, or 'kjv' (built-in)")],
    pattern: Annotated[str | None, typer.Argument(help="the query (or give -e/-f)")] = None,
    threshold: Threshold = None, regexp: Regexp = None, pattern_file: PatternFile = None,
    left: Annotated[int, typer.Option("--left", min=0, max=50, help="words before each hit in the span")] = 5,
    right: Annotated[int, typer.Option("--right", min=0, max=50, help="words after each hit in the "
                                                                       "span")] = 5,
    span: Annotated[int | None, typer.Option("--span", min=0, max=50, help="set --left and --right at "
                                                                          "once")] = None,
    min_count: MinCount = 2,
    by: Annotated[str, typer.Option("--by", help="sort by g2 (signed log-likelihood, default), mi, or freq "
                                                 "(the window count)")] = "g2",
    top_k: RowsK = 30, punctuation: Punct = False, case_sensitive: CaseSensitive = False,
    mix_punctuation: MixPunct = False, max_insert: MaxInsert = 0, max_delete: MaxDelete = 0,
    max_runtime: MaxRuntime = None, out: OutCsv = None,
) -> None:
    """Collocates of the query's hits, as CQPweb and AntConc list them: each word's count in the span
    (--left/--right words around every hit, within its line) against its corpus frequency, with mutual
    information (Church & Hanks 1990) and the signed log-likelihood G² (Dunning 1993). Several patterns
    (-e/-f) form one node. Exit 0 when the query has hits, 1 when none."""
    from iclr25.softmatcha.collocates import check_options, collocates, reference
    if span is not None:
        left = right = span
    check_options(left, right, min_count, by, top_k)
    patterns = _read_patterns(pattern, regexp, pattern_file)
    idx = _index_for(index_path, mix_punctuation=mix_punctuation)
    positions, lengths = _node(idx, patterns, threshold, case_sensitive=case_sensitive,
                               max_insert=max_insert, max_delete=max_delete, max_runtime=max_runtime)
    if positions.size == 0:
        typer.echo(f"iclr25: no match for {' | '.join(patterns)}: no collocates", err=True)
        raise typer.Exit(1)
    table = collocates(idx, positions, lengths, left=left, right=right, min_count=min_count, by=by,
                       top_k=top_k, punctuation=punctuation, pattern=" | ".join(patterns))
    typer.echo(table.describe(), err=True)
    try:
        sys.stdout.write("\n".join(table.format()) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        _closed_pipe()
    if not table.rows:
        typer.echo(f"iclr25: no word occurs {min_count}+ times in the span (lower --min-count or widen it)",
                   err=True)
    typer.echo(reference(), err=True)
    if out is not None:
        _write_out(out, table.to_csv(), f"{len(table.rows)} collocates (CSV)")


@app.command()
def freq(
    index_path: Annotated[str, typer.Argument(metavar="INDEX", help="index folder, or 'kjv' (built-in)")],
    ngram: Annotated[int, typer.Option("--ngram", min=1, max=8, help="n-gram length: 1 lists words, 2 "
                                                                     "bigrams, ... (within lines)")] = 1,
    min_count: MinCount = 1, top_k: RowsK = 50, punctuation: Punct = False, out: OutCsv = None,
) -> None:
    """Word or n-gram frequency list of an index (AntConc's Word List / N-Grams): rank, count, count per
    million, range (files it occurs in), most frequent first."""
    from iclr25.softmatcha.frequency import frequency_list
    idx = _index_for(index_path)
    fl = frequency_list(idx, ngram, min_count=min_count, top_k=top_k, punctuation=punctuation)
    kind = "words" if ngram == 1 else f"{ngram}-grams"
    typer.echo(f"{fl.population} {kind} counted ({fl.distinct} distinct) in {fl.n_files} file(s); "
               f"{'punctuation included' if punctuation else 'punctuation skipped'}, within lines", err=True)
    try:
        sys.stdout.write("\n".join(fl.format()) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        _closed_pipe()
    if out is not None:
        _write_out(out, fl.to_csv(), f"{len(fl.rows)} rows (CSV)")


@app.command()
def dispersion(
    index_path: Annotated[str, typer.Argument(metavar="INDEX", help="index folder, or 'kjv' (built-in)")],
    pattern: Annotated[str | None, typer.Argument(help="the query (or give -e/-f: one table each)")] = None,
    threshold: Threshold = None, regexp: Regexp = None, pattern_file: PatternFile = None,
    by: Annotated[str, typer.Option("--by", help="parts: file (default), folder (subcorpora: the files of "
                                                 "one folder together) or book (the built-in kjv)")] = "file",
    case_sensitive: CaseSensitive = False, mix_punctuation: MixPunct = False, max_insert: MaxInsert = 0,
    max_delete: MaxDelete = 0, max_runtime: MaxRuntime = None, out: OutCsv = None,
) -> None:
    """Hits per file, folder or KJV book beside each part's size, with Gries' DP (and DP_norm) and
    Juilland's D (on hits per token). Exit 0 when some pattern has hits, 1 when none."""
    from iclr25.core.errors import UserError
    from iclr25.softmatcha.dispersion import GROUPS, corpus_parts, part_sizes, to_csv
    from iclr25.softmatcha.dispersion import dispersion as disperse
    if by not in GROUPS:
        raise UserError(f"--by must be file, folder or book, got {by!r}")
    patterns = _read_patterns(pattern, regexp, pattern_file)
    idx = _index_for(index_path, mix_punctuation=mix_punctuation)
    names, of_line = corpus_parts(idx, by, _labels(idx, True) if by == "book" else None)
    parts = (names, of_line, part_sizes(idx, of_line, len(names)))
    tables = []
    for p in patterns:
        positions, _ = _node(idx, [p], threshold, case_sensitive=case_sensitive, max_insert=max_insert,
                             max_delete=max_delete, max_runtime=max_runtime)
        tables.append(disperse(idx, positions, by=by, pattern=p, parts=parts))
    try:
        for i, t in enumerate(tables):
            if len(tables) > 1:
                sys.stdout.write(("\n" if i else "") + f"# {t.pattern}\n")
            sys.stdout.write("\n".join(t.format()) + "\n" + t.summary() + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        _closed_pipe()
    if out is not None:
        _write_out(out, to_csv(tables), f"{sum(len(t.parts) for t in tables)} rows (CSV)")
    raise typer.Exit(0 if any(t.hits for t in tables) else 1)


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
