"""`Index`: build a SoftMatcha index from files or lines into a folder, load it memory-mapped, and search
it softly (Step 1 over the corpus vocabulary, Step 2 over postings + forward array)."""

from __future__ import annotations

import os
import re
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from iclr25.core.errors import UserError
from iclr25.softmatcha.embeddings import (
    NAMED_EMBEDDINGS,
    Embeddings,
    WordLookup,
    load_embeddings,
    split_abtt,
)
from iclr25.softmatcha.index_format import auto_level, open_array, read_meta, verify_files
from iclr25.softmatcha.inputs import expand_files, read_lines
from iclr25.softmatcha.pattern import (
    MAX_REGEX_CHARS,
    WILDCARDS,
    is_regex_token,
    pattern_tokens,
    regex_runs,
)
from iclr25.softmatcha.results import Match, OccurrencePage, SearchResult
from iclr25.softmatcha.search import (
    SEP,
    Slot,
    exact_slot,
    find_positions,
    neighbour_list,
    slot_from_list,
    soft_scores,
)
from iclr25.softmatcha.tokenize import DEFAULT_TOKENIZER, Tokenizer, get_tokenizer

if TYPE_CHECKING:  # the build and suffix-array paths are imported when used (a plain search stays lean)
    from iclr25.softmatcha.build import BuildConfig
    from iclr25.softmatcha.collocates import CollocationTable
    from iclr25.softmatcha.dispersion import Dispersion
    from iclr25.softmatcha.frequency import FrequencyList
    from iclr25.softmatcha.suffix import SuffixRanges
    from iclr25.softmatcha.variants import Element, RankedVariant, VariantConfig


@dataclass(frozen=True)
class SearchConfig:
    """Defaults. The paper's CLI uses alpha = 0.5 with 300-d GloVe; 50-d GloVe is coarser, so 0.8 here
    (spec §4). Patterns are short phrases: longer ones are refused rather than silently slow."""

    threshold: float = 0.8
    max_pattern_tokens: int = 64
    list_floor: float = 0.5  # neighbour lists are kept down to this score (lower alphas: computed per query)
    list_cache: int = 4096  # pattern words whose neighbour lists an open index keeps (LRU); 0: none kept,
    # each list computed down to the query's alpha only (a one-shot CLI call reuses nothing)
    # Punctuation policy: a pattern word matches only corpus words and a punctuation mark only punctuation
    # (GloVe puts "." within 0.8 of 162 of the 2,000 most frequent words). True lifts it.
    mix_punctuation: bool = False


Thresholds = float | Sequence[float]
_HAS_WORD = re.compile(r"\w").search


def check_thresholds(threshold: Thresholds, m: int) -> tuple[float, ...]:
    """One alpha per pattern token, each in [0, 1]; a scalar applies to all."""
    if isinstance(threshold, int | float | np.floating | np.integer):
        alphas = (float(threshold),) * m
    else:
        alphas = tuple(float(a) for a in threshold)
        if len(alphas) != m:
            raise UserError(f"{len(alphas)} thresholds given for a pattern of {m} tokens")
    for a in alphas:
        if not 0.0 <= a <= 1.0:  # also rejects NaN
            raise UserError(f"threshold must be in [0, 1], got {a}")
    return alphas


def tokenize_pattern(pattern: str | Sequence[str], tokenizer: Tokenizer, max_tokens: int) -> tuple[str, ...]:
    raw = pattern if isinstance(pattern, str) else " ".join(map(str, pattern))
    try:
        raw.encode("utf-8")
    except UnicodeEncodeError:  # bytes that are not UTF-8 reach Python as lone surrogates
        raise UserError(f"pattern {raw.encode('utf-8', 'surrogateescape')!r} is not valid UTF-8") from None
    if isinstance(pattern, str):
        toks = tuple(pattern_tokens(pattern, tokenizer.tokenize))
    else:
        toks = tuple(t for p in pattern for t in pattern_tokens(str(p), tokenizer.tokenize))
    if not toks:
        raise UserError(f"empty pattern {pattern!r}: it has no tokens")
    if len(toks) > max_tokens:
        raise UserError(f"pattern has {len(toks)} tokens; the limit is {max_tokens}")
    return toks


def compile_regex_token(token: str, case_sensitive: bool) -> re.Pattern[str]:
    """The regular expression of a regex token `/RE/`, or a one-line error naming it."""
    body = token[1:-1]
    if len(body) > MAX_REGEX_CHARS:
        raise UserError(f"regex token {token[:40]}... is longer than {MAX_REGEX_CHARS} characters")
    try:
        return re.compile(body, 0 if case_sensitive else re.IGNORECASE)
    except re.error as e:
        raise UserError(f"pattern token {token}: not a valid regular expression ({e})") from None


