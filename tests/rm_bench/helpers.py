"""Tiny RM-Bench folders in the paper's file format (checksummed), for the tests."""

from __future__ import annotations

import hashlib
import json

from iclr25.rm_bench.data import DOMAIN_FILES


def make_items(n: int, domain: str, start: int = 0) -> list[dict]:
    """Items whose chosen answers say "correct" and rejected say "wrong"; plain and markdown answers are
    longer than concise ones, the markdown ones carry list marks."""
    out = []
    for i in range(start, start + n):
        topic = f"topic{i}"
        good, bad = f"the correct fact about {topic}", f"the wrong fact about {topic}"
        out.append({"id": i, "prompt": f"Tell me about {topic}?",
                    "chosen": [good, f"In detail: {good}. First, context. Second, more.",
                               f"In detail:\n\n1. **{good}**\n2. context\n- more"],
                    "rejected": [bad, f"In detail: {bad}. First, context. Second, more.",
                                 f"In detail:\n\n1. **{bad}**\n2. context\n- more"],
                    "subset": domain})
    return out


def write_folder(d, files: dict[str, list[dict]], sums: bool = True):
    lines = []
    for domain, rows in files.items():
        name = DOMAIN_FILES[domain]
        (d / name).write_text(json.dumps(rows), encoding="utf-8")
        lines.append(f"{hashlib.sha256((d / name).read_bytes()).hexdigest()}  {name}")
    if sums:
        (d / "SHA256SUMS").write_text("\n".join(lines) + "\n")
    return d
