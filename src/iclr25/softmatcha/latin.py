"""Claim C (paper §4, spec §3 iii): SoftMatcha as a corpus-linguistic tool for a highly inflected
language. A Latin query in one form (the lemma's citation form) should also find the lemma's other
inflected forms. We train fastText vectors with gensim on a Latin corpus (Perseus by default, or the
user's), index it, and measure inflection recall and precision against known noun paradigms.

>>> sorted(paradigm("bellum"))[:4]
['bella', 'belli', 'bellis', 'bello']
>>> normalise_latin("Vīvēre JUSTE")
'uiuere iuste'
"""

from __future__ import annotations

import difflib
import functools
import gzip
import hashlib
import io
import os
import re
import shutil
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from iclr25.core.claims import Finding
from iclr25.core.errors import UserError
from iclr25.core.runtime import atomic_write, cache_dir, config_hash, timer

# ---- the claim (its rule: claims.py, latin_inflection_recall) ----------------------------------------

CLAIM_KEY = "latin_inflection_recall"
MIN_PRECISION = 0.5  # the oracle's precision floor (claims.MIN_PRECISION)
SPEC_ALPHA = 0.75  # the spec's fixed alpha; reported beside the calibrated one
# Collapse check (fixed before scoring): vectors whose first principal direction holds more than half of
# the variance, or in which a random pair of words has median cosine above 0.5, cannot separate a
# lemma's forms from the rest at any alpha; the claim is then not testable with them.
MAX_TOP_PC_SHARE = 0.5
MAX_MEDIAN_COS = 0.5
PROBES = ("urbs", "bellum", "rex", "deus", "amor", "terra")
ALPHA_GRID = tuple(round(a, 2) for a in np.arange(0.30, 0.991, 0.01))


# ---- Latin text normalisation --------------------------------------------------------------------

def normalise_latin(text: str) -> str:
    """Lower-case, drop diacritics (macrons, breves), and fold v -> u and j -> i, the convention of the
    Perseus texts and of fastText-la (so 'Vivere' and 'uiuere' are one word)."""
    text = unicodedata.normalize("NFD", text.lower())
    text = "".join(c for c in text if not unicodedata.combining(c))
    return text.replace("v", "u").replace("j", "i")


# ---- paradigms -----------------------------------------------------------------------------------
# Case order as in Collatinus (modeles.la, morphologies 1-12): nom, voc, acc, gen, dat, abl (sg), then
# the same six in the plural. None = the citation form itself (3rd declension nominatives).

DECLENSIONS: dict[str, tuple[str | None, ...]] = {
    "1": ("a", "a", "am", "ae", "ae", "a", "ae", "ae", "as", "arum", "is", "is"),  # Collatinus uita
    "2m": ("us", "e", "um", "i", "o", "o", "i", "i", "os", "orum", "is", "is"),  # lupus
    "2n": ("um", "um", "um", "i", "o", "o", "a", "a", "a", "orum", "is", "is"),  # templum
    "3": (None, None, "em", "is", "i", "e", "es", "es", "es", "um", "ibus", "ibus"),  # miles
    "3i": (None, None, "em", "is", "i", "e", "es", "es", "es", "ium", "ibus", "ibus"),  # ciuis
    "3n": (None, None, None, "is", "i", "e", "a", "a", "a", "um", "ibus", "ibus"),  # corpus
    "4": ("us", "us", "um", "us", "ui", "u", "us", "us", "us", "uum", "ibus", "ibus"),  # manus
    "5": ("es", "es", "em", "ei", "ei", "e", "es", "es", "es", "erum", "ebus", "ebus"),  # res
}
COLLATINUS_MODEL = {"1": "uita", "2m": "lupus", "2n": "templum", "3": "miles", "3i": "ciuis",
                    "3n": "corpus", "4": "manus", "5": "res"}


@dataclass(frozen=True)
class Lemma:
    lemma: str  # citation form (the query)
    stem: str  # the oblique stem the endings attach to
    declension: str  # a key of DECLENSIONS