def pattern_surfaces(pattern: str | Sequence[str], tokenizer: Tokenizer) -> list[str]:
    """Each pattern token as written (case kept), aligned with `tokenize_pattern`'s tokens."""
    raws = [pattern] if isinstance(pattern, str) else [str(p) for p in pattern]
    out: list[str] = []
    for raw in raws:
        for is_rx, text in regex_runs(raw):
            out += [text] if is_rx else [text[a:b] for a, b in tokenizer.char_spans(text)]
    return out


_CURLY = str.maketrans({"\u2019": "'", "\u2018": "'"})


def case_shape(s: str) -> str | None:
    """lower, title (first cased letter upper, the rest lower; one capital letter too), upper or mixed;
    None for a token without cased letters (digits, punctuation), which any shape matches."""
    if s.lower() == s.upper():
        return None
    if s == s.lower():
        return "lower"
    cased = [c for c in s if c.lower() != c.upper()]
    if cased[0].isupper() and all(c.islower() for c in cased[1:]):
        return "title"
    return "upper" if s == s.upper() else "mixed"


def case_rule(token: str, surface: str):
    """What a case-sensitive search asks of the corpus text under one pattern token: a regex token's
    RE matches it case-sensitively; the pattern word itself must be written exactly as in the pattern
    (`Israel` is not `israel`); another word standing in for it (a soft match) must have the same case
    shape (`King` matches `Queen`, not `queen`). Typographic apostrophes count as ASCII ones."""
    if token in WILDCARDS:
        return lambda text, typ: True
    if is_regex_token(token):
        rx = compile_regex_token(token, case_sensitive=True)
        return lambda text, typ: rx.fullmatch(text.translate(_CURLY)) is not None
    want, shape = surface.translate(_CURLY), case_shape(surface)
    return lambda text, typ: (text.translate(_CURLY) == want if typ == token
                              else shape is None or case_shape(text) in (None, shape))


def check_output(out: str | os.PathLike, overwrite: bool) -> None:
    """Before any work: `out` must be a new path, or (with overwrite) an index folder to replace."""
    out = Path(out)
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise UserError(f"{out} exists and is not a folder; refusing to replace it with an index")
    if out.is_dir():
        if not overwrite:
            raise UserError(f"{out} already exists (use overwrite=True / --force)")
        if not (out / "meta.json").is_file() and any(out.iterdir()):
            raise UserError(f"{out} exists and is not a SoftMatcha index; refusing to replace it")
    parent = out.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise UserError(f"cannot write the index {out}: {parent} is not a writable folder")


