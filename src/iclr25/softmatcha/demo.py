"""The built-in demo corpus: the King James Bible, indexed once into the cache folder."""

from __future__ import annotations

from iclr25.softmatcha.embeddings import DEFAULT_EMBEDDINGS
from iclr25.softmatcha.index import Index
from iclr25.softmatcha.tokenize import DEFAULT_TOKENIZER


def kjv_index_name(embeddings: str = DEFAULT_EMBEDDINGS, tokenizer: str = DEFAULT_TOKENIZER) -> str:
    """`kjv` for the defaults, `kjv-<tokenizer>-<embeddings>` otherwise (the folder under the index cache,
    which is also the name the web page lists)."""
    return "kjv" if (embeddings, tokenizer) == (DEFAULT_EMBEDDINGS, DEFAULT_TOKENIZER) \
        else f"kjv-{tokenizer}-{embeddings}"


def kjv_index(embeddings: str = DEFAULT_EMBEDDINGS, tokenizer: str = DEFAULT_TOKENIZER,
              verify: str = "auto") -> Index:
    """The KJV (Debian `bible-kjv`) indexed with GloVe 6B 50-d (all-but-the-top); built on first use
    (~2 s), then loaded."""
    from iclr25.core.runtime import cache_dir
    from iclr25.softmatcha.corpus import kjv_path
    out = cache_dir() / "softmatcha" / "indexes" / kjv_index_name(embeddings, tokenizer)
    idx = Index.load_or_build(out, embeddings=embeddings, verify=verify, files=[kjv_path()],
                              tokenizer=tokenizer)
    if not {"sa", "is_word"} <= set(idx.meta["arrays"]):  # cached by an older build: rebuilt once
        idx = Index.build(out, files=[kjv_path()], embeddings=embeddings, tokenizer=tokenizer, overwrite=True)
    return idx
