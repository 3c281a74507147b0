"""Real text for the power study: prompts are openings of held-out King James verses (Debian's
`bible-kjv`), the TinyGPT reference is trained on the other verses, and the fine-tuned alternative sees
another domain (docstrings of the Python standard library, which every Python install ships)."""

from __future__ import annotations

import ast
import sysconfig
from pathlib import Path

import numpy as np

from iclr25.core.errors import UserError

HOLDOUT_EVERY = 50  # every 50th verse is held out of training; prompts come only from those
PROMPT_WORDS = 12  # a prompt is the first 12 words of a held-out verse of at least 20 words
PROMPT_SEED = 20250407  # one fixed task: quick and full share prompts (and so their cached pools)


def _verses() -> list[str]:
    from iclr25.softmatcha.corpus import kjv_lines  # the one KJV reader (Debian's `bible` program)
    return [v for _, v in kjv_lines()]


def training_verses(limit: int | None = None) -> list[str]:
    """KJV verses not held out for prompts (the first `limit` of them)."""
    kept = [v for i, v in enumerate(_verses()) if i % HOLDOUT_EVERY != HOLDOUT_EVERY - 1]
    return kept[:limit] if limit else kept


def prompts(m: int) -> list[str]:
    """The task's m prompts: openings of held-out verses, in a fixed random order (the first m of it)."""
    held = [v for i, v in enumerate(_verses()) if i % HOLDOUT_EVERY == HOLDOUT_EVERY - 1
            and len(v.split()) >= 20]
    order = np.random.default_rng(PROMPT_SEED).permutation(len(held))
    if m > len(held):
        raise UserError(f"only {len(held)} held-out verses: at most {len(held)} prompts, got {m}")
    return [" ".join(held[i].split()[:PROMPT_WORDS]) for i in order[:m]]


def stdlib_docstrings(max_chars: int) -> list[str]:
    """Docstrings (>= 40 chars) of the standard library's top-level modules in file order, until
    max_chars: the fine-tuning domain (technical English, far from the KJV)."""
    root = Path(sysconfig.get_paths()["stdlib"])
    out, total = [], 0
    for path in sorted(p for p in root.glob("*.py") if not p.name.startswith(("test", "_"))):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                doc = ast.get_docstring(node)
                if doc and len(doc) >= 40:
                    out.append(doc)
                    total += len(doc)
        if total >= max_chars:
            break
    return out