class SoftSets:
    """Corpus facts and Step 1 (the soft sets), shared by `Index` and `ShardedIndex`. Needs `path`, `meta`,
    `embeddings`, `emb_rows`, `frequencies`, `tokenizer` and `config` on the instance."""

    @property
    def n_tokens(self) -> int:
        return int(self.meta["n_tokens"])

    @property
    def n_lines(self) -> int:
        return int(self.meta["n_lines"])

    @cached_property
    def vocab(self) -> list[str]:
        return (self.path / "vocab.txt").read_text(encoding="utf-8").split("\n")

    @cached_property
    def word_rank(self) -> np.ndarray:
        """(n_types,) alphabetical rank (1-based) of each type that has a letter or digit; 0 for
        punctuation and the separator (what a KWIC sort skips)."""
        vocab = self.vocab
        rank = np.zeros(len(vocab), dtype=np.int64)
        words = [i for i in sorted(range(1, len(vocab)), key=vocab.__getitem__) if _HAS_WORD(vocab[i])]
        rank[words] = np.arange(1, len(words) + 1)
        return rank

    @cached_property
    def is_word(self) -> np.ndarray:
        """(n_types,) True for the types with a letter or digit (words), False for punctuation and the
        separator: the classes the punctuation policy keeps apart (stored by the build, else computed)."""
        if "is_word" in getattr(self, "meta", {}).get("arrays", {}):
            return np.asarray(open_array(self.path, "is_word", self.meta)).astype(bool)
        vocab = self.vocab
        out = np.fromiter((bool(_HAS_WORD(w)) for w in vocab), dtype=bool, count=len(vocab))
        out[0] = False
        return out

    @cached_property
    def _type_id(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.vocab)}

    @cached_property
    def _vocab_lookup(self) -> WordLookup | None:
        """The persisted token -> type id map of an index (format v2), else None (a dict is built)."""
        files = getattr(self, "meta", {}).get("files", {})
        return WordLookup.load(self.path) if "lookup_keys.npy" in files else None

    def type_ids(self, tokens: Sequence[str]) -> list[int | None]:
        """Each token's type id in the corpus, None if it does not occur. An index built by format v2
        answers from its sorted map (binary search) instead of reading the vocabulary into a dict
        (1.5 s for 382k types)."""
        lk = self._vocab_lookup
        if lk is None or any(len(t.encode("utf-8")) > lk.width for t in tokens):
            return [self._type_id.get(t) or None for t in tokens]
        return [int(r) or None for r in lk.rows(tokens)]  # 0 is the separator, never a token

    @cached_property
    def type_vectors(self) -> np.ndarray:
        """(n_types, d) unit vectors of the corpus types (zero rows for OOV types and the separator)."""
        return np.ascontiguousarray(self.embeddings.vectors[self.emb_rows], dtype=np.float32)

    def frequency(self, token: str) -> int:
        [t] = self.type_ids([token])
        return 0 if t is None else int(self.frequencies[t])

    def slots(self, pattern: str | Sequence[str], threshold: Thresholds | None = None
              ) -> tuple[list[Slot], list[str]]:
        """Step 1: the soft set of every pattern token (and warnings for OOV tokens)."""
        toks = tokenize_pattern(pattern, self.tokenizer, self.config.max_pattern_tokens)
        alphas = check_thresholds(self.config.threshold if threshold is None else threshold, len(toks))
        return self.slots_of(toks, alphas)

    def elements(self, pattern: str | Sequence[str], threshold: Thresholds | None = None
                 ) -> tuple[list[Element], list[str]]:
        """The pattern as soft sets and wildcards (`*`, `_`: any one token), with OOV warnings."""
        from iclr25.softmatcha.variants import Element
        toks = tokenize_pattern(pattern, self.tokenizer, self.config.max_pattern_tokens)
        alphas = check_thresholds(self.config.threshold if threshold is None else threshold, len(toks))
        words = [(t, a) for t, a in zip(toks, alphas, strict=True) if t not in WILDCARDS]
        if not words:
            raise UserError("the pattern has only wildcards; give at least one word")
        slots, warns = self.slots_of([t for t, _ in words], [a for _, a in words])
        it = iter(slots)
        out = []
        for t in toks:
            if t in WILDCARDS:
                out.append(Element(t, np.empty(0, np.int64), np.empty(0), wildcard=True))
                continue
            s = next(it)
            ids = np.sort(np.asarray(s.ids, dtype=np.int64))
            out.append(Element(t, ids, s.scores[ids].astype(np.float64)))
        return out, warns

    def regex_ids(self, token: str, case_sensitive: bool = False) -> np.ndarray:
        """The type ids whose whole text matches the regex token `/RE/` (`pattern.py`), sorted. Types
        are lower-cased, so the vocabulary is matched case-blind; a case-sensitive search then checks
        each hit's original text (`Index.case_filter`)."""
        rx = compile_regex_token(token, case_sensitive=False)
        vocab = self.vocab
        return np.array([i for i in range(1, len(vocab)) if rx.fullmatch(vocab[i])], dtype=np.int64)

    def slots_of(self, toks: Sequence[str], alphas: Sequence[float]) -> tuple[list[Slot], list[str]]:
        """Step 1 for already tokenized pattern tokens with one checked alpha each (a regex token `/RE/`
        takes the types matching RE, each scored 1)."""
        if any(is_regex_token(t) for t in toks):
            n_types = self.type_vectors.shape[0]
            plain = [(t, a) for t, a in zip(toks, alphas, strict=True) if not is_regex_token(t)]
            got, warns = self.slots_of([t for t, _ in plain], [a for _, a in plain]) if plain else ([], [])
            it = iter(got)
            out = []
            for t, a in zip(toks, alphas, strict=True):
                if is_regex_token(t):
                    ids = self.regex_ids(t)
                    mask = np.zeros(n_types, dtype=bool)
                    scores = np.zeros(n_types, dtype=np.float32)
                    mask[ids], scores[ids] = True, 1.0
                    out.append(Slot(t, float(a), mask, scores, True, False, ids))
                else:
                    out.append(next(it))
            return out, warns
        warns: list[str] = []
        tids = self.type_ids(toks)
        rows = [int(self.emb_rows[t]) if t is not None else self.embeddings.id(tok)
                for tok, t in zip(toks, tids, strict=True)]
        for tok, row in dict(zip(toks, rows, strict=True)).items():
            if row == 0:
                warns.append(f"pattern token {tok!r} has no embedding in {self.embeddings.name}; "
                             "matching it literally")
        keys = list(zip(toks, alphas, rows, strict=True))
        n_types = self.type_vectors.shape[0]
        cfg = self.config
        floor = (lambda a: min(a, cfg.list_floor)) if cfg.list_cache else (lambda a: a)  # noqa: E731
        lists = self._neighbour_lists({(row, floor(a)) for _, a, row in keys if a < 1.0 and row != 0})
        out = []
        for (tok, a, row), tid in zip(keys, tids, strict=True):
            if a >= 1.0 or row == 0:
                out.append(exact_slot(tok, a, n_types, tid, oov=row == 0))
                continue
            ids, sims = lists[row, floor(a)]
            if not cfg.mix_punctuation:  # words match words, punctuation matches punctuation
                keep = self.is_word[ids] == bool(_HAS_WORD(tok))
                ids, sims = ids[keep], sims[keep]
            out.append(slot_from_list(tok, a, ids, sims, n_types, tid))
        return out, warns

    @cached_property
    def _list_cache(self) -> tuple[threading.Lock, OrderedDict]:
        return threading.Lock(), OrderedDict()

    def forget_lists(self) -> None:
        """Drop the kept neighbour lists (the next query of any word scans the vocabulary again)."""
        lock, cache = self._list_cache
        with lock:
            cache.clear()

    def _neighbour_lists(self, wanted: set[tuple[int, float]]) -> dict[tuple[int, float], tuple]:
        """Each (embedding row, floor): the row's neighbour list among the corpus types down to `floor`.
        Lists at the configured floor are kept (LRU, `config.list_cache` words), so a word's next soft
        query at any alpha >= floor is a prefix lookup; the misses share one screening product."""
        lock, cache = self._list_cache
        cfg = self.config
        with lock:
            got = {k: cache[k[0]] for k in wanted if k[1] == cfg.list_floor and k[0] in cache}
            for k in got:
                cache.move_to_end(k[0])
        todo = sorted(k for k in wanted if k not in got)
        if todo:
            vecs = self.embeddings.vectors
            screen = soft_scores(vecs[[row for row, _ in todo]], self.type_vectors)  # (len(todo), n_types)
            for (row, floor), sc in zip(todo, screen, strict=True):
                got[row, floor] = neighbour_list(sc, self.type_vectors, vecs[row], floor)
            with lock:
                for (row, floor) in todo:
                    if floor == cfg.list_floor and cfg.list_cache:
                        cache[row] = got[row, floor]
                while len(cache) > cfg.list_cache:
                    cache.popitem(last=False)
        return got