# Frequent nouns of every declension. The first two calibrate alpha; the rest are evaluated.
CALIBRATION_LEMMAS = (Lemma("animus", "anim", "2m"), Lemma("terra", "terr", "1"))
EVALUATION_LEMMAS = (
    Lemma("bellum", "bell", "2n"), Lemma("dominus", "domin", "2m"), Lemma("populus", "popul", "2m"),
    Lemma("consilium", "consili", "2n"), Lemma("causa", "caus", "1"), Lemma("patria", "patri", "1"),
    Lemma("rex", "reg", "3"), Lemma("miles", "milit", "3"), Lemma("homo", "homin", "3"),
    Lemma("urbs", "urb", "3i"), Lemma("ciuis", "ciu", "3i"), Lemma("corpus", "corpor", "3n"),
    Lemma("nomen", "nomin", "3n"), Lemma("manus", "man", "4"), Lemma("exercitus", "exercit", "4"),
    Lemma("res", "r", "5"), Lemma("dies", "di", "5"),
)
LEMMAS = {x.lemma: x for x in (*CALIBRATION_LEMMAS, *EVALUATION_LEMMAS)}


def paradigm(lemma: str | Lemma) -> frozenset[str]:
    """All distinct case forms of a noun of the built-in table (normalised spelling).

    >>> sorted(paradigm("rex"))
    ['rege', 'regem', 'reges', 'regi', 'regibus', 'regis', 'regum', 'rex']
    """
    lem = LEMMAS.get(lemma) if isinstance(lemma, str) else lemma
    if lem is None:
        raise UserError(f"no paradigm for {lemma!r}; known lemmas: {', '.join(sorted(LEMMAS))}")
    ends = DECLENSIONS[lem.declension]
    return frozenset(lem.lemma if e is None else lem.stem + e for e in ends)


# ---- Collatinus (Debian package `collatinus`): an independent source of the same paradigms ----------

COLLATINUS_DIR = Path("/usr/share/collatinus/data")


def _expand_range(spec: str) -> list[int]:
    out: list[int] = []
    for part in spec.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def _parse_models(text: str) -> dict[str, dict[str, Any]]:
    consts: dict[str, str] = {}
    models: dict[str, dict[str, Any]] = {}
    cur: dict[str, Any] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("!"):
            continue
        if line.startswith("$"):
            k, _, v = line[1:].partition("=")
            consts[k] = v
        elif line.startswith("modele:"):
            cur = {"pere": None, "R": {}, "des": [], "abs": []}
            models[line.split(":", 1)[1]] = cur
        elif cur is not None:
            key, _, rest = line.partition(":")
            if key == "pere":
                cur["pere"] = rest
            elif key == "R":
                n, _, spec = rest.partition(":")
                cur["R"][int(n)] = spec
            elif key in ("des", "des+"):
                rng, rad, ends = rest.split(":", 2)
                items: list[str] = []
                for item in ends.split(";"):  # 'pre$name': 'pre' goes before each item of the constant
                    pre, dollar, name = item.partition("$")
                    items += [pre + x for x in consts[name].split(";")] if dollar else [item]
                cur["des"].append((key == "des+", _expand_range(rng), int(rad), items))
            elif key == "abs":
                cur["abs"].append(_expand_range(rest))
    return models


def _resolve_model(models: dict[str, dict[str, Any]], name: str
                   ) -> tuple[dict[int, str], dict[int, list[tuple[int, str]]]]:
    """(radical rules, morpho -> [(radical, ending)]) after inheritance (`pere`)."""
    m = models[name]
    rules: dict[int, str] = {}
    des: dict[int, list[tuple[int, str]]] = {}
    if m["pere"]:
        r0, d0 = _resolve_model(models, m["pere"])
        rules.update(r0)
        des = {k: list(v) for k, v in d0.items()}
    rules.update(m["R"])
    for add, morphos, rad, ends in m["des"]:
        for i, mo in enumerate(morphos):
            e = ends[min(i, len(ends) - 1)]
            alts = [(rad, "" if x == "-" else x) for x in e.split(",")]
            des[mo] = (des.get(mo, []) + alts) if add else alts
    for morphos in m["abs"]:
        for mo in morphos:
            des.pop(mo, None)
    return rules, des


