"""The built-in demo corpus: the King James Bible, indexed once into the cache folder."""

from __future__ import annotations

from iclr25.softmatcha.index import Index


def kjv_index(embeddings: str = "glove-6b-50d", tokenizer: str = "glove", verify: str = "auto") -> Index:
    """The KJV (Debian `bible-kjv`) indexed with GloVe 6B 50-d; built on first use (~2 s), then loaded."""
    from iclr25.core.runtime import cache_dir
    from iclr25.softmatcha.corpus import kjv_path
    out = cache_dir() / "softmatcha" / "indexes" / f"kjv-{tokenizer}-{embeddings}"
    idx = Index.load_or_build(out, embeddings=embeddings, verify=verify, files=[kjv_path()],
                              tokenizer=tokenizer)
    if "sa" not in idx.meta["arrays"]:  # cached before format v3: rebuilt once to store its suffix array
        idx = Index.build(out, files=[kjv_path()], embeddings=embeddings, tokenizer=tokenizer, overwrite=True)
    return idx