class Index(SoftSets):
    """A memory-mapped SoftMatcha index.

    >>> import numpy as np, tempfile
    >>> emb = Embeddings.from_arrays(["king", "queen", "of", "israel", "syria"],
    ...                              np.array([[1, 0, 0], [.9, .1, 0], [0, 1, 0], [0, 0, 1], [0, .2, 1]]))
    >>> d = tempfile.mkdtemp()
    >>> idx = Index.from_lines(["the king of israel", "the queen of syria"], d + "/i", embeddings=emb)
    >>> [(m.line, m.matched_text) for m in idx.search("king of israel", threshold=0.9)]
    [(1, 'king of israel'), (2, 'queen of syria')]
    """

    def __init__(self, path: Path, meta: dict[str, Any], embeddings: Embeddings,
                 config: SearchConfig | None = None) -> None:
        """Use `Index.load`; this maps the arrays of an already verified folder."""
        self.path = path
        self.meta = meta
        self.embeddings = embeddings
        self.tokenizer = get_tokenizer(meta["tokenizer"])
        self.config = config or SearchConfig()
        self.tokens = open_array(path, "tokens", meta)
        self.postings = open_array(path, "postings", meta)
        self.indptr = np.asarray(open_array(path, "indptr", meta))
        self.emb_rows = np.asarray(open_array(path, "emb_rows", meta))
        self.line_bytes = open_array(path, "line_bytes", meta) if meta["has_text"] else None
        self._first_lines = np.array([s["first_line"] for s in meta["sources"]], dtype=np.int64)

    # ---- build / load -------------------------------------------------------------------------
    @classmethod
    def build(cls, out: str | os.PathLike, *, lines: Iterable[str] | None = None,
              files: Sequence[str | os.PathLike] | str | os.PathLike | None = None,
              embeddings: Embeddings | str | None = None, tokenizer: str = DEFAULT_TOKENIZER,
              overwrite: bool = False, config: BuildConfig | None = None, hidden: bool = False,
              binary: bool = False, ignore: bool = True) -> Index:
        """Index `lines` (an iterable of strings) or `files` (paths or folders; see `expand_files` for
        `hidden`, `binary` and `ignore`: .gitignore'd files of a folder are skipped unless False) into the
        folder `out`."""
        from iclr25.softmatcha.build import BuildStats, build_index
        if (lines is None) == (files is None):
            raise UserError("give exactly one of lines= or files=")
        check_output(out, overwrite)
        emb = _resolve_embeddings(embeddings)
        tok = get_tokenizer(tokenizer)
        stats = BuildStats()
        if files is not None:
            paths = expand_files(files, hidden=hidden, ignore=ignore)
            sources: Iterable[tuple[str, Iterable[str]]] = (
                (str(p), read_lines(p, stats, binary)) for p in paths)
        else:
            if isinstance(lines, str):
                lines = lines.splitlines()
            sources = [("<lines>", lines)]  # type: ignore[list-item]
        build_index(sources, out, tok, emb, overwrite=overwrite, config=config, stats=stats)
        for w in stats.warnings():
            warnings.warn(w, stacklevel=2)
        return cls.load(out, embeddings=emb, verify="none")

    @classmethod
    def from_lines(cls, lines: Iterable[str], out: str | os.PathLike, **kw: Any) -> Index:
        return cls.build(out, lines=lines, **kw)

    @classmethod
    def from_files(cls, files: Sequence[str | os.PathLike] | str | os.PathLike, out: str | os.PathLike,
                   **kw: Any) -> Index:
        return cls.build(out, files=files, **kw)

    @classmethod
    def from_token_ids(cls, word_ids: np.ndarray, line_lengths: np.ndarray, words: Sequence[str],
                       out: str | os.PathLike, embeddings: Embeddings, overwrite: bool = False,
                       config: BuildConfig | None = None) -> Index:
        """Index an already tokenized corpus (e.g. synthetic): `words[word_ids[k]]` is token k."""
        from iclr25.softmatcha.build import build_from_ids
        check_output(out, overwrite)
        build_from_ids(word_ids, line_lengths, list(words), out, embeddings, overwrite=overwrite,
                       config=config)
        return cls.load(out, embeddings=embeddings, verify="none")

    @classmethod
    def load(cls, path: str | os.PathLike, embeddings: Embeddings | str | None = None,
             verify: str = "auto", config: SearchConfig | None = None) -> Index:
        """Open an index folder memory-mapped, after checking its files (`index_format.verify_files`:
        the one verification path of the CLI and the web app). `verify`: "auto" (CRC-32 of every file up
        to 64 MiB, of each file's first MiB above), "full" (SHA-256), "crc", "head", "size" or "none".
        Embeddings default to the ones it was built with."""
        path = Path(path)
        meta = read_meta(path)
        verify_files(path, meta, auto_level(meta) if verify == "auto" else verify)
        built_with = meta["embeddings"]
        if embeddings is None:
            src = built_with.get("source")
            if built_with["name"] in NAMED_EMBEDDINGS or split_abtt(built_with["name"])[1]:
                embeddings = built_with["name"]
            elif src and Path(src).is_file():
                embeddings = load_embeddings(src).postprocessed(int(built_with.get("remove_top") or 0))
            else:
                raise UserError(f"index {path} was built with custom embeddings {built_with['name']!r}; "
                                "pass the same Embeddings to load it")
        emb = _resolve_embeddings(embeddings)
        if emb.fingerprint != built_with["fingerprint"]:
            raise UserError(f"index {path} was built with embeddings {built_with['name']!r} "
                            f"({built_with['fingerprint']}), not {emb.name!r} ({emb.fingerprint})")
        return cls(path, meta, emb, config)

    @classmethod
    def load_or_build(cls, out: str | os.PathLike, *, embeddings: Embeddings | str | None = None,
                      verify: str = "auto", **build_kw: Any) -> Index:
        """A cached index: load `out` if it is sound (`verify` as in `load`) and built with `embeddings`,
        else (re)build it."""
        out = Path(out)
        if (out / "meta.json").is_file():
            try:
                return cls.load(out, embeddings=embeddings, verify=verify)
            except UserError:
                pass  # stale or damaged cache: rebuild below
        return cls.build(out, embeddings=embeddings, overwrite=True, **build_kw)

    # ---- corpus facts (and SoftSets') -----------------------------------------------------------
    @cached_property
    def frequencies(self) -> np.ndarray:
        return np.diff(self.indptr)

    @cached_property
    def line_starts(self) -> np.ndarray:
        """Positions of the separators: line k's tokens are (line_starts[k], line_starts[k+1])."""
        return np.asarray(self.postings[self.indptr[SEP]:self.indptr[SEP + 1]], dtype=np.int64)

    def bytes_per_token(self, include_text: bool = False) -> float:
        files = self.meta["files"]
        total = sum(f["bytes"] for name, f in files.items() if include_text or name != "text.txt")
        return total / max(self.n_tokens, 1)

    # ---- ranked variants on the suffix array (issue 29) ------------------------------------------
    @cached_property
    def suffix_array(self) -> np.ndarray:
        """SA over the forward array: sa.bin of a v3 index, else built in memory once per open index
        (older indexes load unchanged; rebuild them with `index --force` to store it)."""
        if "sa" in self.meta.get("arrays", {}):
            return open_array(self.path, "sa", self.meta)
        from iclr25.softmatcha.suffix import build_suffix_array
        return build_suffix_array(np.asarray(self.tokens))

    @cached_property
    def suffix_ranges(self) -> SuffixRanges:
        from iclr25.softmatcha.suffix import SuffixRanges
        return SuffixRanges(self.tokens, self.suffix_array, self.indptr)

    def iter_variants(self, pattern: str | Sequence[str], threshold: Thresholds | None = None,
                      config: VariantConfig | None = None) -> Iterator[RankedVariant]:
        """Every variant of `pattern`, best first (lazy: stop reading to stop the search)."""
        from iclr25.softmatcha.variants import VariantConfig, check_config, ranked_variants
        els, _ = self.elements(pattern, threshold)
        cfg = config or VariantConfig()
        check_config(cfg, els)
        return ranked_variants(self.suffix_ranges, els, cfg, self.vocab)

    def variants(self, pattern: str | Sequence[str], threshold: Thresholds | None = None, k: int | None = 20,
                 *, score: str = "min", max_insert: int = 0, max_delete: int = 0,
                 penalty: float = 0.9) -> list[RankedVariant]:
        """The top-k distinct matching strings with their exact counts (k None: all), ranked by score
        (`score`: "min" or "product" of the token similarities, times penalty^edits), then count, then
        string. Wildcards `*`/`_` match any one token; up to `max_insert` extra corpus tokens and
        `max_delete` skipped pattern tokens (see `variants.py`).

        >>> import numpy as np, tempfile
        >>> emb = Embeddings.from_arrays(["king", "queen", "of", "israel"],
        ...                              np.array([[1, 0, 0], [.9, .1, 0], [0, 1, 0], [0, 0, 1]]))
        >>> idx = Index.from_lines(["the king of israel", "the queen of israel", "a king of israel"],
        ...                        tempfile.mkdtemp() + "/i", embeddings=emb)
        >>> [(v.string, v.count) for v in idx.variants("king of israel", 0.9)]
        [('king of israel', 2), ('queen of israel', 1)]
        """
        from iclr25.softmatcha.variants import top_k, variant_config
        cfg = variant_config(k, score=score, max_insert=max_insert, max_delete=max_delete, penalty=penalty)
        return top_k(self.iter_variants(pattern, threshold, cfg), k)

    def occurrences(self, pattern: str | Sequence[str], threshold: Thresholds | None = None, offset: int = 0,
                    limit: int = 50, config: VariantConfig | None = None) -> OccurrencePage:
        """One page of occurrences in variant rank order (within a variant: by the text that follows), at
        O(variants before the page + page) cost, not O(all hits). `Match.scores` holds the variant's
        score once per matched token."""
        if offset < 0 or limit <= 0:
            raise UserError(f"offset must be >= 0 and limit > 0, got offset {offset}, limit {limit}")
        from iclr25.softmatcha.variants import page_occurrences
        t0 = time.perf_counter()
        edits = config is not None and bool(config.max_insert or config.max_delete)
        pairs, more = page_occurrences(self.suffix_ranges, self.iter_variants(pattern, threshold, config),
                                       offset, limit, dedupe=edits)
        matches = [self._match_at(p, len(v.type_ids), v.score) for v, p in pairs]
        return OccurrencePage(matches, offset, more, time.perf_counter() - t0)

    def hits(self, pattern: str | Sequence[str], threshold: Thresholds | None = None,
             config: VariantConfig | None = None):
        """Every hit of a ranked search (edits, wildcards), one per start position, in corpus order
        (`variants.distinct_hits`): what `--count-matches` counts and the CLI prints."""
        from iclr25.softmatcha.variants import distinct_hits
        return distinct_hits(self.suffix_ranges, list(self.iter_variants(pattern, threshold, config)))

    def _match_at(self, pos: int, m: int, score: float) -> Match:
        ls = self.line_starts
        k = int(np.searchsorted(ls, pos, side="right")) - 1
        src = self.meta["sources"][int(np.searchsorted(self._first_lines, k, side="right")) - 1]
        text = self.line_text(k)
        spans = self._line_spans(k, text)
        j = pos - int(ls[k]) - 1
        cs = (spans[j][0], spans[j + m - 1][1]) if j + m <= len(spans) else (0, 0)
        row = np.asarray(self.tokens[pos:pos + m])
        return Match(src["name"], k - src["first_line"] + 1, (j, j + m), cs,
                     tuple(self.vocab[int(t)] for t in row), (round(float(score), 6),) * m, text, pos)

    # ---- search -------------------------------------------------------------------------------
    def search(self, pattern: str | Sequence[str], threshold: Thresholds | None = None,
               warn: bool = True, case_sensitive: bool = False) -> SearchResult:
        """All matches of `pattern` where every token i scores >= threshold_i (a float or one per token;
        >= 1 means exact). Matches never cross a line. Returns a lazy sequence of `Match`.
        `case_sensitive`: the matched text must be written as the pattern says (`case_rule`)."""
        t0 = time.perf_counter()
        slots, warns = self.slots(pattern, threshold)
        positions, stats = find_positions([s.mask for s in slots], self.tokens, self.indptr, self.postings,
                                          freq=self.frequencies, ids=[s.ids for s in slots])
        if case_sensitive:
            positions = positions[self.case_filter(positions, pattern, slots)]
        seconds = time.perf_counter() - t0
        if warn:
            for w in warns:
                warnings.warn(w, stacklevel=2)
        return SearchResult(self, tuple(s.token for s in slots), tuple(s.threshold for s in slots),
                            positions, [s.scores for s in slots], seconds, stats, warns)

    def count(self, pattern: str | Sequence[str], threshold: Thresholds | None = None) -> int:
        return self.search(pattern, threshold, warn=False).count

    def search_stream(self, pattern: str | Sequence[str], threshold: Thresholds | None = None,
                      window: int = 1 << 22, case_sensitive: bool = False) -> SearchStream:
        """The matches of `search`, produced in corpus order window by window (`search.iter_positions`):
        the first come after one window's work and memory holds one window's hits, whatever the total.
        `for res in index.search_stream(p).chunks(): ...` gets one `SearchResult` per window with hits."""
        slots, warns = self.slots(pattern, threshold)
        case = (lambda pos: pos[self.case_filter(pos, pattern, slots)]) if case_sensitive else None
        if case_sensitive:
            self.case_filter(np.empty(0, np.int64), pattern, slots)  # refuse a text-less index now
        return SearchStream(self, slots, warns, window, case)

    def case_filter(self, positions: np.ndarray, pattern: str | Sequence[str], slots: Sequence[Slot]
                    ) -> np.ndarray:
        """(len(positions),) bool: the hits whose original text satisfies `case_rule` for every
        pattern token (reads each hit's line: O(hits))."""
        if not self.meta.get("has_text", True):
            raise UserError("this index keeps no text (built with store_text=False), so the case of its "
                            "words is lost: a case-sensitive search needs an index with its text")
        toks = [s.token for s in slots]
        surfaces = pattern_surfaces(pattern, self.tokenizer)
        if len(surfaces) != len(toks):
            raise UserError(f"cannot align the pattern {pattern!r} with its tokens for a case-sensitive "
                            "search")
        rules = [case_rule(t, w) for t, w in zip(toks, surfaces, strict=True)]
        keep = np.ones(positions.size, dtype=bool)
        if positions.size == 0:
            return keep
        ls, vocab, tokens = self.line_starts, self.vocab, self.tokens
        lines = np.searchsorted(ls, positions, side="right") - 1
        last, text, spans = -1, "", []
        for i, (pos, k) in enumerate(zip(positions.tolist(), lines.tolist(), strict=True)):
            if k != last:
                text, last = self.line_text(k), k
                spans = self._line_spans(k, text)
            j = pos - int(ls[k]) - 1
            for s, rule in enumerate(rules):
                if j + s >= len(spans) or not rule(text[spans[j + s][0]:spans[j + s][1]],
                                                   vocab[int(tokens[pos + s])]):
                    keep[i] = False
                    break
        return keep

    # ---- corpus linguistics: collocates, frequency lists, dispersion ---------------------------------
    def collocates(self, pattern: str | Sequence[str], threshold: Thresholds | None = None, *, left: int = 5,
                   right: int = 5, min_count: int = 2, by: str = "g2", top_k: int | None = None,
                   punctuation: bool = False, case_sensitive: bool = False) -> CollocationTable:
        """The collocates of `pattern`'s hits: window and corpus frequency, MI and signed G² per word
        (`collocates.py` defines them), sorted by `by` ("g2", "mi" or "freq").

        >>> import numpy as np, tempfile
        >>> emb = Embeddings.from_arrays(["king", "said"], np.eye(2))
        >>> idx = Index.from_lines(["the king said", "the king said", "a dog ran"], tempfile.mkdtemp() + "/i",
        ...                        embeddings=emb)
        >>> [(c.string, c.window, c.corpus) for c in idx.collocates("king", 1.0, left=1, right=1).rows]
        [('said', 2, 2), ('the', 2, 2)]
        """
        res = self.search(pattern, threshold, warn=False, case_sensitive=case_sensitive)
        return res.collocates(left=left, right=right, min_count=min_count, by=by, top_k=top_k,
                              punctuation=punctuation)

    def frequency_list(self, n: int = 1, *, min_count: int = 1, top_k: int | None = None,
                       punctuation: bool = False) -> FrequencyList:
        """Word (n = 1) or n-gram frequency list: count, per million, range in files (`frequency.py`)."""
        from iclr25.softmatcha.frequency import frequency_list
        return frequency_list(self, n, min_count=min_count, top_k=top_k, punctuation=punctuation)

    def dispersion(self, pattern: str | Sequence[str], threshold: Thresholds | None = None, *,
                   by: str = "file", case_sensitive: bool = False, labels: list[str] | None = None
                   ) -> Dispersion:
        """Hits per part (file, folder, or the KJV's book) with Gries' DP and Juilland's D
        (`dispersion.py`)."""
        res = self.search(pattern, threshold, warn=False, case_sensitive=case_sensitive)
        return res.dispersion(by=by, labels=labels)

    # ---- display ------------------------------------------------------------------------------
    def line_tokens(self, k: int) -> np.ndarray:
        ls = self.line_starts
        return np.asarray(self.tokens[ls[k] + 1:ls[k + 1]])

    @cached_property
    def _text(self) -> np.ndarray:
        return np.memmap(self.path / "text.txt", dtype=np.uint8, mode="r")

    def line_text(self, k: int) -> str:
        """The text of line k (0-based over the whole index)."""
        if self.line_bytes is not None:
            a, b = int(self.line_bytes[k]), int(self.line_bytes[k + 1]) - 1
            return self._text[a:b].tobytes().decode("utf-8", errors="replace")
        return " ".join(self.vocab[int(t)] for t in self.line_tokens(k))

    def _line_spans(self, k: int, text: str) -> list[tuple[int, int]]:
        if self.line_bytes is None:
            spans, pos = [], 0
            for w in text.split(" "):
                spans.append((pos, pos + len(w)))
                pos += len(w) + 1
            return spans
        return self.tokenizer.char_spans(text)

    def _matches(self, result: SearchResult, positions: np.ndarray) -> list[Match]:
        if positions.size == 0:
            return []
        m = len(result.pattern)
        ls = self.line_starts
        lines = np.searchsorted(ls, positions, side="right") - 1
        src = np.searchsorted(self._first_lines, lines, side="right") - 1
        ids = np.asarray(self.tokens[positions[:, None] + np.arange(m)[None, :]])
        scores = np.stack([s[ids[:, i]] for i, s in enumerate(result._slot_scores)], axis=1)
        vocab = self.vocab
        cache: dict[int, tuple[str, list[tuple[int, int]]]] = {}
        out = []
        for pos, k, s, row, sc in zip(positions.tolist(), lines.tolist(), src.tolist(), ids, scores,
                                      strict=True):
            if k not in cache:
                text = self.line_text(k)
                cache[k] = (text, self._line_spans(k, text))
            text, spans = cache[k]
            j = pos - int(ls[k]) - 1
            # the tokenizer is deterministic, so the line re-tokenizes to the indexed tokens
            cs = (spans[j][0], spans[j + m - 1][1]) if j + m <= len(spans) else (0, 0)
            source = self.meta["sources"][s]
            out.append(Match(source["name"], k - source["first_line"] + 1, (j, j + m), cs,
                             tuple(vocab[int(t)] for t in row), tuple(round(float(x), 6) for x in sc),
                             text, pos))
        return out

    def __repr__(self) -> str:
        return (f"Index({str(self.path)!r}, tokens={self.n_tokens}, lines={self.n_lines}, "
                f"types={self.meta['n_types']}, tokenizer={self.meta['tokenizer']}, "
                f"embeddings={self.embeddings.name})")