@functools.lru_cache(maxsize=2)
def _lexicon(data_dir: str) -> dict[str, list[tuple[int, str, list[str]]]]:
    """lemmes.la by normalised lemma: [(frequency, quantified form, fields)]."""
    out: dict[str, list[tuple[int, str, list[str]]]] = {}
    for line in (Path(data_dir) / "lemmes.la").read_text(encoding="utf-8").splitlines():
        if line.startswith("!") or "|" not in line:
            continue
        fields = line.split("|")
        key, _, quantified = fields[0].partition("=")
        freq = int(fields[-1]) if fields[-1].isdigit() else 0
        lemma = normalise_latin(re.sub(r"\d+$", "", key))
        out.setdefault(lemma, []).append((freq, quantified or key, fields))
    return out


@functools.lru_cache(maxsize=2)
def _models(data_dir: str) -> dict[str, dict[str, Any]]:
    return _parse_models((Path(data_dir) / "modeles.la").read_text(encoding="utf-8"))


def collatinus_paradigm(lemma: str, data_dir: str | os.PathLike = COLLATINUS_DIR) -> frozenset[str]:
    """The 12 case forms (sg + pl) of a Latin noun as Collatinus's lexicon generates them, normalised.
    Reads `lemmes.la` (lemma -> model, radicals) and `modeles.la` (model -> endings, with inheritance).

    >>> sorted(collatinus_paradigm("urbs"))          # doctest: +SKIP
    ['urbe', 'urbem', 'urbes', 'urbi', 'urbibus', 'urbis', 'urbium', 'urbs']
    """
    d = Path(data_dir)
    if not (d / "lemmes.la").is_file():
        raise UserError(f"no Collatinus lexicon at {d}: apt-get install collatinus")
    entries = _lexicon(str(d)).get(normalise_latin(lemma))
    if not entries:
        raise UserError(f"{lemma!r} is not in the Collatinus lexicon")
    # homographs (exercitus the noun and the participle): keep the most frequent
    entry = max(entries, key=lambda e: e[0])[1:]
    canonical = re.sub(r"\d+$", "", entry[0].split(",")[0])
    fields = entry[1]
    rules, des = _resolve_model(_models(str(d)), fields[1])
    radicals: dict[int, list[str]] = {}
    for n, spec in rules.items():
        if spec == "K":
            radicals[n] = [canonical]
        elif spec != "-":
            k, _, s = spec.partition(",")
            radicals[n] = [canonical[:len(canonical) - int(k)] + ("" if s == "0" else s)]
    for n, given in ((1, fields[2] if len(fields) > 2 else ""), (2, fields[3] if len(fields) > 3 else "")):
        if given:
            radicals[n] = given.split(",")
    forms = {normalise_latin(r + e) for mo in range(1, 13) for rad, e in des.get(mo, [])
             for r in radicals.get(rad, [])}
    return frozenset(forms)


# ---- corpus --------------------------------------------------------------------------------------

def shared_data_dir() -> Path:
    """`$ICLR25_SHARED/data/11-softmatcha`, by default the repository's sibling `../shared`."""
    root = os.environ.get("ICLR25_SHARED")
    base = Path(root) if root else Path(__file__).resolve().parents[3] / ".." / "shared"
    return (base / "data" / "11-softmatcha").resolve()


def perseus_path() -> Path:
    return shared_data_dir() / "perseus_latin.txt.gz"


