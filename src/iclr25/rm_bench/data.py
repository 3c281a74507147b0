"""RM-Bench items: one prompt, three chosen and three rejected responses in the styles concise (y^∅),
detailed plain text (y^L) and detailed markdown (y^{L,M}). Read from the per-domain files
(`chat_filtered.json`, ...) or the combined `total_dataset.json`, with SHA256SUMS checked when present."""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from iclr25.core.errors import UserError

STYLES = ("concise", "plain", "markdown")  # index 0, 1, 2 of `chosen` / `rejected`
DOMAIN_FILES = {"chat": "chat_filtered.json", "code": "code_filtered.json", "math": "math_filtered.json",
                "safety-refuse": "safety-refuse_filtered.json",
                "safety-response": "safety-response_filtered.json"}
TOTAL_FILE = "total_dataset.json"
DOMAINS = tuple(DOMAIN_FILES)
MAX_FILE_BYTES = 256 << 20


@dataclass(frozen=True)
class Item:
    """One RM-Bench item. `chosen[k]` is better in substance than `rejected[k]` for every style k."""

    id: str
    domain: str  # chat | code | math | safety-refuse | safety-response
    prompt: str
    chosen: tuple[str, str, str]
    rejected: tuple[str, str, str]

    @property
    def group(self) -> str:
        """The domain a score is reported under: both safety files pool into "safety" (paper README)."""
        return pooled_domain(self.domain)


def pooled_domain(domain: str) -> str:
    return "safety" if domain.startswith("safety") else domain


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            h.update(chunk)
    return h.hexdigest()


def _read_sums(folder: Path) -> dict[str, str]:
    sums = folder / "SHA256SUMS"
    if not sums.is_file():
        return {}
    out = {}
    for line in sums.read_text(encoding="utf-8", errors="replace").splitlines():
        parts = line.split()
        if len(parts) == 2 and len(parts[0]) == 64:
            out[parts[1].lstrip("*")] = parts[0].lower()
    return out


def _check_sum(path: Path, sums: dict[str, str]) -> None:
    want = sums.get(path.name)
    if want is not None and _sha256(path) != want:
        raise UserError(f"checksum mismatch for {path} (SHA256SUMS says {want[:12]}...); the file is damaged "
                        "or was edited")


def _text(v: object, where: str) -> str:
    if not isinstance(v, str):
        raise UserError(f"{where} must be a string, got {type(v).__name__}")
    return v


def _styles(v: object, where: str) -> tuple[str, str, str]:
    if not isinstance(v, list) or len(v) != 3:
        n = len(v) if isinstance(v, list) else type(v).__name__
        raise UserError(f"{where} must list 3 styles (concise, plain, markdown), got {n}")
    a, b, c = (_text(x, f"{where}[{k}]") for k, x in enumerate(v))
    return a, b, c


def parse_items(rows: object, domain: str | None, source: str) -> list[Item]:
    """Items from the parsed JSON list `rows`; `domain` None reads each row's "domain" key."""
    if not isinstance(rows, list):
        raise UserError(f"{source}: expected a JSON list of items, got {type(rows).__name__}")
    items = []
    for i, r in enumerate(rows):
        where = f"{source} item {i}"
        if not isinstance(r, dict):
            raise UserError(f"{where} is not an object")
        missing = [k for k in ("id", "prompt", "chosen", "rejected") if k not in r]
        if domain is None and "domain" not in r:
            missing.append("domain")
        if missing:
            raise UserError(f"{where} lacks {', '.join(missing)}")
        rid = r["id"]
        if isinstance(rid, bool) or not isinstance(rid, int | str) or (isinstance(rid, float)
                                                                       and not math.isfinite(rid)):
            raise UserError(f"{where}: id must be a string or an integer, got {rid!r}"[:200])
        dom = domain if domain is not None else _text(r["domain"], f"{where} domain")
        if dom not in DOMAIN_FILES:
            raise UserError(f"{where}: unknown domain {dom!r}; known: {', '.join(DOMAINS)}"[:200])
        items.append(Item(str(rid), dom, _text(r["prompt"], f"{where} prompt"),
                          _styles(r["chosen"], f"{where} chosen"),
                          _styles(r["rejected"], f"{where} rejected")))
    return items


def _check_domains(domains: Sequence[str] | None) -> list[str] | None:
    if domains is None:
        return None
    if isinstance(domains, str):
        domains = [d for d in domains.split(",") if d.strip()]
    out = []
    for d in domains:
        d = d.strip()
        if d == "safety":
            out += ["safety-refuse", "safety-response"]
        elif d in DOMAIN_FILES:
            out.append(d)
        else:
            raise UserError(f"unknown domain {d!r}; choose from {', '.join(DOMAINS)} or safety"[:200])
    if not out:
        raise UserError("no domains given")
    return list(dict.fromkeys(out))


def load_rmbench(path_or_dir: str | os.PathLike, domains: Sequence[str] | str | None = None) -> list[Item]:
    """RM-Bench items from a folder of per-domain files (any subset of them), a folder or path holding
    `total_dataset.json`, or one per-domain file. `domains` (e.g. ["chat", "safety"]; "safety" means
    both safety files) keeps only those; None keeps every domain found. Files listed in a SHA256SUMS
    beside them are checked. Ids must be unique within a domain.

    >>> from iclr25.core.data import shared_data
    >>> d = shared_data("03-rm-bench")
    >>> d is None or len(load_rmbench(d, ["chat"])) == 129
    True
    """
    from iclr25.core.io import read_json
    path = Path(path_or_dir)
    wanted = _check_domains(domains)
    if not path.exists():
        raise UserError(f"RM-Bench data not found: {path}")
    if path.is_dir():
        folder = path
        files = [(folder / f, d) for d, f in DOMAIN_FILES.items() if (folder / f).is_file()]
        if not files and (folder / TOTAL_FILE).is_file():
            files = [(folder / TOTAL_FILE, None)]
        if not files:
            raise UserError(f"{folder} holds no RM-Bench files ({', '.join(DOMAIN_FILES.values())} or "
                            f"{TOTAL_FILE})")
    else:
        folder = path.parent
        dom = next((d for d, f in DOMAIN_FILES.items() if f == path.name), None)
        files = [(path, dom)]
    sums = _read_sums(folder)
    items: list[Item] = []
    for f, dom in files:
        if wanted is not None and dom is not None and dom not in wanted:
            continue
        if f.stat().st_size > MAX_FILE_BYTES:
            raise UserError(f"{f} is larger than {MAX_FILE_BYTES >> 20} MiB")
        _check_sum(f, sums)
        items += parse_items(read_json(f, "RM-Bench", MAX_FILE_BYTES), dom, str(f))
    if wanted is not None:
        found = {it.domain for it in items}
        absent = [d for d in wanted if d not in found]
        if absent:
            raise UserError(f"no items for domain {absent[0]!r} in {path}")
        items = [it for it in items if it.domain in wanted]
    if not items:
        raise UserError(f"no RM-Bench items in {path}")
    check_unique(items)
    return items


def check_unique(items: Sequence[Item]) -> None:
    seen: set[tuple[str, str]] = set()
    for it in items:
        if (it.domain, it.id) in seen:
            raise UserError(f"duplicate id {it.id!r} in domain {it.domain!r}"[:200])
        seen.add((it.domain, it.id))
