"""SoftMatcha (ICLR 2025, paper 11): soft pattern matching over large corpora. A pattern token matches
any corpus word whose embedding is cosine-close to it; all matches are enumerated, as fast as grep.

>>> import pathlib, tempfile
>>> from iclr25.softmatcha import Index
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "corpus.txt").write_text("And the king of Israel said\\nthe king of Syria came\\n")
>>> idx = Index.from_files([d / "corpus.txt"], d / "corpus.smidx")   # GloVe 6B 50-d (post-processed)
>>> [(m.line, m.matched_text) for m in idx.search("the king of israel", threshold=0.8)]
[(1, 'the king of Israel'), (2, 'the king of Syria')]

Names are imported on first use (PEP 562), so `iclr25 softmatcha search` loads only the search path.
"""

from iclr25.core.lazy import lazy_package

__getattr__, __dir__, __all__ = lazy_package(__name__, {
    "build": ["BuildConfig"],
    "claims": ["CLAIMS"],
    "corpus": ["kjv_lines", "kjv_path", "zipf_corpus"],
    "embeddings": ["DEFAULT_EMBEDDINGS", "Embeddings", "all_but_the_top", "load_embeddings"],
    "experiments": ["run"],
    "index": ["Index", "SearchConfig", "SoftIndex"],
    "results": ["Match", "SearchResult", "Variant"],
    "scan": ["soft_grep"],
    "sharded": ["ShardedIndex"],
    "tokenize": ["MosesTokenizer", "WordTokenizer", "get_tokenizer"],
})