def read_corpus(path: str | os.PathLike, line_step: int = 1, max_lines: int | None = None) -> list[str]:
    """Normalised lines of a Latin text file (plain or .gz), every `line_step`-th line (a spread sample of
    all works, not the first few), at most `max_lines`."""
    p = Path(path)
    if not p.is_file():
        raise UserError(f"no Latin corpus at {p}")
    if line_step < 1:
        raise UserError(f"line_step must be >= 1, got {line_step}")
    opener = gzip.open if p.suffix == ".gz" else open
    with opener(p, "rb") as f:
        text = io.TextIOWrapper(f, encoding="utf-8", errors="replace").read()
    lines = [normalise_latin(x) for x in text.splitlines()[::line_step] if x.strip()]
    return lines[:max_lines] if max_lines else lines


_WORD = re.compile(r"[a-z]+")


def words_of(lines: Iterable[str]) -> list[list[str]]:
    """Latin word tokens (letters only) of normalised lines, for fastText training."""
    return [_WORD.findall(x) for x in lines]


# ---- fastText vectors (gensim), cached ------------------------------------------------------------

@dataclass(frozen=True)
class FastTextConfig:
    """Spec §4 (measured there: d=100, min_count=3, 5 epochs, ~7 min on Perseus). `bucket` 2e5 instead of
    gensim's 2e6 n-gram buckets (800 MB). `center`: subtract the mean vector before normalising; our
    small-corpus vectors share a large common direction (mean cosine to the mean ~0.95) that makes every
    cosine ~1; the paper used pre-trained fastText-la and no post-processing."""

    vector_size: int = 100
    min_count: int = 3
    epochs: int = 5
    bucket: int = 200_000
    window: int = 5
    min_n: int = 3
    max_n: int = 6
    workers: int = 1  # 1 worker: gensim is deterministic only single-threaded
    center: bool = True
    seed: int = 0


@dataclass(frozen=True)
class LatinConfig:
    line_step: int = 1  # every k-th line of the corpus
    max_lines: int | None = None
    fasttext: FastTextConfig = FastTextConfig()


PROFILES = {
    "smoke": LatinConfig(line_step=100, fasttext=FastTextConfig(vector_size=24, epochs=1, bucket=20_000,
                                                                   max_n=4)),
    # 3 epochs left the quick vectors collapsed (top direction 99.7% of the variance); 10 are healthy
    "quick": LatinConfig(line_step=10, fasttext=FastTextConfig(vector_size=48, epochs=10, bucket=100_000,
                                                                  max_n=5)),
    "full": LatinConfig(),
}


def _file_digest(p: Path) -> str:
    h = hashlib.sha256()
    with open(p, "rb") as f:
        while chunk := f.read(1 << 22):
            h.update(chunk)
    return h.hexdigest()[:16]


def anisotropy(m: np.ndarray) -> float:
    """Length of the mean unit vector: ~0 for isotropic vectors, -> 1 when all rows point one way (then
    every cosine is ~1 and no threshold separates neighbours from the rest)."""
    u = m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
    return float(np.linalg.norm(u.mean(axis=0)))


def collapse_check(vectors: np.ndarray, words: Sequence[str], seed: int = 0) -> dict[str, float | str]:
    """Health of unit word vectors (rows of `vectors`, row i for words[i]; zero rows ignored): the share
    of variance along the first principal direction, the median cosine of 5000 random word pairs, and
    a nearest-neighbour table for a few probe words (what a reader checks by eye)."""
    u = np.asarray(vectors, dtype=np.float64)
    live = np.flatnonzero(np.linalg.norm(u, axis=1) > 0)
    u = u[live]
    sample = u[np.random.default_rng(seed).permutation(len(u))[:20_000]]
    sv = np.linalg.svd(sample - sample.mean(axis=0), compute_uv=False)
    rng = np.random.default_rng(seed)
    i, j = rng.integers(0, len(u), 5000), rng.integers(0, len(u), 5000)
    row = {words[k]: n for n, k in enumerate(live)}
    table = []
    for w in PROBES:
        if w in row:
            c = u @ u[row[w]]
            best = [k for k in np.argsort(-c)[:6] if k != row[w]][:5]
            table.append(f"{w}: " + ", ".join(f"{words[live[k]]} {c[k]:.2f}" for k in best))
    return {"top_pc_share": float(sv[0] ** 2 / (sv ** 2).sum()),
            "median_cos_random_pairs": float(np.median((u[i] * u[j]).sum(axis=1))),
            "nearest_neighbours": "; ".join(table)}


