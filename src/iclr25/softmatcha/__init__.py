"""SoftMatcha (ICLR 2025, paper 11): soft pattern matching over large corpora. A pattern token matches
any corpus word whose embedding is cosine-close to it; all matches are enumerated, as fast as grep.

>>> from iclr25.softmatcha import Index                      # doctest: +SKIP
>>> idx = Index.from_files(["corpus.txt"], "corpus.smidx")   # GloVe 6B 50-d by default
>>> for m in idx.search("the king of israel", threshold=0.8)[:3]:
...     print(m.line, m.matched_text, m.scores)
"""

from iclr25.core.registry import make_paper
from iclr25.softmatcha.build import BuildConfig
from iclr25.softmatcha.corpus import kjv_lines, kjv_path, zipf_corpus
from iclr25.softmatcha.embeddings import DEFAULT_EMBEDDINGS, Embeddings, load_embeddings
from iclr25.softmatcha.experiments import CLAIMS, run
from iclr25.softmatcha.index import Index, SearchConfig, SoftIndex
from iclr25.softmatcha.results import Match, SearchResult, Variant
from iclr25.softmatcha.scan import soft_grep
from iclr25.softmatcha.tokenize import MosesTokenizer, WordTokenizer, get_tokenizer

PAPER = make_paper("softmatcha", CLAIMS, run)

__all__ = [
    "DEFAULT_EMBEDDINGS", "PAPER", "BuildConfig", "Embeddings", "Index", "Match", "MosesTokenizer",
    "SearchConfig", "SearchResult", "SoftIndex", "Variant", "WordTokenizer", "get_tokenizer", "kjv_lines",
    "kjv_path", "load_embeddings", "soft_grep", "zipf_corpus",
]
