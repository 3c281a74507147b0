"""`iclr25 softmatcha index|search|grep|info`: a grep-compatible soft pattern matcher.

Exit codes as grep: 0 found, 1 not found, 2 error. Start-up stays lean: numpy and the engine are
imported inside the commands, the embeddings are memory-mapped from the cache."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

# One BLAS thread (the project convention): a multi-threaded gemv over ~1e4-1e5 types gains nothing and,
# on a busy machine, waiting for a second thread cost 20-30 ms per query here. Set before numpy loads.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, os.environ.get("ICLR25_THREADS", "1"))

if TYPE_CHECKING:
    from iclr25.softmatcha.results import SearchResult

app = typer.Typer(help="SoftMatcha: soft (embedding-aware) grep over corpora.", no_args_is_help=True,
                  add_completion=False, pretty_exceptions_enable=False)

KJV = "kjv"  # names the built-in default corpus (King James Bible, Debian bible-kjv)
MAX_WIDTH = 10_000

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
Variants = Annotated[bool, typer.Option("--variants", help="table of distinct matched strings")]
MaxCount = Annotated[int | None, typer.Option("--max-count", "-m", help="stop after this many matches")]
Color = Annotated[str, typer.Option("--color", help="auto, always or never")]
Stats = Annotated[bool, typer.Option("--stats", help="print hits and search time to stderr")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="print nothing; the exit code says if found")]
Hidden = Annotated[bool, typer.Option("--hidden", help="also read hidden files and folders (.git/...) when "
                                                       "walking folders")]
Binary = Annotated[bool, typer.Option("--binary", help="also read binary files (NUL bytes); skipped with a "
                                                       "warning by default")]
TokenizerOpt = Annotated[str, typer.Option("--tokenizer", help="glove (default: GloVe-compatible, king's -> "
                                                               "king 's), moses or word")]


def _thresholds(raw: str | None) -> float | list[float] | None:
    from iclr25.core.errors import UserError
    if raw is None:
        return None
    try:
        vals = [float(x) for x in raw.split(",")]
    except ValueError:
        raise UserError(f"threshold must be a number or a comma-separated list, got {raw!r}") from None
    return vals[0] if len(vals) == 1 else vals


def _index_for(path: str, verify: str = "auto"):
    """The index a command names. One query per process: no neighbour lists are kept (see SearchConfig)."""
    from iclr25.softmatcha.index import Index, SearchConfig
    if path == KJV and not Path(path).exists():
        from iclr25.softmatcha.demo import kjv_index
        idx = kjv_index(verify=verify)
    else:
        idx = Index.load(path, verify=verify)
    idx.config = SearchConfig(list_cache=0)
    return idx


def _emit(res: SearchResult, *, line_number: bool, with_filename: bool, only_matching: bool, count: bool,
          count_matches: bool, json_out: bool, kwic: bool, sort: str, width: int, variants: bool,
          max_count: int | None, color: str, stats: bool, quiet: bool = False) -> None:
    from iclr25.core.errors import UserError
    if color not in ("auto", "always", "never"):
        raise UserError(f"--color must be auto, always or never, got {color!r}")
    if max_count is not None and max_count < 0:
        raise UserError(f"--max-count must be >= 0, got {max_count}")
    for w in res.warnings:
        typer.echo(f"iclr25: warning: {w}", err=True)
    use_color = color == "always" or (color == "auto" and sys.stdout.isatty())
    hi = (lambda s: f"\x1b[1;31m{s}\x1b[0m") if use_color else (lambda s: s)
    limit = res.count if max_count is None else min(max_count, res.count)
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
    elif variants:
        rows = res.variants()
        out.write(f"{'rank':>4}  {'count':>7}  {'min':>5}  {'mean':>5}  string\n")
        for i, v in enumerate(rows, 1):
            out.write(f"{i:>4}  {v.count:>7}  {v.min_score:5.3f}  {v.mean_score:5.3f}  {v.string}\n")
    elif kwic:
        for line in res.kwic(width=width, sort=sort, limit=limit):
            out.write(line + "\n")
    elif json_out:
        import json
        for m in res[:limit]:
            out.write(json.dumps(m.to_dict(), ensure_ascii=False) + "\n")
    else:
        ms = res[:limit]
        i = 0
        while i < len(ms):
            m = ms[i]
            prefix = (f"{m.source}:" if with_filename else "") + (f"{m.line}:" if line_number else "")
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
    out.flush()
    if stats:
        typer.echo(f"{res.count} hits in {res.seconds * 1000:.1f} ms", err=True)
    raise typer.Exit(0 if limit > 0 else 1)


@app.command()
def index(
    files: Annotated[list[Path], typer.Argument(help="text files or folders (one document line per line); "
                                                     "- reads standard input")],
    output: Annotated[Path, typer.Option("--output", "-o", help="index folder to write")],
    emb: Annotated[str, typer.Option("--emb", help="glove-6b-50d, minilm-l6-input or a word2vec text file")
                   ] = "glove-6b-50d",
    tokenizer: TokenizerOpt = "glove",
    force: Annotated[bool, typer.Option("--force", "-f", help="replace an existing index")] = False,
    hidden: Hidden = False, binary: Binary = False,
) -> None:
    """Build an index folder from FILES (atomic: an interrupted build leaves nothing that loads)."""
    import warnings

    from iclr25.softmatcha.index import Index
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        idx = Index.build(output, files=files, embeddings=emb, tokenizer=tokenizer, overwrite=force,
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
    quiet: Quiet = False,
) -> None:
    """Search an index for PATTERN: every window whose tokens are each close enough to the pattern's."""
    idx = _index_for(index_path)
    res = idx.search(pattern, _thresholds(threshold), warn=False)
    _emit(res, line_number=line_number, with_filename=with_filename, only_matching=only_matching,
          count=count, count_matches=count_matches, json_out=json_out, kwic=kwic, sort=sort, width=width,
          variants=variants, max_count=max_count, color=color, stats=stats, quiet=quiet)


@app.command()
def grep(
    pattern: Annotated[str, typer.Argument(help="the pattern")],
    files: Annotated[list[Path], typer.Argument(help="files or folders to scan; - reads standard input")],
    threshold: Threshold = None, line_number: LineNumber = False, with_filename: WithFilename = False,
    only_matching: OnlyMatching = False, count: Count = False, count_matches: CountMatches = False,
    json_out: Json = False, kwic: Kwic = False, sort: Sort = "none", width: Width = 40,
    variants: Variants = False, max_count: MaxCount = None, color: Color = "auto", stats: Stats = False,
    quiet: Quiet = False,
    emb: Annotated[str, typer.Option("--emb", help="embeddings name or word2vec text file")] = "glove-6b-50d",
    tokenizer: TokenizerOpt = "glove", hidden: Hidden = False, binary: Binary = False,
) -> None:
    """Soft grep without an index (scans every window; fine for files up to a few million tokens)."""
    import warnings

    from iclr25.softmatcha.scan import soft_grep
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = soft_grep(pattern, files=files, embeddings=emb, threshold=_thresholds(threshold),
                        tokenizer=tokenizer, hidden=hidden, binary=binary)
    for w in res.index.read_warnings:
        typer.echo(f"iclr25: warning: {w}", err=True)
    _emit(res, line_number=line_number, with_filename=with_filename or len(res.index.meta["sources"]) > 1,
          only_matching=only_matching, count=count, count_matches=count_matches, json_out=json_out,
          kwic=kwic, sort=sort, width=width, variants=variants, max_count=max_count, color=color, stats=stats,
          quiet=quiet)


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