def train_vectors(sentences: Sequence[Sequence[str]], cfg: FastTextConfig, vocab: Sequence[str]
                  ) -> tuple[np.ndarray, float]:
    """fastText (gensim) vectors for every word of `vocab` (rare words get their n-gram vectors),
    mean-centred when `cfg.center`, and the anisotropy of the raw vectors.
    Returns ((len(vocab), d) float32 not yet normalised, anisotropy)."""
    try:
        from gensim.models import FastText
    except ImportError:
        raise UserError("training Latin vectors needs gensim: pip install gensim==4.4.0") from None
    model = FastText(sentences=[list(s) for s in sentences], vector_size=cfg.vector_size,
                     min_count=cfg.min_count, epochs=cfg.epochs, bucket=cfg.bucket, window=cfg.window,
                     min_n=cfg.min_n, max_n=cfg.max_n, workers=cfg.workers, seed=cfg.seed)
    m = np.vstack([model.wv[w] for w in vocab]).astype(np.float32)
    raw = anisotropy(m)
    if cfg.center:  # the trained (min_count) vocabulary defines the mean
        m -= model.wv.vectors.mean(axis=0, keepdims=True).astype(np.float32)
    return m, raw


def latin_embeddings(lines: Sequence[str], cfg: FastTextConfig, cache_key: str):
    """Embeddings over all Latin words of `lines`, trained once and cached (atomic .npz) under
    cache_dir()/softmatcha/latin/<hash>.npz."""
    from iclr25.softmatcha.embeddings import Embeddings
    path = cache_dir() / "softmatcha" / "latin" / f"vectors-{cache_key}.npz"
    if path.is_file():
        with np.load(path) as z:
            if "anisotropy" in z:  # else: written by an older version, retrain below
                emb = Embeddings.from_arrays([str(w) for w in z["words"]], z["vectors"],
                                             name=f"fasttext-la-{cache_key}")
                emb.raw_anisotropy = float(z["anisotropy"])
                return emb
    sents = words_of(lines)
    vocab = sorted({w for s in sents for w in s})
    m, aniso = train_vectors(sents, cfg, vocab)
    with atomic_write(path) as f:
        np.savez(f, words=np.array(vocab), vectors=m, anisotropy=np.float64(aniso))
    emb = Embeddings.from_arrays(vocab, m, name=f"fasttext-la-{cache_key}")
    emb.raw_anisotropy = aniso
    return emb


def latin_index(corpus: str | os.PathLike, config: LatinConfig):
    """Vectors + index for `corpus` under `config`, both cached by (corpus digest, config) hash."""
    from iclr25.softmatcha.index import Index
    p = Path(corpus)
    if not p.is_file():
        raise UserError(f"no Latin corpus at {p}")
    key = config_hash({"corpus": _file_digest(p), **asdict(config)})
    lines = read_corpus(p, config.line_step, config.max_lines)
    if not lines:
        raise UserError(f"the Latin corpus {p} has no lines")
    emb = latin_embeddings(lines, config.fasttext, key)
    out = cache_dir() / "softmatcha" / "latin" / f"index-{key}"
    return Index.load_or_build(out, embeddings=emb, lines=lines)


def publish_for_web(index: Any, folder: str | os.PathLike, name: str = "latin") -> Path:
    """Copy a Latin index (and its self-trained vectors, beside it) into the folder `iclr25 serve
    --indexes FOLDER` reads, so the search page can query it. Returns the new index folder."""
    from iclr25.softmatcha.web import INDEX_NAME, export_embeddings
    if not INDEX_NAME.match(name):
        raise UserError(f"invalid index name {name!r}: letters, digits, '.', '_' and '-' only")
    out = Path(folder) / name
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(index.path, out)
    export_embeddings(index.embeddings, out)
    return out


