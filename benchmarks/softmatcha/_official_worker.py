"""Runs inside the peers venv (.venv-peers-softmatcha) with the official `softmatcha` 0.1.0 package:
times its in-process search (pattern embedding + `_find`) per query and prints JSON on stdout.

usage: python _official_worker.py INDEX THRESHOLD REPEATS QUERY...   (GENSIM_DATA_DIR must be set)"""

from __future__ import annotations

import json
import sys
import time

import numpy as np
from softmatcha.embeddings import get_embedding
from softmatcha.search import SearchIndexInvertedFile
from softmatcha.struct import Pattern
from softmatcha.struct.index_inverted import IndexInvertedFileCollection
from softmatcha.tokenizers import get_tokenizer

MODEL = "glove-wiki-gigaword-50"


def main() -> None:
    index, threshold, repeats, queries = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
    emb_cls, tok_cls = get_embedding("gensim"), get_tokenizer("gensim")
    emb = emb_cls.build(emb_cls.Config(MODEL))
    tok = tok_cls.build(tok_cls.Config(MODEL))
    coll = IndexInvertedFileCollection.load(index, mmap=False)
    searcher = SearchIndexInvertedFile(coll.indexes[0], tok, emb)
    searcher._find(Pattern.build(tok("warm up"), emb(tok("warm up")), [threshold] * 2))  # numba JIT
    out = {"n_tokens": int(len(coll.indexes[0].tokens)), "queries": []}
    for q in queries:
        times, hits = [], 0
        for _ in range(repeats):
            t0 = time.perf_counter()
            toks = tok(q)
            pattern = Pattern.build(toks, emb(toks), [threshold] * len(toks))
            positions, _ = searcher._find(pattern)
            times.append(time.perf_counter() - t0)
            hits = len(positions)
        out["queries"].append({"query": q, "seconds": float(np.median(times)), "hits": hits})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
