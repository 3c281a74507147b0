"""Which optional packages each paper needs (its extra, `pip install "iclr25[<slug>]"`), read from the
installed package's own metadata, and which of them are missing here."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import metadata

# "name[extras] >=1; extra == 'softmatcha'" -> name, extras, extra
_REQ = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[([^\]]*)\])?[^;]*;"  # name[extras] spec;
                  r"""\s*extra\s*==\s*["']([^"']+)["']""")  # extra == "slug"


@lru_cache(maxsize=1)
def _requirements() -> dict[str, list[tuple[str, list[str]]]]:
    """extra -> [(distribution, its extras)] from iclr25's Requires-Dist lines."""
    out: dict[str, list[tuple[str, list[str]]]] = {}
    try:
        lines = metadata.requires("iclr25") or []
    except metadata.PackageNotFoundError:
        return out
    for line in lines:
        m = _REQ.match(line)
        if m:
            name, extras, extra = m.groups()
            names = [e.strip() for e in (extras or "").split(",") if e.strip()]
            out.setdefault(_norm(extra), []).append((name, names))
    return out


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def distributions(extra: str) -> set[str]:
    """Every distribution an extra installs, its iclr25[...] references expanded."""
    reqs, seen, out = _requirements(), set(), set()
    todo = [_norm(extra)]
    while todo:
        e = todo.pop()
        if e in seen:
            continue
        seen.add(e)
        for name, extras in reqs.get(e, []):
            if _norm(name) == "iclr25":
                todo += [_norm(x) for x in extras]
            else:
                out.add(name)
    return out


def missing(slug: str) -> list[str]:
    """The distributions of this paper's extra that are not installed here (empty: ready to use)."""
    gone = []
    for name in sorted(distributions(slug)):
        try:
            metadata.version(name)
        except metadata.PackageNotFoundError:
            gone.append(name)
    return gone


# modules that only some uses of a paper need: the extra that brings each
OPTIONAL = {"tokengrams": "softmatcha-scale", "gensim": "softmatcha-latin", "fugashi": "softmatcha-ja",
            "unidic_lite": "softmatcha-ja", "ray": "ray",
            **dict.fromkeys(("transformers", "sentence_transformers", "econml", "torch_geometric", "captum"),
                            "bench")}


def install_hint(slug: str) -> str:
    return f"pip install 'iclr25[{slug}]'"


def missing_message(slug: str, err: ImportError) -> str:
    """One line for a paper whose optional packages are not installed."""
    module = (err.name or "").split(".")[0]
    what = f"the package providing '{module}'" if module else "an optional package"
    return f"{slug} needs {what}, which is not installed: {install_hint(OPTIONAL.get(module, slug))}"
