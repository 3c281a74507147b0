"""The paper's summary statistics over a benchmark table (Table 1, Sec. 4.2): degenerate rate, win share,
average rank, worse-than-constant rate, orthogonal win share, and MRR of a ranking."""

from __future__ import annotations

import numpy as np
import pandas as pd

from iclr25.cate_benchmark.learners import CONSTANT_BASELINE


def _scored(table: pd.DataFrame, col: str) -> pd.DataFrame:
    return table[np.isfinite(table[col])]


def _heterogeneous(table: pd.DataFrame) -> pd.DataFrame:
    """The CATE estimates proper: learners that may vary with x (not the constant or zero models)."""
    return table[~table["constant"].astype(bool)]


def degenerate_rate(table: pd.DataFrame, col: str = "q_hat") -> float:
    """Share of (heterogeneous learner, variant) pairs with Q̂ ≥ 0 (paper: 62%)."""
    t = _scored(_heterogeneous(table), col)
    return float((t[col] >= 0).mean()) if len(t) else float("nan")


def significant_degenerate_share(table: pd.DataFrame, col: str = "q_hat", se: str = "se",
                                 z: float = 1.96) -> float:
    """Among degenerate estimates, the share with Q̂ significantly above 0 at 5% (paper: 94% ≠ 0)."""
    t = _scored(_heterogeneous(table), col)
    t = t[t[col] >= 0]
    return float((t[col] > z * t[se]).mean()) if len(t) else float("nan")


def per_learner_degenerate(table: pd.DataFrame, col: str = "q_hat") -> pd.Series:
    t = _scored(table[table["learner"] != "zero"], col)
    return (t[col] >= 0).groupby(t["learner"]).mean().sort_values()


def winners(table: pd.DataFrame, col: str = "q_hat") -> pd.Series:
    """The learner with the lowest Q̂ per variant, among all learners except the zero reference."""
    t = _scored(table[table["learner"] != "zero"], col)
    return t.loc[t.groupby("variant")[col].idxmin(), ["variant", "learner"]].set_index("variant")["learner"]


def win_share(table: pd.DataFrame, col: str = "q_hat") -> pd.Series:
    """Share of variants each learner wins (lowest Q̂)."""
    w = winners(table, col)
    return w.value_counts(normalize=True).sort_values(ascending=False)


def avg_rank(table: pd.DataFrame, col: str = "q_hat") -> pd.Series:
    """Mean rank of each learner across variants (1 = lowest Q̂)."""
    t = _scored(table, col).copy()
    t["rank"] = t.groupby("variant")[col].rank(method="average")
    return t.groupby("learner")["rank"].mean().sort_values()


def useful_variants(table: pd.DataFrame, col: str = "q_hat") -> pd.Index:
    """Variants where at least one heterogeneous learner beats zero (paper: 96% of datasets)."""
    t = _scored(_heterogeneous(table), col)
    ok = (t[col] < 0).groupby(t["variant"]).any()
    return ok.index[ok.to_numpy()]


def worse_than_constant_rate(table: pd.DataFrame, col: str = "q_hat",
                             baseline: str = CONSTANT_BASELINE) -> float:
    """Among variants with ≥ 1 useful estimate, the share of heterogeneous estimates whose Q̂ is above the
    constant-effect model's (paper: 80%, against τ̂_B = dml.lasso)."""
    t = _scored(table, col)
    t = t[t["variant"].isin(useful_variants(t, col))]
    base = t[t["learner"] == baseline].set_index("variant")[col]
    h = _heterogeneous(t)
    h = h[h["variant"].isin(base.index)]
    return float((h[col].to_numpy() > base.loc[h["variant"]].to_numpy()).mean()) if len(h) else float("nan")


def orthogonal_win_share(table: pd.DataFrame, col: str = "q_hat") -> float:
    """Share of variants whose winner is an orthogonality-based learner (R / DR / DML; paper: 30%)."""
    w = winners(table, col)
    orth = table.drop_duplicates("learner").set_index("learner")["orthogonal"].astype(bool)
    return float(orth.loc[w.to_numpy()].mean()) if len(w) else float("nan")


def reciprocal_rank(scores: np.ndarray, oracle: np.ndarray) -> float:
    """1 / (position of the oracle-best model in the ranking by `scores`; lower score = better).

    >>> reciprocal_rank(np.array([0.3, 0.1, 0.2]), np.array([2.0, 3.0, 1.0]))
    0.5
    """
    best = int(np.argmin(oracle))
    return 1.0 / (1 + int(np.sum(scores < scores[best])))


