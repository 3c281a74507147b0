"""The benchmark runner and the paper's summaries: tidy table, determinism, hand-checked statistics."""

from __future__ import annotations

import importlib.util
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from iclr25.cate_benchmark import Benchmark, GridPoint, paper_grid
from iclr25.cate_benchmark.summaries import (
    avg_rank,
    degenerate_rate,
    mrr,
    orthogonal_win_share,
    per_dataset,
    summarize,
    win_share,
    worse_than_constant_rate,
)
from iclr25.core.errors import UserError
from iclr25.core.runtime import RunContext

needs_causaldata = pytest.mark.skipif(importlib.util.find_spec("causaldata") is None,
                                      reason="needs the causaldata package (pip install causaldata)")


def test_paper_grid_has_36_configurations():
    g = paper_grid()
    assert len(g) == 36 and len({p.label for p in g}) == 36


@needs_causaldata
def test_runner_gives_tidy_deterministic_table():
    kw = {"datasets": ["social_insure"], "learners": ["t.lasso", "dml.lasso", "const.ipw", "zero"],
          "grid": [GridPoint("mild", 0.5, 200)], "reps": 2, "seed": 3}
    a = Benchmark(**kw).run()
    b = Benchmark(**kw).run(RunContext(backend="process", workers=2))
    assert len(a) == 2 * 4 and a["variant"].nunique() == 2
    assert (a["error"] == "").all() and (a["n_train"] <= 200).all()
    assert (a.loc[a["learner"] == "zero", "q_hat"] == 0.0).all()
    cols = ["variant", "learner", "q_hat", "se", "q_hat_dr", "tau_mean"]
    pd.testing.assert_frame_equal(a[cols], b[cols])
    c = Benchmark(**{**kw, "seed": 4}).run()
    assert not np.allclose(a["q_hat"], c["q_hat"])


def test_runner_rejects_bad_names():
    with pytest.raises(UserError, match="unknown dataset"):
        Benchmark(datasets="nope")
    with pytest.raises(UserError, match="unknown learner"):
        Benchmark(datasets="nswdemo", learners="s.magic")
    with pytest.raises(UserError, match="reps"):
        Benchmark(datasets="nswdemo", reps=0)


def _table():
    """Two variants, hand-made: v1 has a useful model, v2 none."""
    rows = [
        # variant, learner, q, orthogonal, constant
        ("v1", "s.lasso", -2.0, False, False), ("v1", "r.lasso", 1.0, True, False),
        ("v1", "t.lasso", -0.5, False, False), ("v1", "dml.lasso", -1.0, True, True),
        ("v1", "zero", 0.0, False, True),
        ("v2", "s.lasso", 0.5, False, False), ("v2", "r.lasso", 0.2, True, False),
        ("v2", "t.lasso", 3.0, False, False), ("v2", "dml.lasso", -0.1, True, True),
        ("v2", "zero", 0.0, False, True),
    ]
    t = pd.DataFrame(rows, columns=["variant", "learner", "q_hat", "orthogonal", "constant"])
    t["se"] = 0.1
    t["error"] = ""
    return t


def test_summaries_on_a_hand_made_table():
    t = _table()
    assert degenerate_rate(t) == pytest.approx(4 / 6)  # r,s-v2,r-v2,t-v2 ≥ 0 of 6 heterogeneous
    # only v1 is useful; its heterogeneous q's (-2, 1, -0.5) vs dml.lasso's -1: 1 and -0.5 are worse
    assert worse_than_constant_rate(t) == pytest.approx(2 / 3)
    assert win_share(t).to_dict() == {"s.lasso": 0.5, "dml.lasso": 0.5}
    assert orthogonal_win_share(t) == pytest.approx(0.5)
    assert avg_rank(t)["s.lasso"] == pytest.approx((1 + 4) / 2)
    s = summarize(t)
    assert s["variants"] == 2 and s["useful_variant_share"] == 0.5 and s["failed_fits"] == 0


def test_per_dataset_reports_heterogeneity_bounds():
    t = _table()
    t["dataset"] = "d"
    t["q_hat_dr"], t["se_dr"] = t["q_hat"] * 0.5, 0.2
    row = per_dataset(t).iloc[0]
    assert row["variants"] == 2 and row["degenerate_rate"] == pytest.approx(4 / 6)
    # the best learner by mean Q̂-DR over variants (not the per-variant minimum: winner's curse)
    assert row["best_learner_dr"] == "s.lasso"  # mean Q̂ (-2 + 0.5) / 2 beats dml.lasso's (-1 - 0.1) / 2
    assert row["neg_best_q_hat_dr"] == pytest.approx(0.5 * (2.0 - 0.5) / 2)
    assert row["se_best_q_hat_dr"] == pytest.approx(0.2 / 2 ** 0.5)
    assert row["neg_constant_q_hat_dr"] == pytest.approx(0.5 * (1.0 + 0.1) / 2)
    assert not row["ht_se_exceeds_value"]  # HT mean -0.75 with SE 0.1
    t["se"] = 5.0
    assert per_dataset(t).iloc[0]["ht_se_exceeds_value"]


def test_mrr():
    oracle = [np.array([1.0, 2.0, 3.0]), np.array([3.0, 1.0, 2.0])]
    assert mrr([np.array([0.0, 1.0, 2.0]), np.array([0.0, 1.0, 2.0])], oracle) == pytest.approx((1 + 0.5) / 2)


def test_ranking_rep_scores_every_model_at_every_evaluation_size():
    from iclr25.cate_benchmark.semisynthetic import DESIGNS, ranking_rep
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    cfg = replace(DESIGNS["low_signal"], n_train=200, eval_sizes=(200, 400), n_oracle=1000,
                  learners=("t.lasso", "zero"))
    r = ranking_rep((X, 0, cfg))
    assert r.q_ht.shape == r.q_dr.shape == r.plugin.shape == (2, 2) and r.oracle_mse.shape == (2,)
    # the zero model's Q̂ is 0 by definition at every size
    assert np.allclose(r.q_ht[:, 1], 0.0)
