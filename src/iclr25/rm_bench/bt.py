"""A reward model trained here: Bradley–Terry logistic regression on frozen text features.

    P(y_c ≻ y_r | x) = σ(r(x, y_c) − r(x, y_r)),   r(x, y) = wᵀ φ(x, y),   φ(x, y) = [e(x) ⊙ e(y), e(y)]

with e = TF-IDF or MiniLM vectors. Maximising the BT likelihood is logistic regression without intercept
on the differences φ(x, y_c) − φ(x, y_r). Trained on same-style pairs ("diagonal", the usual preference
data) or on all 9 style pairs ("all"); `score_items` scores each item out of fold (k folds by prompt)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from iclr25.core.errors import UserError
from iclr25.rm_bench.data import Item

FEATURES = ("tfidf", "minilm")
PAIRS = ("diagonal", "all")


@dataclass(frozen=True)
class BTConfig:
    features: str = "tfidf"  # e(·): tfidf | minilm
    pairs: str = "diagonal"  # training pairs: same style only | all 9 style pairs
    folds: int = 5  # cross-validation folds, split by prompt
    C: float = 1.0  # inverse L2 strength of the logistic regression
    max_length: int = 128  # MiniLM word pieces
    max_features: int = 20_000  # TF-IDF vocabulary
    seed: int = 0  # fold assignment and label flips


def _style_pairs(pairs: str) -> list[tuple[int, int]]:
    return [(k, k) for k in range(3)] if pairs == "diagonal" else [(i, j) for i in range(3) for j in range(3)]


class BTRewardModel:
    """Bradley–Terry reward model. `fit(items)`, then `model(prompts, responses)` -> rewards; or
    `score_items(items)` for out-of-fold rewards of every item (what `evaluate` uses).

    Fitted state: `vectorizer_` (TF-IDF) and `w_` (the reward weights)."""

    def __init__(self, features: str = "tfidf", pairs: str = "diagonal", folds: int = 5, C: float = 1.0,  # noqa: N803
                 max_length: int = 128, seed: int = 0, mapper: Callable | None = None) -> None:
        if features not in FEATURES:
            raise UserError(f"features must be one of {', '.join(FEATURES)}, got {features!r}"[:200])
        if pairs not in PAIRS:
            raise UserError(f"pairs must be one of {', '.join(PAIRS)}, got {pairs!r}"[:200])
        if not 2 <= folds <= 100:
            raise UserError(f"folds must be in [2, 100], got {folds}")
        if not (np.isfinite(C) and C > 0):
            raise UserError(f"C must be a finite number > 0, got {C}")
        self.config = BTConfig(features, pairs, folds, float(C), max_length, seed=int(seed))
        self.mapper = mapper
        self._vectors: dict[str, np.ndarray] | None = None  # MiniLM vectors shared across folds
        self._counts: tuple[dict[str, int], object] | None = None  # term counts shared across folds

    @property
    def name(self) -> str:
        return f"bt-{self.config.features}-{self.config.pairs}"

    # ---- e(·) and φ(x, y) ---------------------------------------------------------------------------
    def _embed(self, texts: list[str]):
        """e(t) of each text, each distinct text computed once (prompts repeat across pairs)."""
        unique = list(dict.fromkeys(texts))
        index = {t: i for i, t in enumerate(unique)}
        rows = [index[t] for t in texts]
        if self.config.features == "tfidf":
            if self._counts is not None and all(t in self._counts[0] for t in unique):
                lookup, counts = self._counts
                tf = counts[[lookup[t] for t in unique]]
                return self.vectorizer_.transform(tf)[rows]  # (n, V) sparse, rows unit norm
            return self.vectorizer_.transform(unique)[rows]
        if self._vectors is None or any(t not in self._vectors for t in unique):
            from iclr25.rm_bench.embed import minilm_vectors
            return minilm_vectors(texts, self.config.max_length, self.mapper)
        return np.stack([self._vectors[t] for t in unique])[rows]  # (n, 384)

    def _phi(self, prompts: list[str], responses: list[str]):
        """φ(x, y) = [e(x) ⊙ e(y), e(y)]: (n, 2d)."""
        p, r = self._embed(prompts), self._embed(responses)
        if self.config.features == "tfidf":
            import scipy.sparse as sp
            return sp.hstack([p.multiply(r), r]).tocsr()
        return np.hstack([p * r, r])

    # ---- training ------------------------------------------------------------------------------------
    def fit(self, items: Sequence[Item]) -> BTRewardModel:
        from sklearn.linear_model import LogisticRegression
        items = list(items)
        if len(items) < 2:
            raise UserError(f"a reward model needs at least 2 training items, got {len(items)}")
        if self.config.features == "tfidf":
            texts = list(dict.fromkeys(t for it in items for t in (it.prompt, *it.chosen, *it.rejected)))
            if self._counts is not None:  # cross-validation: idf from this fold's training texts only
                from sklearn.feature_extraction.text import TfidfTransformer
                lookup, counts = self._counts
                self.vectorizer_ = TfidfTransformer(sublinear_tf=True).fit(counts[[lookup[t] for t in texts]])
            else:
                from sklearn.feature_extraction.text import TfidfVectorizer
                self.vectorizer_ = TfidfVectorizer(sublinear_tf=True, max_features=self.config.max_features,
                                                   dtype=np.float64).fit(texts)
        pairs = _style_pairs(self.config.pairs)
        prompts = [it.prompt for it in items for _ in pairs]
        phi_c = self._phi(prompts, [it.chosen[i] for it in items for i, _ in pairs])
        phi_r = self._phi(prompts, [it.rejected[j] for it in items for _, j in pairs])
        diff = phi_c - phi_r  # (pairs, 2d): BT sees only reward differences
        # Flip half the pairs so logistic regression sees two classes; without an intercept this is the
        # BT likelihood, unchanged by the flips.
        sign = np.random.default_rng(self.config.seed).choice([-1.0, 1.0], size=diff.shape[0])
        x = diff.multiply(sign[:, None]).tocsr() if hasattr(diff, "multiply") else diff * sign[:, None]
        clf = LogisticRegression(C=self.config.C, fit_intercept=False, max_iter=2000)
        clf.fit(x, (sign > 0).astype(int))
        self.w_ = clf.coef_[0]
        return self

    def __call__(self, prompts: Sequence[str], responses: Sequence[str]) -> np.ndarray:
        if not hasattr(self, "w_"):
            raise UserError("fit the reward model before scoring (or use score_items for cross-validation)")
        prompts, responses = list(prompts), list(responses)
        if len(prompts) != len(responses):
            raise UserError(f"{len(prompts)} prompts for {len(responses)} responses")
        return np.asarray(self._phi(prompts, responses) @ self.w_, dtype=np.float64).ravel()

    def fold_of(self, items: Sequence[Item]) -> np.ndarray:
        """Fold number of each item: prompts shuffled by the seed and dealt round-robin, so items that
        share a prompt always share a fold."""
        prompts = sorted({it.prompt for it in items})
        if len(prompts) < self.config.folds:
            raise UserError(f"{len(prompts)} distinct prompts cannot fill {self.config.folds} folds")
        order = np.random.default_rng([self.config.seed, 1]).permutation(len(prompts))
        fold = {prompts[k]: rank % self.config.folds for rank, k in enumerate(order)}
        return np.array([fold[it.prompt] for it in items])

    def score_items(self, items: Sequence[Item]) -> tuple[np.ndarray, np.ndarray]:
        """Out-of-fold rewards (chosen (n, 3), rejected (n, 3)): each fold is scored by a model trained
        on the other folds."""
        items = list(items)
        folds = self.fold_of(items)
        texts = sorted({t for it in items for t in (it.prompt, *it.chosen, *it.rejected)})
        if self.config.features == "minilm":
            from iclr25.rm_bench.embed import minilm_vectors
            vecs = minilm_vectors(texts, self.config.max_length, self.mapper)
            shared = dict(zip(texts, vecs, strict=True))
        else:
            # Words are counted once for all folds; the vocabulary (the most frequent terms) uses no
            # labels, and each fold's idf comes from its training texts alone.
            from sklearn.feature_extraction.text import CountVectorizer
            counts = CountVectorizer(max_features=self.config.max_features).fit_transform(texts)
            shared_counts = ({t: i for i, t in enumerate(texts)}, counts.tocsr())
        ch = np.zeros((len(items), 3))
        rej = np.zeros((len(items), 3))
        for k in range(self.config.folds):
            model = BTRewardModel(**{f: getattr(self.config, f) for f in
                                     ("features", "pairs", "folds", "C", "max_length", "seed")})
            if self.config.features == "minilm":
                model._vectors = shared
            else:
                model._counts = shared_counts
            test = np.flatnonzero(folds == k)
            model.fit([items[i] for i in np.flatnonzero(folds != k)])
            prompts = [items[i].prompt for i in test for _ in range(6)]
            responses = [y for i in test for y in (*items[i].chosen, *items[i].rejected)]
            s = model(prompts, responses).reshape(-1, 2, 3)
            ch[test], rej[test] = s[:, 0], s[:, 1]
        return ch, rej
