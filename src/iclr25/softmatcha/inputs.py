"""Which input files a build or a soft grep reads, and their lines, as grep/ripgrep users expect:

- `-` is standard input; any readable non-folder path is read (FIFOs, so `<(cmd)` works);
- folders are walked recursively, skipping hidden files and folders (`.git/...`) unless `hidden`, and what
  .gitignore files exclude (`gitignore.py`) unless `ignore` is False;
- a file ending in `.gz` is decompressed (gzip), as `zgrep` and `rg -z` read it;
- a file with a NUL byte in its first 8 KiB is binary and is skipped (one warning each) unless `binary`;
- invalid UTF-8 is replaced by U+FFFD and counted."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from iclr25.core.errors import UserError

STDIN = "-"
BINARY_PROBE = 8192  # bytes inspected for a NUL, as ripgrep does


@dataclass
class ReadStats:
    """What reading the inputs found: lines with invalid UTF-8, binary files skipped."""

    invalid_utf8_lines: int = 0
    binary_files: list[str] = field(default_factory=list)

    def warnings(self) -> list[str]:
        out = [f"{name}: binary file skipped (use --binary to read it)" for name in self.binary_files]
        if self.invalid_utf8_lines:
            out.append(f"{self.invalid_utf8_lines} line(s) had invalid UTF-8 (replaced by U+FFFD)")
        return out


def expand_files(files: Sequence[str | os.PathLike] | str | os.PathLike, hidden: bool = False,
                 ignore: bool = True) -> list[Path]:
    """The files to read, in order: each argument, or the files under it (sorted) if it is a folder.
    Folder walks skip what .gitignore files say (`gitignore.py`) unless `ignore` is False."""
    if isinstance(files, str | os.PathLike):
        files = [files]
    out: list[Path] = []
    for f in files:
        p = Path(f)
        if str(f) == STDIN:
            out.append(Path(STDIN))
        elif p.is_dir():
            from iclr25.softmatcha.gitignore import walk
            out += walk(p, hidden=hidden, ignore=ignore)
        elif p.exists():
            out.append(p)
        else:
            raise UserError(f"no such file: {p}")
    if not out:
        raise UserError("no input files" + ("" if hidden else " (hidden files are skipped; use --hidden)")
                        + (" (.gitignore'd files are skipped; use --no-ignore)" if ignore else ""))
    if sum(str(p) == STDIN for p in out) > 1:
        raise UserError("standard input (-) can be read only once")
    return out


def _decode(raw: bytes, stats: ReadStats) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        stats.invalid_utf8_lines += 1
        return raw.decode("utf-8", errors="replace")


def _lines(f: BinaryIO, name: str, stats: ReadStats, binary: bool) -> Iterator[str]:
    head = f.read(BINARY_PROBE)
    if not binary and b"\0" in head:
        stats.binary_files.append(name)
        return
    pending = head + (f.readline() if head and not head.endswith(b"\n") else b"")
    parts = pending.split(b"\n")
    last = parts.pop()  # b"" when `pending` ends a line; the unterminated last line at EOF otherwise
    for raw in parts:
        yield _decode(raw.rstrip(b"\r"), stats)
    if last:
        yield _decode(last.rstrip(b"\r"), stats)
    for raw in f:
        yield _decode(raw.rstrip(b"\r\n"), stats)


def read_lines(path: Path, stats: ReadStats, binary: bool = False) -> Iterator[str]:
    """Lines of `path` (or of standard input for `-`) without their end-of-line."""
    if str(path) == STDIN:
        yield from _lines(sys.stdin.buffer, "(standard input)", stats, binary)
        return
    try:
        f = open(path, "rb")  # noqa: SIM115 (closed below; a generator cannot use `with` across yields safely)
    except OSError as e:
        raise UserError(f"cannot read {path}: {e.strerror or e}") from None
    with f:
        if str(path).endswith(".gz"):
            import gzip
            import zlib
            try:
                with gzip.open(f) as g:
                    yield from _lines(g, str(path), stats, binary)  # type: ignore[arg-type]
            except (OSError, EOFError, zlib.error) as e:
                raise UserError(f"cannot read {path}: not a complete gzip file ({e})") from None
            return
        yield from _lines(f, str(path), stats, binary)