# ---- the measurement -----------------------------------------------------------------------------

@dataclass(frozen=True)
class LemmaScore:
    lemma: str
    alpha: float
    form_occurrences: int  # occurrences of all paradigm forms in the corpus
    exact_hits: int  # occurrences of the query form itself
    soft_hits: int  # all soft matches of the query
    soft_true: int  # soft matches that are paradigm forms

    @property
    def recall(self) -> float:
        return self.soft_true / self.form_occurrences if self.form_occurrences else float("nan")

    @property
    def exact_recall(self) -> float:
        return self.exact_hits / self.form_occurrences if self.form_occurrences else float("nan")

    @property
    def precision(self) -> float:
        return self.soft_true / self.soft_hits if self.soft_hits else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r > 0 else 0.0


class LemmaProbe:
    """Step 1 of SoftMatcha for one single-token query, kept as scores over the corpus types, so any
    alpha costs one comparison (a one-token pattern's hits are exactly the occurrences of its soft set)."""

    def __init__(self, index: Any, lemma: Lemma) -> None:
        self.index, self.lemma = index, lemma
        (slot,), _ = index.slots(lemma.lemma, 0.0)
        self.scores = slot.scores  # (n_types,) s(w, q) = max(0, cos)
        vocab = index.vocab
        forms = paradigm(lemma)
        self.is_form = np.fromiter((w in forms for w in vocab), dtype=bool, count=len(vocab))
        self.query_id = int(np.argmax(self.scores)) if self.scores.size else 0  # s(q, q) = 1, the maximum
        self.is_form[0] = False  # the separator
        self.freq = np.asarray(index.frequencies, dtype=np.int64)
        self.exact = int(index.frequency(lemma.lemma))

    def at(self, alpha: float) -> LemmaScore:
        mask = self.scores >= alpha
        mask[0] = False
        return LemmaScore(self.lemma.lemma, alpha, int(self.freq[self.is_form].sum()), self.exact,
                          int(self.freq[mask].sum()), int(self.freq[mask & self.is_form].sum()))

    def top_non_form(self) -> float:
        """The highest score of a word outside the paradigm (the closest look-alike or neighbour)."""
        sc = np.where(self.is_form, -1.0, self.scores)
        sc[0] = -1.0
        return float(sc.max())

    def median_form_score(self) -> float:
        """Median score of the lemma's other attested forms (the query form itself excluded)."""
        other = self.is_form & (self.freq > 0)
        other[self.query_id] = False
        return float(np.median(self.scores[other])) if other.any() else float("nan")

    def false_positives(self, alpha: float, k: int = 3) -> list[tuple[str, float, int]]:
        """The top-k non-paradigm words in the soft set: (word, score, corpus frequency)."""
        mask = (self.scores >= alpha) & ~self.is_form
        mask[0] = False
        ids = np.flatnonzero(mask)
        ids = ids[np.argsort(-self.scores[ids], kind="stable")][:k]
        return [(self.index.vocab[i], float(self.scores[i]), int(self.freq[i])) for i in ids]

    def lookalike_share(self, alpha: float) -> tuple[int, int]:
        """(false-positive occurrences, of which orthographic look-alikes; see `is_lookalike`)."""
        mask = (self.scores >= alpha) & ~self.is_form
        mask[0] = False
        ids = np.flatnonzero(mask)
        look = [i for i in ids.tolist() if is_lookalike(self.lemma, self.index.vocab[i])]
        return int(self.freq[ids].sum()), int(self.freq[look].sum())


def is_lookalike(lemma: Lemma, word: str) -> bool:
    """A non-paradigm word spelled like the lemma: it contains the stem (3+ letters) or shares the
    citation form's last 3 letters and is close in spelling (bellum -> labellum, rex -> grex).

    >>> is_lookalike(LEMMAS["bellum"], "labellum"), is_lookalike(LEMMAS["bellum"], "pax")
    (True, False)
    """
    q = lemma.lemma
    if len(lemma.stem) >= 3 and lemma.stem in word:
        return True
    return len(q) >= 3 and word.endswith(q[-3:]) and difflib.SequenceMatcher(None, q, word).ratio() >= 0.6


