"""Corpora: the default real text (the King James Bible from Debian's `bible-kjv` packages, public
domain, one verse per line) and synthetic Zipf token streams over an embedding vocabulary."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np

from iclr25.core.errors import UserError

_REF = re.compile(r"^(\S+?\d+:\d+) (.*)$")
KJV_SETUP = "apt-get install bible-kjv bible-kjv-text"


def kjv_lines() -> list[tuple[str, str]]:
    """(reference, verse text) for all 31,102 verses, read with Debian's `bible` program."""
    exe = shutil.which("bible")
    if exe is None:
        raise UserError(f"the default corpus (King James Bible) is not installed: {KJV_SETUP}")
    try:
        out = subprocess.run([exe, "-f", "gen1:1-rev22:21"], capture_output=True, check=True,
                             timeout=60).stdout.decode("utf-8", errors="replace")
    except (subprocess.SubprocessError, OSError) as e:
        raise UserError(f"could not read the KJV with {exe}: {e}; try: {KJV_SETUP}") from None
    verses = []
    for line in out.splitlines():
        m = _REF.match(line)
        if m:
            verses.append((m.group(1), m.group(2)))
    if len(verses) < 30_000:
        raise UserError(f"the KJV from {exe} has only {len(verses)} verses; reinstall: {KJV_SETUP}")
    return verses


def kjv_path() -> Path:
    """The KJV as a plain text file (one verse per line, no references), cached once."""
    from iclr25.core.runtime import atomic_write, cache_dir
    p = cache_dir() / "softmatcha" / "corpora" / "kjv.txt"
    if not p.is_file():
        text = "\n".join(v for _, v in kjv_lines()) + "\n"
        with atomic_write(p, "w") as f:
            f.write(text)
    return p


def kjv_refs() -> list[str]:
    """Each line's book chapter:verse (`Ge1:1`, as Debian's `bible` prints it), in the order of
    `kjv_path()`, cached beside it."""
    from iclr25.core.runtime import atomic_write, cache_dir
    p = cache_dir() / "softmatcha" / "corpora" / "kjv.refs"
    if not p.is_file():
        with atomic_write(p, "w") as f:
            f.write("\n".join(r for r, _ in kjv_lines()) + "\n")
    return p.read_text(encoding="utf-8").split("\n")[:-1]


def zipf_probabilities(n_words: int, s: float = 1.0) -> np.ndarray:
    """P(rank r) proportional to 1 / r^s over ranks 1..n_words (spec: Zipf(1.0))."""
    p = 1.0 / np.arange(1, n_words + 1, dtype=np.float64) ** s
    return p / p.sum()


def zipf_corpus(n_tokens: int, n_words: int, rng: np.random.Generator, s: float = 1.0,
                mean_line: int = 25) -> tuple[np.ndarray, np.ndarray]:
    """(word ids in [0, n_words), line lengths): i.i.d. Zipf tokens, line lengths 1 + Poisson.

    Word id = frequency rank, which for GloVe matches its row order (rows are sorted by frequency)."""
    if n_tokens <= 0 or n_words <= 0:
        raise UserError("n_tokens and n_words must be positive")
    cdf = np.cumsum(zipf_probabilities(n_words, s))
    ids = np.empty(n_tokens, dtype=np.uint32)
    step = 1 << 22
    for a in range(0, n_tokens, step):
        u = rng.random(min(step, n_tokens - a))
        ids[a:a + u.size] = np.minimum(np.searchsorted(cdf, u, side="right"), n_words - 1)
    lens = 1 + rng.poisson(mean_line - 1, size=int(n_tokens / mean_line * 1.1) + 100)
    cum = np.cumsum(lens)
    k = int(np.searchsorted(cum, n_tokens))
    lens = lens[:k + 1].copy()
    lens[-1] -= int(cum[k] - n_tokens)
    lens = lens[lens > 0]
    return ids, lens.astype(np.int64)
