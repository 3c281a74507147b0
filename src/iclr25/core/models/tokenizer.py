"""One tokenizer type for every language model here: a thin wrapper over a `tokenizers.Tokenizer`
(byte-level BPE rebuilt from a GGUF vocabulary, or BPE / word-level trained on the user's text), with
the special ids a sampler needs (end of sequence, padding) and a JSON form for caches."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from iclr25.core.errors import UserError

TOKENIZER_KINDS = ("bpe", "word")
EOS_TOKEN = "<|endoftext|>"
UNK_TOKEN = "<unk>"


class Tokenizer:
    """encode / decode, and the ids of the end-of-sequence tokens (generation stops at any of them).

    >>> tok = Tokenizer.train(["in the beginning was the word"] * 3, kind="word", vocab_size=50)
    >>> tok.decode(tok.encode("the word was"))
    'the word was'
    """

    def __init__(self, backend: Any, eos_ids: Sequence[int], pad_id: int, kind: str) -> None:
        self.backend = backend  # tokenizers.Tokenizer
        self.eos_ids = tuple(int(i) for i in eos_ids)
        self.pad_id = int(pad_id)
        self.kind = kind

    # ---- construction ---------------------------------------------------------------------------
    @classmethod
    def from_bpe(cls, vocab: Sequence[str], merges: Sequence[str], special: Sequence[int],
                 eos_ids: Sequence[int], pad_id: int, split_digits: bool = True) -> Tokenizer:
        """Byte-level BPE (GPT-2 bytes-to-unicode alphabet) from a vocabulary and its merge list.
        `split_digits`: every digit is its own pre-token first (llama.cpp's "smollm" pre-tokenizer),
        then the GPT-2 regex splits words; `special` ids are matched whole before anything else."""
        from tokenizers import AddedToken, decoders, models, pre_tokenizers
        from tokenizers import Tokenizer as HFTokenizer
        pairs = [tuple(m.split(" ", 1)) for m in merges]
        bpe = models.BPE(vocab={t: i for i, t in enumerate(vocab)}, merges=pairs, fuse_unk=False)
        tok = HFTokenizer(bpe)
        byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
        tok.pre_tokenizer = (pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True),
                                                      byte_level]) if split_digits else byte_level)
        tok.decoder = decoders.ByteLevel()
        tok.add_special_tokens([AddedToken(vocab[i], special=True, normalized=False) for i in special])
        return cls(tok, eos_ids, pad_id, "bpe")

    @classmethod
    def train(cls, texts: Sequence[str], kind: str = "bpe", vocab_size: int = 4096) -> Tokenizer:
        """A tokenizer fitted to `texts`: byte-level BPE (lossless) or word-level (words and
        punctuation, lower-frequency words -> <unk>; decode joins tokens with single spaces)."""
        from tokenizers import Tokenizer as HFTokenizer
        from tokenizers import decoders, models, pre_tokenizers, trainers
        if kind not in TOKENIZER_KINDS:
            raise UserError(f"unknown tokenizer kind {kind!r}; choose from {', '.join(TOKENIZER_KINDS)}")
        if vocab_size < 8:
            raise UserError(f"vocab_size must be >= 8, got {vocab_size}")
        texts = [t for t in texts if t]
        if not texts:
            raise UserError("cannot train a tokenizer on no text")
        if kind == "bpe":
            tok = HFTokenizer(models.BPE())
            tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
            tok.decoder = decoders.ByteLevel()
            trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=[EOS_TOKEN],
                                          initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                          show_progress=False)
        else:
            tok = HFTokenizer(models.WordLevel(unk_token=UNK_TOKEN))
            tok.pre_tokenizer = pre_tokenizers.Whitespace()
            trainer = trainers.WordLevelTrainer(vocab_size=vocab_size, special_tokens=[EOS_TOKEN, UNK_TOKEN],
                                                show_progress=False)
        tok.train_from_iterator(texts, trainer=trainer)
        eos = tok.token_to_id(EOS_TOKEN)
        return cls(tok, [eos], eos, kind)

    def to_json(self) -> str:
        return json.dumps({"backend": self.backend.to_str(), "eos_ids": list(self.eos_ids),
                           "pad_id": self.pad_id, "kind": self.kind})

    @classmethod
    def from_json(cls, blob: str) -> Tokenizer:
        from tokenizers import Tokenizer as HFTokenizer
        d = json.loads(blob)
        return cls(HFTokenizer.from_str(d["backend"]), d["eos_ids"], d["pad_id"], d["kind"])

    # ---- use ------------------------------------------------------------------------------------
    @property
    def vocab_size(self) -> int:
        return int(self.backend.get_vocab_size(with_added_tokens=True))

    def encode(self, text: str) -> list[int]:
        if not isinstance(text, str):
            raise UserError(f"expected a string to tokenize, got {type(text).__name__}")
        return list(self.backend.encode(text, add_special_tokens=False).ids)

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        bad = next((t for t in texts if not isinstance(t, str)), None)
        if bad is not None:
            raise UserError(f"expected strings to tokenize, got {type(bad).__name__}")
        return [list(e.ids) for e in self.backend.encode_batch(list(texts), add_special_tokens=False)]

    def decode(self, ids: Sequence[int], skip_special: bool = False) -> str:
        return self.backend.decode([int(i) for i in ids], skip_special_tokens=skip_special)

    def token(self, i: int) -> str:
        return self.backend.id_to_token(int(i))

    def __repr__(self) -> str:
        return f"Tokenizer({self.kind}, {self.vocab_size} tokens)"