def mrr(score_sets: list[np.ndarray], oracle_sets: list[np.ndarray]) -> float:
    """Mean reciprocal rank of the oracle-best model over repetitions."""
    return float(np.mean([reciprocal_rank(s, o) for s, o in zip(score_sets, oracle_sets, strict=True)]))


def per_dataset(table: pd.DataFrame) -> pd.DataFrame:
    """Per dataset: degenerate rate, and how much heterogeneity the models reveal, from Q̂-DR.

    −Q(τ̂) = E[τ²] − MSE(τ̂) ≤ E[τ²] holds for the true Q, but the minimum of noisy Q̂ over learners is
    biased downwards (winner's curse), so −min Q̂ is no lower bound. We pick the best learner by its mean
    Q̂-DR over the dataset's variants and report that mean with its standard error (still optimistic by
    the selection), −Q̂-DR of the constant model dml.lasso (about ATE²), and Q̂-HT beside them with a flag
    where its SE exceeds its magnitude (then HT is noise there, e.g. STAR's large-variance outcomes)."""
    rows = []
    for name, t in table[table["learner"] != "zero"].groupby("dataset"):
        h = _heterogeneous(_scored(t, "q_hat"))
        by = t.groupby("learner").agg(dr=("q_hat_dr", "mean"), se_dr=("se_dr", "mean"), ht=("q_hat", "mean"),
                                      se_ht=("se", "mean"), k=("variant", "nunique"))
        by = by[np.isfinite(by["dr"])]
        if by.empty:
            continue
        best = str(by["dr"].idxmin())
        b = by.loc[best]
        const = -float(by.loc[CONSTANT_BASELINE, "dr"]) if CONSTANT_BASELINE in by.index else float("nan")
        rows.append({"dataset": name, "variants": t["variant"].nunique(),
                     "degenerate_rate": float((h["q_hat"] >= 0).mean()) if len(h) else float("nan"),
                     "best_learner_dr": best, "neg_best_q_hat_dr": -float(b["dr"]),
                     "se_best_q_hat_dr": float(b["se_dr"] / np.sqrt(b["k"])),  # SE of a k-variant mean
                     "neg_constant_q_hat_dr": const, "neg_best_q_hat_ht": -float(b["ht"]),
                     "ht_se_exceeds_value": bool(b["se_ht"] > abs(b["ht"])),
                     "winner_mode": winners(t, "q_hat_dr").mode().iloc[0]})
    return pd.DataFrame(rows)


def summarize(table: pd.DataFrame, col: str = "q_hat") -> dict[str, float]:
    """The headline numbers of a benchmark table."""
    n_var = table["variant"].nunique()
    return {
        "variants": n_var,
        "estimates": int(len(_heterogeneous(table))),
        "degenerate_rate": degenerate_rate(table, col),
        "significant_degenerate_share": significant_degenerate_share(table, col,
                                                                     "se_dr" if col == "q_hat_dr" else "se"),
        "useful_variant_share": len(useful_variants(table, col)) / n_var if n_var else float("nan"),
        "worse_than_constant_rate": worse_than_constant_rate(table, col),
        "orthogonal_win_share": orthogonal_win_share(table, col),
        "failed_fits": int((table["error"] != "").sum()),
    }


def dataset_bootstrap_se(table: pd.DataFrame, stats: dict, n_boot: int = 200,
                         seed: int = 0) -> dict[str, float]:
    """Standard errors of summary statistics with the data sets as the unit: resample data sets with
    replacement (each with all its variants and repetitions; a data set drawn twice counts twice) and
    recompute. Variants of one data set share its covariates and outcome, so treating the variants as
    independent would understate the uncertainty. `stats`: name -> function of a table."""
    rng = np.random.default_rng(seed)
    names = table["dataset"].unique()
    parts = {n: t for n, t in table.groupby("dataset")}
    draws: dict[str, list[float]] = {k: [] for k in stats}
    for _ in range(n_boot):
        pick = rng.choice(names, size=len(names), replace=True)
        boot = pd.concat([parts[n].assign(variant=parts[n]["variant"].astype(str) + f"#{i}")
                          for i, n in enumerate(pick)], ignore_index=True)
        for k, fn in stats.items():
            draws[k].append(fn(boot))
    return {k: float(np.nanstd(v, ddof=1)) for k, v in draws.items()}