SoftIndex = Index  # the name used in the spec's API sketch


class SearchStream:
    """A search whose hits are produced window by window, in corpus order (`Index.search_stream`)."""

    def __init__(self, index: Index, slots: list[Slot], warnings: list[str], window: int,
                 case=None) -> None:
        self.index, self.slots, self.warnings, self.window = index, slots, warnings, window
        self._case = case  # positions -> the positions a case-sensitive search keeps (None: all)
        self.pattern = tuple(s.token for s in slots)
        self.thresholds = tuple(s.threshold for s in slots)

    def chunks(self) -> Iterator[SearchResult]:
        from iclr25.softmatcha.search import iter_positions
        ix = self.index
        scores = [s.scores for s in self.slots]
        t0 = time.perf_counter()
        for pos in iter_positions([s.mask for s in self.slots], ix.tokens, ix.indptr,
                                  getattr(ix, "postings", None), ids=[s.ids for s in self.slots],
                                  freq=ix.frequencies, window=self.window, boundaries=ix.line_starts):
            if self._case is not None:
                pos = self._case(pos)
                if pos.size == 0:
                    continue
            yield SearchResult(ix, self.pattern, self.thresholds, pos, scores, time.perf_counter() - t0, {},
                               self.warnings)


def _resolve_embeddings(embeddings: Embeddings | str | None) -> Embeddings:
    if embeddings is None:
        return load_embeddings()
    if isinstance(embeddings, str):
        return load_embeddings(embeddings)
    if not isinstance(embeddings, Embeddings):
        raise UserError(f"embeddings must be an Embeddings or a name, got {type(embeddings).__name__}")
    return embeddings