def calibrate_alpha(probes: Sequence[LemmaProbe], grid: Sequence[float] = ALPHA_GRID) -> float:
    """The alpha of `grid` with the best mean F1 over `probes` (ties: the higher alpha)."""
    best, best_f1 = grid[-1], -1.0
    for a in grid:
        f1 = float(np.mean([p.at(a).f1 for p in probes]))
        if f1 >= best_f1:
            best, best_f1 = a, f1
    return float(best)


def _mean(xs: Iterable[float]) -> float:
    v = [x for x in xs if np.isfinite(x)]
    return float(np.mean(v)) if v else float("nan")


def evaluate(index: Any, calibration: Sequence[Lemma] = CALIBRATION_LEMMAS,
             evaluation: Sequence[Lemma] = EVALUATION_LEMMAS) -> dict[str, Any]:
    """Calibrate alpha on `calibration`, then score every evaluation lemma whose forms occur, at the
    calibrated alpha and at the spec's fixed 0.75; also the look-alike noise and the best any alpha of
    the grid could do (the largest recall ratio among alphas with mean precision >= 0.5)."""
    cal = [LemmaProbe(index, x) for x in calibration if _occurs(index, x)]
    if not cal:
        raise UserError("no calibration lemma occurs in the corpus")
    alpha = calibrate_alpha(cal)
    probes = [LemmaProbe(index, x) for x in evaluation if _occurs(index, x)]
    out: dict[str, Any] = {"alpha": alpha, "scores": [p.at(alpha) for p in probes],
                           "at_spec": [p.at(SPEC_ALPHA) for p in probes]}
    for key, a in (("calibrated", alpha), ("spec", SPEC_ALPHA)):
        fp = look = 0
        examples: list[tuple[str, str, float]] = []
        for p in probes:
            x, y = p.lookalike_share(a)
            fp, look = fp + x, look + y
            examples += [(p.lemma.lemma, w, sc) for w, sc, _ in p.false_positives(a, 1)]
        examples.sort(key=lambda e: -e[2])
        out[f"noise_{key}"] = (fp, look, examples[:4])
    # does a look-alike outrank the lemma's own inflections? (top non-form score vs median form score)
    out["lookalike_beats_forms"] = sum(p.top_non_form() > p.median_form_score() for p in probes)
    best = (0.0, float("nan"))
    for a in ALPHA_GRID:
        sc = [p.at(a) for p in probes]
        r, e, pr = (_mean(s.recall for s in sc), _mean(s.exact_recall for s in sc),
                    _mean(s.precision for s in sc))
        if pr >= MIN_PRECISION and e > 0 and r / e > best[0]:
            best = (r / e, a)
    out["oracle"] = best
    # Step 2 check: a 1-token search's hit count is the soft set's total frequency
    if probes:
        s0 = out["scores"][0]
        hits = index.count(s0.lemma, alpha)
        if hits != s0.soft_hits:
            raise AssertionError(f"search found {hits} hits for {s0.lemma!r}, Step 1 counts {s0.soft_hits}")
    return out


def _occurs(index: Any, lem: Lemma) -> bool:
    return index.frequency(lem.lemma) > 0


