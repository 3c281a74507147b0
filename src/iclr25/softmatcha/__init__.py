"""SoftMatcha (ICLR 2025, paper 11): soft pattern matching over large corpora. A pattern token matches
any corpus word whose embedding is cosine-close to it; all matches are enumerated, as fast as grep.

>>> import pathlib, tempfile
>>> from iclr25.softmatcha import Index
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "corpus.txt").write_text("And the king of Israel said\\nthe king of Syria came\\n")
>>> idx = Index.from_files([d / "corpus.txt"], d / "corpus.smidx")   # GloVe 6B 50-d by default
>>> [(m.line, m.matched_text) for m in idx.search("the king of israel", threshold=0.8)]
[(1, 'the king of Israel'), (2, 'the king of Syria')]

Names are imported on first use (PEP 562), so `iclr25 softmatcha search` loads only the search path.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "BuildConfig": "build",
    "kjv_lines": "corpus", "kjv_path": "corpus", "zipf_corpus": "corpus",
    "DEFAULT_EMBEDDINGS": "embeddings", "Embeddings": "embeddings", "load_embeddings": "embeddings",
    "CLAIMS": "experiments", "run": "experiments",
    "Index": "index", "SearchConfig": "index", "SoftIndex": "index",
    "Match": "results", "SearchResult": "results", "Variant": "results",
    "soft_grep": "scan",
    "ShardedIndex": "sharded",
    "MosesTokenizer": "tokenize", "WordTokenizer": "tokenize", "get_tokenizer": "tokenize",
}

__all__ = [
    "CLAIMS", "DEFAULT_EMBEDDINGS", "PAPER", "BuildConfig", "Embeddings", "Index", "Match", "MosesTokenizer",
    "SearchConfig", "SearchResult", "ShardedIndex", "SoftIndex", "Variant", "WordTokenizer", "get_tokenizer",
    "kjv_lines", "kjv_path", "load_embeddings", "run", "soft_grep", "zipf_corpus",
]

if TYPE_CHECKING:
    from iclr25.core.paper import Paper
    from iclr25.softmatcha.build import BuildConfig
    from iclr25.softmatcha.corpus import kjv_lines, kjv_path, zipf_corpus
    from iclr25.softmatcha.embeddings import DEFAULT_EMBEDDINGS, Embeddings, load_embeddings
    from iclr25.softmatcha.experiments import CLAIMS, run
    from iclr25.softmatcha.index import Index, SearchConfig, SoftIndex
    from iclr25.softmatcha.results import Match, SearchResult, Variant
    from iclr25.softmatcha.scan import soft_grep
    from iclr25.softmatcha.sharded import ShardedIndex
    from iclr25.softmatcha.tokenize import MosesTokenizer, WordTokenizer, get_tokenizer

    PAPER: Paper


def __getattr__(name: str) -> Any:
    if name == "PAPER":
        from iclr25.core.registry import make_paper
        from iclr25.softmatcha.experiments import CLAIMS, run
        value = make_paper("softmatcha", CLAIMS, run)
    elif name in _EXPORTS:
        value = getattr(importlib.import_module(f"iclr25.softmatcha.{_EXPORTS[name]}"), name)
    else:
        raise AttributeError(f"module 'iclr25.softmatcha' has no attribute {name!r}")
    globals()[name] = value  # later look-ups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