def measure_latin(profile: str, ctx: Any, corpus: str | os.PathLike | None = None) -> Finding:
    """Claim C on `corpus` (default: the Perseus text in shared/data) at the profile's size."""
    if profile not in PROFILES:
        raise UserError(f"unknown profile {profile!r}; choose from {', '.join(PROFILES)}")
    path = Path(corpus) if corpus is not None else perseus_path()
    if not path.is_file():
        return Finding.not_testable(CLAIM_KEY, f"Latin corpus not found at {path} (the Perseus text "
                                    "of shared/data/11-softmatcha); pass your own corpus path")
    config = PROFILES[profile]
    seed = getattr(ctx, "seed", 0)
    config = replace(config, fasttext=replace(config.fasttext, seed=seed))
    with timer() as t_build:
        index = latin_index(path, config)
    health = collapse_check(index.embeddings.vectors, index.embeddings.words, seed)
    health["vector_anisotropy"] = float(getattr(index.embeddings, "raw_anisotropy", float("nan")))
    if health["top_pc_share"] > MAX_TOP_PC_SHARE or health["median_cos_random_pairs"] > MAX_MEDIAN_COS:
        return Finding.not_testable(
            CLAIM_KEY, f"the fastText vectors trained here collapsed (first direction "
            f"{health['top_pc_share']:.0%} of the variance, need <= {MAX_TOP_PC_SHARE:.0%}; median cosine of "
            f"random word pairs {health['median_cos_random_pairs']:.2f}, need <= {MAX_MEDIAN_COS}): no "
            f"threshold can separate a lemma's forms with them, so the claim is not scored", **health)
    with timer() as t_eval:
        res = evaluate(index)
    scores: list[LemmaScore] = res["scores"]
    recall = _mean(s.recall for s in scores)
    exact = _mean(s.exact_recall for s in scores)
    precision = _mean(s.precision for s in scores)
    spec = res["at_spec"]
    fp_c, look_c, _ = res["noise_calibrated"]
    fp_s, look_s, ex_s = res["noise_spec"]
    noise = "; ".join(f"{q}->{w} {sc:.2f}" for q, w, sc in ex_s)
    oracle_ratio, oracle_alpha = res["oracle"]
    measured: dict[str, float | int | str] = {
        "alpha_calibrated": res["alpha"], "n_lemmas": len(scores), "corpus_tokens": index.n_tokens,
        "latin_recall_soft": [s.recall for s in scores],
        "latin_recall_exact": [s.exact_recall for s in scores],
        "latin_precision": [s.precision for s in scores],
        "recall_soft": recall, "recall_exact": exact,
        "recall_ratio": recall / exact if exact else float("inf"),
        "precision": precision,
        "recall_soft_at_0.75": _mean(s.recall for s in spec),
        "precision_at_0.75": _mean(s.precision for s in spec),
        "false_hits_at_0.75": fp_s,
        "lookalike_share_of_false_hits_at_0.75": look_s / fp_s if fp_s else 0.0,
        "lookalike_share_of_false_hits": look_c / fp_c if fp_c else 0.0,
        "lemmas_where_a_non_form_outranks_the_forms": res["lookalike_beats_forms"],
        "best_recall_ratio_any_alpha_at_precision_0.5": oracle_ratio,
        "best_alpha": oracle_alpha,
        "noise_examples_at_0.75": noise,
        "per_lemma": "; ".join(f"{s.lemma} r={s.recall:.2f}/{s.exact_recall:.2f} p={s.precision:.2f}"
                               for s in scores),
        **health,
        "build_s": t_build["s"], "evaluate_s": t_eval["s"],
    }
    summary = (f"alpha={res['alpha']:.2f} (calibrated on {len(CALIBRATION_LEMMAS)} lemmas): recall of all "
               f"forms {recall:.2f} vs exact {exact:.2f} ({measured['recall_ratio']:.1f}x, need 2x), "
               f"precision {precision:.2f}, {len(scores)} lemmas, {index.n_tokens:,} tokens (fastText "
               f"trained here; the paper used pre-trained fastText-la, a hub download); "
               + (f"best any alpha reaches at precision >= 0.5: {oracle_ratio:.2f}x. "
                  if oracle_ratio > 0 else "no alpha reaches precision 0.5. ")
               + f"Noise: in "
               f"{res['lookalike_beats_forms']}/{len(scores)} lemmas a non-form outranks the median form; "
               f"at alpha 0.75 look-alikes are {measured['lookalike_share_of_false_hits_at_0.75']:.0%} of "
               f"false hits (e.g. {noise.split('; ')[0] or 'none'})")
    return Finding.measure(CLAIM_KEY, measured, summary)
